/**
 * The Document Signing node as an AI Agent's tool in a real n8n 2.41: Manual Trigger → Chat Input
 * → AI Agent, with an OpenAI Chat Model whose credential points at a scripted OpenAI-compatible
 * server on 127.0.0.1 (harness/scriptedModel.ts) and three Document Signing tools whose fields the
 * model fills with `$fromAI()`. Each scenario is a scripted conversation: the model calls tools
 * with arguments, reads their answers, and replies; the test checks what the model read, what the
 * agent answered and what the sandbox then holds.
 *
 * Every scenario runs with the AI Agent's default version (3.1) and the previous major version
 * (2.2), in workflows whose Execution Order is v1, as n8n gives every new workflow. (With the
 * legacy order v0, n8n 2.41's AI Agent 3 reads each tool's result before the tool has run: the
 * model gets `""`; see docs/ai-agents.md.)
 *
 * One more run goes through a public Chat Trigger answering by streaming: AI Agent 3.1 then asks
 * the model for a stream (server-sent events from the scripted model) and streams its answer.
 *
 * One n8n for the file; one sandbox account and credential per scenario and version.
 */
import { randomUUID } from 'node:crypto';

import { startSandbox, type Sandbox } from '../sandbox';
import {
	AGENT_VERSIONS,
	OPENAI_CREDENTIAL_TYPE,
	agentWorkflow,
	createDocumentTool,
	fromAI,
	signingTool,
	type AgentWorkflowJson,
} from './harness/agentWorkflows';
import { createN8n, newId, type N8nInstance, type RunData } from './harness/n8n';
import {
	offeredTools,
	parseToolResult,
	startScriptedModel,
	toolResults,
	type ChatRequest,
	type OfferedTool,
	type ScriptedModel,
	type ScriptedTurn,
} from './harness/scriptedModel';
import {
	importWorkflows,
	nodeItems,
	nodeRuns,
	sandboxPost,
	type CredentialRef,
	type WorkflowJson,
} from './harness/workflows';

const SCENARIOS = ['create', 'find', 'remind', 'badArgument', 'tenCalls', 'legacyOrder'] as const;
type Scenario = (typeof SCENARIOS)[number];
const VERSIONS = [AGENT_VERSIONS.default, AGENT_VERSIONS.previousMajor];
type Key = `${Scenario}@${number}`;
const keyOf = (scenario: Scenario, version: number): Key => `${scenario}@${version}`;

let sandbox: Sandbox;
let model: ScriptedModel;
let n8n: N8nInstance;
const modelCredential: CredentialRef = { id: newId(), name: 'Scripted model' };
const accounts = new Map<Key, { apiKey: string; credential: CredentialRef }>();
const workflowIds = new Map<Key, string>();
/** The tools n8n offered the model, by agent version (recorded by the create scenario). */
const toolsSeen = new Map<number, OfferedTool[]>();

/** The $fromAI() fields the README recommends, as the tools are set up here. */
function documentSigningTools(credential: CredentialRef) {
	return [
		createDocumentTool('Create Document', credential),
		signingTool(
			'Find Documents',
			{
				resource: 'document',
				operation: 'getAll',
				returnAll: false,
				limit: 10,
				filters: {
					q: fromAI('nameContains', "Part of the document's file name to look for, e.g. acme"),
				},
			},
			credential,
		),
		signingTool(
			'Send Reminder',
			{
				resource: 'signingRequest',
				operation: 'remind',
				signingRequestId: fromAI(
					'signingRequestId',
					"The document's signature_request_id, e.g. sr_4k2m9q",
				),
			},
			credential,
		),
	];
}

const promptOf = (scenario: Scenario, version: number): string =>
	({
		create: 'Send nda-acme.pdf to Jane Doe (jane.doe@acme.example) for signature.',
		find: 'What is the status of the Acme master services agreement?',
		remind: 'Remind the signers of msa-initech.pdf.',
		badArgument: 'Send the offer letter to Sam, sam-at-example.',
		tenCalls: 'Send each of the ten partner agreements to its partner.',
		legacyOrder: 'Send nda-legacy.pdf to Jane Doe (jane.doe@acme.example) for signature.',
	})[scenario] + ` [agent ${version}]`;

/** The JSON the model read as the answer of each tool call of a conversation, in order. */
function answersRead(prompt: string): unknown[] {
	const calls = model.callsFor(prompt);
	return toolResults(calls[calls.length - 1]).map((result) => parseToolResult(result.content));
}

/** The last tool answer in a request, parsed. */
function lastAnswer(request: ChatRequest): any {
	const results = toolResults(request);
	return parseToolResult(results[results.length - 1].content);
}

const SCRIPTS: Record<Scenario, (version: number) => ScriptedTurn[]> = {
	create: () => [
		{
			toolCalls: [
				{
					name: 'Create_Document',
					arguments: {
						documentName: 'nda-acme.pdf',
						signerEmail: 'jane.doe@acme.example',
						signerName: 'Jane Doe',
					},
				},
			],
		},
		(request) => {
			const [document] = lastAnswer(request);
			return {
				text: `Sent ${document.name} (${document.id}) to Jane Doe: ${document.status}. Signing link: ${document.signing_url}`,
			};
		},
	],
	find: () => [
		{ toolCalls: [{ name: 'Find_Documents', arguments: { nameContains: 'msa-acme' } }] },
		(request) => {
			const found = lastAnswer(request) as Array<{ name: string; status: string }>;
			return { text: found.map((document) => `${document.name} is ${document.status}`).join('; ') };
		},
	],
	remind: () => [
		{ toolCalls: [{ name: 'Find_Documents', arguments: { nameContains: 'msa-initech' } }] },
		(request) => {
			const [document] = lastAnswer(request);
			return {
				toolCalls: [
					{ name: 'Send_Reminder', arguments: { signingRequestId: document.signature_request_id } },
				],
			};
		},
		(request) => {
			const [reminded] = lastAnswer(request);
			return { text: `Reminded (${reminded.reminders_sent} reminder(s) sent so far).` };
		},
	],
	badArgument: () => [
		{
			toolCalls: [
				{
					name: 'Create_Document',
					arguments: {
						documentName: 'offer-letter.pdf',
						signerEmail: 'sam-at-example',
						signerName: 'Sam',
					},
				},
			],
		},
		(request) => ({ text: `I could not send it: ${JSON.stringify(lastAnswer(request))}` }),
	],
	// Two turns of five calls each: parallel calls in one answer, and calls in a later iteration.
	tenCalls: () => [
		...[0, 5].map(
			(first): ScriptedTurn => ({
				toolCalls: Array.from({ length: 5 }, (_, offset) => {
					const number = first + offset + 1;
					return {
						name: 'Create_Document',
						arguments: {
							documentName: `partner-agreement-${number}.pdf`,
							signerEmail: `partner${number}@example.com`,
							signerName: `Partner ${number}`,
						},
					};
				}),
			}),
		),
		{ text: 'All ten agreements are out for signature.' },
	],
	legacyOrder: () => [
		{
			toolCalls: [
				{
					name: 'Create_Document',
					arguments: {
						documentName: 'nda-legacy.pdf',
						signerEmail: 'jane.doe@acme.example',
						signerName: 'Jane Doe',
					},
				},
			],
		},
		(request) => ({ text: `Read: ${JSON.stringify(lastAnswer(request))}` }),
	],
};

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
	model = await startScriptedModel();
	n8n = await createN8n({ sandboxBaseUrl: sandbox.baseUrl, logLevel: 'info' });
	const workflows: WorkflowJson[] = [];
	const keys: Key[] = [];
	for (const scenario of SCENARIOS) {
		for (const version of VERSIONS) {
			const key = keyOf(scenario, version);
			const credential = { id: newId(), name: `Document Signing (${key})` };
			accounts.set(key, { apiKey: sandbox.createAccount().apiKey, credential });
			const prompt = promptOf(scenario, version);
			model.script(prompt, SCRIPTS[scenario](version));
			const workflow: AgentWorkflowJson = agentWorkflow({
				name: `Agent ${key}`,
				prompt,
				agentVersion: version,
				tools: documentSigningTools(credential),
				modelCredential,
			});
			// Execution Order v0: what a workflow imported without `settings.executionOrder` gets.
			if (scenario === 'legacyOrder') workflow.settings = { executionOrder: 'v0' };
			workflows.push(workflow as unknown as WorkflowJson);
			keys.push(key);
		}
	}
	await n8n.importCredentials([
		{
			...modelCredential,
			type: OPENAI_CREDENTIAL_TYPE,
			data: { apiKey: 'sk-scripted', url: model.baseUrl },
		},
		...[...accounts.values()].map(({ apiKey, credential }) =>
			n8n.documentSigningCredential({ ...credential, apiKey }),
		),
	]);
	const ids = await importWorkflows(n8n, workflows);
	keys.forEach((key, index) => workflowIds.set(key, ids[index]));
});

afterAll(async () => {
	await n8n?.dispose();
	await model?.close();
	await sandbox?.close();
});

/** Runs a scenario's workflow; the run must succeed and the script must have been played to its end. */
async function runScenario(
	scenario: Scenario,
	version: number,
): Promise<{ run: RunData; apiKey: string; prompt: string; output: string }> {
	const key = keyOf(scenario, version);
	const prompt = promptOf(scenario, version);
	const result = await n8n.execute(workflowIds.get(key)!);
	expect({ status: result.status, error: result.error?.message }).toEqual({
		status: 'success',
		error: undefined,
	});
	expect(model.answered(prompt)).toBe(SCRIPTS[scenario](version).length);
	const [agentItem] = nodeItems(result.run, 'AI Agent');
	return {
		run: result.run,
		apiKey: accounts.get(key)!.apiKey,
		prompt,
		output: String(agentItem.json.output),
	};
}

describe.each(VERSIONS)(
	'AI Agent %s with the Document Signing tools (Execution Order v1)',
	(version) => {
		it('creates and sends a document to the named signer; the model reads the document back (id, status, signing link)', async () => {
			const { apiKey, prompt, output } = await runScenario('create', version);

			const documents = sandbox.store.documentsOf(apiKey);
			expect(documents).toHaveLength(1);
			const [document] = documents;
			expect(document).toMatchObject({ name: 'nda-acme.pdf', status: 'pending' });
			expect(document.signers.map((signer) => [signer.email, signer.name])).toEqual([
				['jane.doe@acme.example', 'Jane Doe'],
			]);

			const [answer] = answersRead(prompt) as Array<Array<Record<string, unknown>>>;
			expect(answer).toEqual([
				expect.objectContaining({
					id: document.id,
					status: 'pending',
					signing_url: document.signing_url,
					signature_request_id: document.signature_request_id,
				}),
			]);
			expect(output).toBe(
				`Sent nda-acme.pdf (${document.id}) to Jane Doe: pending. Signing link: ${document.signing_url}`,
			);

			toolsSeen.set(version, offeredTools(model.callsFor(prompt)[0]));
		});

		it('finds a document by name and reports its status', async () => {
			const { apiKey } = accounts.get(keyOf('find', version))!;
			const signed = await sandboxPost(sandbox, apiKey, '/documents', {
				name: 'msa-acme.pdf',
				signers: [{ email: 'cfo@acme.example', name: 'Ann Acme' }],
			});
			for (const signer of signed.signers) sandbox.actAsSigner(signed.id, signer.id, 'sign');
			await sandboxPost(sandbox, apiKey, '/documents', {
				name: 'msa-globex.pdf',
				signers: [{ email: 'cfo@globex.example', name: 'Gus Globex' }],
			});

			const { prompt, output } = await runScenario('find', version);

			const [found] = answersRead(prompt) as Array<Array<Record<string, unknown>>>;
			expect(found).toEqual([
				expect.objectContaining({ id: signed.id, name: 'msa-acme.pdf', status: 'completed' }),
			]);
			expect(output).toBe('msa-acme.pdf is completed');
			// Reading changed nothing.
			expect(
				sandbox.store
					.documentsOf(apiKey)
					.map((document) => [document.name, document.status])
					.sort(),
			).toEqual([
				['msa-acme.pdf', 'completed'],
				['msa-globex.pdf', 'pending'],
			]);
		});

		it('reminds the signers of a pending signing request found by name', async () => {
			const { apiKey } = accounts.get(keyOf('remind', version))!;
			const pending = await sandboxPost(sandbox, apiKey, '/documents', {
				name: 'msa-initech.pdf',
				signers: [
					{ email: 'bill@initech.example', name: 'Bill Lumbergh' },
					{ email: 'peter@initech.example', name: 'Peter Gibbons' },
				],
			});

			const { prompt, output } = await runScenario('remind', version);

			const [request] = sandbox.store.signingRequestsOf(apiKey);
			expect(request).toMatchObject({
				id: pending.signature_request_id,
				document_id: pending.id,
				status: 'pending',
				reminders_sent: 1,
			});
			const [, reminded] = answersRead(prompt) as Array<Array<Record<string, unknown>>>;
			expect(reminded).toEqual([
				expect.objectContaining({ id: pending.signature_request_id, reminders_sent: 1 }),
			]);
			expect(output).toBe('Reminded (1 reminder(s) sent so far).');
		});

		it("hands the model the node's error for a bad argument (an invalid email) as the tool's answer; nothing is sent and the run goes on", async () => {
			const { apiKey, prompt, output, run } = await runScenario('badArgument', version);

			expect(sandbox.store.documentsOf(apiKey)).toEqual([]);
			const [answer] = answersRead(prompt);
			expect(answer).toEqual([
				{ error: 'Signers › Signer 1 › Email: "sam-at-example" is not a valid email address' },
			]);
			expect(output).toBe(`I could not send it: ${JSON.stringify(answer)}`);
			expect(nodeRuns(run, 'Create Document')).toHaveLength(1);
		});

		it('makes 10 tool calls in one run, 5 at a time: each reaches the service once (10 documents, one per call)', async () => {
			// Requests the sandbox answered (this file's only n8n runs one scenario at a time).
			const createRequests = () => sandbox.stats().routes['POST /v1/documents'] ?? 0;
			const before = createRequests();
			const { apiKey, prompt, output, run } = await runScenario('tenCalls', version);
			expect(createRequests() - before).toBe(10);

			const names = Array.from({ length: 10 }, (_, index) => `partner-agreement-${index + 1}.pdf`);
			const documents = sandbox.store.documentsOf(apiKey);
			expect(documents.map((document) => document.name).sort()).toEqual([...names].sort());
			for (const document of documents) {
				const index = names.indexOf(document.name) + 1;
				expect(document.signers.map((signer) => signer.email)).toEqual([
					`partner${index}@example.com`,
				]);
			}
			// The model read each call's own document, in the order it made the calls.
			const answers = answersRead(prompt) as Array<Array<Record<string, unknown>>>;
			expect(answers.map(([document]) => document.name)).toEqual(names);
			expect(new Set(answers.map(([document]) => document.id)).size).toBe(10);
			expect(nodeRuns(run, 'Create Document')).toHaveLength(10);
			expect(output).toBe('All ten agreements are out for signature.');
		});
	},
);

describe('a workflow with the legacy Execution Order (v0)', () => {
	it('AI Agent 3.1 reads an empty result before its tool runs: the tool refuses, sends nothing, and fails the run naming the fix', async () => {
		const key = keyOf('legacyOrder', AGENT_VERSIONS.default);
		const prompt = promptOf('legacyOrder', AGENT_VERSIONS.default);
		const result = await n8n.execute(workflowIds.get(key)!);

		const fix =
			'This workflow\'s Execution Order must be "v1 (recommended)" for an AI Agent to read this tool\'s results';
		expect({ status: result.status, error: result.error?.message }).toEqual({
			status: 'error',
			error: fix,
		});
		expect(answersRead(prompt)).toEqual(['']);
		expect(String(nodeItems(result.run, 'AI Agent')[0].json.output)).toBe('Read: ""');
		expect(sandbox.store.documentsOf(accounts.get(key)!.apiKey)).toEqual([]);
		expect(
			nodeRuns(result.run, 'Create Document').map((toolRun) => toolRun.error?.message),
		).toEqual([fix]);
	});

	it('AI Agent 2.2 runs its tools itself: the model reads the document', async () => {
		const { apiKey, prompt } = await runScenario('legacyOrder', AGENT_VERSIONS.previousMajor);

		const [document] = sandbox.store.documentsOf(apiKey);
		expect(answersRead(prompt)).toEqual([
			[expect.objectContaining({ id: document.id, name: 'nda-legacy.pdf', status: 'pending' })],
		]);
	});
});

describe('a streaming chat (Chat Trigger answering by streaming, AI Agent 3.1 streaming)', () => {
	it('the model is asked for a stream, calls the tool, reads the document and its answer streams back to the chat', async () => {
		const { apiKey, credential } = {
			apiKey: sandbox.createAccount().apiKey,
			credential: { id: newId(), name: 'Document Signing (streaming)' },
		};
		await n8n.importCredentials([n8n.documentSigningCredential({ ...credential, apiKey })]);
		const webhookId = randomUUID();
		const prompt = 'Stream: send nda-stream.pdf to Jane Doe (jane.doe@acme.example).';
		model.script(prompt, [
			{
				toolCalls: [
					{
						name: 'Create_Document',
						arguments: {
							documentName: 'nda-stream.pdf',
							signerEmail: 'jane.doe@acme.example',
							signerName: 'Jane Doe',
						},
					},
				],
			},
			(request) => ({
				text: `Sent ${(lastAnswer(request) as Array<Record<string, string>>)[0].id}`,
			}),
		]);
		const base = agentWorkflow({
			name: 'Agent streaming',
			prompt,
			agentVersion: AGENT_VERSIONS.default,
			tools: documentSigningTools(credential).slice(0, 1),
			modelCredential,
		});
		const chatTrigger = {
			id: randomUUID(),
			name: 'When chat message received',
			type: '@n8n/n8n-nodes-langchain.chatTrigger',
			typeVersion: 1.2,
			position: [0, 0] as [number, number],
			webhookId,
			parameters: { public: true, mode: 'webhook', options: { responseMode: 'streaming' } },
		};
		const agent = base.nodes.find((node) => node.name === 'AI Agent')!;
		agent.parameters = { promptType: 'auto', options: {} };
		const workflow = {
			...base,
			nodes: [
				chatTrigger,
				...base.nodes.filter((node) => node.name !== 'Start' && node.name !== 'Chat Input'),
			],
			connections: {
				...Object.fromEntries(
					Object.entries(base.connections).filter(
						([from]) => from !== 'Start' && from !== 'Chat Input',
					),
				),
				[chatTrigger.name]: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
			},
		};
		const [id] = await importWorkflows(n8n, [workflow as unknown as WorkflowJson]);
		await n8n.start();
		await n8n.activate(id);

		const response = await fetch(n8n.productionWebhookUrl(`${webhookId}/chat`), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ action: 'sendMessage', sessionId: 'stream-1', chatInput: prompt }),
			signal: AbortSignal.timeout(60_000),
		});
		const body = await response.text();
		const [document] = sandbox.store.documentsOf(apiKey);
		expect(document).toMatchObject({ name: 'nda-stream.pdf', status: 'pending' });
		expect(model.callsFor(prompt).map((call) => call.stream)).toEqual([true, true]);
		expect(answersRead(prompt)).toEqual([[expect.objectContaining({ id: document.id })]]);
		// The chat receives the answer as streamed chunks (JSON lines of type `item`).
		const streamed = body
			.split('\n')
			.filter((line) => line.trim().startsWith('{'))
			.map((line) => JSON.parse(line) as { type?: string; content?: string })
			.filter((chunk) => chunk.type === 'item')
			.map((chunk) => chunk.content)
			.join('');
		expect(streamed).toBe(`Sent ${document.id}`);
		await n8n.deactivate(id);
	});
});

describe('what the model sees', () => {
	it('both agent versions offer the same tools, named after the nodes, described from the operation, with the $fromAI() fields as the arguments', () => {
		expect([...toolsSeen.keys()].sort()).toEqual([...VERSIONS].sort());
		const [first, ...others] = [...toolsSeen.values()];
		for (const other of others) expect(other).toEqual(first);
		expect(first).toMatchSnapshot();
	});
});
