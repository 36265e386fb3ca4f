/**
 * Webhook mode's catch-up (issue 55) end to end: a real n8n (the pinned one, headless) with this
 * package, the sandbox as the service delivering each event ONCE (no retry), and a workflow whose
 * trigger receives any event (`*`) by webhook with Catch Up Missed Events › Every Minute.
 *
 * - 6 live events, one of them delivered twice (a signed copy posted again); n8n stopped while 5
 *   events fire (their deliveries fail); n8n started again; 1 more live event. Each of the 12 runs
 *   exactly once, by webhook or by the catch-up, and the next two catch-ups pass nothing.
 * - The webhook deleted at the service while the workflow runs: its events arrive at a later
 *   catch-up, none twice (default dialect only).
 * - The same first scenario with an audit log under other names, oldest first, that ignores
 *   `from`, and deliveries whose ids and times are their own
 *   (`audit-renamed+audit-oldest-first+audit-ignores-from+delivery-own-times`).
 *
 * Every wait is for a state: a count of this suite's executions, or of the sandbox's audit-log
 * reads (one per catch-up at least), each bounded. The catch-up runs every minute, at second 0.
 * Needs the package built (`npm run build`). About 5 minutes per dialect.
 */
import { randomUUID } from 'node:crypto';

import type { AuditLogEntry } from '../contract';
import { WEBHOOK_EVENTS } from '../nodes/shared/vocabulary';
import { signWebhookPayload } from '../sandbox/deliverySignature';
import { startSandbox, type Sandbox } from '../sandbox';
import { webhookSecret } from '../test/helpers/sandbox';
import { createN8n, type Execution, type N8nInstance } from './harness/n8n';
import { remind, TRIGGER_NAME, twoSigners } from './harness/pollingEvents';
import { waitForState } from './harness/waitForState';
import { createDocument, executionItems, triggerNode } from './harness/workflows';

const DELIVERED = new Set<string>(WEBHOOK_EVENTS);
/** Two catch-up minutes, the executions they start and a loaded machine's slack. */
const PHASE_MS = 240_000;
const AUDIT_READS = 'GET /v1/reports/audit-log';
const FINISHED = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status);

/** An event as the rule's subject: every event of these scenarios happens once per document. */
const entryKey = (entry: AuditLogEntry) => `${entry.event} ${entry.document_id}`;
/** The trigger's item, as much of it as these scenarios read. */
interface Item {
	event: string;
	via?: string;
	data?: { document?: { id?: string }; signature_request?: { document_id?: string } };
}
const itemKey = (item: Item) =>
	`${item.event} ${item.data?.document?.id ?? item.data?.signature_request?.document_id}`;

describe.each([
	['the contract', 'default'],
	['another dialect', 'audit-renamed+audit-oldest-first+audit-ignores-from+delivery-own-times'],
])('Webhook mode catches up missed events in a real n8n (%s)', (_, dialect) => {
	let sandbox: Sandbox;
	let n8n: N8nInstance;
	let apiKey: string;
	let workflowId: string;
	let serviceWebhookId: string;
	let productionUrl: string;
	/** Audit-log entry ids from before activation: never run. */
	let before = new Set<string>();

	const expectedEntries = () =>
		sandbox.store
			.auditLogOf(apiKey)
			.reverse()
			.filter((entry) => DELIVERED.has(entry.event) && !before.has(entry.id));
	const auditReads = () => sandbox.stats().routes[AUDIT_READS] ?? 0;
	const triggerLog = () =>
		n8n
			.logText()
			.split('\n')
			.filter((line) => /Document Signing Trigger/i.test(line))
			.slice(-15)
			.join('\n');

	/** Waits (bounded) until `count` executions exist and all have finished; with their data. */
	async function waitForRuns(count: number): Promise<Execution[]> {
		await waitForState(
			() => n8n.executions({ workflowId, includeData: false, limit: 250 }),
			(runs) => runs.length >= count && runs.every(FINISHED),
			{
				timeoutMs: PHASE_MS,
				intervalMs: 1000,
				describe: (runs) =>
					`${runs?.length ?? 0} of ${count} executions after ${PHASE_MS} ms\n${triggerLog()}`,
			},
		);
		return await n8n.executions({ workflowId, includeData: true, limit: 250 });
	}

	/** Each of the expected events ran exactly once, and how each came. */
	function expectEachOnce(runs: Execution[], expected: AuditLogEntry[]) {
		const items = runs.map((run) => executionItems(run, TRIGGER_NAME));
		expect(items.map((list) => list.length)).toEqual(runs.map(() => 1));
		const ran = items.map((list) => list[0] as Item);
		expect(ran.map(itemKey).sort()).toEqual(expected.map(entryKey).sort());
		return ran;
	}

	/** At least `count` more catch-ups ran (each reads the audit log), bounded. */
	async function catchUpsPass(count: number) {
		const from = auditReads();
		await waitForState(
			async () => auditReads(),
			(reads) => reads >= from + count,
			{
				timeoutMs: PHASE_MS,
				intervalMs: 1000,
				describe: (reads) => `${(reads ?? from) - from} of ${count} catch-ups\n${triggerLog()}`,
			},
		);
	}

	beforeAll(async () => {
		// The service tries each delivery once: a delivery n8n did not take is never sent again.
		sandbox = await startSandbox({
			port: 0,
			dialect,
			webhookRetry: { maxAttempts: 1, baseDelayMs: 250, timeoutMs: 10_000 },
		});
		({ apiKey } = sandbox.createAccount());
		n8n = await createN8n({ sandboxBaseUrl: sandbox.baseUrl });
		const [credentialId] = await n8n.importCredentials([
			n8n.documentSigningCredential({ apiKey, name: 'Sandbox (catch-up e2e)' }),
		]);
		const webhookNodeId = randomUUID();
		workflowId = await n8n.importWorkflow({
			name: `e2e: catch up (${dialect})`,
			nodes: [
				triggerNode(TRIGGER_NAME, {
					events: ['*'],
					credential: { id: credentialId, name: 'Sandbox (catch-up e2e)' },
					webhookId: webhookNodeId,
					parameters: { receiveEventsBy: 'webhook', catchUp: 1 },
				}),
			],
			connections: {},
		});
		productionUrl = n8n.productionWebhookUrl(`${webhookNodeId}/webhook`);
		await n8n.start();
	});

	afterAll(async () => {
		await n8n?.dispose();
		await sandbox?.close();
	});

	it(
		'6 live events (one delivered twice), 5 while n8n is stopped, 1 after: each of the 12 runs once, and the next catch-ups pass nothing',
		async () => {
			const early = await createDocument(sandbox, apiKey, twoSigners('before'));
			expect(early.id).toEqual(expect.any(String));
			before = new Set(sandbox.store.auditLogOf(apiKey).map((entry) => entry.id));
			const status = await n8n.activate(workflowId);
			expect(status.triggers.map((trigger) => trigger.errorMessage)).toEqual([null]);
			[{ id: serviceWebhookId }] = sandbox.store.webhooksOf(apiKey);

			// 6 live events.
			const live = await createDocument(sandbox, apiKey, twoSigners('live'));
			sandbox.actAsSigner(live.id, live.signers[0].id, 'view');
			sandbox.actAsSigner(live.id, live.signers[0].id, 'sign');
			await remind(sandbox, apiKey, live.signature_request_id);
			expect(expectedEntries()).toHaveLength(6);
			await sandbox.flushDeliveries();
			let runs = await waitForRuns(6);
			expectEachOnce(runs, expectedEntries());

			// One delivered twice: a signed copy of a delivery n8n ran starts nothing.
			const [copy] = sandbox
				.deliveries()
				.filter((attempt) => attempt.webhookId === serviceWebhookId);
			const secret = webhookSecret(sandbox, apiKey, serviceWebhookId)!;
			const repeat = await fetch(productionUrl, {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'x-signature': signWebhookPayload(secret, Math.floor(Date.now() / 1000), copy.body),
				},
				body: copy.body,
				signal: AbortSignal.timeout(15_000),
			});
			expect([repeat.status, await repeat.json()]).toEqual([
				200,
				{ received: true, ignored: true, reason: 'already processed' },
			]);

			// 5 events while n8n is stopped: each delivery fails once and is never sent again.
			await n8n.stop();
			const missed = await createDocument(sandbox, apiKey, twoSigners('missed'));
			sandbox.actAsSigner(missed.id, missed.signers[0].id, 'view');
			sandbox.actAsSigner(missed.id, missed.signers[0].id, 'sign');
			await sandbox.flushDeliveries();
			expect(expectedEntries()).toHaveLength(11);
			const failed = sandbox
				.deliveries()
				.filter((attempt) => attempt.webhookId === serviceWebhookId && !attempt.ok);
			expect(failed).toHaveLength(5);

			await n8n.start();
			// The catch-up runs at the start, then at second 0 of every minute.
			const secondCatchUp = Math.ceil(Date.now() / 60_000) * 60_000 + 60_000;
			// 1 live event after the start.
			await remind(sandbox, apiKey, missed.signature_request_id);
			expect(expectedEntries()).toHaveLength(12);

			runs = await waitForRuns(12);
			expect(runs.map((run) => run.status)).toEqual(runs.map(() => 'success'));
			const ran = expectEachOnce(runs, expectedEntries());
			expect(ran.filter((item) => item.via === 'catchUp')).toHaveLength(5);
			expect(ran.filter((item) => item.via === 'webhook')).toHaveLength(7);
			// Within one catch-up of the start: each missed event began before the second one.
			const caughtUp = runs.filter((run) => executionItems(run, TRIGGER_NAME)[0].via === 'catchUp');
			for (const run of caughtUp) expect(Date.parse(run.startedAt)).toBeLessThan(secondCatchUp);

			// The next catch-ups pass nothing.
			await catchUpsPass(2);
			expect(await n8n.executions({ workflowId, includeData: false, limit: 250 })).toHaveLength(12);
		},
		3 * PHASE_MS,
	);

	if (dialect === 'default')
		it(
			'the webhook deleted at the service while the workflow runs: its events arrive at a later catch-up, none twice',
			async () => {
				const deleted = await fetch(`${sandbox.baseUrl}/webhooks/${serviceWebhookId}`, {
					method: 'DELETE',
					headers: { authorization: `Bearer ${apiKey}` },
					signal: AbortSignal.timeout(10_000),
				});
				expect(deleted.status).toBe(204);
				const after = await createDocument(sandbox, apiKey, twoSigners('after-delete'));
				expect(after.id).toEqual(expect.any(String));
				expect(expectedEntries()).toHaveLength(15);

				const runs = await waitForRuns(15);
				const ran = expectEachOnce(runs, expectedEntries());
				expect(ran.filter((item) => item.via === 'catchUp')).toHaveLength(8);

				await catchUpsPass(2);
				expect(await n8n.executions({ workflowId, includeData: false, limit: 250 })).toHaveLength(
					15,
				);
			},
			3 * PHASE_MS,
		);
});
