/**
 * 8. Webhook mode's catch-up (issue 55): the Document Signing Trigger in Webhook mode with Catch
 * Up Missed Events › Every Minute, Events `*`, in a real n8n of its own, against a sandbox of its
 * own that tries each delivery once (no retry), so a delivery n8n misses is never sent again.
 *
 * - Idle: after activation, the requests the service answered between catch-up minutes (nothing
 *   else talks to this sandbox), per catch-up. Target: 1 (the audit-log read).
 * - Missed: n8n stopped, ceil(N / 3) documents created (3 events each; every delivery fails), n8n
 *   started again: the time from the start (the call that spawns n8n) to the end of the last
 *   missed event's execution, and from n8n being ready to it. The catch-up runs at activation, so
 *   no catch-up minute need pass.
 *
 * Every wait is for a state (audit-log reads, an execution count), bounded.
 */
import { createN8n, type Execution } from '../../e2e/harness/n8n';
import { waitForState } from '../../e2e/harness/waitForState';
import { createDocument, executionItems, triggerNode } from '../../e2e/harness/workflows';
import { startSandbox } from '../../sandbox';

const TRIGGER_NAME = 'Document Signing Trigger';
const AUDIT_READS = 'GET /v1/reports/audit-log';
const IDLE_CATCH_UPS = 2;
/** Two catch-up minutes and a loaded machine's slack. */
const BOUND_MS = 200_000;

export interface WebhookCatchUpOptions {
	/** Events missed while n8n is stopped (documents of 3 events each). */
	missed: number;
	log: (message: string) => void;
}

export interface WebhookCatchUpResult {
	options: { missed: number };
	idle: { catchUps: number; requests: number; requestsPerCatchUp: number };
	missed: number;
	executions: number;
	caughtUp: number;
	/** n8n's start (the call that spawns it) -> the last missed event's execution ended. */
	startToLastMissedMs: number;
	/** n8n ready (start() resolved) -> the same. */
	readyToLastMissedMs: number;
}

export async function runWebhookCatchUp(
	options: WebhookCatchUpOptions,
): Promise<WebhookCatchUpResult> {
	const { log } = options;
	const sandbox = await startSandbox({
		port: 0,
		webhookRetry: { maxAttempts: 1, baseDelayMs: 250, timeoutMs: 10_000 },
	});
	const n8n = await createN8n({ sandboxBaseUrl: sandbox.baseUrl, logLevel: 'warn' });
	try {
		const { apiKey } = sandbox.createAccount();
		const [credentialId] = await n8n.importCredentials([
			n8n.documentSigningCredential({ apiKey, name: 'Sandbox (bench catch-up)' }),
		]);
		const workflowId = await n8n.importWorkflow({
			name: 'bench: catch up',
			nodes: [
				triggerNode(TRIGGER_NAME, {
					events: ['*'],
					credential: { id: credentialId, name: 'Sandbox (bench catch-up)' },
					parameters: { receiveEventsBy: 'webhook', catchUp: 1 },
				}),
			],
			connections: {},
		});
		await n8n.start();
		await n8n.activate(workflowId);
		const reads = () => sandbox.stats().routes[AUDIT_READS] ?? 0;
		const catchUps = async (count: number) => {
			const from = reads();
			await waitForState(
				async () => reads(),
				(now) => now >= from + count,
				{ timeoutMs: BOUND_MS * count, intervalMs: 250, describe: () => `${count} catch-ups` },
			);
		};
		log('webhook catch-up: idle catch-ups');
		await catchUps(1);
		const before = sandbox.stats().requests;
		await catchUps(IDLE_CATCH_UPS);
		const idleRequests = sandbox.stats().requests - before;

		log(`webhook catch-up: n8n stopped, ${options.missed} events missed`);
		await n8n.stop();
		const documents = Math.ceil(options.missed / 3);
		for (let index = 0; index < documents; index++)
			await createDocument(sandbox, apiKey, {
				name: `missed-${index}.pdf`,
				signers: [{ email: `ann+${index}@example.com`, name: 'Ann Example' }],
			});
		await sandbox.flushDeliveries();
		const missed = documents * 3;
		const started = Date.now();
		await n8n.start();
		const ready = Date.now();
		await waitForState(
			() => n8n.executions({ workflowId, includeData: false, limit: 250 }),
			(runs) =>
				runs.length >= missed &&
				runs.every((run) => !['new', 'running', 'waiting'].includes(run.status)),
			{ timeoutMs: BOUND_MS, intervalMs: 500, describe: (runs) => `${runs?.length} executions` },
		);
		const runs: Execution[] = await n8n.executions({ workflowId, includeData: true, limit: 250 });
		const caughtUp = runs.filter(
			(run) => executionItems(run, TRIGGER_NAME)[0]?.via === 'catchUp',
		).length;
		const lastEnd = Math.max(...runs.map((run) => Date.parse(String(run.stoppedAt))));
		return {
			options: { missed: options.missed },
			idle: {
				catchUps: IDLE_CATCH_UPS,
				requests: idleRequests,
				requestsPerCatchUp: idleRequests / IDLE_CATCH_UPS,
			},
			missed,
			executions: runs.length,
			caughtUp,
			startToLastMissedMs: lastEnd - started,
			readyToLastMissedMs: lastEnd - ready,
		};
	} finally {
		await n8n.dispose();
		await sandbox.close();
	}
}
