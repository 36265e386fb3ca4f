/**
 * Send and Wait for Signature as an AI Agent's human-approval step, in a real n8n 2.41.
 *
 * n8n 2.41 makes a human-review gate (`documentSigningHitlTool`) of every node with a
 * `sendAndWait` operation (docs/ai-agents.md). Here the gate, named "Manager Approval", stands
 * between the AI Agent (default version 3.1) and a Document Signing tool, "Create Document": when
 * the model calls that tool, the gate first sends an approval document to the manager and the
 * execution waits. Signing it in the sandbox's signing page (headless Chromium) lets the gated
 * tool run, and the model reads the contract it created; declining it there never runs the
 * gated tool, and the model reads n8n's rejection. Under AI Agent 2.2 the gate does nothing at
 * all (the model reads `""`): it needs AI Agent 3. Under the legacy Execution Order v0 the agent
 * reads a rejection before the gate runs, and the gate then refuses to send an approval.
 *
 * Workflow: Webhook (as a CRM would call it) → Chat Input → AI Agent, with the OpenAI Chat Model
 * pointing at the scripted model on 127.0.0.1 (harness/scriptedModel.ts). One workflow, one
 * sandbox account and one prompt per scenario, so a scenario counts only its own executions,
 * documents and model calls.
 *
 * Needs the package built (`npm run build`) and /usr/bin/chromium (`bash scripts/e2e-prereqs.sh`).
 */
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';

import type { Page } from 'playwright-core';

import { startSandbox, type Sandbox } from '../sandbox';
import { deliverySignatureHeaders } from '../sandbox/deliverySignature';
import { webhookSecret } from '../test/helpers/sandbox';
import {
	AGENT_VERSIONS,
	OPENAI_CREDENTIAL_TYPE,
	agentNode,
	createDocumentTool,
	openAiChatModel,
	type AgentWorkflowJson,
} from './harness/agentWorkflows';
import { launchBrowser, signEverySigner } from './harness/browser';
import {
	CREDENTIAL_TYPE,
	NODE_TYPE,
	createN8n,
	newId,
	type Execution,
	type N8nInstance,
} from './harness/n8n';
import {
	offeredTools,
	parseToolResult,
	startScriptedModel,
	toolResults,
	type ChatRequest,
	type ScriptedModel,
	type ScriptedTurn,
} from './harness/scriptedModel';
import { waitForState } from './harness/waitForState';
import {
	importWorkflows,
	node,
	setNode,
	type CredentialRef,
	type OutputItem,
	type WorkflowJson,
} from './harness/workflows';

/** The gate n8n 2.41 generates from the node (type name + `HitlTool`). */
const HITL_TOOL_NODE_TYPE = `${NODE_TYPE}HitlTool`;
const GATE = 'Manager Approval';
const GATED_TOOL = 'Create Document';
const MANAGER = { email: 'mia.manager@acme.example', name: 'Mia Manager' };
const ARTIFACTS_DIR =
	process.env.E2E_ARTIFACTS_DIR ??
	path.join(os.tmpdir(), 'n8n-nodes-document-signing-e2e', 'agentApproval');
const SCENARIOS = ['signed', 'declined', 'twice', 'previousMajor', 'legacy'] as const;
type Scenario = (typeof SCENARIOS)[number];
/** The AI Agent version of each scenario: the gate needs AI Agent 3's engine requests. */
const AGENT_VERSION_OF: Record<Scenario, number> = {
	signed: AGENT_VERSIONS.default,
	declined: AGENT_VERSIONS.default,
	twice: AGENT_VERSIONS.default,
	previousMajor: AGENT_VERSIONS.previousMajor,
	legacy: AGENT_VERSIONS.default,
};
const ENDED = (execution: Execution) => !['new', 'running', 'waiting'].includes(execution.status);

interface ScenarioSetup {
	prompt: string;
	documentName: string;
	apiKey: string;
	workflowId: string;
	webhookPath: string;
}

let sandbox: Sandbox;
let model: ScriptedModel;
let n8n: N8nInstance;
const modelCredential: CredentialRef = { id: newId(), name: 'Scripted model (approval)' };
const setups = new Map<Scenario, ScenarioSetup>();

function createCall(documentName: string) {
	return {
		name: 'Create_Document',
		arguments: {
			toolParameters: {
				documentName,
				signerEmail: 'jane.doe@acme.example',
				signerName: 'Jane Doe',
			},
			hitlParameters: {},
		},
	};
}

/** The model asks for the contract (through the gate), then reports what the tool answered. */
function script(documentName: string): ScriptedTurn[] {
	return [
		{ toolCalls: [createCall(documentName)] },
		(request: ChatRequest) => ({ text: `Tool said: ${JSON.stringify(lastAnswer(request))}` }),
	];
}

/** Two contracts, one after the other, each through the gate: two waits in one execution. */
function twiceScript(documentName: string): ScriptedTurn[] {
	return [
		{ toolCalls: [createCall(documentName)] },
		{ toolCalls: [createCall(`second-${documentName}`)] },
		(request: ChatRequest) => ({ text: `Tool said: ${JSON.stringify(lastAnswer(request))}` }),
	];
}

function lastAnswer(request: ChatRequest): unknown {
	const results = toolResults(request);
	return parseToolResult(results[results.length - 1]?.content ?? '');
}

/**
 * Webhook → Chat Input → AI Agent 3.1; Create Document → (ai_tool) → Manager Approval →
 * (ai_tool) → AI Agent. The gate sends `approval-<contract>` to the manager with its Message
 * (the tool's name and arguments); as a gate, Resume On defaults to Any Final State, so a decline ends the wait too.
 */
function approvalWorkflow(
	scenario: Scenario,
	prompt: string,
	credential: CredentialRef,
	webhookPath: string,
): AgentWorkflowJson {
	const trigger = node(
		'Request',
		'n8n-nodes-base.webhook',
		2,
		{ httpMethod: 'POST', path: webhookPath, responseMode: 'onReceived', options: {} },
		{ webhookId: randomUUID(), position: [0, 0] },
	);
	const input = {
		...setNode('Chat Input', { chatInput: prompt }),
		position: [220, 0] as [number, number],
	};
	const agent = {
		...agentNode(AGENT_VERSION_OF[scenario]),
		position: [460, 0] as [number, number],
	};
	const chatModel = {
		...openAiChatModel(modelCredential),
		position: [380, 240] as [number, number],
	};
	const gate = node(
		GATE,
		HITL_TOOL_NODE_TYPE,
		1,
		{
			resource: 'document',
			operation: 'sendAndWait',
			documentSource: 'new',
			name: '=approval-{{ $tool.parameters.documentName }}',
			signers: { signer: [MANAGER] },
			// n8n's default renders the arguments as "[object Object]" (docs/ai-agents.md).
			message:
				'=The agent wants to run {{ $tool.name }} with {{ JSON.stringify($tool.parameters) }}',
		},
		{
			credentials: { [CREDENTIAL_TYPE]: { id: credential.id, name: credential.name } },
			position: [600, 240],
		},
	);
	const gated = {
		...createDocumentTool(GATED_TOOL, credential),
		position: [600, 480] as [number, number],
	};
	return {
		name: `Agent approval ${scenario}`,
		nodes: [trigger, input, agent, chatModel, gate, gated],
		connections: {
			[trigger.name]: { main: [[{ node: input.name, type: 'main', index: 0 }]] },
			[input.name]: { main: [[{ node: agent.name, type: 'main', index: 0 }]] },
			[chatModel.name]: {
				ai_languageModel: [[{ node: agent.name, type: 'ai_languageModel', index: 0 }]],
			},
			[GATE]: { ai_tool: [[{ node: agent.name, type: 'ai_tool', index: 0 }]] },
			[GATED_TOOL]: { ai_tool: [[{ node: GATE, type: 'ai_tool', index: 0 }]] },
		},
		settings: { executionOrder: scenario === 'legacy' ? 'v0' : 'v1' },
		versionId: randomUUID(),
	};
}

const ownExecutions = async (setup: ScenarioSetup): Promise<Execution[]> =>
	await n8n.executions({ workflowId: setup.workflowId });

/** Calls the scenario's webhook; resolves with its new execution once that is waiting (or ended). */
async function startRun(setup: ScenarioSetup): Promise<Execution> {
	const before = new Set((await ownExecutions(setup)).map((execution) => execution.id));
	const call = await fetch(n8n.productionWebhookUrl(setup.webhookPath), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: '{}',
		signal: AbortSignal.timeout(30_000),
	});
	expect(call.status).toBe(200);
	const found = await waitForState(
		async () =>
			(await ownExecutions(setup)).find(
				(execution) =>
					!before.has(execution.id) && (execution.status === 'waiting' || ENDED(execution)),
			),
		(execution) => execution !== undefined,
		{ timeoutMs: 90_000, describe: () => `a new execution of ${setup.workflowId} waiting` },
	);
	return found!;
}

async function ended(setup: ScenarioSetup, executionId: string): Promise<Execution> {
	const found = await waitForState(
		async () =>
			(await ownExecutions(setup)).find(
				(execution) => execution.id === executionId && ENDED(execution),
			),
		(execution) => execution !== undefined,
		{
			timeoutMs: 90_000,
			describe: (last) => `execution ${executionId} to end (last: ${last?.status ?? 'not ended'})`,
		},
	);
	return found!;
}

function documentsNamed(setup: ScenarioSetup, name: string) {
	return sandbox.store.documentsOf(setup.apiKey).filter((document) => document.name === name);
}

/** The gate's output items in a run (n8n records a tool's output under `ai_tool`). */
function gateOutput(execution: Execution): OutputItem[] {
	const runs = execution.data?.resultData.runData[GATE] ?? [];
	const data = runs.at(-1)?.data as { ai_tool?: OutputItem[][] } | undefined;
	return data?.ai_tool?.[0] ?? [];
}

/** Opens the only signer's page from the document's signing page and declines with `reason`. */
async function declineOnSigningPage(
	page: Page,
	signingUrl: string,
	reason: string,
): Promise<string> {
	await page.goto(signingUrl);
	await page.locator('#signers > li[data-signer-id] a[id^="open-"]').first().click();
	await page.locator('#signer-status').waitFor();
	await page.getByRole('textbox', { name: 'Reason for declining' }).fill(reason);
	await page.getByRole('button', { name: 'Decline' }).click();
	const notice = page.locator('#notice');
	await notice.or(page.locator('#error')).first().waitFor();
	return (await notice.or(page.locator('#error')).first().innerText()).trim();
}

beforeAll(async () => {
	sandbox = await startSandbox({
		port: 0,
		webhookRetry: { baseDelayMs: 250, maxAttempts: 4, timeoutMs: 10_000 },
	});
	model = await startScriptedModel();
	n8n = await createN8n({ sandboxBaseUrl: sandbox.baseUrl, logLevel: 'info' });
	const credentials: Array<{ apiKey: string; credential: CredentialRef }> = [];
	const workflows: WorkflowJson[] = [];
	const pending: Array<Omit<ScenarioSetup, 'workflowId'> & { scenario: Scenario }> = [];
	for (const scenario of SCENARIOS) {
		const documentName = `nda-acme-${scenario}.pdf`;
		const prompt = `Send ${documentName} to Jane Doe (jane.doe@acme.example) for signature, once the manager approves.`;
		const credential = { id: newId(), name: `Document Signing (approval ${scenario})` };
		const apiKey = sandbox.createAccount().apiKey;
		credentials.push({ apiKey, credential });
		const webhookPath = `agent-approval-${randomUUID()}`;
		model.script(prompt, scenario === 'twice' ? twiceScript(documentName) : script(documentName));
		workflows.push(
			approvalWorkflow(scenario, prompt, credential, webhookPath) as unknown as WorkflowJson,
		);
		pending.push({ scenario, prompt, documentName, apiKey, webhookPath });
	}
	await n8n.importCredentials([
		{
			...modelCredential,
			type: OPENAI_CREDENTIAL_TYPE,
			data: { apiKey: 'sk-scripted', url: model.baseUrl },
		},
		...credentials.map(({ apiKey, credential }) =>
			n8n.documentSigningCredential({ ...credential, apiKey }),
		),
	]);
	const ids = await importWorkflows(n8n, workflows);
	pending.forEach(({ scenario, ...rest }, index) =>
		setups.set(scenario, { ...rest, workflowId: ids[index] }),
	);
	await n8n.start();
	for (const id of ids) await n8n.activate(id);
});

afterAll(async () => {
	await n8n?.dispose();
	await model?.close();
	await sandbox?.close();
});

describe('Send and Wait for Signature as the AI Agent’s human-approval gate (AI Agent 3.1)', () => {
	it('the gated tool waits until the manager signs the approval in the signing page, then runs; the model reads the contract it sent', async () => {
		const setup = setups.get('signed')!;
		const execution = await startRun(setup);
		expect({ status: execution.status, error: execution.data?.resultData.error?.message }).toEqual({
			status: 'waiting',
			error: undefined,
		});

		// Waiting: the approval is out to the manager; the contract is not.
		const [approval, ...moreApprovals] = documentsNamed(setup, `approval-${setup.documentName}`);
		expect(moreApprovals).toEqual([]);
		expect(approval).toMatchObject({ status: 'pending' });
		expect(approval.signers.map((signer) => [signer.email, signer.name])).toEqual([
			[MANAGER.email, MANAGER.name],
		]);
		// The gate's Message tells the manager what the agent wants to do.
		expect(approval.message).toBe(
			`The agent wants to run Create_Document with {"documentName":"${setup.documentName}","signerEmail":"jane.doe@acme.example","signerName":"Jane Doe"}`,
		);
		expect(documentsNamed(setup, setup.documentName)).toEqual([]);
		expect(model.answered(setup.prompt)).toBe(1);
		// The model sees the gated tool under its own name, its arguments under toolParameters.
		const [offered] = offeredTools(model.callsFor(setup.prompt)[0]);
		expect(offered.name).toBe('Create_Document');
		expect(Object.keys((offered.parameters as { properties: object }).properties).sort()).toEqual([
			'hitlParameters',
			'toolParameters',
		]);

		const browser = await launchBrowser();
		try {
			const signed = await signEverySigner(await browser.newPage(), approval.signing_url, {
				screenshotDir: ARTIFACTS_DIR,
			});
			expect(signed.map((signer) => signer.notice)).toEqual([
				'You signed this document. Thank you.',
			]);
		} finally {
			await browser.close();
		}

		const done = await ended(setup, execution.id);
		expect({ status: done.status, error: done.data?.resultData.error?.message }).toEqual({
			status: 'success',
			error: undefined,
		});
		expect(gateOutput(done).map((item) => item.json)).toEqual([
			expect.objectContaining({ id: approval.id, status: 'completed', approved: true }),
		]);
		// The gated tool ran once, after the approval: one contract, to Jane Doe.
		const [contract, ...moreContracts] = documentsNamed(setup, setup.documentName);
		expect(moreContracts).toEqual([]);
		expect(contract).toMatchObject({ status: 'pending' });
		expect(contract.signers.map((signer) => signer.email)).toEqual(['jane.doe@acme.example']);
		expect(done.data?.resultData.runData[GATED_TOOL]).toHaveLength(1);
		// The model read the created contract.
		expect(model.answered(setup.prompt)).toBe(2);
		const read = lastAnswer(model.callsFor(setup.prompt)[1]);
		expect(read).toEqual([
			expect.objectContaining({ id: contract.id, name: setup.documentName, status: 'pending' }),
		]);
		expect(sandbox.store.documentsOf(setup.apiKey)).toHaveLength(2);
	});

	it('a decline in the signing page ends the wait as a rejection: the gated tool never runs and the model reads n8n’s rejection', async () => {
		const setup = setups.get('declined')!;
		const execution = await startRun(setup);
		expect(execution.status).toBe('waiting');
		const [approval] = documentsNamed(setup, `approval-${setup.documentName}`);
		expect(approval).toMatchObject({ status: 'pending' });

		const browser = await launchBrowser();
		try {
			const notice = await declineOnSigningPage(
				await browser.newPage(),
				approval.signing_url,
				'Not this customer',
			);
			expect(notice).toBe('You declined this document.');
		} finally {
			await browser.close();
		}

		const done = await ended(setup, execution.id);
		expect({ status: done.status, error: done.data?.resultData.error?.message }).toEqual({
			status: 'success',
			error: undefined,
		});
		expect(gateOutput(done).map((item) => item.json)).toEqual([
			expect.objectContaining({ id: approval.id, status: 'declined', approved: false }),
		]);
		expect(done.data?.resultData.runData[GATED_TOOL]).toBeUndefined();
		expect(documentsNamed(setup, setup.documentName)).toEqual([]);
		expect(sandbox.store.documentsOf(setup.apiKey)).toHaveLength(1);
		expect(model.answered(setup.prompt)).toBe(2);
		// n8n's rejection, as the gated tool's answer (processHitlResponses.ts, getDenialMessage()).
		const [answer] = toolResults(model.callsFor(setup.prompt)[1]);
		expect(parseToolResult(answer.content)).toEqual([
			{
				output: `User rejected the tool call to ${GATED_TOOL} (id: ${answer.toolCallId}). STOP what you are doing and wait for the user to tell you how to proceed. The tool is still available if needed.`,
			},
		]);
	});
});

describe('the gate called twice in one agent run (AI Agent 3.1)', () => {
	it('the second gated call runs only once its own approval is signed: the first approval’s delivery, sent again, does not approve it', async () => {
		const setup = setups.get('twice')!;
		const execution = await startRun(setup);
		expect(execution.status).toBe('waiting');
		const approvalOf = (name: string) =>
			waitForState(
				async () => documentsNamed(setup, `approval-${name}`)[0],
				(document) => document?.status === 'pending',
				{ timeoutMs: 90_000, describe: () => `the approval of ${name} sent` },
			);
		const first = (await approvalOf(setup.documentName))!;
		const firstWait = sandbox.store
			.webhooksOf(setup.apiKey)
			.find((webhook) => new URL(webhook.url).searchParams.get('document') === first.id)!;
		const firstSecret = webhookSecret(sandbox, setup.apiKey, firstWait.id)!;
		sandbox.actAsSigner(first.id, first.signers[0].id, 'sign');

		// The first contract went out; the agent asked for the second, whose approval now waits.
		const secondName = `second-${setup.documentName}`;
		const second = (await approvalOf(secondName))!;
		// Sent before the execution is saved as waiting again: wait for that, as n8n answers 409 before.
		await waitForState(
			async () => (await ownExecutions(setup)).find((candidate) => candidate.id === execution.id),
			(candidate) => candidate?.status === 'waiting',
			{ timeoutMs: 90_000, describe: (last) => `the second wait (last: ${last?.status})` },
		);
		expect(documentsNamed(setup, setup.documentName)).toHaveLength(1);
		expect(documentsNamed(setup, secondName)).toEqual([]);

		const body = JSON.stringify({
			id: `dlv_${randomUUID()}`,
			event: 'document.completed',
			created_at: new Date().toISOString(),
			data: { document: { id: first.id, status: 'completed' } },
		});
		const replay = await fetch(firstWait.url, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				...deliverySignatureHeaders('v1', firstSecret, Math.floor(Date.now() / 1000), 'dlv', body),
			},
			body,
			signal: AbortSignal.timeout(30_000),
		});
		expect(replay.status).toBe(200);
		expect(await replay.json()).toMatchObject({
			ignored: true,
			reason: "a link of an earlier wait, or of another node's",
		});
		await sandbox.flushDeliveries();
		const [still] = (await ownExecutions(setup)).filter(
			(candidate) => candidate.id === execution.id,
		);
		expect(still.status).toBe('waiting');
		expect(documentsNamed(setup, secondName)).toEqual([]);

		sandbox.actAsSigner(second.id, second.signers[0].id, 'sign');
		const done = await ended(setup, execution.id);
		expect(done.status).toBe('success');
		expect(done.data?.resultData.runData[GATED_TOOL]).toHaveLength(2);
		expect(documentsNamed(setup, secondName)).toHaveLength(1);
		expect(lastAnswer(model.callsFor(setup.prompt)[2])).toEqual([
			expect.objectContaining({ name: secondName, status: 'pending' }),
		]);
	});
});

describe('the gate under AI Agent 2.2 (the previous major version)', () => {
	it('does nothing: AI Agent 2 runs the gate’s placeholder itself, so the model reads "" and neither the approval nor the contract is sent', async () => {
		const setup = setups.get('previousMajor')!;
		const execution = await startRun(setup);
		const done = await ended(setup, execution.id);
		expect({ status: done.status, error: done.data?.resultData.error?.message }).toEqual({
			status: 'success',
			error: undefined,
		});
		expect(done.data?.resultData.runData[GATE]).toBeUndefined();
		expect(done.data?.resultData.runData[GATED_TOOL]).toBeUndefined();
		expect(sandbox.store.documentsOf(setup.apiKey)).toEqual([]);
		expect(model.answered(setup.prompt)).toBe(2);
		expect(toolResults(model.callsFor(setup.prompt)[1]).map((result) => result.content)).toEqual([
			'',
		]);
	});
});

describe('the gate in a workflow with the legacy Execution Order (v0)', () => {
	it('AI Agent 3.1 resumes before the gate runs and the model reads a rejection; the gate then refuses, sending no approval nobody waits for', async () => {
		const setup = setups.get('legacy')!;
		const execution = await startRun(setup);
		const done = await ended(setup, execution.id);
		const fix =
			'This workflow\'s Execution Order must be "v1 (recommended)" for an AI Agent to read this tool\'s results';
		expect({ status: done.status, error: done.data?.resultData.error?.message }).toEqual({
			status: 'error',
			error: fix,
		});
		expect(sandbox.store.documentsOf(setup.apiKey)).toEqual([]);
		expect(done.data?.resultData.runData[GATED_TOOL]).toBeUndefined();
		expect(
			(done.data?.resultData.runData[GATE] ?? []).map(
				(run) => (run as { error?: { message?: string } }).error?.message,
			),
		).toEqual([fix]);
		const [answer] = toolResults(model.callsFor(setup.prompt)[1]);
		expect(String(answer.content)).toContain(`User rejected the tool call to ${GATED_TOOL}`);
	});
});
