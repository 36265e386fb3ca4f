import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { apiPath, idText } from '../../../../shared/ids';
import { recordOf } from '../../../../shared/documentFiles';
import { apiRequest, serviceClient, type ServiceClient } from '../../../../shared/transport';
import { headerValue } from '../../../../shared/transport/headers';
import { SIGNATURE_HEADER, SIGNATURE_TOLERANCE_SECONDS } from '../../../../shared/vocabulary';
import {
	derivedSecret,
	openSealedSecret,
	type SecretScope,
} from '../../../../shared/webhookSecret';
import { verifyWebhookSignature } from '../../../../shared/webhookSignature';
import { documentOutput } from './output';
import {
	fromQuery,
	resumeEvents,
	resumeStatuses,
	WAIT_CUSTOM_DATA_KEY,
	type WaitSettings,
} from './waitSettings';
import { removeWaitWebhook } from './waitWebhooks';

/**
 * A call to a waiting execution's resume URL (n8n has checked the URL's signature already).
 *
 * The event only wakes the wait; the service's record decides. The call resumes the execution
 * only when it is a delivery signed with the wait's secret (unless Verify Signatures is off),
 * recent (the signature's time window), about the wait's document and of an event the wait
 * resumes on, and the document, read with the API key, is in one of the wait's states. On resume
 * the wait's service webhook is removed first.
 *
 * Every other call is answered 200 without workflowData, so the execution keeps waiting and the
 * service stops retrying; nothing here throws (n8n would resume the execution with the error).
 * Only a failure to read the service (the document, the signed file) is answered 503: the
 * service retries the delivery later and the wait goes on meanwhile.
 */

interface StoredWait {
	webhookId?: string;
	/** A secret the service chose itself, sealed (webhookSecret.ts). */
	secret?: string;
}

function storedWait(context: IWebhookFunctions): StoredWait {
	try {
		const raw = context.customData.get(WAIT_CUSTOM_DATA_KEY);
		const parsed: unknown = raw ? JSON.parse(raw) : {};
		return typeof parsed === 'object' && parsed !== null ? (parsed as StoredWait) : {};
	} catch {
		return {};
	}
}

function ignore(context: IWebhookFunctions, reason: string): IWebhookResponseData {
	context.logger.debug(`Document Signing Send and Wait ignored a call: ${reason}`, {
		node: context.getNode().name,
	});
	return { webhookResponse: { received: true, ignored: true, reason } };
}

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

function rawBodyOf(context: IWebhookFunctions): Buffer | undefined {
	const raw: unknown = context.getRequestObject().rawBody;
	if (Buffer.isBuffer(raw)) return raw;
	return typeof raw === 'string' ? Buffer.from(raw, 'utf8') : undefined;
}

function parseObject(raw: Buffer | undefined): IDataObject | undefined {
	try {
		const parsed: unknown = JSON.parse(String(raw?.toString('utf8')));
		return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
			? (parsed as IDataObject)
			: undefined;
	} catch {
		return undefined;
	}
}

function signingSecret(
	context: IWebhookFunctions,
	client: ServiceClient,
	settings: WaitSettings,
	stored: StoredWait,
): string | undefined {
	const node = context.getNode();
	const scope: SecretScope = {
		apiKey: client.credentials.apiKey,
		workflowId: String(context.getWorkflow().id ?? ''),
		nodeId: node.id ?? node.name,
		nonce: settings.nonce,
	};
	return stored.secret ? openSealedSecret(stored.secret, scope) : derivedSecret(scope);
}

async function decide(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	const settings = fromQuery(context.getQueryData() as IDataObject);
	if (!settings) return ignore(context, 'not a wait link of this node');
	const stored = storedWait(context);
	const client = await serviceClient(context);
	const rawBody = rawBodyOf(context);

	if (settings.verifySignature) {
		const verification = verifyWebhookSignature({
			header: headerValue((context.getHeaderData() ?? {}) as IDataObject, SIGNATURE_HEADER),
			rawBody,
			secret: signingSecret(context, client, settings, stored) ?? '',
			nowSeconds: Math.floor(Date.now() / 1000),
			toleranceSeconds: SIGNATURE_TOLERANCE_SECONDS,
		});
		if (!verification.valid) return ignore(context, `signature not valid (${verification.reason})`);
	}

	const body = parseObject(rawBody);
	if (!body) return ignore(context, 'the body is not a JSON object');
	const event = typeof body.event === 'string' ? body.event : undefined;
	if (!event || !resumeEvents(settings.resumeOn).includes(event))
		return ignore(context, `event ${event ?? '(none)'} does not end this wait`);
	const data = (
		typeof body.data === 'object' && body.data !== null ? body.data : {}
	) as IDataObject;
	const claimed = (
		typeof data.document === 'object' && data.document !== null ? data.document : {}
	) as IDataObject;
	if (idText(claimed.id) !== settings.documentId)
		return ignore(context, 'the event is about another document');
	const bodyWebhookId = idText(body.webhook_id);
	if (
		stored.webhookId !== undefined &&
		bodyWebhookId !== undefined &&
		bodyWebhookId !== stored.webhookId
	) {
		return ignore(context, "the delivery is not from this wait's webhook");
	}

	// The record decides, not the body.
	let document: IDataObject;
	try {
		const answer = await apiRequest(context, 'GET', apiPath`/documents/${settings.documentId}`, {
			client,
			answerStatuses: [404],
		});
		if (answer.statusCode === 404) return ignore(context, 'the service no longer has the document');
		document = recordOf(answer.body);
	} catch (error) {
		return retryLater(context, 'read the document', error);
	}
	if (!(resumeStatuses(settings.resumeOn) as readonly unknown[]).includes(document.status)) {
		return ignore(context, `the service reports the document ${String(document.status)}`);
	}

	let item;
	try {
		item = await documentOutput(context, document, settings.signedFileField);
	} catch (error) {
		return retryLater(context, 'download the signed file', error);
	}

	const webhookId = stored.webhookId ?? bodyWebhookId;
	if (webhookId !== undefined) {
		try {
			await removeWaitWebhook(context, webhookId, client);
		} catch (error) {
			context.logger.warn(
				'Document Signing Send and Wait could not remove its webhook; the next Send and Wait of this workflow removes it',
				{
					webhookId,
					error: (error as Error).message,
				},
			);
		}
	}
	return { workflowData: [[item]], webhookResponse: { received: true, resumed: true } };
}

/** webhook() of the Document Signing node: only Send and Wait for Signature registers one. */
export async function receiveWaitCall(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	try {
		return await decide(this);
	} catch (error) {
		// E.g. the credential cannot be read: never resume on a failure of our own.
		return retryLater(this, 'check the call', error);
	}
}

/** The function n8n calls a node's webhook() from: WebhookService.runWebhook (n8n 1.x and 2.x). */
const WEBHOOK_RUNNER = /\brunWebhook\b/;

/**
 * `handler` when n8n's webhook runner asks for the node's webhook(), otherwise undefined.
 *
 * n8n reads `nodeType.webhook` at several places: the runner that calls it, but also the
 * execution engine (a node with a webhook gets no input items for its expressions unless the
 * operation is a custom one: every `$json` of a routed operation fails), the node loader (a
 * declarative node with a webhook loses its request options), and the trigger bookkeeping (it
 * would count as a trigger). Only the runner may see it, so the caller is read from the stack:
 * the property read is the runner's own line, the frame right below this getter. If a future n8n
 * renames the runner, the method is never handed out: Send and Wait stops resuming (its tests in
 * real n8n fail) while every other operation keeps working.
 */
export function webhookForRunner<T>(handler: T): T | undefined {
	const frames = (new Error().stack ?? '').split('\n').slice(1, 5).join('\n');
	return WEBHOOK_RUNNER.test(frames) ? handler : undefined;
}
