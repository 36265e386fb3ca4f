/**
 * Document › Send and Wait for Signature end to end: a real n8n (the pinned 2.41, headless) with
 * this package, the sandbox as the service (in this process), and a person signing in headless
 * Chromium. Each scenario has a workflow of its own (a Webhook trigger, as a CRM would call it →
 * Send and Wait → a NoOp standing for the rest of the workflow), so a scenario counts only its
 * own executions and the webhooks of its own executions.
 *
 * - Signing in Chromium resumes the execution once, with the document completed and the signed PDF.
 * - A decline: Any Final State goes on with `declined`; Completed ends the wait as the node's error
 *   (the error output when On Error routes it; otherwise nothing goes on).
 * - A loop (Loop Over Items) waits twice in one execution: the first wait's link cannot end the
 *   second, with Verify Signatures on or off.
 * - Each wait ends once: two identical completions at once, and the service's retry while the
 *   first call still downloads the signed PDF.
 * - Every signature layout ends a wait; a forged delivery in each does not.
 * - On a service that keeps only a webhook's url and events: a cancelled and a timed-out wait's
 *   webhooks stay while their documents are open, and go on the next run once the service no
 *   longer has the documents; a resume leaves none.
 * - A wait survives an n8n restart; waits started at the same moment keep each other's webhooks.
 * - The `numeric-ids+items-links` and `minimal` dialects.
 *
 * Needs the package built (`npm run build`) and /usr/bin/chromium (`bash scripts/e2e-prereqs.sh`).
 */
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';

import type { WebhookRecord } from '../contract';
import { startSandbox, type Sandbox } from '../sandbox';
import {
	deliverySignatureHeaders,
	type DeliverySignatureStyle,
} from '../sandbox/deliverySignature';
import { SIGNING_DIALECTS } from '../sandbox/dialects';
import { LIMIT_GRACE_MS } from '../nodes/DocumentSigning/resources/document/sendAndWait/waitWebhooks';
import { startRewritingProxy } from '../test/helpers/rewritingProxy';
import { waitFor, webhookSecret } from '../test/helpers/sandbox';
import { launchBrowser, signEverySigner } from './harness/browser';
import { createN8n, type Execution, type N8nInstance } from './harness/n8n';
import {
	chain,
	connect,
	executionItems,
	importWorkflows,
	node,
	signingNode,
	type CredentialRef,
	type OutputItem,
	type WorkflowJson,
	type WorkflowNode,
} from './harness/workflows';

const SEND_AND_WAIT = 'Send and Wait';
const AFTER = 'After Signing';
const ON_DECLINE = 'On Decline';
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
/** The same account, reached through a proxy that can hold the signed PDF's answer. */
let heldCredential: CredentialRef;
let holdFiles = false;
let openFiles: () => void = () => undefined;
let filesHeld: Promise<void> = Promise.resolve();
let fileRequests = 0;
let proxy: { baseUrl: string; close: () => Promise<void> };
const scenarios: Record<string, Scenario> = {};

function webhookTrigger(): { trigger: ReturnType<typeof node>; path: string } {
	const webhookPath = `send-and-wait-${randomUUID()}`;
	return {
		trigger: node(
			'Deal Won',
			'n8n-nodes-base.webhook',
			2,
			{ httpMethod: 'POST', path: webhookPath, responseMode: 'onReceived', options: {} },
			{ webhookId: randomUUID() },
		),
		path: webhookPath,
	};
}

function waitNode(
	waitOptions: Record<string, unknown>,
	options: { onError?: WorkflowNode['onError']; credential?: CredentialRef; from?: string } = {},
): WorkflowNode {
	const from = options.from ?? '$json.body';
	const wait = signingNode(
		SEND_AND_WAIT,
		{
			resource: 'document',
			operation: 'sendAndWait',
			documentSource: 'new',
			name: `={{ ${from}.name }}`,
			signers: { signer: [{ email: `={{ ${from}.email }}`, name: `={{ ${from}.signer }}` }] },
			additionalFields: { message: 'Please sign the contract.' },
			waitOptions,
		},
		{ credential: options.credential ?? credential },
	);
	return options.onError ? { ...wait, onError: options.onError } : wait;
}

/** Webhook trigger (answers at once) → Send and Wait for a new document → NoOp. */
function waitWorkflow(
	name: string,
	waitOptions: Record<string, unknown>,
	options: { onError?: WorkflowNode['onError']; credential?: CredentialRef } = {},
): { workflow: WorkflowJson; path: string } {
	const { trigger, path: webhookPath } = webhookTrigger();
	const workflow = chain(`e2e send and wait: ${name}`, [
		trigger,
		waitNode(waitOptions, options),
		node(AFTER, 'n8n-nodes-base.noOp', 1, {}),
	]);
	if (options.onError === 'continueErrorOutput') {
		workflow.nodes.push(node(ON_DECLINE, 'n8n-nodes-base.noOp', 1, {}));
		workflow.connections[SEND_AND_WAIT].main[1] = [{ node: ON_DECLINE, type: 'main', index: 0 }];
	}
	return { workflow, path: webhookPath };
}

/**
 * Webhook with `{ deals: [...] }` → Split Out → Loop Over Items (one at a time) → Send and Wait →
 * back to the loop; the loop's done output → NoOp. One execution waits once per deal.
 */
function loopWorkflow(
	name: string,
	waitOptions: Record<string, unknown>,
): { workflow: WorkflowJson; path: string } {
	const { trigger, path: webhookPath } = webhookTrigger();
	const workflow = chain(`e2e send and wait: ${name}`, [
		trigger,
		node('Deals', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'body.deals', options: {} }),
		node('Each Deal', 'n8n-nodes-base.splitInBatches', 3, { options: {} }),
	]);
	workflow.nodes.push(
		{ ...waitNode(waitOptions, { from: '$json' }), position: [660, 200] },
		{ ...node(AFTER, 'n8n-nodes-base.noOp', 1, {}), position: [880, 0] },
	);
	// Loop Over Items: output 0 is "done", output 1 each batch.
	workflow.connections['Each Deal'] = {
		main: [
			[{ node: AFTER, type: 'main', index: 0 }],
			[{ node: SEND_AND_WAIT, type: 'main', index: 0 }],
		],
	};
	connect(workflow, SEND_AND_WAIT, 'Each Deal');
	return { workflow, path: webhookPath };
}

const ownExecutions = async (scenario: Scenario): Promise<Execution[]> =>
	await n8n.executions({ workflowId: scenario.workflowId });

async function callTrigger(scenario: Scenario, body: object): Promise<void> {
	const call = await fetch(n8n.productionWebhookUrl(scenario.path), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
		signal: AbortSignal.timeout(30_000),
	});
	expect(call.status).toBe(200);
}

const deal = (name: string) => ({ name, email: 'jane.doe@acme.example', signer: 'Jane Doe' });

/** The sandbox's document named `name`, once it is sent. */
async function sentDocument(name: string): Promise<string> {
	const document = await waitFor(
		() =>
			sandbox.store
				.documentsOf(apiKey)
				.find((candidate) => candidate.name === name && candidate.status === 'pending'),
		`document ${name} sent`,
		60_000,
	);
	return document.id;
}

/** An execution of the scenario waiting with `documentId` out for signing. */
async function waitingOn(scenario: Scenario, documentId: string): Promise<Execution> {
	return await waitFor(
		async () =>
			(await ownExecutions(scenario)).find(
				(candidate) =>
					candidate.status === 'waiting' &&
					webhooksOf(candidate).some((webhook) => urlDocument(webhook) === documentId),
			),
		`an execution of ${scenario.workflowId} waiting on ${documentId}`,
		60_000,
	);
}

const urlDocument = (webhook: WebhookRecord) => new URL(webhook.url).searchParams.get('document');

/** Calls the scenario's trigger as a CRM would; resolves with the new execution once it waits, and its document. */
async function startWait(
	scenario: Scenario,
	documentName: string,
): Promise<{ execution: Execution; documentId: string }> {
	await callTrigger(scenario, deal(documentName));
	const documentId = await sentDocument(documentName);
	return { execution: await waitingOn(scenario, documentId), documentId };
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

function waitOutput(execution: Execution, output = 0): OutputItem[] {
	return (execution.data?.resultData.runData[SEND_AND_WAIT]?.at(-1)?.data?.main?.[output] ??
		[]) as OutputItem[];
}

function signerIdsOf(documentId: string): string[] {
	return sandbox.store
		.documentsOf(apiKey)
		.find((document) => document.id === documentId)!
		.signers.map((signer) => signer.id);
}

/** A delivery of `event` about `documentId` signed in `style` with `secret`, POSTed to `url`. */
async function deliver(
	url: string,
	documentId: string,
	options: {
		secret?: string;
		style?: DeliverySignatureStyle;
		webhookId?: string;
		event?: string;
	} = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
	const body = JSON.stringify({
		id: `dlv_${randomUUID()}`,
		event: options.event ?? 'document.completed',
		created_at: new Date().toISOString(),
		...(options.webhookId ? { webhook_id: options.webhookId } : {}),
		data: { document: { id: documentId, status: 'completed' } },
	});
	const headers = options.secret
		? deliverySignatureHeaders(
				options.style ?? 'v1',
				options.secret,
				Math.floor(Date.now() / 1000),
				`dlv_${randomUUID()}`,
				body,
			)
		: {};
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body,
		signal: AbortSignal.timeout(30_000),
	});
	return {
		status: response.status,
		body: (await response.json().catch(() => ({}))) as Record<string, unknown>,
	};
}

/** The secret the service signs a webhook's deliveries with (what it stores; the node derives it). */
const secretOf = (webhook: WebhookRecord) => webhookSecret(sandbox, apiKey, webhook.id)!;

beforeAll(async () => {
	sandbox = await startSandbox({
		port: 0,
		webhookRetry: { baseDelayMs: 250, maxAttempts: 4, timeoutMs: 10_000 },
	});
	apiKey = sandbox.createAccount().apiKey;
	proxy = await startRewritingProxy(sandbox.origin, async (request) => {
		if (holdFiles && /\/documents\/[^/]+\/file/.test(request.path)) {
			fileRequests++;
			await filesHeld;
		}
		return undefined;
	});
	n8n = await createN8n({ sandboxBaseUrl: sandbox.baseUrl });
	const [credentialId, heldId] = await n8n.importCredentials([
		n8n.documentSigningCredential({ apiKey, name: 'Sandbox (send and wait e2e)' }),
		n8n.documentSigningCredential({
			apiKey,
			baseUrl: proxy.baseUrl,
			name: 'Sandbox behind a slow file server (send and wait e2e)',
		}),
	]);
	credential = { id: credentialId, name: 'Sandbox (send and wait e2e)' };
	heldCredential = { id: heldId, name: 'Sandbox behind a slow file server (send and wait e2e)' };
	const built: Array<{ name: string; workflow: WorkflowJson; path: string }> = [
		{
			name: 'signed',
			...waitWorkflow('signed', { attachSignedFile: true, binaryPropertyName: 'signedPdf' }),
		},
		{ name: 'anyFinal', ...waitWorkflow('anyFinal', { resumeOn: 'anyFinal' }) },
		{ name: 'completedOnly', ...waitWorkflow('completedOnly', { resumeOn: 'completed' }) },
		{
			name: 'declineRouted',
			...waitWorkflow('declineRouted', {}, { onError: 'continueErrorOutput' }),
		},
		{
			name: 'urlEvents',
			...waitWorkflow('urlEvents', {
				limitWaitTime: {
					values: { limitType: 'afterTimeInterval', resumeAmount: 0.1, resumeUnit: 'minutes' },
				},
			}),
		},
		{ name: 'restart', ...waitWorkflow('restart', {}) },
		{ name: 'concurrent', ...waitWorkflow('concurrent', {}) },
		{ name: 'layouts', ...waitWorkflow('layouts', {}) },
		{ name: 'once', ...waitWorkflow('once', {}) },
		{
			name: 'heldDownload',
			...waitWorkflow('heldDownload', { attachSignedFile: true }, { credential: heldCredential }),
		},
		{ name: 'numeric-ids+items-links', ...waitWorkflow('numeric-ids+items-links', {}) },
		// A service that signs nothing: the wait acts on the service's record alone.
		{ name: 'minimal', ...waitWorkflow('minimal', { verifySignature: false }) },
		{ name: 'loopVerified', ...loopWorkflow('loopVerified', { resumeOn: 'anyFinal' }) },
		{
			name: 'loopUnverified',
			...loopWorkflow('loopUnverified', { resumeOn: 'anyFinal', verifySignature: false }),
		},
	];
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
	openFiles();
	await n8n?.dispose();
	await proxy?.close();
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
		expect(webhook.events).toEqual([
			'document.completed',
			'document.declined',
			'document.expired',
			'document.cancelled',
		]);
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
			approved: true,
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

	describe('a decline', () => {
		it('Any Final State: the workflow goes on with the declined document, not approved', async () => {
			const { execution, documentId } = await startWait(scenarios.anyFinal, 'msa-declined-any.pdf');
			sandbox.actAsSigner(documentId, signerIdsOf(documentId)[0], 'decline', 'Wrong amount');
			const done = await finished(scenarios.anyFinal, execution.id);
			expect(done.status).toBe('success');
			expect(executionItems(done, AFTER)).toEqual([
				expect.objectContaining({ id: documentId, status: 'declined', approved: false }),
			]);
			expect(webhooksOf(execution)).toEqual([]);
		});

		it('Completed (the default): the wait ends as the node’s error; nothing goes on, the next node never runs', async () => {
			const scenario = scenarios.completedOnly;
			const { execution, documentId } = await startWait(scenario, 'msa-declined-completed.pdf');
			sandbox.actAsSigner(documentId, signerIdsOf(documentId)[0], 'decline', 'Wrong amount');
			const done = await finished(scenario, execution.id);
			expect(waitOutput(done)).toEqual([]);
			expect(done.data?.resultData.runData[AFTER]).toBeUndefined();
			// The earlier nodes' data is all there (n8n keeps the execution's record).
			expect(done.data?.resultData.runData['Deal Won']).toHaveLength(1);
			expect(webhooksOf(execution)).toEqual([]);
		});

		it('Completed with On Error › Continue (using error output): the error, naming the status, goes to the error output', async () => {
			const scenario = scenarios.declineRouted;
			const { execution, documentId } = await startWait(scenario, 'msa-declined-routed.pdf');
			sandbox.actAsSigner(documentId, signerIdsOf(documentId)[0], 'decline', 'Wrong amount');
			const done = await finished(scenario, execution.id);
			expect(done.status).toBe('success');
			expect(done.data?.resultData.runData[AFTER]).toBeUndefined();
			expect(executionItems(done, ON_DECLINE)).toEqual([
				expect.objectContaining({ error: 'The document was declined, not signed' }),
			]);
		});
	});

	describe.each([
		[
			'loopVerified',
			'a retried delivery of the first document, validly signed, without webhook_id',
		],
		['loopUnverified', 'a made-up completion of the first document, unsigned'],
	])('a loop that waits twice in one execution (%s)', (name, what) => {
		it(`${what}, sent to the first wait’s link, does not end the second wait`, async () => {
			const scenario = scenarios[name];
			const [first, second] = [`${name}-deal-1.pdf`, `${name}-deal-2.pdf`];
			await callTrigger(scenario, { deals: [deal(first), deal(second)] });
			const firstId = await sentDocument(first);
			const execution = await waitingOn(scenario, firstId);
			const [firstWait] = webhooksOf(execution);
			const firstSecret = secretOf(firstWait);
			sandbox.actAsSigner(firstId, signerIdsOf(firstId)[0], 'sign');
			const secondId = await sentDocument(second);
			await waitingOn(scenario, secondId);

			const answer = await deliver(firstWait.url, firstId, {
				secret: name === 'loopVerified' ? firstSecret : undefined,
			});
			expect(answer).toEqual({
				status: 200,
				body: expect.objectContaining({
					ignored: true,
					reason: "a link of an earlier wait, or of another node's",
				}),
			});
			await sandbox.flushDeliveries();
			const [still] = (await ownExecutions(scenario)).filter(
				(candidate) => candidate.id === execution.id,
			);
			expect(still.status).toBe('waiting');
			expect(
				sandbox.store.documentsOf(apiKey).find((document) => document.id === secondId)?.status,
			).toBe('pending');

			sandbox.actAsSigner(secondId, signerIdsOf(secondId)[0], 'sign');
			const done = await finished(scenario, execution.id);
			expect(done.status).toBe('success');
			expect(
				(done.data?.resultData.runData[SEND_AND_WAIT] ?? []).map(
					(run) => (run.data?.main?.[0]?.[0] as OutputItem | undefined)?.json.id,
				),
			).toEqual([firstId, secondId]);
			expect(executionItems(done, AFTER).map((item) => item.id)).toEqual([firstId, secondId]);
			expect(webhooksOf(execution)).toEqual([]);
		});
	});

	describe('each wait ends once', () => {
		it('two identical completions at the same moment: one resume, the next node runs once', async () => {
			const scenario = scenarios.once;
			const { execution, documentId } = await startWait(scenario, 'msa-twice-at-once.pdf');
			const [webhook] = webhooksOf(execution);
			const secret = secretOf(webhook);
			// The service's own delivery is the third.
			sandbox.actAsSigner(documentId, signerIdsOf(documentId)[0], 'sign');
			const answers = await Promise.all([
				deliver(webhook.url, documentId, { secret, webhookId: webhook.id }),
				deliver(webhook.url, documentId, { secret, webhookId: webhook.id }),
			]);
			const done = await finished(scenario, execution.id);
			await sandbox.flushDeliveries();
			expect(answers.filter((answer) => answer.body.resumed === true).length).toBeLessThanOrEqual(
				1,
			);
			expect(done.status).toBe('success');
			expect(done.data?.resultData.runData[AFTER]).toHaveLength(1);
			expect(executionItems(done, AFTER)).toHaveLength(1);
			expect((await ownExecutions(scenario)).map((candidate) => candidate.id)).toEqual([
				execution.id,
			]);
		});

		it('the service’s retry while the first call still downloads the signed PDF: one resume, the next node runs once', async () => {
			const scenario = scenarios.heldDownload;
			holdFiles = true;
			filesHeld = new Promise<void>((resolve) => (openFiles = resolve));
			try {
				const { execution, documentId } = await startWait(scenario, 'msa-held-download.pdf');
				const [webhook] = webhooksOf(execution);
				sandbox.actAsSigner(documentId, signerIdsOf(documentId)[0], 'sign');
				await waitFor(() => fileRequests > 0, 'the first call to download the signed PDF', 60_000);
				const retry = await deliver(webhook.url, documentId, {
					secret: secretOf(webhook),
					webhookId: webhook.id,
				});
				expect(retry).toEqual({
					status: 200,
					body: expect.objectContaining({
						ignored: true,
						reason: 'another call for this wait is being handled',
					}),
				});
				openFiles();
				const done = await finished(scenario, execution.id);
				expect(done.status).toBe('success');
				expect(done.data?.resultData.runData[AFTER]).toHaveLength(1);
				expect(waitOutput(done)[0].binary?.data).toMatchObject({ mimeType: 'application/pdf' });
				expect(fileRequests).toBe(1);
			} finally {
				holdFiles = false;
				openFiles();
			}
		});
	});

	describe.each([...SIGNING_DIALECTS])('signature layout of dialect %s', (dialect, style) => {
		afterAll(() => {
			sandbox.configure({ dialect: 'default' });
		});

		it('a forged delivery does not end the wait; the service’s own does', async () => {
			sandbox.configure({ dialect });
			const scenario = scenarios.layouts;
			const { execution, documentId } = await startWait(scenario, `msa-layout-${dialect}.pdf`);
			const [webhook] = webhooksOf(execution);
			const forged = await deliver(webhook.url, documentId, {
				secret: 'f'.repeat(64),
				style,
				webhookId: webhook.id,
			});
			expect(forged.body).toMatchObject({
				ignored: true,
				reason: expect.stringMatching(/^signature not valid/),
			});
			sandbox.actAsSigner(documentId, signerIdsOf(documentId)[0], 'sign');
			const done = await finished(scenario, execution.id);
			expect(done.status).toBe('success');
			expect(executionItems(done, AFTER)).toEqual([
				expect.objectContaining({ id: documentId, status: 'completed' }),
			]);
		});
	});

	describe('a service that keeps only a webhook’s url and events (no description, filters or expiry)', () => {
		beforeAll(() => {
			sandbox.configure({ dialect: 'webhook-url-events' });
		});
		afterAll(() => {
			sandbox.configure({ dialect: 'default' });
		});

		it('a cancel and the time limit: each webhook stays while its document is open, and goes on the next run once the service no longer has the document; a resume leaves none', async () => {
			const scenario = scenarios.urlEvents;
			const cancelled = await startWait(scenario, 'msa-url-events-cancelled.pdf');
			const limited = await startWait(scenario, 'msa-url-events-limited.pdf');
			expect(webhooksOf(limited.execution)[0].description).toBeNull();
			await n8n.rest('POST', `/rest/executions/${cancelled.execution.id}/stop`);
			await waitFor(
				async () =>
					(await ownExecutions(scenario)).find(
						(candidate) =>
							candidate.id === cancelled.execution.id && candidate.status === 'canceled',
					),
				'the execution cancelled',
				30_000,
			);
			// n8n calls no node on a cancel, nor at the time limit.
			const timedOut = await finished(scenario, limited.execution.id, TIME_LIMIT_BOUND_MS);
			expect(timedOut.status).toBe('success');
			// At the limit n8n passes on the node's input unchanged.
			expect(executionItems(timedOut, AFTER)).toEqual([
				expect.objectContaining({ body: deal('msa-url-events-limited.pdf') }),
			]);
			expect(webhooksOf(cancelled.execution)).toHaveLength(1);
			expect(webhooksOf(limited.execution)).toHaveLength(1);

			// What the cleanup goes by survives in n8n's resume URL: the owner tag and the limit.
			const limitedUrl = new URL(webhooksOf(limited.execution)[0].url);
			expect(limitedUrl.searchParams.get('owner')).toMatch(/^[0-9a-f]{16}$/);
			expect(Number(limitedUrl.searchParams.get('until'))).toBeLessThanOrEqual(Date.now());

			// Both documents are open: the cancelled wait's webhook stays, and the limited one's while
			// its limit's grace runs (on a very slow machine the next run may start past it; then it
			// goes). The removal past the grace is the unit suite's (waitWebhooks.test.ts, clock moved).
			const graceEnds = Number(limitedUrl.searchParams.get('until')) + LIMIT_GRACE_MS;
			const nextStarts = Date.now();
			const next = await startWait(scenario, 'msa-url-events-next.pdf');
			expect(webhooksOf(cancelled.execution)).toHaveLength(1);
			if (Date.now() < graceEnds) expect(webhooksOf(limited.execution)).toHaveLength(1);
			else if (nextStarts > graceEnds) expect(webhooksOf(limited.execution)).toEqual([]);
			for (const { documentId } of [cancelled, limited]) {
				const removed = await fetch(`${sandbox.baseUrl}/documents/${documentId}`, {
					method: 'DELETE',
					headers: { authorization: `Bearer ${apiKey}` },
					signal: AbortSignal.timeout(10_000),
				});
				expect(removed.status).toBe(204);
			}
			sandbox.actAsSigner(next.documentId, signerIdsOf(next.documentId)[0], 'sign');
			expect((await finished(scenario, next.execution.id)).status).toBe('success');
			expect(webhooksOf(next.execution)).toEqual([]);

			const last = await startWait(scenario, 'msa-url-events-last.pdf');
			expect(webhooksOf(cancelled.execution)).toEqual([]);
			expect(webhooksOf(limited.execution)).toEqual([]);
			sandbox.actAsSigner(last.documentId, signerIdsOf(last.documentId)[0], 'sign');
			expect((await finished(scenario, last.execution.id)).status).toBe('success');
			const scenarioWebhooks = sandbox.store
				.webhooksOf(apiKey)
				.filter((webhook) =>
					[cancelled.execution.id, limited.execution.id, next.execution.id, last.execution.id].some(
						(id) => webhook.url.includes(`/webhook-waiting/${id}/`),
					),
				);
			expect(scenarioWebhooks).toEqual([]);
		});
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
