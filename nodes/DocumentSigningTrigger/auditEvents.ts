import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { apiPath, idText } from '../shared/ids';
import {
	apiRequest,
	apiSweepRecords,
	isNotFound,
	recordOf,
	ServiceBehaviourError,
	type ApiContext,
} from '../shared/transport';
import { ANY_EVENT, EVENT_POLL_BUDGET, WEBHOOK_EVENTS } from '../shared/vocabulary';

/** Polling's reading of the audit log: its entries as events, and the cursor (docs/trigger.md). */
const AUDIT_LOG_PATH = '/reports/audit-log';
/** How far before activation the first read looks, so a service clock a little behind n8n's loses nothing. */
const START_LOOKBACK_MS = 5 * 60 * 1000;
/** Events a poll emits: the webhook events (account changes are logged, never delivered). */
const DELIVERED: readonly string[] = WEBHOOK_EVENTS;
/** The longest text read as a field of an entry (hostile input is bounded before it is parsed). */
const MAX_FIELD_CHARS = 200;
/** Entry fields under the names services use for them, first match wins ([A] in docs/api-contract.md). */
const ENTRY_FIELDS = {
	event: ['event', 'type', 'event_type', 'eventType', 'action'],
	time: ['created_at', 'createdAt', 'timestamp', 'occurred_at', 'occurredAt', 'time'],
	document: ['document_id', 'documentId'],
} as const;

export interface PolledEvent {
	id: string;
	event: string;
	time: string;
	ms: number;
	entry: IDataObject;
}

/** Where polling has reached: the newest time emitted and the ids emitted at exactly that time. */
export interface PollCursor extends IDataObject {
	time: string;
	ids: string[];
	/** While a newest-first backlog is longer than one poll: the older part is read first, up to here. */
	before?: string;
	/** The service was seen listing the audit log oldest first (the contract's order is newest first). */
	oldestFirst?: boolean;
}

const field = (entry: IDataObject, names: readonly string[]): unknown =>
	names.map((name) => entry[name]).find((value) => value !== undefined && value !== null);

/** A time as milliseconds: ISO text (bounded), or Unix seconds or milliseconds. */
function timeMs(value: unknown): number | undefined {
	if (typeof value === 'number' && Number.isFinite(value))
		return value < 1e12 ? value * 1000 : value;
	if (typeof value !== 'string' || value.length > MAX_FIELD_CHARS) return undefined;
	const ms = Date.parse(value);
	return Number.isNaN(ms) ? undefined : ms;
}

/** An audit-log entry read as an event, or a clear error naming what is missing. */
function readEntry(entry: IDataObject): PolledEvent {
	const id = idText(entry.id);
	const event = field(entry, ENTRY_FIELDS.event);
	const rawTime = field(entry, ENTRY_FIELDS.time);
	const ms = timeMs(rawTime);
	const missing = [
		id === undefined && 'an `id`',
		(typeof event !== 'string' || !event || event.length > MAX_FIELD_CHARS) &&
			`an event name (${ENTRY_FIELDS.event.join(', ')})`,
		ms === undefined && `a time (${ENTRY_FIELDS.time.join(', ')})`,
	].filter(Boolean);
	if (missing.length > 0) {
		const seen = Object.keys(entry).slice(0, 20).join(', ').slice(0, 300);
		throw new ServiceBehaviourError(
			`The audit log cannot be read as events: an entry lacks ${missing.join(', ')}`,
			`Polling reads GET ${AUDIT_LOG_PATH} and needs each entry's id, event name and time. Entry fields seen: ${seen}. Use Receive Events By › Webhook with this service.`,
		);
	}
	const time = typeof rawTime === 'string' ? rawTime : new Date(ms as number).toISOString();
	return { id: id as string, event: event as string, time, ms: ms as number, entry };
}

/** Whether a read's times rise (listed oldest first) or fall; undefined when they do not tell. */
function listedOldestFirst(events: PolledEvent[]): boolean | undefined {
	if (events.length < 2 || events[0].ms === events[events.length - 1].ms) return undefined;
	return events[0].ms < events[events.length - 1].ms;
}

/** Oldest first whatever the service's order; the stable sort keeps its order at one time. */
export function oldestFirst(events: PolledEvent[], assumeOldestFirst = false): PolledEvent[] {
	const asListed = listedOldestFirst(events) ?? assumeOldestFirst;
	return (asListed ? [...events] : [...events].reverse()).sort((a, b) => a.ms - b.ms);
}

export const chosenEvents = (wanted: string[], events: PolledEvent[]) =>
	events.filter(
		(event) =>
			DELIVERED.includes(event.event) &&
			(wanted.includes(ANY_EVENT) || wanted.includes(event.event)),
	);

/** Each event as its item; a reader reads each record once, so a poll reads a document once. */
export function eventItemReader(
	context: ApiContext,
): (event: PolledEvent) => Promise<INodeExecutionData> {
	const records = new Map<string, Promise<IDataObject>>();
	const read = (kind: string, id: string) => {
		const path = apiPath`/${kind}/${id}`;
		const record: Promise<IDataObject> =
			records.get(path) ??
			apiRequest(context, 'GET', path).then(
				(response) => recordOf(response.body),
				(error: unknown) => {
					// Deleted since (document.deleted): the entry's id is all there is.
					if (isNotFound(error)) return { id };
					throw error;
				},
			);
		records.set(path, record);
		return record;
	};
	return async (event) => {
		const details = (event.entry.details ?? {}) as IDataObject;
		const data: IDataObject = {};
		const nested = event.entry.document as IDataObject | undefined;
		const documentId = idText(field(event.entry, ENTRY_FIELDS.document)) ?? idText(nested?.id);
		if (documentId !== undefined) {
			const document = await read('documents', documentId);
			data.document = document;
			const signerId = idText(details.signer_id);
			const signers = Array.isArray(document.signers) ? (document.signers as IDataObject[]) : [];
			const signer = signers.find((one) => signerId !== undefined && idText(one.id) === signerId);
			if (signer) data.signer = signer;
		}
		const requestId = idText(details.signature_request_id);
		if (event.event.startsWith('signature.') && requestId !== undefined)
			data.signature_request = await read('signatures', requestId);
		return { json: { event: event.event, eventId: event.id, timestamp: event.time, data } };
	};
}

export function readCursor(data: IDataObject): PollCursor | undefined {
	const cursor = data.pollCursor as PollCursor | undefined;
	if (!cursor || typeof cursor.time !== 'string' || timeMs(cursor.time) === undefined)
		return undefined;
	return { ...cursor, ids: Array.isArray(cursor.ids) ? cursor.ids.map(String) : [] };
}

/** The cursor past `event` (no older than the cursor): its time and every id at that time. */
export const advance = (cursor: PollCursor, event: PolledEvent): PollCursor => ({
	time: event.time,
	ids: timeMs(cursor.time) === event.ms ? [...new Set([...cursor.ids, event.id])] : [event.id],
});

/** The audit log after `fromMs` within the poll's budget (or `pages`); `whole` when all was read. */
export async function readLog(
	context: ApiContext,
	fromMs: number,
	qs: IDataObject,
	pages: number = EVENT_POLL_BUDGET.pages,
) {
	const result = await apiSweepRecords(context, AUDIT_LOG_PATH, {
		budget: { ...EVENT_POLL_BUDGET, pages },
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
	const start: PollCursor = { time: new Date(fromMs).toISOString(), ids: [] };
	const { events } = await readLog(context, fromMs, { from: start.time });
	if (events.length === 0) await readLog(context, -Infinity, {}, 1);
	return oldestFirst(events).reduce(advance, start);
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
	const next: PollCursor = fresh.reduce(advance, { ...cursor });
	delete next.before;
	if (listed) next.oldestFirst = true;
	else delete next.oldestFirst;
	return { events: fresh, cursor: next };
}
