/**
 * The shipped examples (examples/*.json), imported as they are into a real n8n and run against
 * the sandbox in this jest process, with the one credential they all name
 * (`documentSigningSandbox`):
 *
 * - CRM deal won: activated, its production webhook called as a CRM would call it;
 * - Document completed: activated (the trigger registers its webhook with the sandbox), then a
 *   document is signed by everyone on the sandbox, whose signed delivery starts the execution;
 * - One agreement per row: executed with `n8n execute` (which ends when the execution waits), then
 *   the running server resumes it once every row's agreement is final;
 * - AI agent contract assistant: activated, chat messages sent to its public chat webhook; its
 *   OpenAI credential (`openAiExample`) points at a scripted OpenAI-compatible model on 127.0.0.1;
 * - CRM deal won → Send and Wait for Signature: activated, its production webhook called; the
 *   execution waits until the contact signs on the sandbox, then updates the deal and archives
 *   the signed PDF.
 * - CRM deal won → contract from a template, filled with the deal → Send and Wait: activated, its
 *   production webhook called; the document carries the deal's values (its PDF text shows them),
 *   the contact signs by role, the deal is updated; a deal without a required value stops the
 *   execution naming the field, with nothing sent. The example is node version 2 (Document From ›
 *   Template); the same workflow as saved by version 1 (the template under Additional Fields, a
 *   webhook path of its own) runs alongside it and makes the same contract.
 * - Create a document, then check until it is signed (for an n8n the service cannot reach):
 *   executed with `n8n execute`, which returns when the execution ends; meanwhile the document it
 *   created is signed on the sandbox once its loop (Wait → Get Document → Final State?) has gone
 *   round; it ends with the document's id, `completed` and `approved: true`, having sent the
 *   service nothing but the create and the gets.
 *
 * Three changes are made on import, each as the example's note tells users to do: the archive
 * folder of "Document completed" (`/home/node/.n8n-files`, n8n's Docker default) is pointed at a
 * temporary folder that n8n is allowed to write to (N8N_RESTRICT_FILE_ACCESS_TO), the template
 * of "contract from a template" is the sandbox's own "Sales contract" (its id in place of the
 * example's), and the Wait of "check until signed" waits 2 seconds instead of 5 minutes (its
 * note: "choose your interval").
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { readPdf } from '../test/helpers/pdfText';
import { SALES_CONTRACT } from '../test/helpers/templates';
import { startSandbox, type Sandbox } from '../sandbox';
import { OPENAI_CREDENTIAL_TYPE, TOOL_NODE_TYPE } from './harness/agentWorkflows';
import {
	CREDENTIAL_TYPE,
	NODE_TYPE,
	TRIGGER_NODE_TYPE,
	createN8n,
	type ExecuteResult,
	type N8nInstance,
} from './harness/n8n';
import {
	lastToolAnswer,
	startScriptedModel,
	toolResults,
	type ScriptedModel,
} from './harness/scriptedModel';
import { waitFor } from '../test/helpers/sandbox';
import {
	exampleFiles,
	executionItems,
	importWorkflows,
	loadExample,
	nodeItems,
	nodeRuns,
	SANDBOX_CREDENTIAL,
	sandboxPost,
	type WorkflowJson,
} from './harness/workflows';

const EXAMPLES = {
	crm: 'crm-deal-won-create-document.json',
	completed: 'document-completed-notify-archive.json',
	bulk: 'bulk-send-from-list.json',
	agent: 'ai-agent-contract-assistant.json',
	waitForSignature: 'crm-deal-won-wait-for-signature.json',
	fromTemplate: 'crm-deal-won-contract-from-template.json',
	checkUntilSigned: 'create-and-check-until-signed.json',
} as const;
type ExampleName = keyof typeof EXAMPLES | 'fromTemplateV1';
/** The "contract from a template" example as node version 1 saved it, on a webhook path of its own. */
const FROM_TEMPLATE_V1_PATH = 'crm-deal-won-contract-from-template-v1';
const EXAMPLE_FILES_ROOT = '/home/node/.n8n-files';
/** The template the "contract from a template" example names (its fields are those of SALES_CONTRACT). */
const EXAMPLE_TEMPLATE_ID = 'tpl_salescontract';
/** The chat trigger's webhook ID in the AI agent example. */
const CHAT_WEBHOOK_ID = '8d3f6a2e-1c4b-4e7f-9a0d-5b2c8e1f3a47';
/** The Wait of "check until signed": the example's 5 minutes, and the interval on import. */
const EXAMPLE_CHECK_INTERVAL = { amount: 5, unit: 'minutes' };
const CHECK_INTERVAL = { amount: 2, unit: 'seconds' };
const WAIT_NODE_TYPE = 'n8n-nodes-base.wait';

let sandbox: Sandbox;
let model: ScriptedModel;
let n8n: N8nInstance;
let apiKey: string;
const filesRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-examples-files-'));
const archiveDir = path.join(filesRoot, 'signed-documents');
const workflowIds = {} as Record<ExampleName, string>;
let salesContract: { id: string };

beforeAll(async () => {
	sandbox = await startSandbox({
		port: 0,
		webhookRetry: { baseDelayMs: 100, maxAttempts: 3, timeoutMs: 5000 },
	});
	apiKey = sandbox.createAccount().apiKey;
	fs.mkdirSync(archiveDir);
	model = await startScriptedModel();
	n8n = await createN8n({
		sandboxBaseUrl: sandbox.baseUrl,
		env: { N8N_RESTRICT_FILE_ACCESS_TO: filesRoot },
	});
	await n8n.importCredentials([
		n8n.documentSigningCredential({ ...SANDBOX_CREDENTIAL, apiKey }),
		{
			id: 'openAiExample',
			name: 'OpenAI account',
			type: OPENAI_CREDENTIAL_TYPE,
			data: { apiKey: 'sk-scripted', url: model.baseUrl },
		},
	]);
	salesContract = await sandboxPost(sandbox, apiKey, '/templates', SALES_CONTRACT);
	const names = Object.keys(EXAMPLES) as Array<keyof typeof EXAMPLES>;
	const workflows = names.map((name) => {
		const text = JSON.stringify(loadExample(EXAMPLES[name]))
			.split(EXAMPLE_FILES_ROOT)
			.join(filesRoot)
			.split(EXAMPLE_TEMPLATE_ID)
			.join(salesContract.id);
		const workflow = JSON.parse(text) as WorkflowJson;
		for (const node of workflow.nodes)
			if (name === 'checkUntilSigned' && node.type === WAIT_NODE_TYPE)
				node.parameters = { ...node.parameters, ...CHECK_INTERVAL };
		return workflow;
	});
	const fromTemplate = workflows[names.indexOf('fromTemplate')];
	const ids = await importWorkflows(n8n, [...workflows, savedByVersion1(fromTemplate)]);
	[...names, 'fromTemplateV1' as const].forEach((name, index) => (workflowIds[name] = ids[index]));
	await n8n.start();
});

/**
 * The template example as version 1 of the node saved it: the template under Additional Fields ›
 * Template, Document (`documentSource`) New Document; and a webhook path and name of its own.
 */
function savedByVersion1(example: WorkflowJson): WorkflowJson {
	const nodes = example.nodes.map((node) => {
		if (node.type === 'n8n-nodes-base.webhook')
			return {
				...node,
				webhookId: `${String(node.webhookId)}-v1`,
				parameters: { ...node.parameters, path: FROM_TEMPLATE_V1_PATH },
			};
		if (node.type !== NODE_TYPE) return node;
		const { documentFrom, documentTemplate, additionalFields, ...rest } = node.parameters as Record<
			string,
			unknown
		>;
		expect(documentFrom).toBe('template');
		return {
			...node,
			typeVersion: 1,
			parameters: {
				...rest,
				documentSource: 'new',
				additionalFields: {
					...(additionalFields as Record<string, unknown>),
					template_id: documentTemplate,
				},
			},
		};
	});
	return { ...example, name: `${example.name} (node version 1)`, nodes };
}

/** The execution `id` (among those `executions` lists) once it has resumed and ended. */
async function resumedAndEnded(
	executions: () => ReturnType<N8nInstance['executions']>,
	id: string,
) {
	return await waitFor(
		async () =>
			(await executions()).find(
				(execution) =>
					execution.id === id && !['new', 'running', 'waiting'].includes(execution.status),
			),
		'the execution resumed and finished',
		60_000,
	);
}

/** The signed deal's execution: resumed, ended in success, and the deal updated once with the signed document. */
async function expectDealSigned(
	executions: () => ReturnType<N8nInstance['executions']>,
	id: string,
	apiKey: string,
	documentId: string,
	dealId: string,
) {
	const done = await resumedAndEnded(executions, id);
	expect({ status: done.status, error: done.data?.resultData.error?.message }).toEqual({
		status: 'success',
		error: undefined,
	});
	const [stored] = sandbox.store.documentsOf(apiKey).filter((doc) => doc.id === documentId);
	expect(executionItems(done, 'Update Deal: Contract Signed')).toEqual([
		{
			deal_id: dealId,
			stage: 'contract_signed',
			signed_at: stored.completed_at,
			document_id: documentId,
		},
	]);
	return done;
}

afterAll(async () => {
	await n8n?.dispose();
	await model?.close();
	await sandbox?.close();
	fs.rmSync(filesRoot, { recursive: true, force: true });
});

describe('the examples folder', () => {
	it('holds these seven examples; every node is one n8n knows, every credential the shared sandbox one', async () => {
		expect(exampleFiles()).toEqual(Object.values(EXAMPLES).sort());

		const response = await fetch(`${n8n.baseUrl}/types/nodes.json`, { headers: n8n.authHeaders() });
		const known = new Map<string, number[]>();
		for (const type of (await response.json()) as Array<{
			name: string;
			version: number | number[];
		}>) {
			known.set(type.name, [
				...(known.get(type.name) ?? []),
				...([] as number[]).concat(type.version),
			]);
		}
		for (const file of exampleFiles()) {
			const example = loadExample(file);
			expect(example.name).toEqual(expect.any(String));
			for (const node of example.nodes) {
				expect({
					file,
					node: node.name,
					type: node.type,
					known: known.get(node.type)?.includes(node.typeVersion),
				}).toEqual({
					file,
					node: node.name,
					type: node.type,
					known: true,
				});
				if (
					node.type === NODE_TYPE ||
					node.type === TRIGGER_NODE_TYPE ||
					node.type === TOOL_NODE_TYPE
				) {
					expect({ file, node: node.name, credentials: node.credentials }).toEqual({
						file,
						node: node.name,
						credentials: { [CREDENTIAL_TYPE]: SANDBOX_CREDENTIAL },
					});
				}
			}
			// Every connection joins nodes of the workflow.
			const names = new Set(example.nodes.map((node) => node.name));
			for (const [from, outputs] of Object.entries(
				example.connections as Record<string, Record<string, Array<Array<{ node: string }>>>>,
			)) {
				expect(names.has(from)).toBe(true);
				for (const target of Object.values(outputs).flat(2))
					expect({ from, to: target.node, exists: names.has(target.node) }).toEqual({
						from,
						to: target.node,
						exists: true,
					});
			}
		}
	});
});

describe('CRM deal won → create document from a template', () => {
	it('the CRM’s webhook call creates the contract from its template, signed by the deal’s contact', async () => {
		const template = await sandboxPost(sandbox, apiKey, '/templates', {
			name: 'Master services agreement',
			document_name: 'msa.pdf',
			message: 'Welcome aboard! Please sign the MSA.',
			signer_roles: [{ role: 'Client' }],
			metadata: { template: 'msa-2026' },
		});
		await n8n.activate(workflowIds.crm);

		const call = await fetch(n8n.productionWebhookUrl('crm-deal-won'), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				template_id: template.id,
				deal: { id: 'D-1001', name: 'ACME renewal', amount: 12000 },
				contact: { email: 'jane.doe@acme.example', name: 'Jane Doe' },
			}),
			signal: AbortSignal.timeout(30_000),
		});
		expect(call.status).toBe(200);
		const reply = (await call.json()) as Record<string, string>;

		const documents = sandbox.store
			.documentsOf(apiKey)
			.filter((doc) => doc.template_id === template.id);
		expect(documents).toHaveLength(1);
		const [document] = documents;
		expect(reply).toEqual({
			document_id: document.id,
			status: 'pending',
			signing_url: document.signing_url,
			deal_id: 'D-1001',
		});
		expect(document).toMatchObject({
			name: 'Contract D-1001.pdf',
			status: 'pending',
			message: 'Welcome aboard! Please sign the MSA.',
			metadata: {
				template: 'msa-2026',
				deal_id: 'D-1001',
				deal_name: 'ACME renewal',
				source: 'crm',
			},
		});
		expect(document.signers.map((signer) => [signer.email, signer.name, signer.order])).toEqual([
			['jane.doe@acme.example', 'Jane Doe', 1],
		]);

		const [execution] = await n8n.waitForExecutions(workflowIds.crm);
		expect({ status: execution.status, mode: execution.mode }).toEqual({
			status: 'success',
			mode: 'webhook',
		});
		await n8n.deactivate(workflowIds.crm);
	});
});

describe('Document completed → notify and archive', () => {
	it('a document signed by everyone starts it: the message is composed, the signed PDF and the audit trail archived', async () => {
		await n8n.activate(workflowIds.completed);
		// Activation registered the trigger's webhook with the service.
		const [webhook] = sandbox.store.webhooksOf(apiKey);
		expect(webhook).toMatchObject({ events: ['document.completed'], active: true });
		expect(webhook.url.startsWith(`${n8n.baseUrl}/webhook/`)).toBe(true);

		const created = await sandboxPost(sandbox, apiKey, '/documents', {
			name: 'msa-acme.pdf',
			signers: [
				{ email: 'jane.doe@acme.example', name: 'Jane Doe' },
				{ email: 'sam@ourco.example', name: 'Sam Seller' },
			],
		});
		for (const signer of created.signers) sandbox.actAsSigner(created.id, signer.id, 'sign');
		await sandbox.flushDeliveries();

		const delivered = sandbox.deliveries().filter((attempt) => attempt.webhookId === webhook.id);
		expect(delivered.map((attempt) => [attempt.event, attempt.status])).toEqual([
			['document.completed', 200],
		]);

		const [execution] = await n8n.waitForExecutions(workflowIds.completed);
		expect({ status: execution.status, mode: execution.mode }).toEqual({
			status: 'success',
			mode: 'webhook',
		});
		const run = { data: execution.data! };
		const [stored] = sandbox.store.documentsOf(apiKey).filter((doc) => doc.id === created.id);
		const [notification] = nodeItems(run, 'Compose Notification').map((item) => item.json);
		expect(notification).toEqual({
			subject: 'Signed: msa-acme.pdf',
			text: `"msa-acme.pdf" has been signed by everyone: Jane Doe <jane.doe@acme.example>, Sam Seller <sam@ourco.example>. Completed at ${stored.completed_at}.`,
			document_id: created.id,
			link: created.signing_url,
		});

		// The archive: the signed PDF, byte for byte the service's, a PDF a reader opens with the
		// signers' names in it; and the audit trail.
		const archived = fs.readFileSync(path.join(archiveDir, `${created.id}-signed.pdf`));
		expect(archived.equals((await sandbox.documentFile(created.id, 'signed')).data)).toBe(true);
		const pdf = await readPdf(archived);
		const text = pdf.pages.flat().join(' ');
		expect(text).toContain('Jane Doe');
		expect(text).toContain('Sam Seller');
		const trail = fs.readFileSync(path.join(archiveDir, `${created.id}-audit-trail.pdf`));
		expect(trail.subarray(0, 5).toString()).toBe('%PDF-');
		expect((await readPdf(trail)).pages.flat().join(' ')).toContain('msa-acme.pdf');

		await n8n.deactivate(workflowIds.completed);
		expect(sandbox.store.webhooksOf(apiKey)).toEqual([]);
	});
});

describe('One agreement per row, continue when all are signed', () => {
	it('sends every row its agreement from the template and waits once; when all are final it continues with one item per row, in order', async () => {
		// `n8n execute` ends when the execution waits; the running server resumes it.
		const result = await n8n.execute(workflowIds.bulk);
		expect({ status: result.status, error: result.error?.message }).toEqual({
			status: 'success',
			error: undefined,
		});
		const rows = nodeItems(result.run, 'Rows').map((item) => item.json);
		expect(rows).toHaveLength(3);
		const documents = rows.map((row) => {
			const sent = sandbox.store
				.documentsOf(apiKey)
				.filter((doc) => doc.name === `Partner agreement - ${String(row.company)}.pdf`);
			expect(sent).toHaveLength(1);
			expect(sent[0]).toMatchObject({
				status: 'pending',
				template_id: salesContract.id,
				signers: expect.arrayContaining([
					expect.objectContaining({ role: 'Client', email: row.email, name: row.name }),
				]),
			});
			return sent[0];
		});
		const waiting = await waitFor(
			async () =>
				(await n8n.executions({ workflowId: workflowIds.bulk })).find(
					(execution) => execution.status === 'waiting',
				),
			'the execution waiting for the agreements',
			60_000,
		);
		const webhooks = sandbox.store
			.webhooksOf(apiKey)
			.filter((webhook) => webhook.url.includes(`/webhook-waiting/${waiting.id}/`));
		expect(webhooks).toHaveLength(1);

		// Two sign, one declines: the workflow goes on once, when the last one has answered.
		const client = documents[1].signers.find((signer) => signer.role === 'Client')!;
		sandbox.actAsSigner(documents[1].id, client.id, 'decline', 'Not this year');
		for (const document of [documents[0], documents[2]])
			for (const signer of document.signers) sandbox.actAsSigner(document.id, signer.id, 'sign');
		const done = await waitFor(
			async () =>
				(await n8n.executions({ workflowId: workflowIds.bulk })).find(
					(execution) => execution.id === waiting.id && execution.status !== 'waiting',
				),
			'the execution to continue',
			60_000,
		);
		expect(done.status).toBe('success');
		expect(executionItems(done, 'Signed').map((item) => item.id)).toEqual([
			documents[0].id,
			documents[2].id,
		]);
		expect(executionItems(done, 'Not Signed')).toEqual([
			expect.objectContaining({ id: documents[1].id, status: 'declined', approved: false }),
		]);
		expect(done.data?.resultData.runData['Signed?']).toHaveLength(1);
		expect(
			sandbox.store
				.webhooksOf(apiKey)
				.filter((webhook) => webhook.url.includes(`/webhook-waiting/${waiting.id}/`)),
		).toEqual([]);
	});
});

describe('AI agent: contract assistant (chat)', () => {
	const chat = async (sessionId: string, chatInput: string) => {
		const response = await fetch(n8n.productionWebhookUrl(`${CHAT_WEBHOOK_ID}/chat`), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ action: 'sendMessage', sessionId, chatInput }),
			signal: AbortSignal.timeout(60_000),
		});
		expect(response.status).toBe(200);
		return (await response.json()) as { output: string };
	};

	it('a chat message has the agent send the contract; the next one has it remind the signer, reading the ID from the document it finds', async () => {
		const send = 'Send nda-acme.pdf to Jane Doe (jane.doe@acme.example) for signature.';
		model.script(send, [
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
				const [document] = lastToolAnswer(request) as Array<Record<string, string>>;
				return {
					text: `Sent ${document.name} (${document.id}), ${document.status}: ${document.signing_url}`,
				};
			},
		]);
		const remind = 'Please remind Jane about the NDA.';
		model.script(remind, [
			{ toolCalls: [{ name: 'Find_Documents', arguments: { nameContains: 'nda-acme' } }] },
			(request) => {
				const [document] = lastToolAnswer(request) as Array<Record<string, string>>;
				return {
					toolCalls: [
						{
							name: 'Send_Reminder',
							arguments: { signingRequestId: document.signature_request_id },
						},
					],
				};
			},
			(request) => ({
				text: `Reminded: ${(lastToolAnswer(request) as Array<Record<string, number>>)[0].reminders_sent} reminder(s) so far.`,
			}),
		]);
		await n8n.activate(workflowIds.agent);

		const sent = await chat('session-1', send);
		const [document] = sandbox.store
			.documentsOf(apiKey)
			.filter((doc) => doc.name === 'nda-acme.pdf');
		expect(document.signers.map((signer) => [signer.email, signer.name])).toEqual([
			['jane.doe@acme.example', 'Jane Doe'],
		]);
		expect(sent.output).toBe(
			`Sent nda-acme.pdf (${document.id}), pending: ${document.signing_url}`,
		);
		// The system message and the memory reached the model: the second turn sees the first.
		const [firstCall] = model.callsFor(send);
		expect(firstCall.messages[0]).toMatchObject({ role: 'system' });
		expect(String(firstCall.messages[0].content)).toContain('signature_request_id');

		const reminded = await chat('session-1', remind);
		expect(reminded.output).toBe('Reminded: 1 reminder(s) so far.');
		const [request] = sandbox.store
			.signingRequestsOf(apiKey)
			.filter((entry) => entry.document_id === document.id);
		expect(request).toMatchObject({ id: document.signature_request_id, reminders_sent: 1 });
		const remindCalls = model.callsFor(remind);
		expect(remindCalls[0].messages.some((message) => String(message.content).includes(send))).toBe(
			true,
		);
		// The memory kept the first turn's tool result too; the last two are this turn's.
		expect(toolResults(remindCalls[remindCalls.length - 1])).toHaveLength(3);

		const executions = await n8n.waitForExecutions(workflowIds.agent, { count: 2 });
		expect(executions.map((execution) => execution.status)).toEqual(['success', 'success']);
		await n8n.deactivate(workflowIds.agent);
	});
});

describe('CRM deal won → send the contract and wait for its signature', () => {
	it('the execution waits until the contact signs, then updates the deal and archives the signed PDF', async () => {
		await n8n.activate(workflowIds.waitForSignature);
		const call = await fetch(n8n.productionWebhookUrl('crm-deal-won-wait-for-signature'), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				deal: { id: 'D-2001', name: 'ACME renewal' },
				contact: { email: 'jane.doe@acme.example', name: 'Jane Doe' },
			}),
			signal: AbortSignal.timeout(30_000),
		});
		expect(call.status).toBe(200);

		const executions = async () =>
			await n8n.executions({ workflowId: workflowIds.waitForSignature });
		const waiting = await waitFor(
			async () =>
				(await executions()).find(
					(execution) => execution.status !== 'new' && execution.status !== 'running',
				),
			'the execution waiting',
			60_000,
		);
		expect({ status: waiting.status, error: waiting.data?.resultData.error?.message }).toEqual({
			status: 'waiting',
			error: undefined,
		});
		const [document] = sandbox.store
			.documentsOf(apiKey)
			.filter((doc) => doc.metadata.deal_id === 'D-2001');
		expect(document).toMatchObject({
			name: 'Contract D-2001.pdf',
			status: 'pending',
			message: 'Please sign the contract for ACME renewal.',
		});
		expect(document.signers.map((signer) => [signer.email, signer.name])).toEqual([
			['jane.doe@acme.example', 'Jane Doe'],
		]);

		sandbox.actAsSigner(document.id, document.signers[0].id, 'sign');
		const done = await expectDealSigned(executions, waiting.id, apiKey, document.id, 'D-2001');
		expect(executionItems(done, 'Update Deal: Not Signed')).toEqual([]);
		const archived = fs.readFileSync(path.join(archiveDir, 'Contract D-2001 - signed.pdf'));
		expect(archived.equals((await sandbox.documentFile(document.id, 'signed')).data)).toBe(true);
		// The wait's webhook went with the wait.
		expect(
			sandbox.store
				.webhooksOf(apiKey)
				.filter((webhook) => webhook.url.includes(`/webhook-waiting/${waiting.id}/`)),
		).toEqual([]);
		await n8n.deactivate(workflowIds.waitForSignature);
	});
});

describe('CRM deal won → contract from a template, filled with the deal → wait for its signature', () => {
	const DEAL = {
		id: 'D-3001',
		name: 'Globex rollout',
		company: 'Globex Corporation',
		amount: 18500,
		start_date: '2026-03-01',
	};
	const CONTACT = { email: 'hank@globex.example', name: 'Hank Scorpio' };
	const callCrmWebhook = async (
		deal: Record<string, unknown>,
		webhookPath = 'crm-deal-won-contract-from-template',
	) => {
		const call = await fetch(n8n.productionWebhookUrl(webhookPath), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ deal, contact: CONTACT }),
			signal: AbortSignal.timeout(30_000),
		});
		expect(call.status).toBe(200);
	};
	const executions = async (workflow: ExampleName = 'fromTemplate') =>
		await n8n.executions({ workflowId: workflowIds[workflow] });
	/** The execution the next call starts, once it waits or ends. */
	const settled = async (known: string[], workflow: ExampleName = 'fromTemplate') =>
		await waitFor(
			async () =>
				(await executions(workflow)).find(
					(execution) =>
						!known.includes(execution.id) && !['new', 'running'].includes(execution.status),
				),
			'the execution to wait or end',
			60_000,
		);

	beforeAll(async () => {
		await n8n.activate(workflowIds.fromTemplate);
		await n8n.activate(workflowIds.fromTemplateV1);
	});
	afterAll(async () => {
		await n8n.deactivate(workflowIds.fromTemplate);
		await n8n.deactivate(workflowIds.fromTemplateV1);
	});

	it.each([
		[
			'the example (node version 2)',
			'fromTemplate',
			'crm-deal-won-contract-from-template',
			'D-3001',
		],
		['the same workflow as version 1 saved it', 'fromTemplateV1', FROM_TEMPLATE_V1_PATH, 'D-3101'],
	] as const)(
		"%s creates the contract from the template with the deal's values (in its PDF text) and the contact as Client; signing resumes it and the deal is updated",
		async (_title, workflow, webhookPath, dealId) => {
			await callCrmWebhook({ ...DEAL, id: dealId }, webhookPath);
			const waiting = await settled([], workflow);
			expect({ status: waiting.status, error: waiting.data?.resultData.error?.message }).toEqual({
				status: 'waiting',
				error: undefined,
			});
			const [document] = sandbox.store
				.documentsOf(apiKey)
				.filter((doc) => doc.template_id === salesContract.id && doc.name.includes(dealId));
			expect(document).toMatchObject({
				name: `Sales contract ${dealId}.pdf`,
				status: 'pending',
				message: 'Please sign the sales contract for Globex rollout.',
			});
			// The deal's values, the template's default for the plan, nothing for the rest.
			expect(document.fields.map(({ key, value }) => [key, value])).toEqual([
				['customer_name', 'Globex Corporation'],
				['price', 18500],
				['start_date', '2026-03-01'],
				['plan', 'Basic'],
				['auto_renew', null],
				['deal_id', dealId],
				['client_title', null],
			]);
			expect(document.signers.map(({ email, name, role }) => [email, name, role])).toEqual([
				[CONTACT.email, CONTACT.name, 'Client'],
				['sam@ourco.example', 'Sam Seller', 'Company'],
			]);
			const pdf = await readPdf((await sandbox.documentFile(document.id, 'original')).data);
			for (const line of [
				'Customer name: Globex Corporation',
				'Price: 18500',
				'Start date: 2026-03-01',
				`Deal ID: ${dealId}`,
				'Client: Hank Scorpio <hank@globex.example> (order 1)',
			])
				expect(pdf.text).toContain(line);

			for (const signer of document.signers) sandbox.actAsSigner(document.id, signer.id, 'sign');
			await expectDealSigned(
				async () => await executions(workflow),
				waiting.id,
				apiKey,
				document.id,
				dealId,
			);
		},
	);

	it('a deal without a required value stops the execution naming the field, and nothing is sent', async () => {
		const known = (await executions()).map((execution) => execution.id);
		const before = sandbox.stats().routes;
		const withoutStart: Record<string, unknown> = { ...DEAL, id: 'D-3002' };
		delete withoutStart.start_date;
		await callCrmWebhook(withoutStart);
		const failed = await settled(known);
		expect({ status: failed.status, error: failed.data?.resultData.error?.message }).toEqual({
			status: 'error',
			error: 'Template Fields › Start date: the template needs a value for this field',
		});
		// Not one request of this execution reached the service.
		expect(sandbox.stats().routes).toEqual(before);
		expect(
			sandbox.store.documentsOf(apiKey).filter((doc) => doc.name === 'Sales contract D-3002.pdf'),
		).toEqual([]);
	});
});

describe('Create a document, then check until it is signed', () => {
	const GET_DOCUMENT = 'GET /v1/documents/:id';
	/** The sandbox's requests per route since `before` (a `stats().routes`), those that changed. */
	const routesSince = (before: Record<string, number>) =>
		Object.fromEntries(
			Object.entries(sandbox.stats().routes)
				.map(([route, count]) => [route, count - (before[route] ?? 0)] as const)
				.filter(([, count]) => count !== 0),
		);

	it('loops Wait → Get Document while the document is pending; once everyone signs it ends with the id, completed and approved, having registered nothing at the service', async () => {
		const [wait] = loadExample(EXAMPLES.checkUntilSigned).nodes.filter(
			(node) => node.type === WAIT_NODE_TYPE,
		);
		expect(wait.parameters).toEqual({ resume: 'timeInterval', ...EXAMPLE_CHECK_INTERVAL });

		await sandbox.flushDeliveries();
		const known = new Set(sandbox.store.documentsOf(apiKey).map((doc) => doc.id));
		const webhooksBefore = sandbox.store.webhooksOf(apiKey);
		const routesBefore = sandbox.stats().routes;

		// `n8n execute` returns when the execution ends: the signer signs meanwhile. Should it end
		// first, the waits below stop with its result instead of running into their timeouts.
		let ended: ExecuteResult | Error | undefined;
		const running = n8n.execute(workflowIds.checkUntilSigned, { timeoutMs: 180_000 });
		running.then(
			(result) => (ended = result),
			(error: Error) => (ended = error),
		);
		const notEnded = () => {
			if (ended)
				throw new Error(
					`the execution ended early: ${ended instanceof Error ? ended.message : JSON.stringify({ status: ended.status, error: ended.error?.message })}`,
				);
		};
		const document = await waitFor(
			() => {
				notEnded();
				return sandbox.store.documentsOf(apiKey).find((doc) => !known.has(doc.id));
			},
			'the document the workflow creates',
			90_000,
		);
		expect(document).toMatchObject({
			name: 'NDA - ACME.pdf',
			status: 'pending',
			message: 'Hello Jane, please sign NDA - ACME.pdf.',
		});
		expect(document.signers.map((signer) => [signer.email, signer.name])).toEqual([
			['jane.doe@acme.example', 'Jane Doe'],
		]);
		// A second Get only follows a first that answered a state that is not final: the loop went
		// round while the document was unsigned.
		await waitFor(
			() => {
				notEnded();
				return (routesSince(routesBefore)[GET_DOCUMENT] ?? 0) >= 2;
			},
			'Get Document to run twice',
			60_000,
		);
		for (const signer of document.signers) sandbox.actAsSigner(document.id, signer.id, 'sign');

		const result = await running;
		expect({ status: result.status, error: result.error?.message }).toEqual({
			status: 'success',
			error: undefined,
		});
		const gets = nodeRuns(result.run, 'Get Document').map((run) =>
			(run.data?.main?.[0] ?? []).map((item) => [item.json.id, item.json.status]),
		);
		expect(gets.length).toBeGreaterThan(1);
		expect(gets).toEqual([
			...gets.slice(0, -1).map(() => [[document.id, 'pending']]),
			[[document.id, 'completed']],
		]);
		expect(nodeRuns(result.run, 'Wait')).toHaveLength(gets.length);
		const finals = nodeRuns(result.run, 'Signed or closed');
		expect(finals[finals.length - 1].data?.main?.[0]?.map((item) => item.json)).toEqual([
			{ id: document.id, status: 'completed', approved: true },
		]);
		expect(sandbox.store.documentsOf(apiKey).find((doc) => doc.id === document.id)?.status).toBe(
			'completed',
		);

		// The service got the create and one get per round, nothing else: no webhook registered.
		expect(routesSince(routesBefore)).toEqual({
			'POST /v1/documents': 1,
			[GET_DOCUMENT]: gets.length,
		});
		expect(sandbox.store.webhooksOf(apiKey)).toEqual(webhooksBefore);
		expect(webhooksBefore).toEqual([]);
	});
});
