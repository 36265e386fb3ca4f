/**
 * 6. Polling: the Document Signing Trigger with Receive Events By › Polling, Poll Every 1 minute,
 * Events `*`, in real n8n, against the same trigger in Webhook mode in the same run.
 *
 * The polling trigger's credential points at a recording proxy in front of the sandbox (its
 * account's requests only, each with its arrival time; the events are created on the sandbox
 * directly). n8n's cron polls at second 0 of every minute (this machine's clock), so the steps
 * are placed by minute boundaries:
 *
 * - Webhook mode first: runTrigger (scenario 3) with the same number of events, in the same n8n.
 * - Activation, then one document (3 events) whose poll warms n8n up (not counted).
 * - n8n's CPU from 1 s before a minute's second 0 to 2 s after, before the polling workflow is
 *   active (n8n's own work at second 0).
 * - Two idle polls: the proxy's requests between them (expected: 1 audit-log page per poll),
 *   the sandbox's request count in the same window (nothing else runs then) and n8n's CPU in the
 *   same window around each poll minute, and in windows as long in the middle of the minute.
 * - Right after the second idle poll, ceil(N / 3) documents created through the API (each gives
 *   `document.created`, `signature.requested`, `document.sent`) spread until 5 s before the next
 *   poll minute; that poll passes them on one at a time. Latency = the audit entry's created_at ->
 *   its execution's startedAt (matched by the item's eventId). CPU = n8n's main process from 1 s
 *   before the poll minute until every execution was seen finished (n8n's executions polled once
 *   a second, as scenario 3 does), per event executed.
 *
 * Every wait is bounded; about 5 minutes in all (up to a minute of it waiting for the first poll).
 */
import type { Execution } from '../../e2e/harness/n8n';
import { allExecutions, cpuMs, createCredential, createWorkflow } from '../../e2e/harness/n8nApi';
import { noOpNode } from '../../e2e/harness/webhookWorkflows';
import { chain, executionItems, triggerNode } from '../../e2e/harness/workflows';
import { WEBHOOK_EVENTS } from '../../nodes/shared/vocabulary';
import { startRecordingProxy, type RecordingProxy } from '../lib/proxy';
import { seedDocuments } from '../lib/raw';
import { median, percentile } from '../lib/stats';
import { statsDelta, type BenchContext } from './context';
import { runTrigger, type TriggerResult } from './trigger';

export interface PollOptions {
	/** Events to poll: ceil(events / 3) documents, three audit-log events each. */
	events: number;
	/** Events created per second in the Webhook-mode comparison (runTrigger). */
	webhookEventsPerSecond: number;
}

export interface PollResult {
	options: PollOptions;
	pollMinutes: number;
	/** The trigger's Events parameter. */
	triggerEvents: string[];
	documents: number;
	/** Audit-log events the documents gave (the executions expected). */
	expected: number;
	executions: number;
	/** Expected events with an execution. */
	executed: number;
	duplicates: number;
	/** First -> last created_at of the polled events. */
	eventsSpreadMs: number;
	/** Last event created -> the poll minute (> 0: all were there before the poll). */
	createdBeforePollMs: number;
	/** created_at -> the execution's startedAt. */
	latencyMs: { median: number; p95: number; max: number };
	/** The target: Poll Every plus 5 s. */
	latencyTargetMs: number;
	/** The poll's first audit-log read -> the first execution's startedAt, the last one's stoppedAt. */
	firstReadToFirstStartMs: number;
	firstReadToLastExecutionMs: number;
	/**
	 * The poll's reads before its first emit (the audit log, then every document and signing request
	 * the items need, one after the other): how many, first read -> the last one answered, and the
	 * time spent waiting for answers (the sandbox and the proxy) within it.
	 */
	beforeFirstEmit: { requests: number; ms: number; answerMs: number };
	/** The service requests of the poll that passed the batch on, by route. */
	batchRequests: Record<string, number>;
	/** CPU of n8n's main process, 1 s before the poll minute -> every execution seen finished, per event executed. */
	n8nCpuMsPerEvent: number;
	/** Requests of the activation (the starting cursor). */
	activationRequests: number;
	idle: {
		polls: number;
		/** Requests each idle poll sent (the proxy), in order. */
		requests: number[];
		requestsPerPoll: number;
		/** Requests the sandbox answered in the same window (every account; nothing else ran). */
		sandboxRequests: number;
		/** n8n CPU from 1 s before the poll minute to 2 s after (the read answered by then), mean per poll. */
		cpuMsPerPoll: number;
		/** The same window at a poll minute before the polling workflow was active: n8n's own work at second 0. */
		quietMinuteCpuMs: number;
		/** n8n CPU in windows as long in the middle of the minute, mean. */
		backgroundCpuMs: number;
		/** Length of the windows around poll minutes, mean. */
		windowMs: number;
		/** n8n CPU over the whole idle window, per minute (polls included). */
		cpuMsPerMinute: number;
	};
	/** The same trigger in Webhook mode, same run, same n8n (document.created, scenario 3's way). */
	webhook: TriggerResult;
	/** n8n CPU per event, polled / webhook. */
	cpuRatioToWebhook: number;
	/** A bound was reached before every expected execution finished. */
	timedOut: boolean;
}

const TRIGGER_NAME = 'Document Signing Trigger';
const POLL_MINUTES = 1;
const MINUTE_MS = 60_000;
const IDLE_POLLS = 2;
/** Events created until this long before the poll minute. */
const CREATE_UNTIL_BEFORE_POLL_MS = 5_000;
/** Bound for the warm-up poll's executions after activation (a poll minute and slack). */
const WARM_UP_BOUND_MS = 150_000;
/** Bound for a poll's audit-log read to be answered after its minute starts. */
const READ_BOUND_MS = 20_000;
/** n8n's CPU around a poll minute: from 1 s before it, this long (the read is answered by then). */
const CPU_WINDOW_MS = 3_000;
/** Bound for the batch's executions after the poll minute. */
const BATCH_BOUND_MS = 180_000;
const DELIVERED = new Set<string>(WEBHOOK_EVENTS);

const sleep = async (ms: number) =>
	await new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const sleepUntil = async (at: number) => await sleep(at - Date.now());
/** The first poll minute (second 0) at or after `at`. */
const nextMinute = (at: number) => Math.ceil(at / MINUTE_MS) * MINUTE_MS;
const FINISHED = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status);

/** A proxy arrival as its route: the audit log, a document, a signing request, or as it came. */
function route(arrival: RecordingProxy['arrivals'][number]): string {
	const path = arrival.path.split('?')[0].replace(/^\/v1/, '');
	if (path === '/reports/audit-log') return `${arrival.method} /reports/audit-log`;
	const match = /^\/(documents|signatures)\/[^/]+$/.exec(path);
	return match ? `${arrival.method} /${match[1]}/{id}` : `${arrival.method} ${path}`;
}

const isAuditRead = (arrival: RecordingProxy['arrivals'][number]) =>
	route(arrival) === 'GET /reports/audit-log';

export async function runPoll(ctx: BenchContext, options: PollOptions): Promise<PollResult> {
	const { sandbox, n8n, log } = ctx;
	const documents = Math.ceil(options.events / 3);

	// Webhook mode first, in the same n8n, at the same size (its own account and warm-up).
	log(`poll: the trigger in Webhook mode, ${documents * 3} events for comparison`);
	const webhook = await runTrigger(ctx, {
		events: documents * 3,
		eventsPerSecond: options.webhookEventsPerSecond,
		receiver: 'trigger',
	});

	sandbox.configure({ rateLimit: null, failureRate: 0, connectionResetRate: 0 });
	const account = sandbox.createAccount();
	const proxy = await startRecordingProxy(sandbox.origin);
	let workflowId: string | undefined;
	try {
		const cred = await createCredential(n8n, 'bench polling', account.apiKey, proxy.baseUrl);
		const trigger = triggerNode(TRIGGER_NAME, {
			events: ['*'],
			credential: cred,
			parameters: { receiveEventsBy: 'polling', pollMinutes: POLL_MINUTES },
		});
		workflowId = await createWorkflow(n8n, chain('bench polling', [trigger, noOpNode()]));
		const id = workflowId;
		const pollLog = () =>
			n8n
				.logText()
				.split('\n')
				.filter((line) => /Document Signing Trigger|poll/i.test(line))
				.slice(-10)
				.join('\n');
		const listExecutions = async () => await allExecutions(n8n, id);

		/** n8n's CPU over CPU_WINDOW_MS from `from` (longer when `ready` says so: bounded). */
		const cpuWindow = async (from: number, ready: () => boolean = () => true) => {
			await sleepUntil(from);
			const before = cpuMs(n8n.pid!);
			const startedAt = Date.now();
			await sleep(CPU_WINDOW_MS);
			while (!ready()) {
				if (Date.now() > from + READ_BOUND_MS)
					throw new Error(
						`poll: no audit-log read answered ${READ_BOUND_MS} ms after ${new Date(from).toISOString()}\n${pollLog()}`,
					);
				await sleep(50);
			}
			return { cpu: cpuMs(n8n.pid!) - before, ms: Date.now() - startedAt };
		};
		const windows: number[] = [];

		// n8n's own work at a minute's second 0, before the polling workflow is active.
		const quietMinute = nextMinute(Date.now() + 1500);
		log(
			`poll: n8n's CPU around ${new Date(quietMinute).toISOString().slice(11, 19)}, before the polling workflow is active`,
		);
		const quiet = await cpuWindow(quietMinute - 1000);
		windows.push(quiet.ms);

		log('poll: activating (Poll Every 1 minute, Events *), then one warm-up document');
		await n8n.activate(id);
		const activationRequests = proxy.arrivals.length;
		const activatedAt = Date.now();
		await seedDocuments({
			baseUrl: sandbox.baseUrl,
			apiKey: account.apiKey,
			count: 1,
			prefix: 'warm',
			concurrency: 1,
		});
		const warmEvents = sandbox.store
			.auditLogOf(account.apiKey)
			.filter((entry) => DELIVERED.has(entry.event)).length;
		let warm: Execution[] = [];
		for (;;) {
			warm = await listExecutions();
			if (warm.length >= warmEvents && warm.every(FINISHED)) break;
			if (Date.now() - activatedAt > WARM_UP_BOUND_MS)
				throw new Error(
					`poll: ${warm.length} of ${warmEvents} warm-up executions ${WARM_UP_BOUND_MS} ms after activation\n${pollLog()}`,
				);
			await sleep(1000);
		}
		const warmIds = new Set(warm.map((execution) => execution.id));
		const warmDoneAt = Date.now();

		// Idle polls: the first poll minute at least 20 s after the warm-up passed, and the next.
		const firstIdle = nextMinute(warmDoneAt + 20_000);
		const idleStart = firstIdle - 20_000;
		log(
			`poll: ${IDLE_POLLS} idle polls at ${new Date(firstIdle).toISOString().slice(11, 19)} and after`,
		);
		await sleepUntil(idleStart);
		const idleFrom = proxy.arrivals.length;
		const statsBefore = sandbox.stats();
		const cpuIdleStart = cpuMs(n8n.pid!);
		const idleStartedAt = Date.now();
		const pollCpu: number[] = [];
		// Windows as long without a poll, mid-minute: before the first idle poll and after it (not
		// after the last: the events are created then).
		const background: number[] = [(await cpuWindow(idleStart + 5000)).cpu];
		for (let poll = 0; poll < IDLE_POLLS; poll++) {
			const minute = firstIdle + poll * MINUTE_MS;
			const answered = () =>
				proxy.arrivals.some(
					(arrival) =>
						arrival.at >= minute - 1000 && isAuditRead(arrival) && arrival.status !== undefined,
				);
			const window = await cpuWindow(minute - 1000, answered);
			pollCpu.push(window.cpu);
			windows.push(window.ms);
			if (poll < IDLE_POLLS - 1) background.push((await cpuWindow(minute + 25_000)).cpu);
		}
		const idleEnd = Date.now();
		const idleArrivals = proxy.arrivals.slice(idleFrom);
		const cpuIdleEnd = cpuMs(n8n.pid!);
		const idleSandbox = statsDelta(statsBefore, sandbox.stats()).requests;
		const idleRequests = Array.from(
			{ length: IDLE_POLLS },
			(_, poll) =>
				idleArrivals.filter(
					(arrival) =>
						Math.floor((arrival.at + 5000) / MINUTE_MS) * MINUTE_MS ===
						firstIdle + poll * MINUTE_MS,
				).length,
		);
		const stray = idleArrivals.length - idleRequests.reduce((a, b) => a + b, 0);
		if (stray) log(`poll: ${stray} requests in the idle window outside the poll minutes`);

		// The batch: created right after the second idle poll, until 5 s before the next poll minute.
		const pollMinute = firstIdle + IDLE_POLLS * MINUTE_MS;
		const known = new Set(sandbox.store.auditLogOf(account.apiKey).map((entry) => entry.id));
		const spreadMs = pollMinute - CREATE_UNTIL_BEFORE_POLL_MS - Date.now();
		log(
			`poll: ${documents} documents (${documents * 3} events) over ${Math.round(spreadMs / 1000)} s`,
		);
		await seedDocuments({
			baseUrl: sandbox.baseUrl,
			apiKey: account.apiKey,
			count: documents,
			prefix: 'polled',
			concurrency: 1,
			// The first right away, the last at the end of the spread.
			perSecond: Math.max(1, documents - 1) / Math.max(1, spreadMs / 1000),
		});
		const createdAt = Date.now();
		if (createdAt > pollMinute - 1000)
			log('poll: the events were still being created at the poll minute');
		const entries = sandbox.store
			.auditLogOf(account.apiKey)
			.filter((entry) => !known.has(entry.id) && DELIVERED.has(entry.event));
		const createdMs = new Map(entries.map((entry) => [entry.id, Date.parse(entry.created_at)]));

		await sleepUntil(pollMinute - 1000);
		const batchFrom = proxy.arrivals.length;
		const cpuBefore = cpuMs(n8n.pid!);
		await sleepUntil(pollMinute + 1000);
		let timedOut = false;
		for (;;) {
			const list = (await listExecutions()).filter((execution) => !warmIds.has(execution.id));
			if (list.length >= entries.length && list.every(FINISHED)) break;
			if (Date.now() > pollMinute + BATCH_BOUND_MS) {
				timedOut = true;
				log(
					`poll: bound reached with ${list.filter(FINISHED).length} of ${entries.length} executions finished\n${pollLog()}`,
				);
				break;
			}
			await sleep(1000);
		}
		const cpuUsed = cpuMs(n8n.pid!) - cpuBefore;
		await n8n.deactivate(id);
		workflowId = undefined;

		const withData = (await allExecutions(n8n, id, true)).filter(
			(execution) => !warmIds.has(execution.id),
		);
		const byEvent = new Map<string, Execution[]>();
		for (const execution of withData) {
			const item = executionItems(execution, TRIGGER_NAME)[0];
			const eventId = typeof item?.eventId === 'string' ? item.eventId : `unknown-${execution.id}`;
			byEvent.set(eventId, [...(byEvent.get(eventId) ?? []), execution]);
		}
		const latencies: number[] = [];
		let duplicates = 0;
		for (const [eventId, executions] of byEvent) {
			duplicates += executions.length - 1;
			const created = createdMs.get(eventId);
			if (created === undefined) continue;
			const first = Math.min(...executions.map((execution) => Date.parse(execution.startedAt)));
			latencies.push(first - created);
		}
		const batch = withData.filter((execution) =>
			createdMs.has(executionItems(execution, TRIGGER_NAME)[0]?.eventId),
		);
		const firstRead = proxy.arrivals
			.slice(batchFrom)
			.find((arrival) => isAuditRead(arrival) && arrival.at >= pollMinute - 1000);
		const firstStart = Math.min(...batch.map((execution) => Date.parse(execution.startedAt)));
		const lastStop = Math.max(
			...batch.map((execution) => Date.parse(execution.stoppedAt ?? execution.startedAt)),
		);
		const beforeStart = proxy.arrivals
			.slice(batchFrom)
			.filter((arrival) => firstRead && arrival.at >= firstRead.at && arrival.at < firstStart);
		const beforeFirstEmit = {
			requests: beforeStart.length,
			ms: firstRead
				? Math.max(...beforeStart.map((arrival) => arrival.answeredAt ?? arrival.at)) - firstRead.at
				: NaN,
			answerMs: beforeStart.reduce(
				(sum, arrival) => sum + ((arrival.answeredAt ?? arrival.at) - arrival.at),
				0,
			),
		};
		const batchRequests: Record<string, number> = {};
		for (const arrival of proxy.arrivals.slice(batchFrom)) {
			if (arrival.at > lastStop + 1000) continue;
			const key = route(arrival);
			batchRequests[key] = (batchRequests[key] ?? 0) + 1;
		}
		const times = [...createdMs.values()];
		const executed = [...byEvent.keys()].filter((eventId) => createdMs.has(eventId)).length;
		const n8nCpuMsPerEvent = cpuUsed / Math.max(1, executed);
		const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
		return {
			options,
			pollMinutes: POLL_MINUTES,
			triggerEvents: ['*'],
			documents,
			expected: entries.length,
			executions: withData.length,
			executed,
			duplicates,
			eventsSpreadMs: Math.max(...times) - Math.min(...times),
			createdBeforePollMs: pollMinute - createdAt,
			latencyMs: {
				median: median(latencies),
				p95: percentile(latencies, 95),
				max: Math.max(...latencies),
			},
			latencyTargetMs: POLL_MINUTES * MINUTE_MS + 5000,
			firstReadToFirstStartMs: firstRead ? firstStart - firstRead.at : NaN,
			firstReadToLastExecutionMs: firstRead ? lastStop - firstRead.at : NaN,
			beforeFirstEmit,
			batchRequests,
			n8nCpuMsPerEvent,
			activationRequests,
			idle: {
				polls: IDLE_POLLS,
				requests: idleRequests,
				requestsPerPoll: idleArrivals.length / IDLE_POLLS,
				sandboxRequests: idleSandbox,
				cpuMsPerPoll: mean(pollCpu),
				quietMinuteCpuMs: quiet.cpu,
				backgroundCpuMs: mean(background),
				windowMs: mean(windows),
				cpuMsPerMinute: ((cpuIdleEnd - cpuIdleStart) * MINUTE_MS) / (idleEnd - idleStartedAt),
			},
			webhook,
			cpuRatioToWebhook: n8nCpuMsPerEvent / webhook.n8nCpuMsPerEvent,
			timedOut,
		};
	} finally {
		if (workflowId) await n8n.deactivate(workflowId).catch(() => undefined);
		await proxy.close();
	}
}
