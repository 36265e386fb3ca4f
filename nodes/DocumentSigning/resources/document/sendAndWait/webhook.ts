import type {
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { fetchDocumentFile } from '../../../../shared/documentFiles';
import { apiPath, idText } from '../../../../shared/ids';
import { memoryOf } from '../../../../shared/nodeMemory';
import { apiRequest, apiSweepRecords, recordOf, serviceClient } from '../../../../shared/transport';
import type { ServiceClient } from '../../../../shared/transport';
import * as vocabulary from '../../../../shared/vocabulary';
import { layoutChoice, verifyCall } from '../../../../shared/webhookSignature';
import * as webhooks from '../../../../shared/webhooks';

const WAIT_CUSTOM_DATA_KEY = 'documentSigningWait';

/** Keeps the wait with the execution (read back: n8n drops an 11th key or a value over 255). */
export function keepWait(context: IExecuteFunctions, n: string, w: string, s?: string): void {
	const value = JSON.stringify({ n, w, ...(s ? { s } : {}) });
	const description =
		"Each wait is kept in the execution's custom data (one key, documentSigningWait), which n8n limits to 10 keys of 255 characters. Nothing was sent.";
	const refusal = (problem: string) =>
		new NodeOperationError(
			context.getNode(),
			`Send and Wait for Signature could not keep this wait with the execution: ${problem}`,
			{ itemIndex: 0, description },
		);
	if (value.length > 255)
		throw refusal(`the service's webhook secret is too long (${value.length} characters to keep)`);
	context.customData.set(WAIT_CUSTOM_DATA_KEY, value);
	if (context.customData.get(WAIT_CUSTOM_DATA_KEY) !== value)
		throw refusal('the execution already holds 10 custom data keys');
}

function keptWait(context: IWebhookFunctions) {
	try {
		// Throws too before n8n 2.16, whose node contexts have no custom data.
		const value: unknown = context.customData.get(WAIT_CUSTOM_DATA_KEY);
		const { n, w, s } = (typeof value === 'string' ? JSON.parse(value) : {}) as IDataObject;
		if (typeof n !== 'string' || !n || typeof w !== 'string' || !w) return undefined;
		return { nonce: n, webhookId: w, sealedSecret: typeof s === 'string' ? s : undefined };
	} catch {
		return undefined;
	}
}

/** The settings from a resume call's query (execute.ts writes it), or undefined when any is missing. */
function fromQuery(query: IDataObject) {
	const text = (name: string) => (typeof query[name] === 'string' ? query[name] : undefined);
	const [nonce, resumeOn] = [text('nonce'), text('resumeOn')];
	// A batch's ids in input order, an empty slot for an item that failed (execute.ts).
	const documentIds = (text('documents') ?? text('document'))
		?.split(',')
		.map((id) => id || undefined);
	if (!documentIds || !nonce || (resumeOn !== 'completed' && resumeOn !== 'anyFinal'))
		return undefined;
	return {
		documentIds,
		since: text('since'),
		nonce,
		resumeOn,
		signedFileField: text('file') || undefined,
		verifySignature: text('verify') !== '0',
		signatureLayout: layoutChoice(text('layout')),
	};
}

/** Every final event: a decline ends a Completed wait too (as an error). */
export const WAIT_EVENTS = vocabulary.FINAL_DOCUMENT_STATUSES.map((status) => `document.${status}`);

/** Whether the document's status continues the workflow as a result (not as an error). */
export const resumesWith = (resumeOn: string, status: unknown) =>
	resumeOn === 'anyFinal' ? vocabulary.isFinal(status) : status === 'completed';
/** Final, or deleted since (readDocuments): nothing more will happen to it. */
export const hasEnded = (document: IDataObject) =>
	vocabulary.isFinal(document.status) || document.status === 'deleted';

/**
 * The documents in input order (undefined for an empty slot), from one sweep of those created
 * `since` the oldest; ids it does not reach (a single item's) are read one by one.
 */
export async function readDocuments(
	context: IExecuteFunctions | IWebhookFunctions,
	client: ServiceClient,
	ids: Array<string | undefined>,
	since?: string,
): Promise<Array<IDataObject | undefined>> {
	const listed = new Map<string | undefined, IDataObject>();
	if (since) {
		const { records } = await apiSweepRecords(context, '/documents', {
			qs: { created_after: since },
			budget: { ...vocabulary.WEBHOOK_SWEEP_BUDGET, name: 'batch read', pages: 5 },
			// Newest first: a service that ignores the filter is read only down to `since`.
			stopAt: (record) => String(record.created_at) < since,
		});
		for (const record of records) listed.set(idText(record.id), record);
	}
	for (const id of ids) {
		if (id === undefined || listed.has(id)) continue;
		const path = apiPath`/documents/${id}`;
		const response = await apiRequest(context, 'GET', path, { client, acceptStatuses: [404] });
		// A document deleted since has ended too; its item says so.
		const gone = response.statusCode === 404;
		listed.set(id, gone ? { id, status: 'deleted' } : recordOf(response.body));
	}
	return ids.map((id) => listed.get(id));
}

export function unsignedEnd(node: INode, document: IDataObject, itemIndex = 0) {
	const status = String(document.status);
	return new NodeOperationError(node, `The document was ${status}, not signed`, {
		itemIndex,
		description: `Resume On is Completed, and the service reports document ${String(document.id)} as ${status}. Set Resume On to Any Final State to continue with every final state (approved is then false), or use Settings › On Error to route this error.`,
	});
}

/** Answered without resuming: the execution keeps waiting, and the service stops retrying. */
function ignore(context: IWebhookFunctions, reason: string) {
	context.logger.debug(`Document Signing Send and Wait ignored a call: ${reason}`, {
		node: context.getNode().name,
	});
	return { webhookResponse: { received: true, ignored: true, reason } };
}

/** 503: the service retries, the wait goes on (without `error`: not a failure, the wait was busy). */
function retryLater(context: IWebhookFunctions, reason: string, error?: unknown) {
	context.logger[error === undefined ? 'debug' : 'warn'](
		`Document Signing Send and Wait could not ${reason}; the service's retry tries again`,
		{ error: (error as Error)?.message },
	);
	const message = `Could not ${reason}; try again later`;
	context
		.getResponseObject()
		.status(503)
		.json({ error: { code: 'unavailable', message } });
	return { noWebhookResponse: true };
}

/** An item that sent no document: its own error, or at resume (which does not have it) this one. */
export function failedItem(node: INode, itemIndex: number, error?: INodeExecutionData['error']) {
	error ??= new NodeOperationError(node, 'No document was sent for this item', { itemIndex });
	return { json: { error: error.message }, error, pairedItem: { item: itemIndex } };
}

/**
 * One item per input item, in its order (design §5): the document, `approved` true only when
 * completed (the review gate's rule). An unsigned end is not thrown: n8n 2.x would then run the
 * next nodes on an empty item (docs/send-and-wait.md).
 */
export async function waitOutput(
	context: IExecuteFunctions | IWebhookFunctions,
	documents: Array<IDataObject | undefined>,
	{ resumeOn, signedFileField }: { resumeOn: string; signedFileField?: string },
	failed: Array<INodeExecutionData['error']> = [],
): Promise<INodeExecutionData[][]> {
	const node = context.getNode();
	const items: INodeExecutionData[] = [];
	const unsigned: string[] = [];
	for (const [item, document] of documents.entries()) {
		if (!document) {
			items.push(failedItem(node, item, failed[item]));
			continue;
		}
		const approved = document.status === 'completed';
		// When n8n learned the wait ended, as n8n's own approval nodes give it (n8n-nodes-base 2.41.1
		// sendAndWait/utils.js); set after the document's fields, so none of them replaces it.
		const json = { ...document, approved, respondedAt: new Date().toISOString() };
		const output: INodeExecutionData = { json, pairedItem: { item } };
		items.push(output);
		if (approved && signedFileField) {
			const { data, fileName, mimeType } = await fetchDocumentFile(context, document, 'signed');
			const binary = await context.helpers.prepareBinaryData(data, fileName, mimeType);
			output.binary = { [signedFileField]: binary };
		}
		if (resumesWith(resumeOn, document.status)) continue;
		const error = unsignedEnd(node, document, item);
		output.json.error = error.message;
		if (node.onError === 'continueErrorOutput') output.error = error;
		unsigned.push(`${String(document.id)} (${String(document.status)})`);
	}
	if (unsigned.length > 0)
		context.logger.warn(`Document Signing Send and Wait: not signed: ${unsigned.join(', ')}`, {
			node: node.name,
		});
	// Under Stop Workflow nothing continues: part of a batch would pass for all of it.
	return [unsigned.length > 0 && !node.onError?.startsWith('continue') ? [] : items];
}

/** The checks of docs/send-and-wait.md, in order; only the last ends the wait. `step` names a failure. */
async function decide(context: IWebhookFunctions, step: { doing: string }) {
	const settings = fromQuery(context.getQueryData() as IDataObject);
	if (!settings) return ignore(context, 'not a wait link of this node');
	const stored = keptWait(context);
	if (stored?.nonce !== settings.nonce)
		return ignore(context, "a link of an earlier wait, or of another node's");

	// The body's claims first, unverified: they cost no credential read.
	const rawBody = webhooks.rawBodyOf(context);
	const body = webhooks.parseObject(rawBody);
	if (!body) return ignore(context, 'the body is not a JSON object');
	const event = typeof body.event === 'string' ? body.event : undefined;
	if (!event || !WAIT_EVENTS.includes(event))
		return ignore(context, `event ${event ?? '(none)'} does not end a wait`);
	const data = body.data as { document?: { id?: unknown } } | null | undefined;
	const eventDocument = idText(data?.document?.id);
	if (eventDocument === undefined || !settings.documentIds.includes(eventDocument))
		return ignore(context, 'the event is about another document');

	const client = await serviceClient(context);
	if (settings.verifySignature) {
		const apiKey = async () => client.credentials.apiKey;
		const verification = await verifyCall(context, apiKey, stored, settings.signatureLayout);
		if (!verification.valid)
			return ignore(
				context,
				`signature not valid (${verification.layout ?? 'no layout'}: ${verification.reason})`,
			);
	}
	const memory = memoryOf(context.getWorkflow().id, context.getNode().id);
	const bodyWebhookId = idText(body.webhook_id);
	if (bodyWebhookId !== undefined && bodyWebhookId !== stored.webhookId)
		return ignore(context, "the delivery is not from this wait's webhook");
	// A batch's call may bring the last end while another call reads: it must come back, not drop.
	if (memory.busyWaits.has(stored.nonce) && settings.documentIds.length > 1)
		return retryLater(context, 'act while another call of this batch reads');
	if (memory.busyWaits.has(stored.nonce))
		return ignore(context, 'another call for this wait is being handled');
	memory.busyWaits.add(stored.nonce);
	try {
		step.doing = 'read the document';
		const documents = await readDocuments(context, client, settings.documentIds, settings.since);
		const open = documents.flatMap((doc) => (doc && !hasEnded(doc) ? [String(doc.status)] : []));
		if (open.length > 0)
			return ignore(context, `the service reports the document ${open.join(', ')}`);
		step.doing = 'download the signed file';
		const output = await waitOutput(context, documents, settings);
		// The service removes a webhook once: of two calls, the one that finds it gone is ignored.
		try {
			if (!(await webhooks.removeWebhook(context, stored.webhookId, client)))
				return ignore(context, 'another call has ended this wait');
		} catch (error) {
			// The end goes on: a later run removes the webhook a day after the document ended.
			context.logger.warn('Document Signing Send and Wait could not remove its webhook', {
				webhookId: stored.webhookId,
				error: (error as Error).message,
			});
		}
		return { workflowData: output, webhookResponse: { received: true, resumed: true } };
	} finally {
		memory.busyWaits.delete(stored.nonce);
	}
}

/** webhook() of the Document Signing node: only Send and Wait's waits call it. Never throws. */
export async function receiveWaitCall(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const step = { doing: 'check the call' };
	try {
		return await decide(this, step);
	} catch (error) {
		// E.g. the credential cannot be read: never resume on a failure of our own.
		return retryLater(this, step.doing, error);
	}
}
