/**
 * Send and Wait for Signature (node version 2) with several input items, in a real n8n (the pinned
 * 2.41, headless) with this package and the sandbox as the service (in this process). The workflow
 * is a Webhook trigger (a list of 4 signers, as a CRM or a sheet would give it) → a Code node
 * giving one item per signer, each with its PDF → Send and Wait → a NoOp standing for the rest.
 *
 * - 4 items give 4 documents and one webhook. Another document of the account completes, one of
 *   ours is viewed, a forged delivery arrives, and three of ours end completed, declined and
 *   expired: none of that resumes the execution. The fourth completes: the execution resumes
 *   once, with 4 items in input order, `approved` true, false, false, true; no webhook is left.
 * - The same with n8n stopped and started again after the documents were sent.
 *
 * Each test counts only its own workflow's executions and its own execution's webhooks and
 * deliveries, and waits for the states it needs (a status, a count), never for a fixed time.
 * Needs the package built (`npm run build`).
 */
import { randomUUID } from 'node:crypto';

import type { DocumentRecord, WebhookRecord } from '../contract';
import { startSandbox, type Sandbox } from '../sandbox';
import { deliverySignatureHeaders } from '../sandbox/deliverySignature';
import { waitFor } from '../test/helpers/sandbox';
import { createN8n, type Execution, type N8nInstance } from './harness/n8n';
import {
	chain,
	executionItems,
	importWorkflows,
	node,
	sandboxPost,
	signingNode,
	type OutputItem,
	type WorkflowJson,
} from './harness/workflows';

const SEND_AND_WAIT = 'Send and Wait';
const AFTER = 'After Signing';
const PDF_BASE64 = Buffer.from('%PDF-1.7 batch e2e').toString('base64');
const FINISHED = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status);

let sandbox: Sandbox;
let n8n: N8nInstance;
let apiKey: string;
const scenarios: Record<string, { workflowId: string; path: string }> = {};

/** Webhook (`{ signers: [...] }`) → Code (one item per signer, with a PDF) → Send and Wait v2 → NoOp. */
function batchWorkflow(name: string, credential: { id: string; name: string }) {
	const webhookPath = `send-and-wait-batch-${randomUUID()}`;
	const workflow: WorkflowJson = chain(`e2e send and wait batch: ${name}`, [
		node(
			'List Received',
			'n8n-nodes-base.webhook',
			2,
			{ httpMethod: 'POST', path: webhookPath, responseMode: 'onReceived', options: {} },
			{ webhookId: randomUUID() },
		),
		node('One Item per Signer', 'n8n-nodes-base.code', 2, {
			mode: 'runOnceForAllItems',
			language: 'javaScript',
			jsCode: `return $input.first().json.body.signers.map((signer) => ({ json: signer, binary: { data: { data: '${PDF_BASE64}', mimeType: 'application/pdf', fileName: signer.file } } }));`,
		}),
		signingNode(
			SEND_AND_WAIT,
			{
				resource: 'document',
				operation: 'sendAndWait',
				documentFrom: 'file',
				name: '={{ $json.file }}',
				signers: { signer: [{ email: '={{ $json.email }}', name: '={{ $json.name }}' }] },
				additionalFields: { expires_at: "={{ $json.expiresAt ?? '' }}" },
				waitOptions: {},
			},
			{ credential, typeVersion: 2 },
		),
		node(AFTER, 'n8n-nodes-base.noOp', 1, {}),
	]);
	return { workflow, path: webhookPath };
}

/** Four signers; the third one's document expires in an hour (the sandbox's clock is moved past it). */
function signersFor(scenario: string) {
	// The sandbox's clock, which an earlier test may have moved on.
	const inAnHour = new Date(Date.parse(sandbox.now()) + 60 * 60 * 1000).toISOString();
	return ['Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'Katherine Johnson'].map(
		(name, index) => ({
			name,
			email: `${name.split(' ')[0].toLowerCase()}@example.com`,
			file: `nda-${scenario}-${index + 1}.pdf`,
			...(index === 2 ? { expiresAt: inAnHour } : {}),
		}),
	);
}

const ownExecutions = async (scenario: string): Promise<Execution[]> =>
	await n8n.executions({ workflowId: scenarios[scenario].workflowId });

/** Calls the trigger with the 4 signers; resolves once the execution waits, with its documents in input order. */
async function startBatch(scenario: string) {
	const signers = signersFor(scenario);
	const call = await fetch(n8n.productionWebhookUrl(scenarios[scenario].path), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ signers }),
		signal: AbortSignal.timeout(30_000),
	});
	expect(call.status).toBe(200);
	const documents = await waitFor(
		() => {
			const sent = signers.map((signer) =>
				sandbox.store
					.documentsOf(apiKey)
					.find((document) => document.name === signer.file && document.status === 'pending'),
			);
			return sent.every(Boolean) ? (sent as DocumentRecord[]) : undefined;
		},
		`the 4 documents of ${scenario} sent`,
		60_000,
	);
	const execution = await waitFor(
		async () => {
			const waiting = (await ownExecutions(scenario)).filter(
				(candidate) => candidate.status === 'waiting',
			);
			return waiting.length === 1 && webhooksOf(waiting[0]).length === 1 ? waiting[0] : undefined;
		},
		`the execution of ${scenario} waiting`,
		60_000,
	);
	return { execution, ids: documents.map((document) => document.id) };
}

/** The sandbox's webhooks pointing at one execution's resume URL. */
function webhooksOf(execution: Pick<Execution, 'id'>): WebhookRecord[] {
	return sandbox.store
		.webhooksOf(apiKey)
		.filter((webhook) => webhook.url.includes(`/webhook-waiting/${execution.id}/`));
}

const signerOf = (documentId: string) =>
	sandbox.store.documentsOf(apiKey).find((document) => document.id === documentId)!.signers[0].id;
const sign = (documentId: string) => sandbox.actAsSigner(documentId, signerOf(documentId), 'sign');

/** The delivery attempts to `webhook` so far: event, document, attempt and n8n's answer, sorted. */
const deliveriesTo = (webhook: WebhookRecord) =>
	sandbox
		.deliveries()
		.filter((attempt) => attempt.webhookId === webhook.id)
		.map((attempt) => [
			attempt.event,
			String(JSON.parse(attempt.body).data.document.id),
			attempt.attempt,
			attempt.status,
		])
		.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

async function stillWaiting(scenario: string, execution: Execution): Promise<void> {
	await sandbox.flushDeliveries();
	const own = await ownExecutions(scenario);
	expect(own.map((candidate) => [candidate.id, candidate.status])).toEqual([
		[execution.id, 'waiting'],
	]);
}

async function finished(scenario: string, executionId: string): Promise<Execution> {
	return await waitFor(
		async () =>
			(await ownExecutions(scenario)).find(
				(candidate) => candidate.id === executionId && FINISHED(candidate),
			),
		`execution ${executionId} to finish`,
		60_000,
	);
}

/** Completed, declined, expired for the first three; the execution still waits. */
async function endThree(scenario: string, execution: Execution, ids: string[]): Promise<void> {
	// One after the other, each delivery answered before the next event (as people sign): two
	// calls of one batch at the same moment are webhook.test.ts's case (the second is answered 503).
	sign(ids[0]);
	await sandbox.flushDeliveries();
	sandbox.actAsSigner(ids[1], signerOf(ids[1]), 'decline', 'Wrong company name');
	await sandbox.flushDeliveries();
	// Moves the sandbox's clock past the third document's expires_at (the others have none).
	sandbox.advanceClock(2 * 60 * 60);
	expect(sandbox.store.documentsOf(apiKey).find((document) => document.id === ids[2])?.status).toBe(
		'expired',
	);
	await stillWaiting(scenario, execution);
}

/** The fourth completes: one resume, 4 items in input order, nothing left at the service. */
async function resumesOnceWithAll(scenario: string, execution: Execution, ids: string[]) {
	const [webhook] = webhooksOf(execution);
	sign(ids[3]);
	const done = await finished(scenario, execution.id);
	expect({ status: done.status, error: done.data?.resultData.error?.message }).toEqual({
		status: 'success',
		error: undefined,
	});
	const output = (done.data?.resultData.runData[SEND_AND_WAIT]?.at(-1)?.data?.main?.[0] ??
		[]) as OutputItem[];
	expect(output.map((item) => [item.json.id, item.json.status, item.json.approved])).toEqual([
		[ids[0], 'completed', true],
		[ids[1], 'declined', false],
		[ids[2], 'expired', false],
		[ids[3], 'completed', true],
	]);
	expect(executionItems(done, AFTER)).toHaveLength(4);
	expect(done.data?.resultData.runData[AFTER]).toHaveLength(1);
	expect(webhooksOf(execution)).toEqual([]);
	await sandbox.flushDeliveries();
	// Nothing more resumes it, and it is the workflow's only execution.
	expect((await ownExecutions(scenario)).map((candidate) => candidate.id)).toEqual([execution.id]);
	return webhook;
}

/** Each of the batch's final events reached its webhook once and was answered 200 at once. */
const ownFinalDeliveries = (ids: string[]) =>
	[
		['document.completed', ids[0], 1, 200],
		['document.declined', ids[1], 1, 200],
		['document.expired', ids[2], 1, 200],
		['document.completed', ids[3], 1, 200],
	].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

beforeAll(async () => {
	sandbox = await startSandbox({
		port: 0,
		webhookRetry: { baseDelayMs: 250, maxAttempts: 4, timeoutMs: 10_000 },
	});
	apiKey = sandbox.createAccount().apiKey;
	n8n = await createN8n({ sandboxBaseUrl: sandbox.baseUrl });
	const [credentialId] = await n8n.importCredentials([
		n8n.documentSigningCredential({ apiKey, name: 'Sandbox (send and wait batch e2e)' }),
	]);
	const credential = { id: credentialId, name: 'Sandbox (send and wait batch e2e)' };
	const built = ['signed', 'restart'].map((name) => ({ name, ...batchWorkflow(name, credential) }));
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

describe('Send and Wait for Signature with 4 items in a real n8n', () => {
	it('4 documents, one webhook; another document, a view, a forged delivery and three final ones do not resume; the fourth resumes once with 4 items in input order', async () => {
		const { execution, ids } = await startBatch('signed');
		expect(new Set(ids).size).toBe(4);
		const [webhook] = webhooksOf(execution);
		expect(new URL(webhook.url).searchParams.get('documents')).toBe(ids.join(','));
		expect(webhook.document_id ?? null).toBeNull();

		// Another document of the account completes: its event reaches the batch's webhook too.
		const other = await sandboxPost(sandbox, apiKey, '/documents', {
			name: 'not-ours.pdf',
			signers: [{ email: 'eve@example.com', name: 'Eve' }],
		});
		sign(String(other.id));
		sandbox.actAsSigner(ids[0], signerOf(ids[0]), 'view');
		// A forged delivery: one of ours completed, signed with a secret that is not the wait's.
		const body = JSON.stringify({
			id: `dlv_${randomUUID()}`,
			event: 'document.completed',
			created_at: new Date().toISOString(),
			webhook_id: webhook.id,
			data: { document: { id: ids[3], status: 'completed' } },
		});
		const headers = deliverySignatureHeaders(
			'v1',
			'f'.repeat(64),
			Math.floor(Date.now() / 1000),
			`dlv_${randomUUID()}`,
			body,
		);
		const forged = await fetch(webhook.url, {
			method: 'POST',
			headers: { 'content-type': 'application/json', ...headers },
			body,
			signal: AbortSignal.timeout(30_000),
		});
		expect(forged.status).toBe(200);
		expect(await forged.json()).toMatchObject({
			ignored: true,
			reason: expect.stringMatching(/^signature not valid/),
		});
		await stillWaiting('signed', execution);
		// The other document's completion reached the batch's webhook (unfiltered) and was ignored.
		expect(deliveriesTo(webhook)).toEqual([['document.completed', String(other.id), 1, 200]]);

		await endThree('signed', execution, ids);
		await resumesOnceWithAll('signed', execution, ids);
		expect(deliveriesTo(webhook)).toEqual(
			[...ownFinalDeliveries(ids), ['document.completed', String(other.id), 1, 200]].sort((a, b) =>
				JSON.stringify(a).localeCompare(JSON.stringify(b)),
			),
		);
		expect(sandbox.store.webhooksOf(apiKey)).toEqual([]);
	});

	it('the same across an n8n restart while it waits', async () => {
		const { execution, ids } = await startBatch('restart');
		await n8n.restart();
		await endThree('restart', execution, ids);
		const webhook = await resumesOnceWithAll('restart', execution, ids);
		expect(deliveriesTo(webhook)).toEqual(ownFinalDeliveries(ids));
		expect(sandbox.store.webhooksOf(apiKey)).toEqual([]);
	});
});
