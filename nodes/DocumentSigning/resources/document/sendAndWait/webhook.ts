import type {
	IDataObject,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { apiPath, idText } from '../../../../shared/ids';
import { memoryOf } from '../../../../shared/nodeMemory';
import { acceptedLayouts, fixLayout } from '../../../../shared/signatureLayout';
import {
	apiRequest,
	recordOf,
	serviceClient,
	type ServiceClient,
} from '../../../../shared/transport';
import { headerValue } from '../../../../shared/transport/headers';
import {
	FINAL_DOCUMENT_STATUSES,
	SIGNATURE_TOLERANCE_SECONDS,
} from '../../../../shared/vocabulary';
import {
	parseObject,
	rawBodyOf,
	removeWebhook,
	secretScope,
	signingSecret,
} from '../../../../shared/webhooks';
import { verifyDelivery } from '../../../../shared/deliveryLayouts';
import { documentOutput, unsignedEnd, withApproval } from './output';
import {
	fromQuery,
	readStoredWait,
	resumeStatuses,
	WAIT_CUSTOM_DATA_KEY,
	WAIT_EVENTS,
	type StoredWait,
	type WaitSettings,
} from './waitSettings';

/**
 * webhook(): n8n routes every resume URL of this node to the current wait, so a call ends it only
 * after the checks of docs/send-and-wait.md, in order. Nothing throws: n8n would resume the
 * execution with the error.
 */

type WaitState = 'open' | 'ended';

/** Answered without resuming; `wait` tells the cleanup's probe if the URL's wait is current. */
function ignore(context: IWebhookFunctions, reason: string, wait: WaitState): IWebhookResponseData {
	context.logger.debug(`Document Signing Send and Wait ignored a call: ${reason}`, {
		node: context.getNode().name,
	});
	return { webhookResponse: { received: true, ignored: true, reason, wait } };
}

/** 503: the service retries, the wait goes on. */
function retryLater(
	context: IWebhookFunctions,
	reason: string,
	error: unknown,
): IWebhookResponseData {
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

/**
 * A Completed wait whose document ended unsigned: the node's error, routed by On Error. Not thrown:
 * n8n 2.x would then run the next nodes on an empty item.
 */
function unsignedResult(context: IWebhookFunctions, document: IDataObject): INodeExecutionData[][] {
	const node = context.getNode();
	const error = unsignedEnd(node, document);
	const json = { ...withApproval(document), error: error.message };
	context.logger.warn(`Document Signing Send and Wait: ${error.message}`, {
		node: node.name,
		documentId: String(document.id),
	});
	if (node.onError === 'continueErrorOutput') return [[{ json, error, pairedItem: { item: 0 } }]];
	if (node.onError === 'continueRegularOutput') return [[{ json, pairedItem: { item: 0 } }]];
	return [[]];
}

async function decide(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	const settings = fromQuery(context.getQueryData() as IDataObject);
	if (!settings) return ignore(context, 'not a wait link of this node', 'ended');
	// n8n before 2.16 gives no custom data: then no call is for a current wait.
	const { customData } = context as { customData?: Partial<IWebhookFunctions['customData']> };
	const stored = readStoredWait(customData?.get?.(WAIT_CUSTOM_DATA_KEY));
	if (stored?.nonce !== settings.nonce)
		return ignore(context, "a link of an earlier wait, or of another node's", 'ended');

	// The body's claims first, unverified: on a service that ignores the webhook's document filter,
	// every wait receives every document's events, and these cost no credential read.
	const rawBody = rawBodyOf(context);
	const body = parseObject(rawBody);
	if (!body) return ignore(context, 'the body is not a JSON object', 'open');
	const event = typeof body.event === 'string' ? body.event : undefined;
	if (!event || !WAIT_EVENTS.includes(event))
		return ignore(context, `event ${event ?? '(none)'} does not end a wait`, 'open');
	const data = body.data as { document?: { id?: unknown } } | null | undefined;
	if (idText(data?.document?.id) !== settings.documentId)
		return ignore(context, 'the event is about another document', 'open');

	const client = await serviceClient(context);
	// A nonce is random per wait (128 bits): the key of the wait in this node's memory.
	const waitKey = stored.nonce;
	const memory = memoryOf(context.getWorkflow().id, context.getNode().id);
	if (settings.verifySignature) {
		const headers = (context.getHeaderData() ?? {}) as IDataObject;
		const scope = secretScope(context, client.credentials.apiKey, settings.nonce);
		const verification = verifyDelivery({
			header: (name) => headerValue(headers, name),
			rawBody,
			secret: signingSecret(scope, stored.secret) ?? '',
			nowSeconds: Math.floor(Date.now() / 1000),
			toleranceSeconds: SIGNATURE_TOLERANCE_SECONDS,
			accepted: acceptedLayouts(memory.layouts, settings.signatureLayout, waitKey),
		});
		if (!verification.valid)
			return ignore(
				context,
				`signature not valid (${verification.layout ?? 'no layout'}: ${verification.reason})`,
				'open',
			);
		fixLayout(memory.layouts, settings.signatureLayout, waitKey, verification.layout);
	}

	const bodyWebhookId = idText(body.webhook_id);
	if (bodyWebhookId !== undefined && bodyWebhookId !== stored.webhookId)
		return ignore(context, "the delivery is not from this wait's webhook", 'open');

	if (memory.busyWaits.has(waitKey))
		return ignore(context, 'another call for this wait is being handled', 'open');
	memory.busyWaits.add(waitKey);
	try {
		return await end(context, client, settings, stored);
	} finally {
		memory.busyWaits.delete(waitKey);
	}
}

/** Last checks: the record decides, then the service's removal of the webhook claims the end. */
async function end(
	context: IWebhookFunctions,
	client: ServiceClient,
	settings: WaitSettings,
	stored: StoredWait,
): Promise<IWebhookResponseData> {
	let document: IDataObject;
	try {
		const response = await apiRequest(context, 'GET', apiPath`/documents/${settings.documentId}`, {
			client,
			acceptStatuses: [404],
		});
		if (response.statusCode === 404)
			return ignore(context, 'the service no longer has the document', 'open');
		document = recordOf(response.body);
	} catch (error) {
		return retryLater(context, 'read the document', error);
	}
	if (!(FINAL_DOCUMENT_STATUSES as readonly unknown[]).includes(document.status))
		return ignore(context, `the service reports the document ${String(document.status)}`, 'open');

	let output: INodeExecutionData[][];
	if ((resumeStatuses(settings.resumeOn) as readonly unknown[]).includes(document.status)) {
		try {
			output = [[await documentOutput(context, document, settings.signedFileField)]];
		} catch (error) {
			return retryLater(context, 'download the signed file', error);
		}
	} else {
		output = unsignedResult(context, document);
	}

	try {
		if (!(await removeWebhook(context, stored.webhookId, client)))
			return ignore(context, 'another call has ended this wait', 'ended');
	} catch (error) {
		// The end goes on: the cleanup of a later run finds the webhook (its wait has ended).
		context.logger.warn('Document Signing Send and Wait could not remove its webhook', {
			webhookId: stored.webhookId,
			error: (error as Error).message,
		});
	}
	return { workflowData: output, webhookResponse: { received: true, resumed: true } };
}

/** webhook() of the Document Signing node: only Send and Wait for Signature's waits call it. */
export async function receiveWaitCall(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	try {
		return await decide(this);
	} catch (error) {
		// E.g. the credential cannot be read: never resume on a failure of our own.
		return retryLater(this, 'check the call', error);
	}
}
