import type { IDataObject } from 'n8n-workflow';

import { apiSweepRecords, ServiceBehaviourError, type ApiContext } from '../shared/transport';
import { EVENT_POLL_BUDGET } from '../shared/vocabulary';
import {
	AUDIT_LOG_PATH,
	ENTRY_FIELDS,
	field,
	listedOldestFirst,
	oldestFirst,
	readEntry,
	timeMs,
	type PolledEvent,
} from './auditEvents';

/** How far before activation the first read looks, so a service clock a little behind n8n's loses nothing. */
const START_LOOKBACK_MS = 5 * 60 * 1000;

/** Where polling has reached: the newest time emitted and the ids emitted at exactly that time. */
export interface PollCursor extends IDataObject {
	time: string;
	ids: string[];
	/** While a newest-first backlog is longer than one poll: the older part is read first, up to here. */
	before?: string;
	/** The service was seen listing the audit log oldest first (the contract's order is newest first). */
	oldestFirst?: boolean;
}

export function readCursor(data: IDataObject): PollCursor | undefined {
	const cursor = data.pollCursor as PollCursor | undefined;
	if (!cursor || typeof cursor.time !== 'string' || timeMs(cursor.time) === undefined)
		return undefined;
	return { ...cursor, ids: Array.isArray(cursor.ids) ? cursor.ids.map(String) : [] };
}

/** The cursor after `emitted` (oldest first, not empty): its newest time and every id at it. */
export function advance(cursor: PollCursor, emitted: PolledEvent[]): PollCursor {
	const newest = emitted[emitted.length - 1];
	const atNewest = emitted.filter((event) => event.ms === newest.ms).map((event) => event.id);
	const sameTime = timeMs(cursor.time) === newest.ms;
	return {
		time: newest.time,
		ids: sameTime ? [...new Set([...cursor.ids, ...atNewest])] : atNewest,
	};
}

async function readLog(
	context: ApiContext,
	fromMs: number,
	qs: IDataObject,
): Promise<{ events: PolledEvent[]; whole: boolean }> {
	const result = await apiSweepRecords(context, AUDIT_LOG_PATH, {
		budget: EVENT_POLL_BUDGET,
		qs,
		// A service that lists newest first and ignores `from` ends here.
		stopAt: (entry) => (timeMs(field(entry, ENTRY_FIELDS.time)) ?? Infinity) < fromMs,
	});
	const events = result.records.map(readEntry).filter((event) => event.ms >= fromMs);
	return { events, whole: result.next === undefined };
}

/** Starts at now; with nothing recent, older entries are read so an unreadable log fails now. */
export async function startingCursor(context: ApiContext): Promise<PollCursor> {
	const fromMs = Date.now() - START_LOOKBACK_MS;
	const from = new Date(fromMs).toISOString();
	const { events } = await readLog(context, fromMs, { from });
	if (events.length > 0) return advance({ time: from, ids: [] }, oldestFirst(events));
	const { records } = await apiSweepRecords(context, AUDIT_LOG_PATH, {
		budget: { ...EVENT_POLL_BUDGET, pages: 1 },
	});
	records.forEach(readEntry);
	return { time: from, ids: [] };
}

const sameTimeError = (time: string) =>
	new ServiceBehaviourError(
		`More than ${EVENT_POLL_BUDGET.records} audit-log entries share the time ${time}`,
		'Polling cannot read them oldest first. Use Receive Events By › Webhook with this service.',
	);

/** The events after the cursor, oldest first, and the next cursor (backlogs: docs/trigger.md). */
export async function newEvents(
	context: ApiContext,
	cursor: PollCursor,
): Promise<{ events: PolledEvent[]; cursor: PollCursor }> {
	const fromMs = timeMs(cursor.time) as number;
	const beforeMs = cursor.before === undefined ? undefined : timeMs(cursor.before);
	const qs: IDataObject = { from: cursor.time };
	if (cursor.before !== undefined) qs.to = cursor.before;
	const { events: read, whole } = await readLog(context, fromMs, qs);
	if (beforeMs !== undefined && read.some((event) => event.ms > beforeMs))
		throw new ServiceBehaviourError(
			'The audit log ignores `to`, so a backlog longer than one poll cannot be read oldest first',
			`More than ${EVENT_POLL_BUDGET.records} events since ${cursor.time}. Use Receive Events By › Webhook with this service.`,
		);
	const listed = listedOldestFirst(read) ?? cursor.oldestFirst === true;
	let ordered = oldestFirst(read, listed);
	if (!whole && !listed) {
		// Newest first: everything after the oldest time read was read.
		const oldest = ordered[0];
		if (oldest.ms > fromMs) {
			if (beforeMs !== undefined && oldest.ms >= beforeMs) throw sameTimeError(oldest.time);
			return { events: [], cursor: { ...cursor, before: oldest.time } };
		}
		// The rest is at the cursor's own time: read that instant on its own.
		const atCursor = await readLog(context, fromMs, { from: cursor.time, to: cursor.time });
		if (!atCursor.whole) throw sameTimeError(cursor.time);
		ordered = [
			...oldestFirst(atCursor.events, listed),
			...ordered.filter((event) => event.ms > fromMs),
		];
	}
	const fresh = ordered.filter(
		(event) => event.ms > fromMs || (event.ms === fromMs && !cursor.ids.includes(event.id)),
	);
	const next: PollCursor = fresh.length > 0 ? advance(cursor, fresh) : { ...cursor };
	delete next.before;
	if (listed) next.oldestFirst = true;
	else delete next.oldestFirst;
	return { events: fresh, cursor: next };
}
