/**
 * Webhook mode's catch-up (issue 55) in n8n's queue mode: Redis, PostgreSQL, n8n as a main process,
 * 2 workers and a webhook processor (./cluster.ts). The single-process suite is
 * e2e/triggerCatchUp.e2e.test.ts; this is its first scenario here.
 *
 * The sandbox delivers each event ONCE to the webhook processor; executions run on the workers,
 * which claim each delivery at the service; the catch-up runs on the main process (n8n's crons run
 * on the leader only) every minute, and claims too. 6 live events, one of them delivered twice;
 * every n8n process stopped while 5 events fire; all started again; 1 live event. Each of the 12
 * runs exactly once (an execution that passes an item), and the next two catch-ups pass nothing.
 *
 * Waits are for states (execution counts, audit-log reads), bounded. Needs the package built.
 * Run: `npx jest -c e2e/queue/jest.config.js e2e/queue/triggerCatchUp.queue.test.ts`.
 */
import { randomUUID } from 'node:crypto';

import type { AuditLogEntry } from '../../contract';
import { WEBHOOK_EVENTS } from '../../nodes/shared/vocabulary';
import { signWebhookPayload } from '../../sandbox/deliverySignature';
import { startSandbox, type Sandbox } from '../../sandbox';
import { webhookSecret } from '../../test/helpers/sandbox';
import type { Execution } from '../harness/n8n';
import { remind, TRIGGER_NAME, twoSigners } from '../harness/pollingEvents';
import { waitForState } from '../harness/waitForState';
import { createDocument, executionItems, triggerNode } from '../harness/workflows';
import { startQueueCluster, type QueueCluster } from './cluster';

const DELIVERED = new Set<string>(WEBHOOK_EVENTS);
const PHASE_MS = 300_000;
const AUDIT_READS = 'GET /v1/reports/audit-log';
const FINISHED = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status);

interface Item {
	event: string;
	via?: string;
	data?: { document?: { id?: string }; signature_request?: { document_id?: string } };
}
const entryKey = (entry: AuditLogEntry) => `${entry.event} ${entry.document_id}`;
const itemKey = (item: Item) =>
	`${item.event} ${item.data?.document?.id ?? item.data?.signature_request?.document_id}`;

describe('Webhook mode catches up missed events in queue mode (2 workers, 1 webhook processor)', () => {
	let sandbox: Sandbox;
	let cluster: QueueCluster;
	let apiKey: string;
	let workflowId: string;
	const webhookNodeId = randomUUID();
	let before = new Set<string>();

	const expectedEntries = () =>
		sandbox.store
			.auditLogOf(apiKey)
			.reverse()
			.filter((entry) => DELIVERED.has(entry.event) && !before.has(entry.id));
	const auditReads = () => sandbox.stats().routes[AUDIT_READS] ?? 0;
	const all = () => cluster.main.executions({ workflowId, includeData: true, limit: 250 });
	/** The executions that passed an item (one whose claim another won passes none). */
	const withItems = (runs: Execution[]) =>
		runs.filter((run) => executionItems(run, TRIGGER_NAME).length > 0);

	async function waitForItems(count: number): Promise<Execution[]> {
		await waitForState(all, (runs) => runs.every(FINISHED) && withItems(runs).length >= count, {
			timeoutMs: PHASE_MS,
			intervalMs: 2000,
			describe: (runs) =>
				`${withItems(runs ?? []).length} of ${count} executions with an item after ${PHASE_MS} ms`,
		});
		return withItems(await all());
	}

	function expectEachOnce(runs: Execution[], expected: AuditLogEntry[]) {
		const items = runs.map((run) => executionItems(run, TRIGGER_NAME));
		expect(items.map((list) => list.length)).toEqual(runs.map(() => 1));
		const ran = items.map((list) => list[0] as Item);
		expect(ran.map(itemKey).sort()).toEqual(expected.map(entryKey).sort());
		return ran;
	}

	beforeAll(async () => {
		sandbox = await startSandbox({
			port: 0,
			webhookRetry: { maxAttempts: 1, baseDelayMs: 250, timeoutMs: 10_000 },
		});
		({ apiKey } = sandbox.createAccount());
		cluster = await startQueueCluster({
			workers: 2,
			webhookProcessors: 1,
			sandboxBaseUrl: sandbox.baseUrl,
			beforeStart: async (main) => {
				const [credentialId] = await main.importCredentials([
					main.documentSigningCredential({ apiKey, name: 'Sandbox (queue catch-up)' }),
				]);
				workflowId = await main.importWorkflow({
					name: 'queue e2e: catch up',
					nodes: [
						triggerNode(TRIGGER_NAME, {
							events: ['*'],
							credential: { id: credentialId, name: 'Sandbox (queue catch-up)' },
							webhookId: webhookNodeId,
							parameters: { receiveEventsBy: 'webhook', catchUp: 1 },
						}),
					],
					connections: {},
				});
			},
		});
	});

	afterAll(async () => {
		await cluster?.dispose();
		await sandbox?.close();
	});

	it(
		'6 live events (one delivered twice), 5 while every n8n process is stopped, 1 after: each of the 12 runs once, and the next catch-ups pass nothing',
		async () => {
			await createDocument(sandbox, apiKey, twoSigners('before'));
			before = new Set(sandbox.store.auditLogOf(apiKey).map((entry) => entry.id));
			const status = await cluster.main.activate(workflowId);
			expect(status.triggers.map((trigger) => trigger.errorMessage)).toEqual([null]);
			const [{ id: serviceWebhookId }] = sandbox.store.webhooksOf(apiKey);

			const live = await createDocument(sandbox, apiKey, twoSigners('live'));
			sandbox.actAsSigner(live.id, live.signers[0].id, 'view');
			sandbox.actAsSigner(live.id, live.signers[0].id, 'sign');
			await remind(sandbox, apiKey, live.signature_request_id);
			expect(expectedEntries()).toHaveLength(6);
			await sandbox.flushDeliveries();
			expectEachOnce(await waitForItems(6), expectedEntries());

			// One delivered twice: its claim (or the processor's check) starts no second item.
			const [copy] = sandbox
				.deliveries()
				.filter((attempt) => attempt.webhookId === serviceWebhookId);
			const secret = webhookSecret(sandbox, apiKey, serviceWebhookId)!;
			const repeat = await fetch(cluster.productionWebhookUrl(`${webhookNodeId}/webhook`), {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'x-signature': signWebhookPayload(secret, Math.floor(Date.now() / 1000), copy.body),
				},
				body: copy.body,
				signal: AbortSignal.timeout(15_000),
			});
			expect(repeat.status).toBe(200);

			// Every n8n process stopped while 5 events fire; each delivery fails once, never again.
			await Promise.all(
				[...cluster.webhookProcessors, ...cluster.workers].map(async (one) => await one.stop()),
			);
			await cluster.main.stop();
			const missed = await createDocument(sandbox, apiKey, twoSigners('missed'));
			sandbox.actAsSigner(missed.id, missed.signers[0].id, 'view');
			sandbox.actAsSigner(missed.id, missed.signers[0].id, 'sign');
			await sandbox.flushDeliveries();
			expect(expectedEntries()).toHaveLength(11);

			await cluster.main.start();
			// As the cluster starts them: a worker's health server on its instance's port.
			await Promise.all(
				[...cluster.workers, ...cluster.webhookProcessors].map(
					async (one) =>
						await one.start(
							{ ...cluster.sharedEnv, QUEUE_HEALTH_CHECK_PORT: String(one.port) },
							180_000,
						),
				),
			);
			await remind(sandbox, apiKey, missed.signature_request_id);
			expect(expectedEntries()).toHaveLength(12);

			const runs = await waitForItems(12);
			const ran = expectEachOnce(runs, expectedEntries());
			expect(ran.filter((item) => item.via === 'catchUp')).toHaveLength(5);
			expect(ran.filter((item) => item.via === 'webhook')).toHaveLength(7);

			// The next two catch-ups pass nothing.
			const from = auditReads();
			await waitForState(
				async () => auditReads(),
				(reads) => reads >= from + 2,
				{ timeoutMs: PHASE_MS, intervalMs: 1000, describe: () => 'two more catch-ups' },
			);
			expect(withItems(await all())).toHaveLength(12);
		},
		4 * PHASE_MS,
	);
});
