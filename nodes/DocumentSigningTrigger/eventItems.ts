import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { NodeOperationError } from 'n8n-workflow';

import { apiPath, idText } from '../shared/ids';
import {
	apiRequest,
	recordOf,
	ServiceBehaviourError,
	toNodeError,
	type ApiContext,
} from '../shared/transport';
import type { AuditEvent } from './auditEntries';
import { newestChosenEvent } from './auditEvents';

/** The items polled events become: the event, and the records its entry names (docs/trigger.md). */

/** Why a record the entry names was not read, or undefined when the poll should fail instead. */
function whyUnread(error: unknown): IDataObject | undefined {
	const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
	const httpCode = String((error as { httpCode?: unknown })?.httpCode ?? '');
	const status = Number(httpCode);
	// A malformed id: nothing was requested.
	if (error instanceof ServiceBehaviourError && httpCode === 'none') return { message };
	// The key, n8n's proxy and rate limits are the whole poll's (tried again at the next poll).
	if ([401, 407, 429].includes(status) || !(status >= 400 && status <= 599)) return undefined;
	return { httpCode: status, message };
}

/**
 * Each event as its item; a reader reads each record once, so a poll reads a document once. A
 * record the service will not give (403, another 4xx, a 5xx after the retries, a malformed id)
 * leaves its id, and `unreadable` says which record and why, so a workflow can branch on it; one
 * deleted since (404) is its id, as the contract's deleted documents are.
 */
export function eventItemReader(
	context: ApiContext,
): (event: AuditEvent) => Promise<INodeExecutionData> {
	const records = new Map<string, Promise<IDataObject>>();
	const read = (kind: string, id: string): Promise<IDataObject> => {
		const key = `${kind}/${id}`;
		let record = records.get(key);
		if (!record) {
			record = (async () =>
				recordOf((await apiRequest(context, 'GET', apiPath`/${kind}/${id}`)).body))();
			records.set(key, record);
		}
		return record;
	};
	return async (event) => {
		const details = (event.entry.details ?? {}) as IDataObject;
		const data: IDataObject = {};
		const unreadable: IDataObject[] = [];
		const readInto = async (name: string, kind: string, id: string) => {
			const failure = await read(kind, id).then(
				(record) => void (data[name] = record),
				(error: unknown) => error ?? new Error('unknown'),
			);
			if (failure === undefined) return;
			const why = whyUnread(failure);
			if (!why) throw toNodeError(context.getNode(), failure);
			data[name] = { id };
			// Deleted since (the contract keeps a deleted document's entries): the id is all there is.
			if (why.httpCode !== 404) unreadable.push({ record: name, id, ...why });
		};
		if (event.documentId !== undefined) {
			await readInto('document', 'documents', event.documentId);
			const signerId = idText(details.signer_id);
			const document = data.document as IDataObject;
			const signers = Array.isArray(document.signers) ? (document.signers as IDataObject[]) : [];
			const signer = signers.find((one) => signerId !== undefined && idText(one.id) === signerId);
			if (signer) data.signer = signer;
		}
		const requestId = idText(details.signature_request_id);
		if (event.event.startsWith('signature.') && requestId !== undefined)
			await readInto('signature_request', 'signatures', requestId);
		const json: IDataObject = {
			event: event.event,
			eventId: event.id,
			timestamp: event.time,
			data,
		};
		if (unreadable.length > 0) json.unreadable = unreadable;
		return { json };
	};
}

/** Polling's manual run: the newest chosen event among the latest entries, as the item a poll gives. */
export async function newestEventItems(
	context: ApiContext,
	wanted: string[],
): Promise<INodeExecutionData[]> {
	const { event, read } = await newestChosenEvent(context, wanted);
	if (!event)
		throw new NodeOperationError(context.getNode(), 'No matching event in the audit log yet', {
			description: `None of the latest ${read} audit-log entries is one of the chosen events. Make one happen (for example, create a document), then fetch again.`,
		});
	return [await eventItemReader(context)(event)];
}
