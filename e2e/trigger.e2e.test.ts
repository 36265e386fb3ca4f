/**
 * The Document Signing Trigger end to end: a real n8n (the pinned one, headless) with this
 * package, the sandbox as the service, and a person signing in headless Chromium (Debian's
 * /usr/bin/chromium driven by playwright-core; see harness/browser.ts).
 *
 * - Activating the workflow registers exactly one webhook with the sandbox, for n8n's
 *   production URL and the chosen events.
 * - Every signer signs on the sandbox's signing pages (one through the simulated national e-ID
 *   step, one with an e-mailed one-time code): n8n runs the workflow once per `document.signed`
 *   and once for `document.completed`, with the right document, signers and delivery ids.
 * - Forged deliveries to the production URL are answered 401 and start nothing; a repeat of a
 *   delivery n8n ran is answered "already processed" and starts nothing either.
 * - Deactivating removes the webhook from the sandbox; nothing is delivered afterwards.
 *
 * Everything talks over 127.0.0.1: the sandbox (in this process) serves the signing pages to the
 * browser and POSTs its deliveries to n8n's production URL, which is n8n's own 127.0.0.1 address.
 * Screenshots of the signing pages go to E2E_ARTIFACTS_DIR (default
 * <tmp>/n8n-nodes-document-signing-e2e/trigger, replaced on each run).
 *
 * Needs the package built (`npm run build`) and /usr/bin/chromium (`bash scripts/e2e-prereqs.sh`).
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { signWebhookPayload } from '../sandbox/deliverySignature';
import { webhookSecret } from '../test/helpers/sandbox';
import { startSandbox, type DeliveryAttempt, type Sandbox } from '../sandbox';
import {
	launchBrowser,
	signEverySigner,
	type E2eBrowser,
	type SignedSigner,
} from './harness/browser';
import { createN8n, type Execution, type N8nInstance } from './harness/n8n';
import {
	byId,
	chain,
	createDocument,
	manualTrigger,
	nodeItems,
	signingNode,
	triggerItem as triggerItemOf,
	triggerNode,
	writeFileNode,
} from './harness/workflows';

const TRIGGER_NAME = 'Document Signing Trigger';
const EVENTS = ['document.completed', 'document.signed'];
const ARTIFACTS_DIR =
	process.env.E2E_ARTIFACTS_DIR ??
	path.join(os.tmpdir(), 'n8n-nodes-document-signing-e2e', 'trigger');
const triggerItem = (execution: Execution) => triggerItemOf(execution, TRIGGER_NAME);

describe('Document Signing Trigger in a real n8n, with people signing in Chromium', () => {
	let sandbox: Sandbox;
	let n8n: N8nInstance;
	let browser: E2eBrowser | undefined;
	let apiKey: string;
	let workflowId: string;
	let productionUrl: string;
	let serviceWebhookId: string;
	/** Deliveries to our webhook, by the time the signing test ends. */
	let completedBody: string;
	let downloadWorkflowId: string;
	const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-trigger-files-'));

	const ourDeliveries = (): DeliveryAttempt[] =>
		sandbox.deliveries().filter((d) => d.webhookId === serviceWebhookId);
	const executions = async (): Promise<Execution[]> => await n8n.executions({ workflowId });

	beforeAll(async () => {
		fs.rmSync(ARTIFACTS_DIR, { recursive: true, force: true });
		fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
		// Quick retries, so a delivery n8n did not take shows up as failed attempts within the test.
		sandbox = await startSandbox({
			port: 0,
			webhookRetry: { baseDelayMs: 250, maxAttempts: 4, timeoutMs: 10_000 },
		});
		// An account of its own: only this test's webhooks and documents in it.
		({ apiKey } = sandbox.createAccount());

		n8n = await createN8n({
			sandboxBaseUrl: sandbox.baseUrl,
			env: { N8N_RESTRICT_FILE_ACCESS_TO: filesDir },
		});
		const [credentialId] = await n8n.importCredentials([
			n8n.documentSigningCredential({ apiKey, name: 'Sandbox (trigger e2e)' }),
		]);
		const webhookNodeId = randomUUID();
		workflowId = await n8n.importWorkflow({
			name: 'e2e: when a document is signed',
			nodes: [
				triggerNode(TRIGGER_NAME, {
					events: EVENTS,
					credential: { id: credentialId, name: 'Sandbox (trigger e2e)' },
					webhookId: webhookNodeId,
				}),
			],
			connections: {},
		});
		productionUrl = n8n.productionWebhookUrl(`${webhookNodeId}/webhook`);
		// Document › Download in a workflow: the completed document's signed PDF, written to disk.
		const credential = { id: credentialId, name: 'Sandbox (trigger e2e)' };
		downloadWorkflowId = await n8n.importWorkflow(
			chain('e2e: download the signed PDF', [
				manualTrigger(),
				signingNode(
					'Completed Documents',
					{
						resource: 'document',
						operation: 'getAll',
						returnAll: false,
						limit: 1,
						filters: { status: 'completed' },
					},
					{ credential },
				),
				signingNode(
					'Download Signed',
					{
						resource: 'document',
						operation: 'download',
						documentId: byId('={{ $json.id }}'),
						version: 'signed',
						binaryPropertyName: 'data',
					},
					{ credential },
				),
				writeFileNode('Write PDF', `=${filesDir}/{{ $json.id }}-signed.pdf`),
			]),
		);
		await n8n.start();
	});

	afterAll(async () => {
		await browser?.close();
		await n8n?.dispose();
		await sandbox?.close();
		fs.rmSync(filesDir, { recursive: true, force: true });
	});

	it("activating registers exactly one webhook, for n8n's production URL and the chosen events", async () => {
		const status = await n8n.activate(workflowId);

		expect(status.status).toBe('published');
		expect(status.triggers.map((t) => t.errorMessage)).toEqual([null]);
		// Activation has settled (the harness waited for the publication): n8n has no failed
		// activation to retry, so this is the final state, not a snapshot during a retry.
		const webhooks = sandbox.store.webhooksOf(apiKey);
		expect(webhooks).toEqual([
			expect.objectContaining({ url: productionUrl, events: EVENTS, active: true }),
		]);
		serviceWebhookId = webhooks[0].id;
		expect(productionUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook\/[0-9a-f-]{36}\/webhook$/);
	});

	it('a person signs every signer on the signing pages (one with national e-ID): n8n runs once per signature and once on completion', async () => {
		const document = await createDocument(sandbox, apiKey, {
			name: 'service-agreement.pdf',
			message: 'Please sign the service agreement.',
			signers: [
				{ email: 'ann@example.com', name: 'Ann Example' },
				{ email: 'mart@example.com', name: 'Mart Tamm', authentication: 'national_eid' },
				{ email: 'cy@example.com', name: 'Cy Example', authentication: 'email_otp' },
			],
		});
		const signerIds: string[] = document.signers.map((signer: { id: string }) => signer.id);
		expect(document.signing_url).toMatch(
			new RegExp(`^${sandbox.origin}/sign/${document.id}\\?token=`),
		);

		browser = await launchBrowser();
		const page = await browser.newPage();
		const signed: SignedSigner[] = await signEverySigner(page, document.signing_url, {
			screenshotDir: ARTIFACTS_DIR,
		});
		await browser.close();
		browser = undefined;

		expect(signed).toEqual([
			{ signerId: signerIds[0], steps: [], notice: 'You signed this document. Thank you.' },
			{
				signerId: signerIds[1],
				steps: ['national_eid'],
				notice: 'You signed this document. Thank you.',
			},
			{ signerId: signerIds[2], steps: ['otp'], notice: 'You signed this document. Thank you.' },
		]);
		const [stored] = sandbox.store.documentsOf(apiKey);
		expect(stored.status).toBe('completed');
		expect(stored.signers.map((s) => s.status)).toEqual(['signed', 'signed', 'signed']);

		// Bounded waits: n8n has run 4 executions, and the sandbox has nothing left to deliver.
		await n8n.waitForExecutions(workflowId, { count: 4, timeoutMs: 60_000 });
		await sandbox.flushDeliveries();

		const runs = await executions();
		expect(runs.map((e) => ({ status: e.status, mode: e.mode }))).toEqual(
			Array(4).fill({ status: 'success', mode: 'webhook' }),
		);
		const items = runs.map(triggerItem);
		const completed = items.filter((item) => item.event === 'document.completed');
		const perSigner = items.filter((item) => item.event === 'document.signed');
		expect(completed).toHaveLength(1);
		expect(perSigner).toHaveLength(3);
		expect(completed[0].data.document).toEqual(
			expect.objectContaining({
				id: document.id,
				status: 'completed',
				name: 'service-agreement.pdf',
			}),
		);
		expect(perSigner.map((item) => item.data.document?.id)).toEqual([
			document.id,
			document.id,
			document.id,
		]);
		expect(perSigner.map((item) => item.data.signer?.id).sort()).toEqual([...signerIds].sort());
		expect(perSigner.map((item) => item.data.signer?.status)).toEqual([
			'signed',
			'signed',
			'signed',
		]);
		expect(new Set(items.map((item) => item.webhookId))).toEqual(new Set([serviceWebhookId]));

		// The sandbox's view: exactly these four deliveries, each taken by n8n at the first attempt
		// (only the chosen events were sent: no viewed/created/sent), and they are what n8n ran.
		const attempts = ourDeliveries();
		expect(
			attempts.map((a) => ({ url: a.url, attempt: a.attempt, status: a.status, ok: a.ok })),
		).toEqual(Array(4).fill({ url: productionUrl, attempt: 1, status: 200, ok: true }));
		expect(attempts.map((a) => a.event).sort()).toEqual([
			'document.completed',
			'document.signed',
			'document.signed',
			'document.signed',
		]);
		expect(items.map((item) => item.deliveryId).sort()).toEqual(
			attempts.map((a) => a.deliveryId).sort(),
		);
		completedBody = attempts.find((a) => a.event === 'document.completed')!.body;
	});

	it('Document › Download in a workflow gives the signed PDF of the document the people signed, byte for byte', async () => {
		const [completed] = sandbox.store
			.documentsOf(apiKey)
			.filter((document) => document.status === 'completed');
		const result = await n8n.execute(downloadWorkflowId);
		expect(result.error).toBeUndefined();
		const [downloaded] = nodeItems(result.run, 'Download Signed');
		expect(downloaded.json).toMatchObject({
			id: completed.id,
			status: 'completed',
			mimeType: 'application/pdf',
		});
		const written = fs.readFileSync(path.join(filesDir, `${completed.id}-signed.pdf`));
		expect(written.equals((await sandbox.documentFile(completed.id, 'signed')).data)).toBe(true);
	});

	it('forged deliveries to the production URL are answered 401 and start no execution', async () => {
		const before = (await executions()).length;
		const now = Math.floor(Date.now() / 1000);
		// A delivery as the service would send it (a fresh delivery id, so deduplication cannot be
		// what stops it), but not signed with the webhook's secret.
		const forgedBody = completedBody.replace(/"id":"dlv_[^"]+"/, '"id":"dlv_forged_0001"');
		expect(forgedBody).toContain('"id":"dlv_forged_0001"');
		const forgeries: Array<[string, Record<string, string>]> = [
			[
				'wrong secret',
				{ 'x-signature': signWebhookPayload(`whsec_${'x'.repeat(40)}`, now, forgedBody) },
			],
			['no signature', {}],
			['only another scheme', { 'x-signature': `t=${now},v0=${'ab'.repeat(32)}` }],
			['malformed', { 'x-signature': 'not-a-signature' }],
		];
		for (const [what, headers] of forgeries) {
			const response = await fetch(productionUrl, {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'x-event': 'document.completed',
					'x-delivery-id': 'dlv_forged_0001',
					...headers,
				},
				body: forgedBody,
				signal: AbortSignal.timeout(15_000),
			});
			const body = (await response.json()) as { error?: { code?: string } };
			expect({ what, status: response.status, code: body.error?.code }).toEqual({
				what,
				status: 401,
				code: 'invalid_signature',
			});
		}

		// "Nothing started" without waiting on a clock: a real event afterwards is the sentinel.
		// Once its two executions are there, any execution the forgeries had started would be too.
		const [sentinel] = [
			await createDocument(sandbox, apiKey, {
				name: 'sentinel.pdf',
				signers: [{ email: 'sam@example.com', name: 'Sam' }],
			}),
		];
		sandbox.actAsSigner(sentinel.id, sentinel.signers[0].id, 'sign');
		await n8n.waitForExecutions(workflowId, { count: before + 2, timeoutMs: 60_000 });
		await sandbox.flushDeliveries();

		const runs = await executions();
		expect(runs).toHaveLength(before + 2);
		const items = runs.map(triggerItem);
		expect(items.map((item) => item.deliveryId)).not.toContain('dlv_forged_0001');
		expect(
			items
				.filter((item) => item.data.document?.id === sentinel.id)
				.map((item) => item.event)
				.sort(),
		).toEqual(EVENTS);
	});

	it('a retry of a delivery n8n already ran (its answer lost) is answered "already processed" and starts no execution', async () => {
		const before = await executions();
		const deliveryId = (JSON.parse(completedBody) as { id: string }).id;
		// The execution of the first attempt claimed the delivery at the service.
		expect(sandbox.deliveryRecord(deliveryId)?.status).toBe('acknowledged');

		const secret = webhookSecret(sandbox, apiKey, serviceWebhookId)!;
		const response = await fetch(productionUrl, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				'x-signature': signWebhookPayload(secret, Math.floor(Date.now() / 1000), completedBody),
			},
			body: completedBody,
			signal: AbortSignal.timeout(15_000),
		});
		// The webhook step and the execution run in one n8n process here: it remembers the delivery.
		// n8n answers with the node's own response only when it starts no execution (else
		// "Workflow was started"), and creates an execution before answering.
		expect([response.status, await response.json()]).toEqual([
			200,
			{ received: true, ignored: true, reason: 'already processed' },
		]);
		expect((await executions()).map((execution) => execution.id)).toEqual(
			before.map((execution) => execution.id),
		);
	});

	it('deactivating removes the webhook from the sandbox; later events are not delivered', async () => {
		// Still the one webhook registered at activation: nothing re-registered it meanwhile.
		expect(sandbox.store.webhooksOf(apiKey).map((w) => w.id)).toEqual([serviceWebhookId]);
		const attemptsBefore = ourDeliveries().length;
		const executionsBefore = (await executions()).length;

		const status = await n8n.deactivate(workflowId);

		expect(status.status).toBe('not_published');
		expect(sandbox.store.webhooksOf(apiKey)).toEqual([]);
		const after = await fetch(productionUrl, {
			method: 'POST',
			body: '{}',
			signal: AbortSignal.timeout(15_000),
		});
		expect(after.status).toBe(404);

		const document = await createDocument(sandbox, apiKey, {
			name: 'after.pdf',
			signers: [{ email: 'al@example.com', name: 'Al' }],
		});
		sandbox.actAsSigner(document.id, document.signers[0].id, 'sign');
		await sandbox.flushDeliveries();
		expect(ourDeliveries()).toHaveLength(attemptsBefore);
		expect(sandbox.deliveries().filter((d) => d.body.includes(document.id))).toEqual([]);
		expect(await executions()).toHaveLength(executionsBefore);

		// The API key never reached n8n's logs (debug level) or output.
		expect(n8n.logText()).not.toContain(apiKey);
	});
});
