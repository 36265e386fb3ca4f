import type { IDataObject } from 'n8n-workflow';

import {
	apiSweepRecords,
	headerValue,
	ServiceBehaviourError,
	type ApiContext,
} from '../shared/transport';
import { ANY_EVENT, EVENT_POLL_BUDGET, WEBHOOK_EVENTS } from '../shared/vocabulary';
import {
	isEvent,
	isoOf,
	readEntry,
	timeMs,
	TimeCache,
	type AuditEvent,
	type Unreadable,
} from './auditEntries';
import type { CursorPosition } from './pollCursor';

/**
 * Polling's reading of the audit log (docs/trigger.md, "Polling"): the new entries after the
 * cursor, oldest first, in either listing order (the items: eventItems.ts). The log is outside
 * input: every read is bounded, a read's cost is linear in its entries, and no entry blocks others.
 */
const AUDIT_LOG_PATH = '/reports/audit-log';
/** How far before activation the first read looks, so a service clock a little behind n8n's loses nothing. */
const START_LOOKBACK_MS = 5 * 60 * 1000;
/** How far past the present an entry may be dated before n8n's log warns of it (clocks differ). */
export const FUTURE_TOLERANCE_MS = 5 * 60 * 1000;
/** The service's clock (its `Date` header) is the present while it is this close to n8n's. */
const CLOCK_TRUST_MS = 60 * 60 * 1000;
/** Reads of a newest-first backlog one poll makes to find its oldest part (each up to the budget). */
const NARROWING_READS = 60;
/** A newest-first backlog's parts remembered at once; past it every other one is let go. */
export const MAX_BOUNDS = 1_000;
/** Events a poll emits: the webhook events (account changes are logged, never delivered). */
const DELIVERED: readonly string[] = WEBHOOK_EVENTS;

interface LogRead {
	/** The new entries read, in the service's order. */
	events: AuditEvent[];
	whole: boolean;
	/** Whether the read's times rise; undefined when they do not tell. */
	oldestFirst?: boolean;
	unreadable: Unreadable[];
	/** The earlier of n8n's clock and the service's (its `Date`, when believable): the present. */
	presentMs: number;
}

function unreadableLog(unreadable: Unreadable) {
	return new ServiceBehaviourError(
		`The audit log cannot be read as events: an entry lacks ${unreadable.lacks.join(', ')}`,
		`Polling reads GET ${AUDIT_LOG_PATH} and needs each entry's id, event name and time (a field holding a timestamp and one holding an event name such as document.completed). Entry fields seen: ${unreadable.fields.join(', ').slice(0, 300)}. Use Receive Events By › Webhook with this service.`,
	);
}

/** One read of the log within the poll's budget; `isNew` says which entries it keeps. */
async function readLog(
	context: ApiContext,
	qs: IDataObject,
	isNew: (event: AuditEvent) => boolean,
	pages: number = EVENT_POLL_BUDGET.pages,
): Promise<LogRead> {
	// Each entry is read once, however often the walk asks (a Map: this read's entries only).
	const reads = new Map<object, AuditEvent | Unreadable>();
	const times = new TimeCache();
	const read = (raw: IDataObject) => {
		let entry = reads.get(raw);
		if (!entry) reads.set(raw, (entry = readEntry(raw, times)));
		return entry;
	};
	const fromMs = qs.from === undefined ? -Infinity : (timeMs(qs.from) as number);
	let readable = 0;
	let previousMs: number | undefined;
	let falls = 0;
	let rises = 0;
	let presentMs = Date.now();
	const result = await apiSweepRecords(context, AUDIT_LOG_PATH, {
		budget: { ...EVENT_POLL_BUDGET, pages },
		qs,
		keyOf: (raw) => {
			const entry = read(raw);
			return isEvent(entry) ? entry.key : `json:${JSON.stringify(raw).slice(0, 2000)}`;
		},
		keep: (raw) => {
			const entry = read(raw);
			if (!isEvent(entry)) return true;
			readable++;
			return entry.ms >= fromMs && isNew(entry);
		},
		// Sees every entry in the service's order: a service that lists newest first and ignores
		// `from` ends where its times fall below it.
		stopAt: (raw) => {
			const entry = read(raw);
			if (!isEvent(entry)) return false;
			if (previousMs !== undefined && entry.ms < previousMs) falls++;
			if (previousMs !== undefined && entry.ms > previousMs) rises++;
			previousMs = entry.ms;
			return falls >= 2 && entry.ms < fromMs;
		},
		onResponse: (response) => {
			const said = Date.parse(String(headerValue(response.headers, 'date') ?? ''));
			// The earlier clock (the header counts whole seconds): no entry past it hides later ones.
			if (Math.abs(said - Date.now()) <= CLOCK_TRUST_MS)
				presentMs = Math.min(presentMs, said + 999);
		},
	});
	const events: AuditEvent[] = [];
	const unreadable: Unreadable[] = [];
	for (const raw of result.records) {
		const entry = read(raw);
		if (isEvent(entry)) events.push(entry);
		else unreadable.push(entry);
	}
	if (readable === 0 && unreadable.length > 0) throw unreadableLog(unreadable[0]);
	// The order every entry read shows, the ones passed on already too.
	const oldestFirst = rises === falls ? undefined : rises > falls;
	return { events, whole: result.next === undefined, oldestFirst, unreadable, presentMs };
}

/** Oldest first; at one instant the service's own order, oldest logged first. */
function oldestFirst(events: AuditEvent[], listedOldestFirst: boolean): AuditEvent[] {
	return (listedOldestFirst ? [...events] : [...events].reverse()).sort((a, b) => a.ms - b.ms);
}

/** What one poll passes on: new events oldest first, and where the cursor may go after them. */
export interface PollPlan {
	events: AuditEvent[];
	/** The present: entries dated after it are "ahead", passed on once, never the cursor's time. */
	ceilingMs: number;
	/** The backlog's bounds while the events pass, the part being read first. */
	bounds: string[];
	/** Whether the part up to `bounds[0]` (or the top) is read whole once the events are passed on. */
	partDone: boolean;
	oldestFirst: boolean;
	/** Every entry up to here was read: the cursor may stand here after the events. */
	reach?: number;
	/** More entries share this instant than one read holds: the documented error, then past it. */
	crowdedAt?: number;
	unreadable: Unreadable[];
}

const ignoresTo = (time: string) =>
	new ServiceBehaviourError(
		'The audit log ignores `to`, so a backlog longer than one poll cannot be read oldest first',
		`More than ${EVENT_POLL_BUDGET.records} events since ${time}. Use Receive Events By › Webhook with this service.`,
	);

const unreachable = (time: string) =>
	new ServiceBehaviourError(
		'The audit log cannot be read past its older entries within one poll',
		`It lists oldest first and seems to ignore \`from\`, so each poll reads it from its start, and its entries before ${time} are more than one poll reads. Use Receive Events By › Webhook with this service.`,
	);

/**
 * The new events after the cursor (docs/trigger.md, "A backlog longer than one poll"). A
 * newest-first backlog is narrowed with `to` within this poll, each part's bound kept, so every
 * later poll reads one part: the cost of a backlog grows linearly with it.
 */
export async function planPoll(context: ApiContext, position: CursorPosition): Promise<PollPlan> {
	const bounds = [...position.bounds];
	const fromMs = position.timeMs;
	const unreadable: Unreadable[] = [];
	let ceilingMs: number | undefined;
	const isNew = (event: AuditEvent) => !position.passed(event);
	const plan = (rest: Omit<PollPlan, 'ceilingMs' | 'unreadable' | 'bounds'>): PollPlan => ({
		...rest,
		bounds,
		ceilingMs: ceilingMs ?? Date.now(),
		unreadable,
	});
	for (let reads = 0; reads < NARROWING_READS; reads++) {
		const to = bounds[0];
		const toMs = to === undefined ? undefined : (timeMs(to) as number);
		const log = await readLog(context, { from: position.time, ...(to && { to }) }, isNew);
		ceilingMs ??= log.presentMs;
		unreadable.push(...log.unreadable.slice(0, 10));
		if (toMs !== undefined && log.events.some((event) => event.ms > toMs))
			throw ignoresTo(position.time);
		const listedOldestFirst = log.oldestFirst ?? position.oldestFirst;
		const events = oldestFirst(log.events, listedOldestFirst);
		if (log.whole)
			return plan({ events, partDone: true, reach: toMs, oldestFirst: listedOldestFirst });
		if (events.length === 0) throw unreachable(position.time);
		if (listedOldestFirst) return plan({ events, partDone: false, oldestFirst: true });
		// Newest first: everything after the oldest instant read was read.
		const oldest = events[0].ms;
		if (oldest > fromMs) {
			// Bounded: a part whose bound was let go is narrowed again when its turn comes.
			if (bounds.length >= MAX_BOUNDS)
				bounds.splice(0, bounds.length, ...bounds.filter((_, index) => index % 2 === 0));
			if (toMs === undefined || oldest < toMs) bounds.unshift(isoOf(oldest));
			// The whole read is at its bound: more entries at one instant than one read holds.
			else if (oldest - 1 <= fromMs)
				return plan({ events, partDone: true, crowdedAt: oldest, oldestFirst: false });
			else bounds.unshift(isoOf(oldest - 1));
			continue;
		}
		// The rest is at the cursor's own instant: read that instant on its own.
		const atCursor = await readLog(context, { from: position.time, to: position.time }, isNew);
		return plan({
			events: [
				...oldestFirst(atCursor.events, false).filter((event) => event.ms === fromMs),
				...events.filter((event) => event.ms > fromMs),
			],
			partDone: true,
			reach: toMs,
			crowdedAt: atCursor.whole ? undefined : fromMs,
			oldestFirst: false,
		});
	}
	return plan({ events: [], partDone: false, oldestFirst: position.oldestFirst });
}

/** Where the first poll starts, and the entries since: older ones are read, to fail now if unreadable. */
export async function startingEntries(
	context: ApiContext,
): Promise<{ from: string; events: AuditEvent[]; presentMs: number }> {
	const from = isoOf(Date.now() - START_LOOKBACK_MS);
	const { events, presentMs } = await readLog(context, { from }, () => true);
	if (events.length === 0) await readLog(context, {}, () => true, 1);
	return { from, events, presentMs };
}

export const isChosen = (wanted: string[], event: AuditEvent) =>
	DELIVERED.includes(event.event) && (wanted.includes(ANY_EVENT) || wanted.includes(event.event));

/** Polling's manual run: the newest chosen event among the latest entries. */
export async function newestChosenEvent(
	context: ApiContext,
	wanted: string[],
): Promise<{ event?: AuditEvent; read: number }> {
	const qs = wanted.length === 1 && wanted[0] !== ANY_EVENT ? { event: wanted[0] } : {};
	const { events, oldestFirst: rising } = await readLog(context, qs, () => true, 1);
	const chosen = oldestFirst(events, rising === true).filter((event) => isChosen(wanted, event));
	return { event: chosen.at(-1), read: events.length };
}
