/**
 * Document › Send and Wait for Signature end to end: a real n8n (the pinned 2.41, headless) with
 * this package, the sandbox as the service (in this process), and a person signing in headless
 * Chromium. Each scenario has a workflow of its own (a Webhook trigger, as a CRM would call it →
 * Send and Wait → a NoOp standing for the rest of the workflow), so a scenario counts only its
 * own executions and the webhooks of its own executions.
 *
 * - Signing in Chromium resumes the execution once, with the document completed and the signed PDF.
 * - A decline resumes a wait on any final state with `declined`; a wait on Completed keeps waiting.
 * - Cancelling a waiting execution leaves its service webhook (n8n tells no node); the workflow's
 *   next run removes it.
 * - The time limit: the workflow continues with the document as sent and `timedOut: true`; the
 *   service removes the webhook at its `expires_at`.
 * - A wait survives an n8n restart.
 * - Waits started at the same moment (a CRM closing several deals at once) keep each other's
 *   webhooks: each run's cleanup of ended waits leaves the others' alone, and every one resumes.
 * - The `numeric-ids+items-links` and `minimal` dialects (the latter ignores the webhook's
 *   document filter and expiry: the node filters other documents' events itself).
 *
 * Needs the package built (`npm run build`) and /usr/bin/chromium (`bash scripts/e2e-prereqs.sh`).
 */
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';

import type { WebhookRecord } from '../contract';
import { startSandbox, type Sandbox } from '../sandbox';
import { waitFor } from '../test/helpers/sandbox';
import { launchBrowser, signEverySigner } from './harness/browser';
import { createN8n, type Execution, type N8nInstance } from './harness/n8n';
import {
	chain,
	executionItems,
	importWorkflows,
	node,
	signingNode,
	type CredentialRef,
	type OutputItem,
	type WorkflowJson,
} from './harness/workflows';

const SEND_AND_WAIT = 'Send and Wait';
const AFTER = 'After Signing';
const ARTIFACTS_DIR =
	process.env.E2E_ARTIFACTS_DIR ??
	path.join(os.tmpdir(), 'n8n-nodes-document-signing-e2e', 'sendAndWait');
/** n8n's wait tracker looks for due waits every 60 s; a time limit ends within that of its time. */
const TIME_LIMIT_BOUND_MS = 150_000;
const FINISHED = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status);

interface Scenario {
	workflowId: string;
	path: string;
}

let sandbox: Sandbox;
let n8n: N8nInstance;
let apiKey: string;
let credential: CredentialRef;
const scenarios: Record<string, Scenario> = {};

/** Webhook trigger (answers at once) → Send and Wait for a new document → NoOp. */
function waitWorkflow(
	name: string,
	waitOptions: Record<string, unknown>,
): { workflow: WorkflowJson; path: string } {
	const webhookPath = `send-and-wait-${randomUUID()}`;
	const trigger = node(
		'Deal Won',
		'n8n-nodes-base.webhook',
		2,
		{ httpMethod: 'POST', path: webhookPath, responseMode: 'onReceived', options: {} },
		{ webhookId: randomUUID() },
	);
	const wait = signingNode(
		SEND_AND_WAIT,
		{
			resource: 'document',
			operation: 'sendAndWait',
			documentSource: 'new',
			name: '={{ $json.body.name }}',
			signers: { signer: [{ email: '={{ $json.body.email }}', name: '={{ $json.body.signer }}' }] },
			additionalFields: { message: 'Please sign the contract.' },
			waitOptions,
		},
		{ credential },
	);
	return {
		workflow: chain(`e2e send and wait: ${name}`, [
			trigger,
			wait,
			node(AFTER, 'n8n-nodes-base.noOp', 1, {}),
		]),
		path: webhookPath,
	};
}

const ownExecutions = async (scenario: Scenario): Promise<Execution[]> =>
	await n8n.executions({ workflowId: scenario.workflowId });

/** Calls the scenario's trigger as a CRM would; resolves with the new execution once it waits, and its document. */
async function startWait(
	scenario: Scenario,
	documentName: string,
): Promise<{ execution: Execution; documentId: string }> {
	const before = new Set((await ownExecutions(scenario)).map((execution) => execution.id));
	const call = await fetch(n8n.productionWebhookUrl(scenario.path), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({
			name: documentName,
			email: 'jane.doe@acme.example',
			signer: 'Jane Doe',
		}),
		signal: AbortSignal.timeout(30_000),
	});
	expect(call.status).toBe(200);
	const execution = await waitFor(
		async () =>
			(await ownExecutions(scenario)).find(
				(candidate) =>
					!before.has(candidate.id) && (candidate.status === 'waiting' || FINISHED(candidate)),
			),
		`a new execution of ${scenario.workflowId} waiting`,
		60_000,
	);
	expect({ status: execution.status, error: execution.data?.resultData.error?.message }).toEqual({
		status: 'waiting',
		error: undefined,
	});
	const document = sandbox.store
		.documentsOf(apiKey)
		.find((candidate) => candidate.name === documentName);
	expect(document?.status).toBe('pending');
	return { execution, documentId: document!.id };
}

/** The sandbox's webhooks pointing at one execution's resume URL. */
function webhooksOf(execution: Pick<Execution, 'id'>): WebhookRecord[] {
	return sandbox.store
		.webhooksOf(apiKey)
		.filter((webhook) => webhook.url.includes(`/webhook-waiting/${execution.id}/`));
}

async function finished(
	scenario: Scenario,
	executionId: string,
	timeoutMs = 60_000,
): Promise<Execution> {
	return await waitFor(
		async () =>
			(await ownExecutions(scenario)).find(
				(candidate) => candidate.id === executionId && FINISHED(candidate),
			),
		`execution ${executionId} to finish`,
		timeoutMs,
	);
}

function waitOutput(execution: Execution): OutputItem[] {
	return (execution.data?.resultData.runData[SEND_AND_WAIT]?.at(-1)?.data?.main?.[0] ??
		[]) as OutputItem[];
}

function signerIdsOf(documentId: string): string[] {
	return sandbox.store
		.documentsOf(apiKey)
		.find((document) => document.id === documentId)!
		.signers.map((signer) => signer.id);
}

beforeAll(async () => {
	sandbox = await startSandbox({
		port: 0,
		webhookRetry: { baseDelayMs: 250, maxAttempts: 4, timeoutMs: 10_000 },
	});
	apiKey = sandbox.createAccount().apiKey;
	n8n = await createN8n({ sandboxBaseUrl: sandbox.baseUrl });
	const [credentialId] = await n8n.importCredentials([
		n8n.documentSigningCredential({ apiKey, name: 'Sandbox (send and wait e2e)' }),
	]);
	credential = { id: credentialId, name: 'Sandbox (send and wait e2e)' };
	const definitions: Record<string, Record<string, unknown>> = {
		signed: { attachSignedFile: true, binaryPropertyName: 'signedPdf' },
		anyFinal: { resumeOn: 'anyFinal' },
		completedOnly: { resumeOn: 'completed' },
		timeLimit: {
			limitWaitTime: {
				values: { limitType: 'afterTimeInterval', resumeAmount: 0.1, resumeUnit: 'minutes' },
			},
		},
		restart: {},
		concurrent: {},
		'numeric-ids+items-links': {},
		// A service that signs nothing: the wait acts on the service's record alone.
		minimal: { verifySignature: false },
	};
	const built = Object.entries(definitions).map(([name, options]) => ({
		name,
		...waitWorkflow(name, options),
	}));
	const ids = await importWorkflows(
		n8n,
		built.map((entry) => entry.workflow),
	);
	built.forEach(
		(entry, index) => (scenarios[entry.name] = { workflowId: ids[index], path: entry.path }),
	);
	await n8n.start();
	for (const id of ids) await n8n.activate(id);
});

afterAll(async () => {
	await n8n?.dispose();
	await sandbox?.close();
});

describe('Send and Wait for Signature in a real n8n', () => {
	it('signing in Chromium resumes the execution once: the document completed, the signed PDF attached, the webhook removed', async () => {
		const scenario = scenarios.signed;
		const { execution, documentId } = await startWait(scenario, 'msa-signed-in-browser.pdf');
		// One webhook for this wait, for this document's final events, at the signed resume URL.
		const [webhook, ...others] = webhooksOf(execution);
		expect(others).toEqual([]);
		expect(webhook).toMatchObject({ document_id: documentId, active: true });
		expect(webhook.events).toContain('document.completed');
		expect(webhook.url).toMatch(
			new RegExp(`^${n8n.baseUrl}/webhook-waiting/${execution.id}/[^?]+\\?.*signature=`),
		);

		const browser = await launchBrowser();
		try {
			const page = await browser.newPage();
			const document = sandbox.store
				.documentsOf(apiKey)
				.find((candidate) => candidate.id === documentId)!;
			const signed = await signEverySigner(page, document.signing_url, {
				screenshotDir: ARTIFACTS_DIR,
			});
			expect(signed.map((signer) => signer.notice)).toEqual([
				'You signed this document. Thank you.',
			]);
		} finally {
			await browser.close();
		}

		const done = await finished(scenario, execution.id);
		expect({ status: done.status, error: done.data?.resultData.error?.message }).toEqual({
			status: 'success',
			error: undefined,
		});
		const [item] = waitOutput(done);
		expect(item.json).toMatchObject({
			id: documentId,
			status: 'completed',
			signers: [expect.objectContaining({ status: 'signed', signed_at: expect.any(String) })],
		});
		expect(item.binary?.signedPdf).toMatchObject({ mimeType: 'application/pdf' });
		expect(executionItems(done, AFTER)).toHaveLength(1);
		expect(done.data?.resultData.runData[AFTER]).toHaveLength(1);
		expect(webhooksOf(execution)).toEqual([]);

		// Nothing more resumes it: the service has nothing left to deliver, and the execution is the same one.
		await sandbox.flushDeliveries();
		// The resuming delivery was answered 2xx at its first attempt (the service has no reason to retry it).
		expect(
			sandbox
				.deliveries()
				.filter((attempt) => attempt.webhookId === webhook.id)
				.map((attempt) => [attempt.event, attempt.attempt, attempt.status ?? attempt.error]),
		).toEqual([['document.completed', 1, 200]]);
		const all = await ownExecutions(scenario);
		expect(all.map((candidate) => [candidate.id, candidate.status])).toEqual([
			[execution.id, 'success'],
		]);
	});

	it('a decline resumes a wait on any final state with "declined"; a wait on Completed keeps waiting', async () => {
		const anyFinal = await startWait(scenarios.anyFinal, 'msa-declined-any.pdf');
		const completedOnly = await startWait(scenarios.completedOnly, 'msa-declined-completed.pdf');
		sandbox.actAsSigner(
			completedOnly.documentId,
			signerIdsOf(completedOnly.documentId)[0],
			'decline',
			'Wrong amount',
		);
		sandbox.actAsSigner(
			anyFinal.documentId,
			signerIdsOf(anyFinal.documentId)[0],
			'decline',
			'Wrong amount',
		);

		const resumed = await finished(scenarios.anyFinal, anyFinal.execution.id);
		expect(resumed.status).toBe('success');
		expect(waitOutput(resumed).map((item) => item.json)).toEqual([
			expect.objectContaining({ id: anyFinal.documentId, status: 'declined' }),
		]);
		expect(webhooksOf(anyFinal.execution)).toEqual([]);

		// Both declines happened before the first resume; with every delivery settled the other wait still waits.
		await sandbox.flushDeliveries();
		const [still] = (await ownExecutions(scenarios.completedOnly)).filter(
			(candidate) => candidate.id === completedOnly.execution.id,
		);
		expect(still.status).toBe('waiting');
		expect(webhooksOf(completedOnly.execution)).toHaveLength(1);
	});

	it('a cancelled waiting execution keeps its webhook until the next run of the workflow removes it', async () => {
		const scenario = scenarios.completedOnly;
		const [cancelled] = (await ownExecutions(scenario)).filter(
			(candidate) => candidate.status === 'waiting',
		);
		expect(cancelled).toBeDefined();
		await n8n.rest('POST', `/rest/executions/${cancelled.id}/stop`);
		await waitFor(
			async () =>
				(await ownExecutions(scenario)).find(
					(candidate) => candidate.id === cancelled.id && candidate.status === 'canceled',
				),
			'the execution cancelled',
			30_000,
		);
		// n8n calls no node on a cancel: the webhook is still at the service.
		expect(webhooksOf(cancelled)).toHaveLength(1);

		const next = await startWait(scenario, 'msa-after-cancel.pdf');
		expect(webhooksOf(cancelled)).toEqual([]);
		expect(webhooksOf(next.execution)).toHaveLength(1);
		// Nothing else on the account was touched: the other scenarios' waits keep theirs.
		sandbox.actAsSigner(next.documentId, signerIdsOf(next.documentId)[0], 'sign');
		expect((await finished(scenario, next.execution.id)).status).toBe('success');
		expect(webhooksOf(next.execution)).toEqual([]);
	});

	it('the time limit: the workflow continues with the document as sent and timedOut; the service removes the webhook at its expiry', async () => {
		const scenario = scenarios.timeLimit;
		const { execution, documentId } = await startWait(scenario, 'msa-time-limit.pdf');
		const [webhook] = webhooksOf(execution);
		expect(webhook.expires_at).toEqual(expect.any(String));

		const done = await finished(scenario, execution.id, TIME_LIMIT_BOUND_MS);
		expect({ status: done.status, error: done.data?.resultData.error?.message }).toEqual({
			status: 'success',
			error: undefined,
		});
		expect(executionItems(done, AFTER)).toEqual([
			expect.objectContaining({ id: documentId, status: 'pending', timedOut: true }),
		]);

		// The service's own expiry removes it (a grace period after the limit): moved there on its clock.
		const expiresInSeconds = (Date.parse(webhook.expires_at!) - Date.parse(sandbox.now())) / 1000;
		sandbox.advanceClock(Math.max(0, expiresInSeconds) + 1);
		expect(webhooksOf(execution)).toEqual([]);
		const document = sandbox.store
			.documentsOf(apiKey)
			.find((candidate) => candidate.id === documentId)!;
		expect(document.status).toBe('pending');
	});

	it('a wait survives an n8n restart', async () => {
		const scenario = scenarios.restart;
		const { execution, documentId } = await startWait(scenario, 'msa-restart.pdf');
		await n8n.restart();
		sandbox.actAsSigner(documentId, signerIdsOf(documentId)[0], 'sign');
		const done = await finished(scenario, execution.id);
		expect(done.status).toBe('success');
		expect(executionItems(done, AFTER)).toEqual([
			expect.objectContaining({ id: documentId, status: 'completed' }),
		]);
		expect(webhooksOf(execution)).toEqual([]);
	});

	it("waits started at the same moment keep each other's webhooks, and every one resumes once", async () => {
		const scenario = scenarios.concurrent;
		const count = 10;
		const names = Array.from({ length: count }, (_, index) => `msa-concurrent-${index}.pdf`);
		await Promise.all(
			names.map(async (name) => {
				const call = await fetch(n8n.productionWebhookUrl(scenario.path), {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ name, email: 'jane.doe@acme.example', signer: 'Jane Doe' }),
					signal: AbortSignal.timeout(30_000),
				});
				expect(call.status).toBe(200);
			}),
		);
		const waiting = await waitFor(
			async () => {
				const list = await ownExecutions(scenario);
				return (
					list.length === count &&
					list.every((execution) => execution.status === 'waiting' || FINISHED(execution)) &&
					list
				);
			},
			'every wait started',
			120_000,
		);
		expect(waiting.map((execution) => execution.status)).toEqual(Array(count).fill('waiting'));
		// Each waiting execution still has its own webhook: no run removed another's.
		expect(
			waiting
				.filter((execution) => webhooksOf(execution).length !== 1)
				.map((execution) => execution.id),
		).toEqual([]);

		const documents = sandbox.store
			.documentsOf(apiKey)
			.filter((document) => names.includes(document.name));
		expect(documents).toHaveLength(count);
		for (const document of documents)
			sandbox.actAsSigner(document.id, document.signers[0].id, 'sign');
		const done = await waitFor(
			async () => {
				// n8n's public API leaves out executions that are running (resuming) at that moment.
				const list = await ownExecutions(scenario);
				return list.length === count && list.every(FINISHED) && list;
			},
			'every wait resumed',
			120_000,
		);
		expect(done.map((execution) => execution.status)).toEqual(Array(count).fill('success'));
		expect(done.map((execution) => executionItems(execution, AFTER)[0]?.name).sort()).toEqual(
			[...names].sort(),
		);
		for (const execution of done) expect(webhooksOf(execution)).toEqual([]);
	});

	describe.each(['numeric-ids+items-links', 'minimal'])('dialect %s', (dialect) => {
		afterAll(() => {
			sandbox.configure({ dialect: 'default' });
		});

		it("another document's completion leaves the wait waiting; its own resumes it; nothing is left behind", async () => {
			sandbox.configure({ dialect });
			const scenario = scenarios[dialect];
			const { execution, documentId } = await startWait(scenario, `msa-${dialect}.pdf`);
			const [webhook] = webhooksOf(execution);
			if (dialect === 'minimal') expect(webhook).not.toHaveProperty('document_id');
			else expect(webhook.document_id).toBe(documentId);

			// Another document of the account completes: with minimal its event reaches this wait too.
			const response = await fetch(`${sandbox.baseUrl}/documents`, {
				method: 'POST',
				headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
				body: JSON.stringify({
					name: `other-${dialect}.pdf`,
					signers: [{ email: 'sam@example.com', name: 'Sam' }],
				}),
				signal: AbortSignal.timeout(10_000),
			});
			expect(response.status).toBe(201);
			const otherId = String(((await response.json()) as { id: string | number }).id);
			sandbox.actAsSigner(otherId, signerIdsOf(otherId)[0], 'sign');
			await sandbox.flushDeliveries();
			const delivered = sandbox.deliveries().filter((attempt) => attempt.webhookId === webhook.id);
			if (dialect === 'minimal')
				expect(delivered.map((attempt) => [attempt.event, attempt.ok])).toEqual([
					['document.completed', true],
				]);
			else expect(delivered).toEqual([]);
			const [still] = (await ownExecutions(scenario)).filter(
				(candidate) => candidate.id === execution.id,
			);
			expect(still.status).toBe('waiting');

			sandbox.actAsSigner(documentId, signerIdsOf(documentId)[0], 'sign');
			const done = await finished(scenario, execution.id);
			expect(done.status).toBe('success');
			const [item] = executionItems(done, AFTER);
			expect({ id: String(item.id), status: item.status }).toEqual({
				id: documentId,
				status: 'completed',
			});
			if (dialect !== 'minimal') expect(item.id).toBe(Number(documentId));
			expect(webhooksOf(execution)).toEqual([]);
		});
	});
});
