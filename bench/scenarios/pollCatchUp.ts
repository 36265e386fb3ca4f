/**
 * 7. Polling catch-up (issue 47): the Document Signing Trigger's Polling mode catching up a backlog
 * of the audit log, in this process (no n8n started; seconds on linear code).
 *
 * The trigger runs as n8n runs it: n8n-core's real TriggerContext over a real Workflow (the host
 * of test/nodes/DocumentSigningTrigger/polling.test.ts, cut down), activated with its static data's
 * cursor 1 ms before the oldest entry, then the poll it registered with n8n's scheduler ticked
 * again and again, each tick awaited (n8n ticks it once per Poll Every; the callback returns the
 * tick's promise, which n8n ignores), until every entry was emitted, bounded at `maxPolls`. Each
 * emit's execution ends on the next turn of the event loop (n8n's end after a database write). The service is bench/lib/auditLogServer.ts (the contract's audit
 * log, newest first, counting requests).
 *
 * Rows:
 * - catch-up: N entries 1 ms apart, pages of at most 100. Target: at most ceil(N / 2000) + 2 polls.
 * - stall: N entries at ONE instant, served as one oversized page (a service that ignores
 *   `limit`). Target: no event-loop stall over 50 ms. A trigger may refuse that many entries at
 *   one instant with an error: the row records what was emitted and the error, as it happened.
 * - crowd (issue 54): N entries at ONE instant (2,000, what one read holds), ids of 200
 *   characters, pages of at most 100. Measured: the static data n8n serialises with each emit
 *   (it saves static data on every emit), its largest and its total over the poll.
 *
 * Every row records the static data written: the workflow's static data as JSON at each emit.
 *
 * A row stops early at a poll that fails (the trigger catches and logs the failure; the warning is
 * recorded) or a poll that emits nothing and leaves the cursor as it was (nothing more passed on:
 * for the one-instant row, the entries past the 2,000 the cursor holds at one instant, which the
 * documented error names). After a complete catch-up, one more poll checks that nothing is
 * emitted again.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

import { TriggerContext } from 'n8n-core';
import {
	Workflow,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type ITriggerFunctions,
	type ITriggerResponse,
} from 'n8n-workflow';

import type { DocumentSigningTrigger as TriggerNode } from '../../nodes/DocumentSigningTrigger/DocumentSigningTrigger.node';
import {
	hostAdditionalData,
	NodeTypes,
	tickCollectingPollFailures,
} from '../../test/helpers/n8nHost';
import { startAuditLogServer } from '../lib/auditLogServer';

/** Issue 47's targets: ceil(N / 2,000) + 2 polls; no synchronous stretch over 50 ms. */
export const CATCH_UP_ENTRIES_PER_POLL = 2000;
export const CATCH_UP_EXTRA_POLLS = 2;
export const STALL_TARGET_MS = 50;

export interface PollCatchUpOptions {
	/** Backlog sizes, one catch-up row each (1 ms apart). */
	backlogs: number[];
	/** Entries at one instant in one oversized page (the stall row); 0 leaves the row out. */
	stallEntries: number;
	/** Entries at one instant with 200-character ids, paged (the crowd row); 0 leaves it out. */
	crowdEntries: number;
	/** Polls per row at most (the issue's quadratic code reaches it at 100,000). */
	maxPolls: number;
	log: (message: string) => void;
}

export interface PollCatchUpRow {
	kind: 'catch-up' | 'stall' | 'crowd';
	entries: number;
	/** Between consecutive entries (0: all at one instant). */
	spacingMs: number;
	/** The service ignored `limit`: the whole list in one page. */
	oversizedPage: boolean;
	polls: number;
	/** ceil(entries / 2000) + 2. */
	pollTarget: number;
	/** Every entry emitted within pollTarget polls. */
	withinPollTarget: boolean;
	/** How the row ended. */
	ended: 'caught up' | 'poll bound reached' | 'poll failed' | 'nothing more passed on';
	/** The warning the trigger logged for the failed poll (ended = poll failed). */
	error?: string;
	/** Errors the trigger reported through n8n's emitError during the row. */
	reported: string[];
	auditRequests: number;
	documentRequests: number;
	otherRequests: number;
	/** Entries the service sent in all pages (entries * pages read again). */
	entriesServed: number;
	/** Emits (executions asked for) and distinct entries among them. */
	emits: number;
	emitted: number;
	/** Emits of an entry emitted before (target 0). */
	duplicates: number;
	/** Every entry emitted after every older one (by the log's order). */
	oldestFirst: boolean;
	/** First poll's start -> last poll's end. */
	wallMs: number;
	longestPollMs: number;
	/** Polls with at least one emit, and the largest number emitted by one poll. */
	pollsEmitting: number;
	mostEmittedByOnePoll: number;
	/**
	 * The longest event-loop stall over the polls (ms): the longer of a 1 ms interval timer's
	 * longest gap (samplerMaxStallMs) and monitorEventLoopDelay({ resolution: 1 })'s max
	 * (histogramMaxStallMs). In this process the histogram took few samples and missed stalls of
	 * seconds the sampler saw, so the sampler is the measure; p99 is the histogram's.
	 */
	maxStallMs: number;
	p99StallMs: number;
	samplerMaxStallMs: number;
	histogramMaxStallMs: number;
	/** The static data as JSON at each emit (n8n saves it with every emit): total and largest, in characters. */
	staticDataWritten: number;
	staticDataPerEmitMax: number;
	/** The audit-log server's longest synchronous handler (ms), part of any stall measured. */
	serverMaxHandlerMs: number;
	/** One more poll after a complete catch-up: its requests and emits (expected 1 and 0). */
	afterwards?: { requests: number; emits: number };
}

export interface PollCatchUpResult {
	options: Omit<PollCatchUpOptions, 'log'>;
	rows: PollCatchUpRow[];
}

/**
 * The node by its .ts file: without an extension, Node's resolution under ts-node finds the codex
 * file DocumentSigningTrigger.node.json beside it first (jest prefers .ts). For the same reason
 * test/helpers/triggerHost.ts (TRIGGER_TYPE, NODE_NAME) cannot be imported here: both come from
 * the node's description instead.
 */
const NODE_FILE = '../../nodes/DocumentSigningTrigger/DocumentSigningTrigger.node.ts';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loaded = require(NODE_FILE) as { DocumentSigningTrigger: typeof TriggerNode };
const trigger = new loaded.DocumentSigningTrigger();
const TRIGGER_TYPE = `n8n-nodes-document-signing.${trigger.description.name}`;
const NODE_NAME = String(trigger.description.defaults.name);

/**
 * The static data's `pollCursor` the bench seeds: the newest time passed on and the ids passed on
 * at that time (PollCursor's `time` and `ids`, which every version of it keeps; declared here so
 * the bench runs on the code before and after issue 47's rewrite alike).
 */
interface SeedCursor extends IDataObject {
	time: string;
	ids: string[];
}

/** One activation of a polling trigger, as n8n runs it (test/helpers/pollingHost.ts, cut down). */
class PollingHost {
	/** eventId of every emit, in order. */
	readonly emits: string[] = [];
	/** The static data's JSON size at each emit (what n8n serialises with it). */
	readonly savedSizes: number[] = [];
	/** emitError's errors (polling reports a poll's failure there only from n8n's scheduler). */
	readonly errors: Error[] = [];
	/** The callbacks the trigger registered with n8n's scheduler. */
	readonly ticks: Array<() => unknown> = [];
	readonly workflow: Workflow;
	readonly context: ITriggerFunctions;

	constructor(baseUrl: string, cursor: SeedCursor) {
		const node: INode = {
			id: 'trigger-node',
			name: NODE_NAME,
			type: TRIGGER_TYPE,
			typeVersion: 2,
			position: [0, 0],
			parameters: { events: ['*'], receiveEventsBy: 'polling', pollMinutes: 1, options: {} },
			credentials: { documentSigningApi: { id: 'cred-1', name: 'Bench audit log' } },
		};
		this.workflow = new Workflow({
			id: 'wf-poll-catch-up',
			name: 'Polling catch-up bench',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes: new NodeTypes({ [TRIGGER_TYPE]: trigger }),
			staticData: { [`node:${NODE_NAME}`]: { pollCursor: cursor } },
			settings: {},
		});
		this.context = new TriggerContext(
			this.workflow,
			this.workflow.getNode(NODE_NAME)!,
			hostAdditionalData(() => ({ baseUrl, apiKey: 'sk_test_bench_poll_catch_up' })),
			'trigger',
			'activate',
			// n8n 2.x's emit (with a deduplication key); every execution ends on the next turn.
			(data, _response, done) => this.emit(data, done),
			(error) => this.errors.push(error),
			undefined,
			// n8n's scheduler: recorded; the bench ticks it (poll()).
			{ registerCron: (_cron: unknown, onTick: () => unknown) => this.ticks.push(onTick) } as never,
		);
	}

	private emit(data: INodeExecutionData[][], done: Parameters<ITriggerFunctions['emit']>[2]) {
		for (const item of data[0] ?? []) this.emits.push(String(item.json.eventId));
		this.savedSizes.push(JSON.stringify(this.workflow.staticData).length);
		// An execution ends on a later turn of the event loop at the soonest (n8n writes it to its
		// database), so the stall measured is the poll's own, not 2,000 emits run as one stretch.
		setImmediate(() => done?.resolve(undefined as never));
	}

	async activate(): Promise<ITriggerResponse> {
		return await trigger.trigger.call(this.context);
	}

	/**
	 * One tick of n8n's scheduler, awaited (each execution's end as n8n reports it: here on the
	 * next turn). The warning of the poll's failure, if it failed: the trigger catches it and logs
	 * it (n8n's scheduler hears of no error; its error handling, `errors`, of some).
	 */
	async poll(): Promise<string | undefined> {
		if (this.ticks.length !== 1) throw new Error(`${this.ticks.length} polls scheduled`);
		const failures = await tickCollectingPollFailures(() => this.ticks[0]());
		return failures[failures.length - 1];
	}

	cursorText(): string {
		const data = this.workflow.staticData[`node:${NODE_NAME}`] as IDataObject | undefined;
		return JSON.stringify(data?.pollCursor ?? null);
	}
}

/** The longest gap between a 1 ms interval timer's ticks, beyond the 1 ms (ms). */
function stallSampler(): { stop: () => number } {
	let last = performance.now();
	let max = 0;
	const timer = setInterval(() => {
		const now = performance.now();
		max = Math.max(max, now - last - 1);
		last = now;
	}, 1);
	return {
		stop: () => {
			clearInterval(timer);
			return Math.max(max, performance.now() - last - 1);
		},
	};
}

async function runRow(
	kind: PollCatchUpRow['kind'],
	entries: number,
	{ maxPolls, log }: Pick<PollCatchUpOptions, 'maxPolls' | 'log'>,
): Promise<PollCatchUpRow> {
	const spacingMs = kind === 'catch-up' ? 1 : 0;
	const oversizedPage = kind === 'stall';
	// A day ago, on a whole second: the backlog is history, not entries still being written.
	const startMs = Math.floor(Date.now() / 1000) * 1000 - 86_400_000 - entries * spacingMs;
	const server = await startAuditLogServer({
		entries,
		startMs,
		spacingMs,
		ignoreLimit: oversizedPage,
		idChars: kind === 'crowd' ? 200 : 0,
	});
	const position = new Map(server.ids.map((id, index) => [id, index]));
	const pollTarget = Math.ceil(entries / CATCH_UP_ENTRIES_PER_POLL) + CATCH_UP_EXTRA_POLLS;
	const host = new PollingHost(server.baseUrl, {
		time: new Date(startMs - 1).toISOString(),
		ids: [],
	});
	const label = `${kind} ${entries.toLocaleString('en-US')}${oversizedPage ? ' at one instant, one page' : spacingMs ? ' 1 ms apart' : ' at one instant, ids of 200 characters'}`;
	try {
		const activation = await host.activate();
		const seen = new Set<string>();
		let duplicates = 0;
		let oldestFirst = true;
		let lastPosition = -1;
		let counted = 0;
		/** Takes the emits since the last call into the tallies; returns how many there were. */
		const tally = () => {
			const fresh = host.emits.length - counted;
			for (; counted < host.emits.length; counted++) {
				const id = host.emits[counted];
				if (seen.has(id)) {
					duplicates++;
					continue;
				}
				seen.add(id);
				const at = position.get(id) ?? -1;
				if (at < lastPosition) oldestFirst = false;
				lastPosition = Math.max(lastPosition, at);
			}
			return fresh;
		};

		let polls = 0;
		let pollsEmitting = 0;
		let mostEmittedByOnePoll = 0;
		let longestPollMs = 0;
		let ended: PollCatchUpRow['ended'] = 'poll bound reached';
		let error: string | undefined;
		let caughtUpAt: number | undefined;
		const histogram = monitorEventLoopDelay({ resolution: 1 });
		const started = performance.now();
		histogram.enable();
		const sampler = stallSampler();
		while (polls < maxPolls) {
			const before = host.cursorText();
			const pollStarted = performance.now();
			polls++;
			error = await host.poll();
			if (error !== undefined) ended = 'poll failed';
			longestPollMs = Math.max(longestPollMs, performance.now() - pollStarted);
			const fresh = tally();
			if (fresh > 0) pollsEmitting++;
			mostEmittedByOnePoll = Math.max(mostEmittedByOnePoll, fresh);
			if (seen.size >= entries && caughtUpAt === undefined) {
				caughtUpAt = polls;
				ended = 'caught up';
			}
			if (ended !== 'poll bound reached') break;
			if (fresh === 0 && host.cursorText() === before) {
				ended = 'nothing more passed on';
				break;
			}
			if (polls % 25 === 0)
				log(`  ${label}: ${polls} polls, ${seen.size.toLocaleString('en-US')} emitted`);
		}
		const wallMs = performance.now() - started;
		histogram.disable();
		const samplerMaxStallMs = sampler.stop();

		let afterwards: PollCatchUpRow['afterwards'];
		if (ended === 'caught up') {
			const requestsBefore = server.counts.requests;
			const emitsBefore = host.emits.length;
			await host.poll();
			tally();
			afterwards = {
				requests: server.counts.requests - requestsBefore,
				emits: host.emits.length - emitsBefore,
			};
		}
		await activation.closeFunction?.();

		const row: PollCatchUpRow = {
			kind,
			entries,
			spacingMs,
			oversizedPage,
			polls,
			pollTarget,
			withinPollTarget: caughtUpAt !== undefined && caughtUpAt <= pollTarget,
			ended,
			...(error === undefined ? {} : { error }),
			auditRequests: server.counts.auditPages,
			documentRequests: server.counts.documents,
			otherRequests: server.counts.other,
			entriesServed: server.counts.entriesServed,
			emits: host.emits.length,
			emitted: seen.size,
			duplicates,
			oldestFirst,
			wallMs,
			longestPollMs,
			pollsEmitting,
			mostEmittedByOnePoll,
			maxStallMs: Math.max(histogram.max / 1e6, samplerMaxStallMs),
			histogramMaxStallMs: histogram.max / 1e6,
			p99StallMs: histogram.percentile(99) / 1e6,
			samplerMaxStallMs,
			serverMaxHandlerMs: server.maxHandlerMs,
			staticDataWritten: host.savedSizes.reduce((sum, size) => sum + size, 0),
			staticDataPerEmitMax: Math.max(0, ...host.savedSizes),
			reported: host.errors.map((one) => one.message),
			...(afterwards ? { afterwards } : {}),
		};
		log(
			`  ${label}: ${row.ended} after ${polls} polls, ${row.auditRequests} audit-log requests, ${row.emitted} emitted, ${Math.round(wallMs)} ms, longest stall ${Math.round(row.maxStallMs)} ms, static data written ${row.staticDataWritten.toLocaleString('en-US')} characters (at most ${row.staticDataPerEmitMax.toLocaleString('en-US')} per emit)${error ? ` (${error})` : ''}`,
		);
		return row;
	} finally {
		await server.close();
	}
}

export async function runPollCatchUp(options: PollCatchUpOptions): Promise<PollCatchUpResult> {
	const { log, ...rest } = options;
	log(
		`pollCatchUp: backlogs ${options.backlogs.join(', ')}, stall ${options.stallEntries} at one instant, at most ${options.maxPolls} polls each`,
	);
	// Not counted: loads (and ts-node compiles) every module a poll touches, and warms the JIT,
	// so that no row's stall is the first require of n8n-core's request helpers.
	const quiet = { maxPolls: 5, log: () => undefined };
	await runRow('catch-up', 300, quiet);
	await runRow('stall', 300, quiet);
	const rows: PollCatchUpRow[] = [];
	for (const entries of options.backlogs) rows.push(await runRow('catch-up', entries, options));
	if (options.stallEntries > 0) rows.push(await runRow('stall', options.stallEntries, options));
	if (options.crowdEntries > 0) rows.push(await runRow('crowd', options.crowdEntries, options));
	return { options: rest, rows };
}
