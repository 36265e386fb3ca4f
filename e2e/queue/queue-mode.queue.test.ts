/**
 * The package in n8n's queue mode: Redis, PostgreSQL, and n8n as a main process, 2 workers and a
 * webhook processor (then a second one), all with this package installed — see ./cluster.ts.
 *
 * 1. Bulk send: a production webhook (on the webhook processor) starts a workflow that splits
 *    1,000 rows into items and creates one document per item with the Document Signing node; a
 *    worker runs it. Every item has its document, none twice.
 * 2. Trigger activation (by the main process): the service has exactly one webhook, for the
 *    webhook processor's URL; the secret the main process stored is in the database.
 * 3. 200 `document.signed` events, delivered by the service to the webhook processor: each
 *    delivery id is processed (passed on by the trigger) exactly once, run by one of the workers.
 * 4. Forged deliveries (no, bad, stale signature; tampered body) are answered 401 by the webhook
 *    processor and start nothing.
 * 5. Repeated deliveries (same delivery id, freshly signed like a service retry), to the same
 *    webhook processor or to a second one, one after the other or at the same moment: every copy
 *    starts an execution, exactly one of them wins the claim at the service and goes on. The
 *    trigger's static data in the database holds the registration only (written by the main
 *    process at activation, read by both webhook processors), nothing about deliveries.
 * 6. A delivery whose execution n8n could not create (the execution table locked past the second
 *    webhook processor's statement timeout: answered 500) is processed once when the service
 *    retries it.
 * 7. Deactivation removes the webhook (registered once over the whole run); the webhook
 *    processor then answers 404.
 *
 * Prints the figures (events/s, executions per worker, phase times) and writes them to
 * $E2E_ARTIFACTS_DIR/queue/queue-figures.json (default <tmp>/n8n-nodes-document-signing-e2e).
 *
 * Needs the package built (`npm run build`); Redis and PostgreSQL are installed (Debian packages)
 * and started by scripts/redis.sh and scripts/postgres.sh. Run: `npx jest -c e2e/queue/jest.config.js`.
 */
import { webhookSecret } from '../../test/helpers/sandbox';
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { signWebhookPayload } from '../../sandbox/deliverySignature';
import { startSandbox, type DeliveryAttempt, type Sandbox } from '../../sandbox';
import { CREDENTIAL_TYPE, NODE_TYPE, type Execution } from '../harness/n8n';
import { executionItems, triggerNode } from '../harness/workflows';
import { startQueueCluster, type QueueCluster, type QueueProcess } from './cluster';

const BULK_ITEMS = 1000;
/** DB statement timeout of the second webhook processor (ms). */
const STATEMENT_TIMEOUT_MS = 4_000;
const EVENTS = 200;
const TRIGGER_NAME = 'Document Signing Trigger';
const TRIGGER_KEY = `node:${TRIGGER_NAME}`;
const ARTIFACTS_DIR = path.join(
	process.env.E2E_ARTIFACTS_DIR ?? path.join(os.tmpdir(), 'n8n-nodes-document-signing-e2e'),
	'queue',
);

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>(
		(_, reject) => (timer = setTimeout(() => reject(new Error(`${message} within ${ms} ms`)), ms)),
	);
	try {
		return await Promise.race([promise, timeout]);
	} finally {
		clearTimeout(timer);
	}
}

/** Figures printed at the end and written to queue-figures.json. */
const figures: Record<string, unknown> = {};

function report(name: string, value: unknown): void {
	figures[name] = value;
	process.stdout.write(`queue-mode ${name}: ${JSON.stringify(value)}\n`);
}

interface TriggerItem {
	event: string;
	deliveryId: string;
	data: { document?: Record<string, any>; signer?: Record<string, any> };
}

function triggerItem(execution: Execution): TriggerItem {
	const items = executionItems(execution, TRIGGER_NAME);
	if (items.length !== 1)
		throw new Error(`execution ${execution.id}: expected 1 trigger item, got ${items.length}`);
	return items[0] as TriggerItem;
}

/** The trigger's items of every execution: the deliveries that went on into the workflow. */
function processedItems(executions: Execution[]): TriggerItem[] {
	return executions.flatMap(
		(execution) => executionItems(execution, TRIGGER_NAME) as TriggerItem[],
	);
}

/**
 * Executions n8n recorded but never started: under a burst a webhook processor can insert the
 * execution and then lose its database connection before queueing the job. It answers the
 * service 5xx, the service retries, and another execution processes the delivery; the record
 * stays "new" for ever. One still "new", never started, 60 s after it was first seen is such an
 * orphan (n8n's, not the trigger's); every other unfinished execution is waited for.
 */
const ORPHAN_AFTER_MS = 60_000;
const firstSeenNew = new Map<string, number>();

function isOrphan(execution: Execution): boolean {
	if (execution.status !== 'new' || execution.startedAt) return false;
	const seen = firstSeenNew.get(execution.id) ?? Date.now();
	firstSeenNew.set(execution.id, seen);
	return Date.now() - seen > ORPHAN_AFTER_MS;
}

const isUnfinished = (execution: Execution): boolean =>
	['new', 'running', 'waiting'].includes(execution.status) && !isOrphan(execution);

function countBy<T>(values: T[]): Map<T, number> {
	const counts = new Map<T, number>();
	for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
	return counts;
}

describe('queue mode: main + 2 workers + webhook processor, Redis, PostgreSQL', () => {
	let sandbox: Sandbox;
	let cluster: QueueCluster;
	let apiKey: string;
	let credentialId: string;
	let bulkWorkflowId: string;
	let bulkPath: string;
	let triggerWorkflowId: string;
	let triggerWebhookNodeId: string;
	let serviceWebhookId: string;
	let secret: string;
	const suiteStarted = Date.now();

	const ourDeliveries = (): DeliveryAttempt[] =>
		sandbox.deliveries().filter((d) => d.webhookId === serviceWebhookId);
	const webhookPath = () => `${triggerWebhookNodeId}/webhook`;

	/** Every execution of a workflow, newest first (the public API's pages of 250, by cursor). */
	async function allExecutions(workflowId: string, includeData: boolean): Promise<Execution[]> {
		const executions: Execution[] = [];
		let cursor: string | undefined;
		for (let page = 0; page < 100; page++) {
			const params = new URLSearchParams({
				workflowId,
				includeData: String(includeData),
				limit: '250',
			});
			if (cursor) params.set('cursor', cursor);
			const body = await cluster.main.api<{ data: Execution[]; nextCursor?: string | null }>(
				'GET',
				`/executions?${params.toString()}`,
			);
			executions.push(...body.data);
			if (!body.nextCursor) break;
			cursor = body.nextCursor;
		}
		return executions;
	}

	/** Waits (bounded) until `count` executions of the workflow have finished; resolves with them, with data. */
	async function waitForFinished(
		workflowId: string,
		count: number,
		timeoutMs: number,
	): Promise<Execution[]> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const executions = await allExecutions(workflowId, false);
			const finished = executions.filter((e) => !isUnfinished(e));
			if (finished.length >= count) return await allExecutions(workflowId, true);
			if (Date.now() > deadline) {
				throw new Error(
					`${finished.length} of ${count} executions of ${workflowId} finished after ${timeoutMs} ms (${executions.length} exist)`,
				);
			}
			await sleep(500);
		}
	}

	/**
	 * Waits (bounded) until the service has no delivery pending (its retries included) and every
	 * execution of the trigger workflow has finished, with the count unchanged over two polls;
	 * resolves with their ids. Baselines and counts are taken after it, so deliveries of earlier
	 * tests (or their retries) still arriving cannot move them.
	 */
	async function settle(timeoutMs = 180_000): Promise<Set<string>> {
		await withTimeout(sandbox.flushDeliveries(), timeoutMs, 'the deliveries did not end');
		const deadline = Date.now() + timeoutMs;
		let previous = -1;
		for (;;) {
			const executions = await allExecutions(triggerWorkflowId, false);
			const unfinished = executions.some(isUnfinished);
			if (!unfinished && executions.length === previous && sandbox.stats().deliveries.pending === 0)
				return new Set(executions.map((e) => e.id));
			previous = unfinished ? -1 : executions.length;
			if (Date.now() > deadline)
				throw new Error(
					`the trigger's executions did not settle within ${timeoutMs} ms (${executions.length}, unfinished: ${unfinished})`,
				);
			await sleep(1_000);
		}
	}

	/** The trigger's executions that carry `deliveryId`. */
	async function executionsOfDelivery(deliveryId: string): Promise<Execution[]> {
		return (await allExecutions(triggerWorkflowId, true)).filter((e) => {
			try {
				return triggerItem(e).deliveryId === deliveryId;
			} catch {
				return false;
			}
		});
	}

	/** POSTs a delivery body as the service would: signed now (or at `t`) with `key`. */
	async function deliver(
		url: string,
		body: string,
		options: { key?: string; t?: number; signature?: string | null } = {},
	) {
		const t = options.t ?? Math.floor(Date.now() / 1000);
		const headers: Record<string, string> = { 'content-type': 'application/json' };
		const signature =
			options.signature === undefined
				? signWebhookPayload(options.key ?? secret, t, body)
				: options.signature;
		if (signature !== null) headers['x-signature'] = signature;
		const response = await fetch(url, {
			method: 'POST',
			headers,
			body,
			signal: AbortSignal.timeout(30_000),
		});
		return { status: response.status, body: await response.text() };
	}

	/** Delivers like the service: attempts until a 2xx, at most `maxAttempts`, 1 s apart. */
	async function deliverUntilAccepted(url: string, body: string, maxAttempts: number) {
		const attempts: Array<{ status: number; body: string }> = [];
		for (let attempt = 1; attempt <= maxAttempts; attempt++) {
			const answer = await deliver(url, body);
			attempts.push(answer);
			if (answer.status >= 200 && answer.status < 300) break;
			await sleep(1_000);
		}
		return attempts;
	}

	/** A `document.signed` body with a delivery id the service never made (for forgeries and 404s). */
	function unknownDelivery(tag: string): { id: string; body: string } {
		const template = JSON.parse(ourDeliveries()[0].body) as Record<string, unknown>;
		const id = `dlv_queue_${tag}_${randomUUID().replace(/-/g, '')}`;
		return { id, body: JSON.stringify({ ...template, id, created_at: new Date().toISOString() }) };
	}

	/** Webhook of a second subscriber ("tap", see the repeated-deliveries tests), once registered. */
	let tapWebhookId: string | undefined;
	/** The next of the bulk's documents nobody signed yet (the 200 events used the first ones). */
	let nextUnsigned = EVENTS;

	/**
	 * A real `document.signed` delivery no n8n has seen and nobody claimed: the service's delivery
	 * of a new signing to the tap, a second subscriber that answers 200 and claims nothing. (The
	 * trigger's own webhook gets its own delivery, with another id, of the same signing.)
	 */
	async function freshDelivery(): Promise<{ id: string; body: string }> {
		if (!tapWebhookId) throw new Error('the tap is not registered');
		const document = sandbox.store.documentsOf(apiKey)[nextUnsigned++];
		sandbox.actAsSigner(document.id, document.signers[0].id, 'sign');
		await withTimeout(sandbox.flushDeliveries(), 60_000, 'the deliveries did not end');
		const delivery = sandbox
			.deliveries()
			.find((d) => d.webhookId === tapWebhookId && d.ok && d.body.includes(document.id));
		if (!delivery) throw new Error(`no delivery of ${document.id} to the tap`);
		expect(sandbox.deliveryRecord(delivery.deliveryId)?.status).toBe('received');
		return { id: delivery.deliveryId, body: delivery.body };
	}

	beforeAll(async () => {
		fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
		// The contract's delivery schedule (10 s to answer; retries after 1 s, 2 s, 4 s, … 8 attempts).
		sandbox = await startSandbox({
			port: 0,
			webhookRetry: { baseDelayMs: 1_000, maxAttempts: 8, timeoutMs: 10_000 },
		});
		({ apiKey } = sandbox.createAccount());
		bulkPath = `bulk-${randomUUID()}`;
		triggerWebhookNodeId = randomUUID();
		const started = Date.now();
		cluster = await startQueueCluster({
			workers: 2,
			webhookProcessors: 1,
			sandboxBaseUrl: sandbox.baseUrl,
			beforeStart: async (main) => {
				[credentialId] = await main.importCredentials([
					main.documentSigningCredential({ apiKey, name: 'Sandbox (queue e2e)' }),
				]);
				const credentials = {
					[CREDENTIAL_TYPE]: { id: credentialId, name: 'Sandbox (queue e2e)' },
				};
				bulkWorkflowId = await main.importWorkflow({
					name: 'queue e2e: bulk send',
					settings: { executionOrder: 'v1' },
					nodes: [
						{
							id: randomUUID(),
							name: 'Rows',
							type: 'n8n-nodes-base.webhook',
							typeVersion: 2,
							position: [0, 0],
							webhookId: randomUUID(),
							parameters: {
								httpMethod: 'POST',
								path: bulkPath,
								responseMode: 'onReceived',
								options: {},
							},
						},
						{
							id: randomUUID(),
							name: 'One item per row',
							type: 'n8n-nodes-base.splitOut',
							typeVersion: 1,
							position: [220, 0],
							parameters: { fieldToSplitOut: 'body.rows', include: 'noOtherFields', options: {} },
						},
						{
							id: randomUUID(),
							name: 'Create document',
							type: NODE_TYPE,
							typeVersion: 1,
							position: [440, 0],
							credentials,
							parameters: {
								resource: 'document',
								operation: 'create',
								name: '={{ $json.name }}',
								signers: { signer: [{ email: '={{ $json.email }}', name: '={{ $json.signer }}' }] },
							},
						},
					],
					connections: {
						Rows: { main: [[{ node: 'One item per row', type: 'main', index: 0 }]] },
						'One item per row': { main: [[{ node: 'Create document', type: 'main', index: 0 }]] },
					},
				});
				triggerWorkflowId = await main.importWorkflow({
					name: 'queue e2e: when a document is signed',
					settings: { executionOrder: 'v1' },
					nodes: [
						triggerNode(TRIGGER_NAME, {
							events: ['document.signed'],
							credential: credentials[CREDENTIAL_TYPE],
							webhookId: triggerWebhookNodeId,
						}),
					],
					connections: {},
				});
			},
		});
		report('cluster start (s)', Math.round((Date.now() - started) / 100) / 10);
	});

	afterAll(async () => {
		report('suite wall time (s)', Math.round((Date.now() - suiteStarted) / 100) / 10);
		try {
			fs.writeFileSync(
				path.join(ARTIFACTS_DIR, 'queue-figures.json'),
				`${JSON.stringify(figures, null, 2)}\n`,
			);
		} catch {
			// figures are printed already
		}
		await cluster?.dispose();
		await sandbox?.close();
	});

	it('bulk send: 1,000 Document Create items in one execution on a worker, none lost, none twice', async () => {
		await cluster.main.activate(bulkWorkflowId);
		const rows = Array.from({ length: BULK_ITEMS }, (_, i) => ({
			name: `queue-bulk-${String(i).padStart(4, '0')}.pdf`,
			email: `signer${i}@example.com`,
			signer: `Signer ${i}`,
		}));

		const started = Date.now();
		const call = await fetch(cluster.productionWebhookUrl(bulkPath), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ rows }),
			signal: AbortSignal.timeout(30_000),
		});
		expect(call.status).toBe(200);
		const [execution] = await waitForFinished(bulkWorkflowId, 1, 400_000);
		const seconds = (Date.now() - started) / 1000;

		expect({ status: execution.status, error: execution.data?.resultData.error?.message }).toEqual({
			status: 'success',
			error: undefined,
		});
		expect(execution.mode).toBe('webhook');
		const output =
			execution.data?.resultData.runData['Create document']?.[0]?.data?.main?.[0] ?? [];
		expect(output).toHaveLength(BULK_ITEMS);
		output.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.json.name).toBe(rows[i].name);
		});
		const stored = sandbox.store.documentsOf(apiKey);
		expect(stored).toHaveLength(BULK_ITEMS);
		expect(new Set(stored.map((d) => d.name)).size).toBe(BULK_ITEMS);
		expect(new Set(output.map((item) => item.json.id))).toEqual(new Set(stored.map((d) => d.id)));

		// It ran on exactly one worker, once.
		const ranOn = Object.entries(cluster.executionsByWorker()).filter(([, ids]) =>
			ids.includes(execution.id),
		);
		expect(ranOn.map(([, ids]) => ids.filter((id) => id === execution.id).length)).toEqual([1]);
		report('bulk send', {
			items: BULK_ITEMS,
			seconds: Math.round(seconds * 10) / 10,
			itemsPerSecond: Math.round(BULK_ITEMS / seconds),
			worker: ranOn[0][0],
		});

		await cluster.main.deactivate(bulkWorkflowId);
	});

	it("activation (main process) registers one webhook, for the webhook processor's URL; its secret is in the database", async () => {
		const postsBefore = sandbox.stats().routes['POST /v1/webhooks'] ?? 0;
		const status = await cluster.main.activate(triggerWorkflowId);
		expect(status.status).toBe('published');

		const webhooks = sandbox.store.webhooksOf(apiKey);
		expect(webhooks).toHaveLength(1);
		expect(webhooks[0]).toMatchObject({
			url: cluster.productionWebhookUrl(webhookPath()),
			events: ['document.signed'],
			active: true,
		});
		expect((sandbox.stats().routes['POST /v1/webhooks'] ?? 0) - postsBefore).toBe(1);
		serviceWebhookId = webhooks[0].id;

		// What the webhook processor will read: the static data the main process saved at activation.
		const stored = (await cluster.storedStaticData(triggerWorkflowId))[TRIGGER_KEY] as Record<
			string,
			any
		>;
		expect(stored).toMatchObject({
			webhookId: serviceWebhookId,
			webhookUrl: webhooks[0].url,
			webhookEvents: ['document.signed'],
		});
		// No secret in the database: the nonce and the credential's key give it (nodes/shared/webhooks.ts).
		expect(stored.webhookSecret).toBeUndefined();
		expect(stored.secretNonce).toMatch(/^[0-9a-f]{32}$/);
		secret = webhookSecret(sandbox, apiKey, String(serviceWebhookId))!;
	});

	it('200 signing events through the webhook processor: each delivery executed exactly once, across the workers', async () => {
		const documents = sandbox.store.documentsOf(apiKey).slice(0, EVENTS);
		const executionsBefore = cluster.executionsByWorker();

		const started = Date.now();
		for (const document of documents)
			sandbox.actAsSigner(document.id, document.signers[0].id, 'sign');
		await withTimeout(sandbox.flushDeliveries(), 400_000, 'the deliveries did not end');
		const delivered = (Date.now() - started) / 1000;
		await waitForFinished(triggerWorkflowId, EVENTS, 400_000);
		// A delivery retried before its first execution claimed it starts one more execution, which
		// passes nothing on: wait (bounded) until every delivery id was passed on once.
		const deliveryIds = [...new Set(ourDeliveries().map((d) => d.deliveryId))];
		let executions: Execution[] = [];
		for (const deadline = Date.now() + 120_000; ; await sleep(1_000)) {
			executions = await allExecutions(triggerWorkflowId, true);
			if (!executions.some(isUnfinished) && processedItems(executions).length >= EVENTS) break;
			if (Date.now() > deadline)
				throw new Error(`${processedItems(executions).length} of ${EVENTS} deliveries processed`);
		}
		const executed = (Date.now() - started) / 1000;
		// Nothing more comes later (a late duplicate would): no delivery pending, every execution finished.
		await sleep(3_000);
		await settle();
		const after = await allExecutions(triggerWorkflowId, true);

		// The service: one delivery per signing, each ended with a 2xx from the webhook processor
		// and claimed by the execution that processed it.
		const deliveries = ourDeliveries();
		expect(deliveryIds).toHaveLength(EVENTS);
		expect(
			deliveries.every(
				(d) =>
					d.event === 'document.signed' && d.url === cluster.productionWebhookUrl(webhookPath()),
			),
		).toBe(true);
		const unacknowledged = deliveryIds.filter(
			(id) => sandbox.deliveryRecord(id)?.status !== 'acknowledged',
		);
		expect(unacknowledged).toEqual([]);

		// n8n: every execution succeeded; exactly one passed each delivery id on, with the right document.
		const orphans = after.filter(isOrphan);
		const failed = after.filter((e) => e.status !== 'success' && !isOrphan(e));
		expect(
			failed.map((e) => `${e.status}: ${String(e.data?.resultData.error?.message ?? '')}`),
		).toEqual([]);
		expect(after.every((e) => e.mode === 'webhook')).toBe(true);
		const items = processedItems(after);
		const perDelivery = countBy(items.map((item) => item.deliveryId));
		expect([...perDelivery.values()].every((count) => count === 1)).toBe(true);
		expect(new Set(perDelivery.keys())).toEqual(new Set(deliveryIds));
		expect(new Set(items.map((item) => item.data.document?.id))).toEqual(
			new Set(documents.map((d) => d.id)),
		);
		expect(items.every((item) => item.event === 'document.signed')).toBe(true);
		// Executions beyond one per event: at most one per repeated attempt of the service.
		expect(after.length - EVENTS).toBeLessThanOrEqual(deliveries.length - EVENTS);

		// The workers: every execution started on exactly one worker, and both took a share.
		const byWorker = cluster.executionsByWorker();
		const ids = after.filter((e) => !isOrphan(e)).map((e) => e.id);
		const perWorker: Record<string, number> = {};
		for (const [worker, started] of Object.entries(byWorker)) {
			const before = new Set(executionsBefore[worker]);
			perWorker[worker] = started.filter((id) => !before.has(id) && ids.includes(id)).length;
		}
		const everyStart = Object.values(byWorker).flat();
		const startsPerExecution = ids.map(
			(id) => everyStart.filter((started) => started === id).length,
		);
		expect(startsPerExecution).toEqual(Array(ids.length).fill(1));
		expect(Object.values(perWorker).every((count) => count > 0)).toBe(true);

		const attempts = deliveries.length;
		const failures = countBy(
			deliveries
				.filter((d) => !d.ok)
				.map((d) => (d.status === null ? String(d.error) : `HTTP ${d.status}`)),
		);
		report('signing events', {
			events: EVENTS,
			deliveryAttempts: attempts,
			retriedAttempts: attempts - EVENTS,
			failedAttempts: Object.fromEntries(failures),
			executions: after.length,
			executionsNeverStartedByN8n: orphans.length,
			deliveredInSeconds: Math.round(delivered * 10) / 10,
			executedInSeconds: Math.round(executed * 10) / 10,
			eventsPerSecondDelivered: Math.round((EVENTS / delivered) * 10) / 10,
			eventsPerSecondExecuted: Math.round((EVENTS / executed) * 10) / 10,
			executionsPerWorker: perWorker,
		});
	});

	it('forged deliveries are answered 401 by the webhook processor and start nothing', async () => {
		const url = cluster.productionWebhookUrl(webhookPath());
		// The 200 events' deliveries (and any retry of theirs) have ended, their executions finished.
		const before = await settle();
		const genuine = ourDeliveries()[0].body;
		const forged = unknownDelivery('forged').body;
		const now = Math.floor(Date.now() / 1000);

		const answers = [
			await deliver(url, forged, { signature: null }),
			await deliver(url, forged, { key: 'not-the-secret-not-the-secret-not-the-secret' }),
			await deliver(url, forged, { t: now - 3600 }),
			await deliver(url, forged, { signature: `t=${now},v1=${'0'.repeat(64)}` }),
			// A genuine body's signature on another body.
			await deliver(url, forged, { signature: signWebhookPayload(secret, now, genuine) }),
			await deliver(url, '', {}),
		];
		expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 401]);
		await sleep(2_000);
		// Nothing was pending at the baseline, so every execution since is one these requests started.
		const after = await settle();
		expect([...after].filter((id) => !before.has(id))).toEqual([]);
	});

	describe('repeated deliveries (the same delivery id, freshly signed, as a service retry)', () => {
		let tap: http.Server;

		beforeAll(async () => {
			// A second subscriber of the account: the service's deliveries to it are real and never
			// claimed, so each is a delivery "no n8n has seen yet" to send where a test wants.
			tap = http.createServer((req, res) => {
				req.resume();
				req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
			});
			await new Promise<void>((resolve) => tap.listen(0, '127.0.0.1', resolve));
			const response = await fetch(`${sandbox.baseUrl}/webhooks`, {
				method: 'POST',
				headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
				body: JSON.stringify({
					url: `http://127.0.0.1:${(tap.address() as AddressInfo).port}/tap`,
					events: ['document.signed'],
				}),
			});
			expect(response.status).toBe(201);
			tapWebhookId = ((await response.json()) as { id: string }).id;
		});

		afterAll(async () => {
			if (tapWebhookId) {
				await fetch(`${sandbox.baseUrl}/webhooks/${tapWebhookId}`, {
					method: 'DELETE',
					headers: { authorization: `Bearer ${apiKey}` },
				});
			}
			await new Promise((resolve) => tap?.close(resolve));
		});

		it("the database after the 200 events: the registration and the catch-up's starting point, nothing about deliveries", async () => {
			const stored = (await cluster.storedStaticData(triggerWorkflowId))[TRIGGER_KEY] as Record<
				string,
				any
			>;
			report('static data after the events', Object.keys(stored).sort());
			// pollCursor: where Catch Up Missed Events starts, saved at activation.
			expect(Object.keys(stored).sort()).toEqual([
				'pollCursor',
				'secretNonce',
				'webhookEvents',
				'webhookId',
				'webhookOwner',
				'webhookUrl',
			]);
			expect(JSON.stringify(stored)).not.toContain(secret);
		});

		it('to the same webhook processor, one after the other: the repeat is answered "already processed" and starts no execution', async () => {
			const url = cluster.productionWebhookUrl(webhookPath());
			const { id, body } = await freshDelivery();

			expect((await deliver(url, body)).status).toBe(200);
			await waitForExecutionOf(id);
			expect(sandbox.deliveryRecord(id)?.status).toBe('acknowledged');
			// The trigger's own delivery of the same signing (another id) has ended too.
			const before = await settle();

			// The processor passed it on itself: it asks the service, which reports it claimed.
			const repeat = await deliver(url, body);
			expect([repeat.status, JSON.parse(repeat.body)]).toEqual([
				200,
				{ received: true, ignored: true, reason: 'already processed' },
			]);
			expect(await settle()).toEqual(before);
			expect(await executionsOfDelivery(id)).toHaveLength(1);
		});

		it('to the same webhook processor, two at once: processed once', async () => {
			const url = cluster.productionWebhookUrl(webhookPath());
			const { id, body } = await freshDelivery();
			const before = (await settle()).size;
			const answers = await Promise.all([deliver(url, body), deliver(url, body)]);
			expect(answers.map((a) => a.status)).toEqual([200, 200]);
			// One execution; the copy waits for it, or (a worker slow to claim) starts one that
			// passes nothing on.
			await waitForFinished(triggerWorkflowId, before + 1, 60_000);
			expect((await settle()).size - before).toBeLessThanOrEqual(2);
			expect(await executionsOfDelivery(id)).toHaveLength(1);
		});

		describe('with a second webhook processor', () => {
			let second: QueueProcess;

			beforeAll(async () => {
				// A short statement timeout here only, for the failure case below (n8n's default: 5 min).
				second = await cluster.addWebhookProcessor({
					DB_POSTGRESDB_STATEMENT_TIMEOUT: String(STATEMENT_TIMEOUT_MS),
				});
			});

			it('it reads the secret from the database: genuine deliveries are executed, forged ones refused', async () => {
				const url = second.productionWebhookUrl(webhookPath());
				const { id, body } = await freshDelivery();
				expect((await deliver(url, body)).status).toBe(200);
				expect(
					(await deliver(url, body, { key: 'wrong-secret-wrong-secret-wrong-secret' })).status,
				).toBe(401);
				const [execution] = await waitForExecutionOf(id);
				expect(execution.status).toBe('success');
			});

			it('a repeat sent to the other webhook processor is processed no second time (earlier, one after the other, at once)', async () => {
				const results: Record<string, number> = {};
				const before = (await settle()).size;
				// Processed through processor 0 during the 200 events, repeated to processor 1 now.
				const old = ourDeliveries().find((d) => d.ok)!;
				await deliver(second.productionWebhookUrl(webhookPath()), old.body);

				// New: to processor 0, then, once executed, to processor 1.
				const sequential = await freshDelivery();
				await deliver(cluster.productionWebhookUrl(webhookPath()), sequential.body);
				await waitForExecutionOf(sequential.id);
				await deliver(second.productionWebhookUrl(webhookPath()), sequential.body);

				// New: one copy to each at the same moment.
				const parallel = await freshDelivery();
				await Promise.all([
					deliver(cluster.productionWebhookUrl(webhookPath()), parallel.body),
					deliver(second.productionWebhookUrl(webhookPath()), parallel.body),
				]);
				// 5 requests above, plus the trigger's own deliveries of the two new signings.
				await waitForFinished(triggerWorkflowId, before + 7, 60_000);
				await sleep(3_000);
				await settle();

				results.processedEarlierRepeatedOnOther = (
					await executionsOfDelivery(old.deliveryId)
				).length;
				results.oneAfterTheOther = (await executionsOfDelivery(sequential.id)).length;
				results.atOnce = (await executionsOfDelivery(parallel.id)).length;
				report(
					'executions that processed each delivery id, copies sent to both webhook processors',
					results,
				);
				expect(results).toEqual({
					processedEarlierRepeatedOnOther: 1,
					oneAfterTheOther: 1,
					atOnce: 1,
				});
			});

			// n8n answers 500 when it cannot create the execution (here: the execution table is locked
			// past the processor's statement timeout). The delivery was never claimed, so the
			// service's retry is processed.
			it('a delivery whose execution n8n could not start is processed once when the service retries it', async () => {
				const url = second.productionWebhookUrl(webhookPath());
				const { id, body } = await freshDelivery();
				const lock = cluster.sql(
					`BEGIN; LOCK TABLE execution_entity IN SHARE MODE; SELECT pg_sleep(${(STATEMENT_TIMEOUT_MS * 2.5) / 1000}); COMMIT;`,
				);
				let attempts: Array<{ status: number; body: string }> = [];
				try {
					await waitForLock();
					// As the service does: attempt, and retry (1 s apart here) until a 2xx.
					attempts = await deliverUntilAccepted(url, body, 8);
				} finally {
					await lock;
				}
				report(
					'failed start, then retries',
					attempts.map((a) => `${a.status} ${a.body.slice(0, 80)}`),
				);
				expect(attempts[0].status).toBeGreaterThanOrEqual(500);
				expect(attempts[attempts.length - 1].status).toBe(200);
				const [execution] = await waitForExecutionOf(id);
				expect(execution.status).toBe('success');
				await sleep(3_000);
				await settle();
				expect(await executionsOfDelivery(id)).toHaveLength(1);
				expect(sandbox.deliveryRecord(id)?.status).toBe('acknowledged');
			});
		});
	});

	it('deactivation (main process) removes the webhook; the webhook processor then answers 404', async () => {
		const deletesBefore = sandbox.stats().routes['DELETE /v1/webhooks/:id'] ?? 0;
		const status = await cluster.main.deactivate(triggerWorkflowId);
		expect(status.status).toBe('not_published');
		expect(sandbox.store.webhooksOf(apiKey)).toEqual([]);
		expect((sandbox.stats().routes['DELETE /v1/webhooks/:id'] ?? 0) - deletesBefore).toBe(1);
		// Registered once over the whole run (no process other than main registered anything); the
		// other registration is the tests' tap.
		expect(sandbox.stats().routes['POST /v1/webhooks']).toBe(2);

		const stored = (await cluster.storedStaticData(triggerWorkflowId))[TRIGGER_KEY] as Record<
			string,
			any
		>;
		expect(stored.webhookId).toBeUndefined();
		expect(stored.secretNonce).toBeUndefined();

		const { body } = unknownDelivery('after');
		expect((await deliver(cluster.productionWebhookUrl(webhookPath()), body)).status).toBe(404);
	});

	/** Waits (bounded) until some session holds a lock on execution_entity. */
	async function waitForLock(timeoutMs = 10_000): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const granted = await cluster.sql(
				"SELECT count(*) FROM pg_locks WHERE relation = 'execution_entity'::regclass AND mode = 'ShareLock' AND granted",
			);
			if (Number(granted.trim()) > 0) return;
			if (Date.now() > deadline) throw new Error('the lock on execution_entity was not taken');
			await sleep(100);
		}
	}

	async function waitForExecutionOf(deliveryId: string, timeoutMs = 60_000): Promise<Execution[]> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const found = (await executionsOfDelivery(deliveryId)).filter(
				(e) => !['new', 'running', 'waiting'].includes(e.status),
			);
			if (found.length > 0) return found;
			if (Date.now() > deadline)
				throw new Error(`no finished execution for delivery ${deliveryId} after ${timeoutMs} ms`);
			await sleep(500);
		}
	}
});
