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
import { apiRequest, headerValue, recordOf, serviceClient } from '../../../../shared/transport';
import { FINAL_DOCUMENT_STATUSES } from '../../../../shared/vocabulary';
import { verifyWithLayout } from '../../../../shared/webhookSignature';
import * as webhooks from '../../../../shared/webhooks';
import { fromQuery, keptWait, resumesWith, WAIT_EVENTS } from './waitSettings';

/** The item a wait passes on: `approved` is true only when completed (the review gate's rule). */
export async function documentOutput(
	context: IExecuteFunctions | IWebhookFunctions,
	document: IDataObject,
	signedFileField?: string,
): Promise<INodeExecutionData> {
	const item = {
		json: { ...document, approved: document.status === 'completed' },
		pairedItem: { item: 0 },
	};
	if (!signedFileField || document.status !== 'completed') return item;
	const file = await fetchDocumentFile(context, document, 'signed');
	const data = await context.helpers.prepareBinaryData(file.data, file.fileName, file.mimeType);
	return { ...item, binary: { [signedFileField]: data } };
}

export function unsignedEnd(node: INode, document: IDataObject): NodeOperationError {
	const status = String(document.status);
	return new NodeOperationError(node, `The document was ${status}, not signed`, {
		itemIndex: 0,
		description: `Resume On is Completed, and the service reports document ${String(document.id)} as ${status}. Set Resume On to Any Final State to continue with every final state (approved is then false), or use Settings › On Error to route this error.`,
	});
}

/** Answered without resuming; `wait` tells the cleanup's probe whether the URL's wait is current. */
function ignore(context: IWebhookFunctions, reason: string, wait: 'open' | 'ended') {
	context.logger.debug(`Document Signing Send and Wait ignored a call: ${reason}`, {
		node: context.getNode().name,
	});
	return { webhookResponse: { received: true, ignored: true, reason, wait } };
}

/** 503: the service retries, the wait goes on. */
function retryLater(context: IWebhookFunctions, reason: string, error: unknown) {
	context.logger.warn(
		`Document Signing Send and Wait could not ${reason}; the service's retry tries again`,
		{ error: (error as Error)?.message },
	);
	context
		.getResponseObject()
		.status(503)
		.json({ error: { code: 'unavailable', message: `Could not ${reason}; try again later` } });
	return { noWebhookResponse: true };
}

/** Not thrown: n8n 2.x would then run the next nodes on an empty item (docs/send-and-wait.md). */
function unsignedResult(context: IWebhookFunctions, document: IDataObject): INodeExecutionData[][] {
	const node = context.getNode();
	const error = unsignedEnd(node, document);
	const json = { ...document, approved: false, error: error.message };
	context.logger.warn(`Document Signing Send and Wait: ${error.message}`, {
		node: node.name,
		documentId: String(document.id),
	});
	if (node.onError === 'continueErrorOutput') return [[{ json, error, pairedItem: { item: 0 } }]];
	if (node.onError === 'continueRegularOutput') return [[{ json, pairedItem: { item: 0 } }]];
	return [[]];
}

/** The checks of docs/send-and-wait.md, in order; only the last ends the wait. */
async function decide(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	const settings = fromQuery(context.getQueryData() as IDataObject);
	if (!settings) return ignore(context, 'not a wait link of this node', 'ended');
	const stored = keptWait(context);
	if (stored?.nonce !== settings.nonce)
		return ignore(context, "a link of an earlier wait, or of another node's", 'ended');

	// The body's claims first, unverified: they cost no credential read.
	const rawBody = webhooks.rawBodyOf(context);
	const body = webhooks.parseObject(rawBody);
	if (!body) return ignore(context, 'the body is not a JSON object', 'open');
	const event = typeof body.event === 'string' ? body.event : undefined;
	if (!event || !WAIT_EVENTS.includes(event))
		return ignore(context, `event ${event ?? '(none)'} does not end a wait`, 'open');
	const data = body.data as { document?: { id?: unknown } } | null | undefined;
	if (idText(data?.document?.id) !== settings.documentId)
		return ignore(context, 'the event is about another document', 'open');

	const client = await serviceClient(context);
	const waitKey = stored.nonce;
	const memory = memoryOf(context.getWorkflow().id, context.getNode().id);
	if (settings.verifySignature) {
		const headers = (context.getHeaderData() ?? {}) as IDataObject;
		const scope = webhooks.secretScope(context, client.credentials.apiKey, settings.nonce);
		const verification = verifyWithLayout(memory, waitKey, settings.signatureLayout, {
			header: (name) => headerValue(headers, name),
			rawBody,
			secret: webhooks.signingSecret(scope, stored.secret) ?? '',
			nowSeconds: Math.floor(Date.now() / 1000),
		});
		if (!verification.valid)
			return ignore(
				context,
				`signature not valid (${verification.layout ?? 'no layout'}: ${verification.reason})`,
				'open',
			);
	}
	const bodyWebhookId = idText(body.webhook_id);
	if (bodyWebhookId !== undefined && bodyWebhookId !== stored.webhookId)
		return ignore(context, "the delivery is not from this wait's webhook", 'open');
	if (memory.busyWaits.has(waitKey))
		return ignore(context, 'another call for this wait is being handled', 'open');
	memory.busyWaits.add(waitKey);
	try {
		let document: IDataObject;
		try {
			const path = apiPath`/documents/${settings.documentId}`;
			const response = await apiRequest(context, 'GET', path, { client, acceptStatuses: [404] });
			if (response.statusCode === 404)
				return ignore(context, 'the service no longer has the document', 'open');
			document = recordOf(response.body);
		} catch (error) {
			return retryLater(context, 'read the document', error);
		}
		if (!(FINAL_DOCUMENT_STATUSES as readonly unknown[]).includes(document.status))
			return ignore(context, `the service reports the document ${String(document.status)}`, 'open');
		let output: INodeExecutionData[][];
		try {
			output = resumesWith(settings.resumeOn, document.status)
				? [[await documentOutput(context, document, settings.signedFileField)]]
				: unsignedResult(context, document);
		} catch (error) {
			return retryLater(context, 'download the signed file', error);
		}
		// The service removes a webhook once: of two calls, the one that finds it gone is ignored.
		try {
			if (!(await webhooks.removeWebhook(context, stored.webhookId, client)))
				return ignore(context, 'another call has ended this wait', 'ended');
		} catch (error) {
			// The end goes on: the cleanup of a later run finds the webhook (its wait has ended).
			context.logger.warn('Document Signing Send and Wait could not remove its webhook', {
				webhookId: stored.webhookId,
				error: (error as Error).message,
			});
		}
		return { workflowData: output, webhookResponse: { received: true, resumed: true } };
	} finally {
		memory.busyWaits.delete(waitKey);
	}
}

/** webhook() of the Document Signing node: only Send and Wait's waits call it. Never throws. */
export async function receiveWaitCall(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	try {
		return await decide(this);
	} catch (error) {
		// E.g. the credential cannot be read: never resume on a failure of our own.
		return retryLater(this, 'check the call', error);
	}
}
