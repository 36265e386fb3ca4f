import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { apiPath, idText } from '../shared/ids';
import {
	apiRequest,
	isNotFound,
	recordOf,
	ServiceBehaviourError,
	type ApiContext,
} from '../shared/transport';
import { ANY_EVENT, WEBHOOK_EVENTS } from '../shared/vocabulary';

export const AUDIT_LOG_PATH = '/reports/audit-log';

/** Events a poll emits: the webhook events (account changes are logged, never delivered). */
const DELIVERED = new Set<string>(WEBHOOK_EVENTS);
/** The longest text read as a field of an entry (hostile input is bounded before it is parsed). */
const MAX_FIELD_CHARS = 200;
/** Entry fields under the names services use for them, first match wins ([A] in docs/api-contract.md). */
export const ENTRY_FIELDS = {
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

export function field(entry: IDataObject, names: readonly string[]): unknown {
	for (const name of names)
		if (entry[name] !== undefined && entry[name] !== null) return entry[name];
	return undefined;
}

/** A time as milliseconds: ISO text (bounded), or Unix seconds or milliseconds. */
export function timeMs(value: unknown): number | undefined {
	if (typeof value === 'number' && Number.isFinite(value))
		return value < 1e12 ? value * 1000 : value;
	if (typeof value !== 'string' || value.length > MAX_FIELD_CHARS) return undefined;
	const ms = Date.parse(value);
	return Number.isNaN(ms) ? undefined : ms;
}

/** An audit-log entry read as an event, or a clear error naming what is missing. */
export function readEntry(entry: IDataObject): PolledEvent {
	const id = idText(entry.id);
	const event = field(entry, ENTRY_FIELDS.event);
	const rawTime = field(entry, ENTRY_FIELDS.time);
	const ms = timeMs(rawTime);
	const missing = [
		id === undefined && '`id`',
		(typeof event !== 'string' || !event || event.length > MAX_FIELD_CHARS) &&
			`an event name (${ENTRY_FIELDS.event.join(', ')})`,
		ms === undefined && `a time (${ENTRY_FIELDS.time.join(', ')})`,
	].filter(Boolean);
	if (missing.length > 0) {
		const seen = Object.keys(entry).slice(0, 20).join(', ').slice(0, 300);
		throw new ServiceBehaviourError(
			`The audit log cannot be read as events: an entry has no ${missing.join(', no ')}`,
			`Polling reads GET ${AUDIT_LOG_PATH} and needs each entry's id, event name and time. Entry fields seen: ${seen}. Use Receive Events By › Webhook with this service.`,
		);
	}
	return {
		id: id as string,
		event: event as string,
		time: typeof rawTime === 'string' ? rawTime : new Date(ms as number).toISOString(),
		ms: ms as number,
		entry,
	};
}

/** Whether a read's times rise (listed oldest first) or fall; undefined when they do not tell. */
export function listedOldestFirst(events: PolledEvent[]): boolean | undefined {
	if (events.length < 2 || events[0].ms === events[events.length - 1].ms) return undefined;
	return events[0].ms < events[events.length - 1].ms;
}

/** Oldest first whatever the service's order; the stable sort keeps its order at one time. */
export function oldestFirst(events: PolledEvent[], assumeOldestFirst = false): PolledEvent[] {
	const asListed = listedOldestFirst(events) ?? assumeOldestFirst;
	return (asListed ? [...events] : [...events].reverse()).sort((a, b) => a.ms - b.ms);
}

export function chosenEvents(wanted: string[], events: PolledEvent[]): PolledEvent[] {
	return events.filter(
		(event) =>
			DELIVERED.has(event.event) && (wanted.includes(ANY_EVENT) || wanted.includes(event.event)),
	);
}

/** Each event as its item; a reader reads each record once, so a poll reads a document once. */
export function eventItemReader(
	context: ApiContext,
): (event: PolledEvent) => Promise<INodeExecutionData> {
	const records = new Map<string, Promise<IDataObject>>();
	const read = (path: string, id: string) => {
		const key = `${path}\u0000${id}`;
		const record: Promise<IDataObject> =
			records.get(key) ??
			apiRequest(context, 'GET', apiPath`/${path}/${id}`).then(
				(response) => recordOf(response.body),
				(error: unknown) => {
					// Deleted since (document.deleted): the entry's id is all there is.
					if (isNotFound(error)) return { id };
					throw error;
				},
			);
		records.set(key, record);
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
