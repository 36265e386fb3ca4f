/**
 * 5. Send and Wait for Signature at scale: N executions waiting at once, then all N documents
 * completed in one loop. Run twice in the same n8n: with the sandbox honouring the webhook's
 * `document_id` (each completion is delivered to its own wait's webhook only) and with it ignored
 * (dialect `ignores-webhook-filters`: each completion goes to every wait's webhook still
 * registered, and each wait filters by document itself).
 *
 * Figures: every execution resumed exactly once (the node after the wait ran once, with its own
 * document), deliveries per completion event (the sandbox's counters, which unlike its attempt
 * history are not capped), n8n's CPU from the first completion to the last resume, and the time
 * from the last completion to the last resume (the latest stoppedAt).
 */
import type { Execution } from '../../e2e/harness/n8n';
import { chain, executionItems, signingNode } from '../../e2e/harness/workflows';
import {
	allExecutions,
	callWebhook,
	cpuMs,
	createCredential,
	createWorkflow,
} from '../../e2e/harness/n8nApi';
import { noOpNode, webhookNode } from '../../e2e/harness/webhookWorkflows';
import type { BenchContext } from './context';

export interface SendAndWaitOptions {
	waits: number;
	/** Bound for the waits to start. */
	startTimeoutMs: number;
	/** Bound for the resumes, from the last completion. */
	resumeTimeoutMs: number;
}

export interface SendAndWaitRow {
	setup: 'document filter' | 'no filter';
	waits: number;
	/** Executions waiting before the completions (the rest failed or did not start within the bound). */
	waiting: number;
	startMs: number;
	/** Executions that finished with success after the completions. */
	resumed: number;
	/** Executions whose next node ran more than once, or with another execution's document. */
	wrongResumes: number;
	failedExecutions: number;
	executionErrors: string[];
	/** Deliveries the sandbox sent (each to one webhook) per completion event. */
	deliveriesPerEvent: number;
	/** Deliveries the sandbox gave up on or dropped. */
	failedDeliveries: number;
	lastCompletionToLastResumeMs: number;
	timedOut: boolean;
	n8nCpuMs: number;
	/** Service webhooks left on the account at the end. */
	webhooksLeft: number;
	/** Executions still waiting at the bound whose service webhook was already gone (no event can wake them). */
	waitingWithoutWebhook: number;
}

export interface SendAndWaitResult {
	options: SendAndWaitOptions;
	rows: SendAndWaitRow[];
}

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

/** The workflow's executions, or undefined when a busy n8n did not answer (the caller polls again, within its bound). */
async function executionsOrNothing(
	ctx: BenchContext,
	workflowId: string,
	includeData = false,
): Promise<Execution[] | undefined> {
	try {
		return await allExecutions(ctx.n8n, workflowId, includeData);
	} catch (error) {
		ctx.log(
			`n8n did not list executions (${String((error as Error).message).split('\n')[0]}); polling on`,
		);
		return undefined;
	}
}
const FINISHED = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status);
const WAIT_NODE = 'Send and Wait';
const AFTER_NODE = 'Done';

/** Runs `task` for 0..count-1, at most `concurrency` at once. */
async function pool(
	count: number,
	concurrency: number,
	task: (index: number) => Promise<void>,
): Promise<void> {
	let next = 0;
	await Promise.all(
		Array.from({ length: Math.min(concurrency, count) }, async () => {
			while (next < count) await task(next++);
		}),
	);
}

async function runOne(
	ctx: BenchContext,
	setup: SendAndWaitRow['setup'],
	options: SendAndWaitOptions,
): Promise<SendAndWaitRow> {
	const { sandbox, n8n, log } = ctx;
	sandbox.configure({
		dialect: setup === 'document filter' ? 'default' : 'ignores-webhook-filters',
		rateLimit: null,
		failureRate: 0,
		connectionResetRate: 0,
		webhookRetry: { baseDelayMs: 1000, maxAttempts: 8, timeoutMs: 10_000 },
	});
	const account = sandbox.createAccount();
	const accountId = sandbox.store.accountIdOf(account.apiKey)!;
	const credential = await createCredential(
		n8n,
		`bench send and wait (${setup})`,
		account.apiKey,
		sandbox.baseUrl,
	);
	const path = `bench-send-and-wait-${Date.now()}`;
	const workflowId = await createWorkflow(
		n8n,
		chain(`bench send and wait (${setup})`, [
			webhookNode(path, 'Deal Won', 'onReceived'),
			signingNode(
				WAIT_NODE,
				{
					resource: 'document',
					operation: 'sendAndWait',
					documentSource: 'new',
					name: '={{ $json.body.name }}',
					signers: { signer: [{ email: '={{ $json.body.email }}', name: 'Bench Signer' }] },
					additionalFields: {},
					waitOptions: {},
				},
				{ credential },
			),
			noOpNode(AFTER_NODE),
		]),
	);
	await n8n.activate(workflowId);

	log(`send and wait (${setup}): starting ${options.waits} waits`);
	const started = performance.now();
	await pool(options.waits, 10, async (index) => {
		const status = await callWebhook(n8n, path, {
			name: `wait-${index}.pdf`,
			email: `signer-${index}@example.com`,
		});
		if (status !== 200) throw new Error(`starting wait ${index}: HTTP ${status}`);
	});
	const startDeadline = Date.now() + options.startTimeoutMs;
	let waiting: Execution[] = [];
	for (;;) {
		const list = (await executionsOrNothing(ctx, workflowId)) ?? [];
		waiting = list.filter((execution) => execution.status === 'waiting');
		if (
			list.length >= options.waits &&
			list.every((execution) => execution.status === 'waiting' || FINISHED(execution))
		)
			break;
		if (Date.now() > startDeadline) break;
		await sleep(1000);
	}
	const startMs = performance.now() - started;
	log(
		`send and wait (${setup}): ${waiting.length} waiting after ${Math.round(startMs / 1000)} s; completing every document`,
	);

	const statsBefore = sandbox.stats().deliveries;
	const documents = sandbox.store
		.documentsOf(account.apiKey)
		.filter((document) => document.status === 'pending');
	const cpuBefore = cpuMs(n8n.pid!);
	for (const document of documents)
		sandbox.actAsSigner(document.id, document.signers[0].id, 'sign');
	const lastCompletion = Date.now();

	const resumeDeadline = Date.now() + options.resumeTimeoutMs;
	let timedOut = false;
	let stillWaiting: Execution[] = [];
	for (;;) {
		const list = await executionsOrNothing(ctx, workflowId);
		stillWaiting = list?.filter((execution) => execution.status === 'waiting') ?? stillWaiting;
		// n8n's public API leaves out running (resuming) executions: done only once every wait is
		// listed again, finished.
		if (list && stillWaiting.length === 0 && list.filter(FINISHED).length >= waiting.length) break;
		if (Date.now() > resumeDeadline) {
			timedOut = true;
			break;
		}
		await sleep(1000);
	}
	const n8nCpuMs = cpuMs(n8n.pid!) - cpuBefore;
	const webhookUrls = sandbox.store.webhooksOf(account.apiKey).map((webhook) => webhook.url);
	const waitingWithoutWebhook = stillWaiting.filter(
		(execution) => !webhookUrls.some((url) => url.includes(`/webhook-waiting/${execution.id}/`)),
	).length;
	// Deliveries still being retried are part of the cost: wait (bounded) until the sandbox is idle.
	await Promise.race([sandbox.flushDeliveries(), sleep(120_000)]);
	const statsAfter = sandbox.stats().deliveries;
	const events = sandbox
		.deliveries()
		.filter((attempt) => attempt.accountId === accountId && attempt.event === 'document.completed');

	let withData: Execution[] | undefined;
	for (let attempt = 0; attempt < 10 && !withData; attempt++)
		withData = await executionsOrNothing(ctx, workflowId, true);
	if (!withData) throw new Error(`n8n did not list the executions of ${workflowId}`);
	const resumedAfter = withData.filter(
		(execution) =>
			execution.status === 'success' &&
			execution.stoppedAt &&
			Date.parse(execution.stoppedAt) >= lastCompletion - 1000,
	);
	let wrongResumes = 0;
	for (const execution of resumedAfter) {
		const runs = execution.data?.resultData.runData[AFTER_NODE] ?? [];
		const [item] = executionItems(execution, AFTER_NODE);
		const sent = executionItems(execution, 'Deal Won')[0]?.body?.name;
		if (runs.length !== 1 || item?.status !== 'completed' || item?.name !== sent) wrongResumes++;
	}
	const failed = withData.filter((execution) =>
		['error', 'crashed', 'canceled'].includes(execution.status),
	);
	const lastResume = Math.max(...resumedAfter.map((execution) => Date.parse(execution.stoppedAt!)));
	const webhooksLeft = sandbox.store.webhooksOf(account.apiKey).length;
	await n8n.deactivate(workflowId);
	// Waits left over (bound reached) are cancelled so that the next setup starts clean.
	for (const execution of ((await executionsOrNothing(ctx, workflowId)) ?? []).filter(
		(candidate) => candidate.status === 'waiting',
	)) {
		await n8n.rest('POST', `/rest/executions/${execution.id}/stop`).catch(() => undefined);
	}
	const delivered =
		statsAfter.succeeded -
		statsBefore.succeeded +
		(statsAfter.failed - statsBefore.failed) +
		(statsAfter.dropped - statsBefore.dropped);
	const row: SendAndWaitRow = {
		setup,
		waits: options.waits,
		waiting: waiting.length,
		startMs,
		resumed: resumedAfter.length,
		wrongResumes,
		failedExecutions: failed.length,
		executionErrors: [
			...new Set(
				failed.map((execution) =>
					String(execution.data?.resultData.error?.message ?? execution.status),
				),
			),
		].slice(0, 5),
		deliveriesPerEvent: delivered / Math.max(1, documents.length),
		failedDeliveries:
			statsAfter.failed - statsBefore.failed + (statsAfter.dropped - statsBefore.dropped),
		lastCompletionToLastResumeMs: Number.isFinite(lastResume) ? lastResume - lastCompletion : NaN,
		timedOut,
		n8nCpuMs,
		webhooksLeft,
		waitingWithoutWebhook,
	};
	// The row as soon as it exists: a later failure of the run does not lose it.
	log(
		`send and wait (${setup}): ${JSON.stringify(row)} (${events.length} completion attempts in the sandbox's history)`,
	);
	return row;
}

export async function runSendAndWait(
	ctx: BenchContext,
	options: SendAndWaitOptions,
): Promise<SendAndWaitResult> {
	const rows: SendAndWaitRow[] = [];
	// BENCH_SEND_AND_WAIT_SETUPS=filter runs the first setup only (the other takes n8n to its bound).
	rows.push(await runOne(ctx, 'document filter', options));
	if (process.env.BENCH_SEND_AND_WAIT_SETUPS !== 'filter')
		rows.push(await runOne(ctx, 'no filter', options));
	ctx.sandbox.configure({ dialect: 'default' });
	return { options, rows };
}
