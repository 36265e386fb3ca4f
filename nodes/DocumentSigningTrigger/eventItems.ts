import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { NodeOperationError } from 'n8n-workflow';

import { apiPath, idText } from '../shared/ids';
import { apiRequest, recordOf, type ApiContext } from '../shared/transport';
import type { AuditEvent } from './auditEntries';
import { newestChosenEvent } from './auditEvents';

/** The items polled events become: the event, and the records its entry names (docs/trigger.md). */

/**
 * Why a record the entry names was not read: the HTTP code when the service answered, and the
 * transport's own message (never the body). Every such failure is this record's alone; the poll's
 * own failures (the audit log refused, unreachable or unreadable) come from reading the log.
 */
function whyUnread(error: unknown): IDataObject {
	const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
	const httpCode = String((error as { httpCode?: unknown })?.httpCode);
	return /^\d{3}$/.test(httpCode) ? { httpCode: Number(httpCode), message } : { message };
}

/**
 * Each event as its item; a reader reads each record once, so a poll reads a document once. A
 * record not read, whatever the failure (any status or body, a redirect, the network, a timeout,
 * a malformed id), leaves its id, and `unreadable` says which record and why, so a workflow can
 * branch on it; one deleted since (404) is its id, as the contract's deleted documents are.
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
			try {
				data[name] = await read(kind, id);
			} catch (error) {
				data[name] = { id };
				const why = whyUnread(error);
				// Deleted since (the contract keeps a deleted document's entries): the id is all there is.
				if (why.httpCode !== 404) unreadable.push({ record: name, id, ...why });
			}
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
