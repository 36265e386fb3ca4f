/**
 * 4. Burst: N `document.signed` events at once, as a bulk send produces them when its signers
 * sign together. N documents with one signer each are created first (not timed; the receiver
 * listens to `document.signed` only), then the bench signs all of them in one synchronous loop
 * (`sandbox.actAsSigner`), which queues N deliveries at the same moment. The sandbox delivers at
 * most `concurrencyPerUrl` attempts at once per webhook URL (10 s to answer, retries 1 s, 2 s, …
 * up to 8 attempts).
 *
 * Receivers: the Document Signing Trigger and n8n's own Webhook node (answering on receipt,
 * registered with the service by hand), each followed by a No Op; in regular mode (the bench's
 * n8n, SQLite) and in queue mode (e2e/queue/cluster.ts: main + 1 webhook processor + 1 or 2
 * workers, PostgreSQL, Redis; a fresh cluster for each worker count).
 *
 * Time to last execution = the burst -> the latest stoppedAt of the run's executions (n8n's clock
 * and the bench's are this machine's). n8n is not read while the sandbox still delivers; then its
 * execution counts are polled once a second without data (the polling is n8n CPU too), and the
 * executions are read with data once at the end.
 */
import type { Execution, N8nInstance } from '../../e2e/harness/n8n';
import { startQueueCluster, type QueueCluster } from '../../e2e/queue/cluster';
import { chain, executionItems, triggerNode } from '../../e2e/harness/workflows';
import type { DeliveryAttempt } from '../../sandbox';
import { allExecutions, cpuMs, createCredential, createWorkflow } from '../../e2e/harness/n8nApi';
import { seedDocuments } from '../lib/raw';
import { median } from '../lib/stats';
import { noOpNode, webhookNode } from '../../e2e/harness/webhookWorkflows';
import type { BenchContext } from './context';

export interface BurstOptions {
	events: number;
	/** The sandbox's attempts in flight per webhook URL (0: unbounded). */
	concurrencyPerUrl: number;
	/** Also measure queue mode (1 worker, then 2 workers). */
	queue: boolean;
}

export type BurstReceiver = 'trigger' | 'webhook';

export interface BurstRow {
	/** `regular`, `queue 1 worker`, `queue 2 workers`. */
	setup: string;
	receiver: BurstReceiver;
	events: number;
	/** The burst -> the last execution's stoppedAt. */
	timeToLastExecutionMs: number;
	eventsPerSecond: number;
	deliveryAttempts: number;
	attemptsPerEvent: number;
	/** Attempts beyond the first of a delivery. */
	redeliveries: number;
	/** Deliveries that never got a 2xx (all attempts used). */
	failedDeliveries: number;
	/** Why attempts failed (HTTP status or network error), counted. */
	failedAttempts: Record<string, number>;
	executions: number;
	/** Executions that did not end in success, and the first few distinct errors. */
	failedExecutions: number;
	executionErrors: string[];
	/** Events of the burst passed on by the receiver at least once. */
	executed: number;
	/** Passings of an event beyond its first. */
	duplicates: number;
	/** CPU (user + system) of the n8n processes involved, from the burst until the last execution was seen, per event. */
	n8nCpuMsPerEvent: number;
	/** Medians: first attempt -> execution startedAt; startedAt -> stoppedAt; the receiver's answer per attempt. */
	profile: { firstAttemptToStartMs: number; startToStopMs: number; answerMs: number };
	/** A bound was reached before every execution had finished: the figures are incomplete. */
	timedOut: boolean;
}

export interface BurstResult {
	options: BurstOptions;
	rows: BurstRow[];
	/** Trigger / Webhook node time to last execution, per setup. */
	triggerToWebhook: Record<string, number>;
	/** Trigger events/s with 2 workers / with 1 worker. */
	twoWorkersToOne?: number;
}

/** One n8n setup the burst is sent to. */
interface BurstTarget {
	setup: string;
	/** The process with the public API. */
	main: N8nInstance;
	/** Every n8n process that handles the deliveries and executions. */
	pids: () => number[];
	productionWebhookUrl: (path: string) => string;
}

/** Each run (deliveries and executions) is bounded. */
const RUN_TIMEOUT_MS = 10 * 60_000;
/** Events before the burst, not counted: first executions (code loading, the trigger's secret) are slower. */
const WARM_EVENTS = 4;
/** With no new finished execution for this long (and no delivery pending), the run is over. */
const STABLE_MS = 15_000;
const POLL_MS = 1_000;

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));
const FINISHED = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status);

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
	let timer: NodeJS.Timeout | undefined;
	try {
		return await Promise.race([
			promise,
			new Promise<undefined>(
				(resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, ms))),
			),
		]);
	} finally {
		clearTimeout(timer);
	}
}

function totalCpuMs(pids: number[]): number {
	return pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
}

export async function runBurst(ctx: BenchContext, options: BurstOptions): Promise<BurstResult> {
	const { sandbox, n8n, log } = ctx;
	const previousRetry = sandbox.config().webhookRetry;
	sandbox.configure({
		rateLimit: null,
		failureRate: 0,
		connectionResetRate: 0,
		webhookRetry: {
			baseDelayMs: 1000,
			maxAttempts: 8,
			timeoutMs: 10_000,
			concurrencyPerUrl: options.concurrencyPerUrl,
		},
	});
	const rows: BurstRow[] = [];
	try {
		const regular: BurstTarget = {
			setup: 'regular',
			main: n8n,
			pids: () => [n8n.pid!],
			productionWebhookUrl: (path) => n8n.productionWebhookUrl(path),
		};
		for (const receiver of ['trigger', 'webhook'] as const)
			rows.push(await burstOnce(ctx, regular, receiver, options));

		if (options.queue) {
			for (const workers of [1, 2]) {
				const setup = `queue ${workers} worker${workers > 1 ? 's' : ''}`;
				log(`burst: starting the queue-mode cluster (${setup})`);
				let cluster: QueueCluster | undefined;
				try {
					// Warnings only, as the bench's own n8n: info logging of every job would be part of the figures.
					cluster = await startQueueCluster({
						workers,
						webhookProcessors: 1,
						sandboxBaseUrl: sandbox.baseUrl,
						logLevel: 'warn',
					});
					const started = cluster;
					const target: BurstTarget = {
						setup,
						main: started.main,
						pids: () =>
							[started.main, ...started.workers, ...started.webhookProcessors].map((p) => p.pid!),
						productionWebhookUrl: (path) => started.productionWebhookUrl(path),
					};
					for (const receiver of ['trigger', 'webhook'] as const)
						rows.push(await burstOnce(ctx, target, receiver, options));
				} finally {
					await cluster?.dispose();
				}
			}
		}
	} finally {
		sandbox.configure({ webhookRetry: previousRetry });
	}

	const rowOf = (setup: string, receiver: BurstReceiver) =>
		rows.find((row) => row.setup === setup && row.receiver === receiver);
	const triggerToWebhook: Record<string, number> = {};
	for (const setup of new Set(rows.map((row) => row.setup))) {
		const trigger = rowOf(setup, 'trigger');
		const webhook = rowOf(setup, 'webhook');
		if (trigger && webhook)
			triggerToWebhook[setup] = trigger.timeToLastExecutionMs / webhook.timeToLastExecutionMs;
	}
	const one = rowOf('queue 1 worker', 'trigger');
	const two = rowOf('queue 2 workers', 'trigger');
	return {
		options,
		rows,
		triggerToWebhook,
		...(one && two ? { twoWorkersToOne: two.eventsPerSecond / one.eventsPerSecond } : {}),
	};
}

/** The event ids an execution passed on: the trigger's items' deliveryId, the Webhook node's body.id. */
function passedEventIds(
	execution: Execution,
	receiver: BurstReceiver,
	firstNode: string,
): string[] {
	return executionItems(execution, firstNode)
		.map((json) => (receiver === 'trigger' ? json.deliveryId : json.body?.id))
		.filter((id): id is string => typeof id === 'string');
}

async function burstOnce(
	ctx: BenchContext,
	target: BurstTarget,
	receiver: BurstReceiver,
	options: BurstOptions,
): Promise<BurstRow> {
	const { sandbox, log } = ctx;
	const { main } = target;
	const account = sandbox.createAccount();
	const accountId = sandbox.store.accountIdOf(account.apiKey)!;
	const ours = (): DeliveryAttempt[] =>
		sandbox.deliveries().filter((d) => d.accountId === accountId);

	// The documents first, with nothing subscribed yet: their creation sends no delivery.
	log(`burst (${target.setup}, ${receiver}): creating ${options.events + WARM_EVENTS} documents`);
	await seedDocuments({
		baseUrl: sandbox.baseUrl,
		apiKey: account.apiKey,
		count: options.events + WARM_EVENTS,
		prefix: 'burst',
		concurrency: 8,
	});
	const documents = sandbox.store.documentsOf(account.apiKey);
	const warm = documents.slice(0, WARM_EVENTS);
	const burst = documents.slice(WARM_EVENTS, WARM_EVENTS + options.events);

	let workflowId: string;
	let firstNode: string;
	let handRegisteredWebhook: string | undefined;
	if (receiver === 'trigger') {
		const credential = await createCredential(
			main,
			`bench burst ${target.setup}`,
			account.apiKey,
			sandbox.baseUrl,
		);
		const trigger = triggerNode('Document Signing Trigger', {
			events: ['document.signed'],
			credential,
		});
		firstNode = trigger.name;
		workflowId = await createWorkflow(
			main,
			chain(`bench burst trigger (${target.setup})`, [trigger, noOpNode()]),
		);
		await main.activate(workflowId);
	} else {
		const path = `bench-burst-webhook-${Date.now()}`;
		const hook = webhookNode(path, 'Webhook', 'onReceived');
		firstNode = hook.name;
		workflowId = await createWorkflow(
			main,
			chain(`bench burst webhook (${target.setup})`, [hook, noOpNode()]),
		);
		await main.activate(workflowId);
		const response = await fetch(`${sandbox.baseUrl}/webhooks`, {
			method: 'POST',
			headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
			body: JSON.stringify({ url: target.productionWebhookUrl(path), events: ['document.signed'] }),
		});
		if (response.status !== 201)
			throw new Error(`registering the Webhook node with the service: HTTP ${response.status}`);
		handRegisteredWebhook = ((await response.json()) as { id: string }).id;
	}
	if (sandbox.store.webhooksOf(account.apiKey).length !== 1)
		throw new Error('burst: no webhook registered');

	try {
		// Warm-up, not counted.
		for (const document of warm) sandbox.actAsSigner(document.id, document.signers[0].id, 'sign');
		await settle(
			ctx,
			main,
			workflowId,
			() => ours().filter((d) => d.ok).length,
			new Set(),
			Date.now() + 120_000,
		);
		const warmDeliveries = new Set(ours().map((d) => d.deliveryId));
		const warmExecutions = new Set((await allExecutions(main, workflowId)).map((e) => e.id));

		log(
			`burst (${target.setup}, ${receiver}): ${options.events} events at once, ${options.concurrencyPerUrl || 'unbounded'} in flight per URL`,
		);
		const pids = target.pids();
		const cpuBefore = totalCpuMs(pids);
		const burstAt = Date.now();
		for (const document of burst) sandbox.actAsSigner(document.id, document.signers[0].id, 'sign');

		const accepted = () => ours().filter((d) => d.ok && !warmDeliveries.has(d.deliveryId)).length;
		const waited = await settle(
			ctx,
			main,
			workflowId,
			accepted,
			warmExecutions,
			burstAt + RUN_TIMEOUT_MS,
			() => totalCpuMs(pids),
		);
		const cpuUsed = (waited.cpuAtLastChange ?? totalCpuMs(pids)) - cpuBefore;

		const executions = (await allExecutions(main, workflowId, true)).filter(
			(e) => !warmExecutions.has(e.id),
		);
		const attempts = ours().filter((d) => !warmDeliveries.has(d.deliveryId));
		return figures({
			target,
			receiver,
			options,
			burstAt,
			executions,
			attempts,
			firstNode,
			cpuUsed,
			timedOut: waited.timedOut,
		});
	} finally {
		await main
			.deactivate(workflowId)
			.catch((error: Error) =>
				log(`burst: deactivating ${workflowId} failed: ${error.message.split('\n')[0]}`),
			);
		if (handRegisteredWebhook) {
			await fetch(`${sandbox.baseUrl}/webhooks/${handRegisteredWebhook}`, {
				method: 'DELETE',
				headers: { authorization: `Bearer ${account.apiKey}` },
			});
		}
	}
}

/**
 * Waits (until `deadline`) for the sandbox to end its deliveries, then for n8n to finish what it
 * accepted: every execution finished, and as many as accepted attempts or no change for
 * STABLE_MS (a repeat the trigger answers without an execution, or an accepted request n8n
 * dropped). `cpu` is sampled at each poll: the CPU when the last execution was first seen.
 */
async function settle(
	ctx: BenchContext,
	main: N8nInstance,
	workflowId: string,
	accepted: () => number,
	exclude: Set<string>,
	deadline: number,
	cpu?: () => number,
): Promise<{ timedOut: boolean; cpuAtLastChange?: number }> {
	const flushed = await withTimeout(
		ctx.sandbox.flushDeliveries().then(() => true),
		deadline - Date.now(),
	);
	let lastCount = -1;
	let stableSince = Date.now();
	let cpuAtLastChange: number | undefined;
	for (;;) {
		const pollStarted = Date.now();
		const list = (await allExecutions(main, workflowId)).filter((e) => !exclude.has(e.id));
		const finished = list.filter(FINISHED).length;
		if (finished !== lastCount) {
			lastCount = finished;
			stableSince = Date.now();
			cpuAtLastChange = cpu?.();
		}
		const allFinished = finished === list.length;
		if (flushed && allFinished && (finished >= accepted() || Date.now() - stableSince > STABLE_MS))
			return { timedOut: false, cpuAtLastChange };
		if (Date.now() > deadline) {
			ctx.log(
				`burst: bound reached with ${finished} of ${list.length} executions finished, deliveries ${flushed ? 'ended' : 'still pending'}`,
			);
			return { timedOut: true, cpuAtLastChange };
		}
		await sleep(Math.max(0, POLL_MS - (Date.now() - pollStarted)));
	}
}

function figures(input: {
	target: BurstTarget;
	receiver: BurstReceiver;
	options: BurstOptions;
	burstAt: number;
	executions: Execution[];
	attempts: DeliveryAttempt[];
	firstNode: string;
	cpuUsed: number;
	timedOut: boolean;
}): BurstRow {
	const { target, receiver, options, burstAt, executions, attempts, firstNode, cpuUsed } = input;
	const events = options.events;

	const firstAttemptAt = new Map<string, number>();
	for (const attempt of attempts) {
		const at = Date.parse(attempt.startedAt);
		const known = firstAttemptAt.get(attempt.deliveryId);
		if (known === undefined || at < known) firstAttemptAt.set(attempt.deliveryId, at);
	}
	const delivered = new Set(attempts.filter((a) => a.ok).map((a) => a.deliveryId));
	const failedAttempts: Record<string, number> = {};
	for (const attempt of attempts.filter((a) => !a.ok)) {
		const reason = attempt.status === null ? String(attempt.error) : `HTTP ${attempt.status}`;
		failedAttempts[reason] = (failedAttempts[reason] ?? 0) + 1;
	}

	// Passings per event id, and the execution that passed it on first.
	const passings = new Map<string, number>();
	const firstExecution = new Map<string, Execution>();
	for (const execution of executions) {
		for (const id of passedEventIds(execution, receiver, firstNode)) {
			passings.set(id, (passings.get(id) ?? 0) + 1);
			const known = firstExecution.get(id);
			if (!known || Date.parse(execution.startedAt) < Date.parse(known.startedAt))
				firstExecution.set(id, execution);
		}
	}
	const ofBurst = [...passings.keys()].filter((id) => firstAttemptAt.has(id));
	const duplicates = ofBurst.reduce((sum, id) => sum + passings.get(id)! - 1, 0);

	const stoppedAt = executions
		.map((e) => (e.stoppedAt ? Date.parse(e.stoppedAt) : NaN))
		.filter(Number.isFinite);
	const timeToLastExecutionMs = stoppedAt.length ? Math.max(...stoppedAt) - burstAt : NaN;
	const failed = executions.filter((e) => e.status !== 'success');
	const executionErrors = [
		...new Set(
			failed.map(
				(e) => `${e.status}: ${String(e.data?.resultData.error?.message ?? 'no error message')}`,
			),
		),
	].slice(0, 3);

	const toStart: number[] = [];
	const startToStop: number[] = [];
	for (const id of ofBurst) {
		const execution = firstExecution.get(id)!;
		toStart.push(Date.parse(execution.startedAt) - firstAttemptAt.get(id)!);
		if (execution.stoppedAt)
			startToStop.push(Date.parse(execution.stoppedAt) - Date.parse(execution.startedAt));
	}
	const answers = attempts.map((a) => Date.parse(a.finishedAt) - Date.parse(a.startedAt));

	return {
		setup: target.setup,
		receiver,
		events,
		timeToLastExecutionMs,
		eventsPerSecond: events / (timeToLastExecutionMs / 1000),
		deliveryAttempts: attempts.length,
		attemptsPerEvent: attempts.length / events,
		redeliveries: attempts.filter((a) => a.attempt > 1).length,
		failedDeliveries: firstAttemptAt.size - delivered.size,
		failedAttempts,
		executions: executions.length,
		failedExecutions: failed.length,
		executionErrors,
		executed: ofBurst.length,
		duplicates,
		n8nCpuMsPerEvent: cpuUsed / events,
		profile: {
			firstAttemptToStartMs: median(toStart),
			startToStopMs: median(startToStop),
			answerMs: median(answers),
		},
		timedOut: input.timedOut,
	};
}
