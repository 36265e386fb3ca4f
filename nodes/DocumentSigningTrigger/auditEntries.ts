import type { IDataObject } from 'n8n-workflow';

import { idText } from '../shared/ids';
import { AUDIT_EVENTS } from '../shared/vocabulary';

/**
 * One audit-log entry read as an event, by principle (docs/trigger.md, "Reading the audit log"):
 * the contract's names first, then the field that holds a timestamp, a document's id, or (named
 * for it) an event. The entry is outside input: every text is bounded before it is read.
 */

/** The longest text read as a field of an entry. */
const MAX_FIELD_CHARS = 200;
/** Fields looked at when no known name matches (an entry with more is read by its first ones). */
const MAX_FIELDS_SCANNED = 50;

const KNOWN = {
	id: ['id', 'entry_id', 'entryId', 'event_id', 'eventId', 'uuid'],
	event: ['event', 'type', 'event_type', 'eventType', 'action'],
	time: ['created_at', 'createdAt', 'timestamp', 'occurred_at', 'occurredAt', 'time', 'at'],
	document: ['document_id', 'documentId'],
} as const;
/** Where services put the record an entry is about. */
const SUBJECT_FIELDS = ['document', 'target', 'resource', 'object', 'subject', 'entity'];
const EVENT_NAMES: readonly string[] = AUDIT_EVENTS;

/** ISO 8601 date and time, its zone optional: `2026-11-28T10:00:00.123456+01:00`, `… 10:00Z`. */
const ISO_TIME =
	/^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d{1,9}))?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
/** HTTP's date (RFC 1123), which always names its zone. */
const HTTP_DATE =
	/^[A-Z][a-z]{2}, \d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} (GMT|UTC|[+-]\d{4})$/;
const EPOCH_DIGITS = /^-?\d{9,19}(\.\d{1,9})?$/;
/** 2000-01-01 to 2200-01-01: a number outside reads as no time where the field's name says none. */
const PLAUSIBLE_MS = [946_684_800_000, 7_258_118_400_000] as const;

/** A Unix time as milliseconds, its unit told by its size (seconds, ms, microseconds, ns). */
function epochMs(value: number): number {
	const size = Math.abs(value);
	const ms =
		size < 1e11 ? value * 1000 : size < 1e14 ? value : size < 1e17 ? value / 1e3 : value / 1e6;
	return Math.floor(ms);
}

/** ISO text as milliseconds: a time without a zone is UTC (docs/api-contract.md [A]). */
function isoMs(text: string): number | undefined {
	if (ISO_DATE.test(text)) return Date.parse(`${text}T00:00:00Z`);
	const parts = ISO_TIME.exec(text);
	if (!parts) return HTTP_DATE.test(text) ? Date.parse(text) : undefined;
	const [, date, clock, fraction = '0', zone = 'Z'] = parts;
	const offset = /^(Z|UTC|GMT)$/i.test(zone)
		? 'Z'
		: `${zone.slice(0, 3)}:${zone.slice(3).replace(':', '').padEnd(2, '0')}`;
	const seconds = clock.length === 5 ? `${clock}:00` : clock;
	const ms = Date.parse(`${date}T${seconds}.${fraction.padEnd(3, '0').slice(0, 3)}${offset}`);
	return Number.isNaN(ms) ? undefined : ms;
}

const isContractTime = (value: string) =>
	value.length === 24 && value[10] === 'T' && value[19] === '.' && value[23] === 'Z';

/** A time as milliseconds since 1970 UTC: ISO or HTTP text, or a Unix time in any unit. */
export function timeMs(value: unknown): number | undefined {
	if (typeof value === 'number') return Number.isFinite(value) ? epochMs(value) : undefined;
	if (typeof value !== 'string' || value.length > MAX_FIELD_CHARS) return undefined;
	// The contract's own form (`2026-11-28T10:00:00.123Z`), read at once.
	if (isContractTime(value)) {
		const ms = Date.parse(value);
		if (!Number.isNaN(ms)) return ms;
	}
	const text = value.trim();
	if (EPOCH_DIGITS.test(text)) return epochMs(Number(text));
	return isoMs(text);
}

export const isoOf = (ms: number) => new Date(ms).toISOString();

function firstOf(entry: IDataObject, names: readonly string[]): unknown {
	for (const name of names) {
		const value = entry[name];
		if (value !== undefined && value !== null) return value;
	}
	return undefined;
}

/** The entry's other fields, bounded. */
const scanned = (entry: IDataObject) => Object.entries(entry).slice(0, MAX_FIELDS_SCANNED);

const timeLike = (name: string) => /(^|_)(at|ts|time|date|when)$|At$|Time$|timestamp/i.test(name);
/** A name with the word event, type, action or kind (`event_name`, `activityType`): never a title. */
const eventLike = (name: string) =>
	/(^|[^a-z])(event|type|action|kind)([^a-z]|$)/i.test(name.replace(/([a-z])([A-Z])/g, '$1_$2'));

/** Times read in one read of the log: entries at one instant share their text, read once. */
export class TimeCache {
	private readonly readMs = new Map<unknown, number | undefined>();
	private readonly iso = new Map<number, string>();
	private static readonly MAX = 100_000;

	msOf(value: unknown): number | undefined {
		if (typeof value === 'object') return timeMs(value);
		if (this.readMs.has(value)) return this.readMs.get(value);
		const ms = timeMs(value);
		if (this.readMs.size < TimeCache.MAX) this.readMs.set(value, ms);
		// The contract's form is its own ISO text.
		if (
			ms !== undefined &&
			typeof value === 'string' &&
			isContractTime(value) &&
			this.iso.size < TimeCache.MAX
		)
			this.iso.set(ms, value);
		return ms;
	}

	isoOf(ms: number): string {
		let iso = this.iso.get(ms);
		if (iso === undefined) {
			iso = isoOf(ms);
			if (this.iso.size < TimeCache.MAX) this.iso.set(ms, iso);
		}
		return iso;
	}
}

function entryTime(entry: IDataObject, cache: TimeCache): number | undefined {
	const known = cache.msOf(firstOf(entry, KNOWN.time));
	if (known !== undefined) return known;
	for (const [name, value] of scanned(entry)) {
		if (typeof value === 'number' && !timeLike(name)) continue;
		if (typeof value === 'string' && !timeLike(name) && !ISO_TIME.test(value.trim())) continue;
		const ms = timeMs(value);
		if (ms !== undefined && ms >= PLAUSIBLE_MS[0] && ms <= PLAUSIBLE_MS[1]) return ms;
	}
	return undefined;
}

const boundedText = (value: unknown) =>
	typeof value === 'string' && value !== '' && value.length <= MAX_FIELD_CHARS ? value : undefined;

function entryEvent(entry: IDataObject): string | undefined {
	let first: string | undefined;
	for (const name of KNOWN.event) {
		const text = boundedText(entry[name]);
		if (text !== undefined && EVENT_NAMES.includes(text)) return text;
		first ??= text;
	}
	for (const [name, value] of scanned(entry))
		if (typeof value === 'string' && EVENT_NAMES.includes(value) && eventLike(name)) return value;
	return first;
}

/** A document's id: `doc_…` (the contract's prefix), or a record that says it is a document. */
function documentIdIn(value: unknown, named: boolean): string | undefined {
	if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
		const record = value as IDataObject;
		const kind = firstOf(record, ['type', 'kind', 'object', 'resource_type']);
		const id = idText(record.id);
		return named || kind === 'document' || id?.startsWith('doc_') ? id : undefined;
	}
	const id = idText(value);
	return id !== undefined && (named || id.startsWith('doc_')) ? id : undefined;
}

function entryDocument(entry: IDataObject): string | undefined {
	// A known name, even empty, says where the document is (or that there is none).
	if (KNOWN.document.some((name) => name in entry)) return idText(firstOf(entry, KNOWN.document));
	for (const name of SUBJECT_FIELDS) {
		const id = documentIdIn(entry[name], name === 'document');
		if (id !== undefined) return id;
	}
	for (const [name, value] of scanned(entry)) {
		const id = documentIdIn(value, /^doc(ument)?[_-]?id$/i.test(name));
		if (id !== undefined) return id;
	}
	return undefined;
}

/** An entry read as an event. `key` is its identity: its id at its time (a reused id is new). */
export interface AuditEvent {
	id: string;
	event: string;
	ms: number;
	time: string;
	key: string;
	documentId?: string;
	entry: IDataObject;
}

/** What an entry that cannot be read as an event lacks. */
export interface Unreadable {
	lacks: string[];
	fields: string[];
}

export function readEntry(raw: unknown, times = new TimeCache()): AuditEvent | Unreadable {
	const entry = (raw !== null && typeof raw === 'object' ? raw : {}) as IDataObject;
	const id = boundedText(idText(firstOf(entry, KNOWN.id)));
	const event = entryEvent(entry);
	const ms = entryTime(entry, times);
	if (id === undefined || event === undefined || ms === undefined)
		return {
			lacks: [
				id === undefined ? 'an `id`' : '',
				event === undefined ? 'an event name' : '',
				ms === undefined ? 'a time' : '',
			].filter(Boolean),
			fields: Object.keys(entry).slice(0, 20),
		};
	const documentId = entryDocument(entry);
	return { id, event, ms, time: times.isoOf(ms), key: `${id}@${ms}`, documentId, entry };
}

export const isEvent = (read: AuditEvent | Unreadable): read is AuditEvent => 'key' in read;
