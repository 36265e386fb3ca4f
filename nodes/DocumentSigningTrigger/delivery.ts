import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { verifyWebhookSignature } from '../shared/webhookSignature';
import { apiRequest } from '../shared/transport';
import {
	ANY_EVENT,
	DELIVERY_ATTEMPT_HEADER,
	DELIVERY_ID_HEADER,
	SIGNATURE_HEADER,
	SIGNATURE_TOLERANCE_SECONDS,
} from '../shared/vocabulary';
import { selectedEvents } from './registration';
import { triggerStaticData } from './staticData';

/**
 * One delivery: verify, filter, emit. Runs in whichever n8n process received the request.
 *
 * - A request that fails the signature check (or arrives while no secret is stored) is answered
 *   401 straight away through the response object and returns `noWebhookResponse`, so n8n sends
 *   nothing more and starts no execution. n8n's own triggers (GitHub, Linear, …) do the same.
 * - The signature is checked over `req.rawBody`: n8n reads every webhook request body into that
 *   Buffer before calling the node (its body parser for webhook nodes of version 1 always runs).
 * - Accepted but unwanted deliveries (an event not chosen) are answered 2xx through
 *   `webhookResponse` without `workflowData`: n8n answers and starts nothing, and the service
 *   stops retrying.
 * - Repeats (the same delivery ID) are decided by the executions, not here: this process cannot
 *   know what another one received, nor whether n8n will manage to start the execution. Every
 *   verified delivery starts an execution, and that execution claims the delivery at the service
 *   first (claim.ts); only the one that wins the claim goes on. One shortcut: a retry (attempt 2
 *   or later) whose delivery the service already reports as claimed is answered 2xx without an
 *   execution, so an overloaded n8n is not handed more work by the service's retries. The check is
 *   one request given up after CLAIM_CHECK_TIMEOUT_MS; when it fails, the execution decides.
 */

/** How long a retry's claim check may hold up the answer to the service (which waits 10 s). */
export const CLAIM_CHECK_TIMEOUT_MS = 2000;

interface TriggerOptions {
	includeHeaders?: boolean;
	signatureToleranceSeconds?: number;
}

function headerValue(headers: IDataObject, name: string): string | undefined {
	for (const [key, value] of Object.entries(headers ?? {})) {
		if (key.toLowerCase() !== name) continue;
		if (Array.isArray(value)) return value.map(String).join(',');
		return value === undefined || value === null ? undefined : String(value);
	}
	return undefined;
}

function withoutSignature(headers: IDataObject): IDataObject {
	const copy: IDataObject = {};
	for (const [key, value] of Object.entries(headers ?? {})) {
		if (key.toLowerCase() !== SIGNATURE_HEADER) copy[key] = value;
	}
	return copy;
}

function reject(context: IWebhookFunctions, status: number, code: string, message: string): IWebhookResponseData {
	const res = context.getResponseObject();
	res.status(status).json({ error: { code, message } });
	return { noWebhookResponse: true };
}

function toleranceOf(options: TriggerOptions): number {
	const value = Number(options.signatureToleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS);
	return Number.isFinite(value) && value > 0 ? value : SIGNATURE_TOLERANCE_SECONDS;
}

/** Whether the service reports the delivery as claimed by an execution; false when it cannot tell. */
async function claimedAlready(context: IWebhookFunctions, webhookId: string, deliveryId: string): Promise<boolean> {
	try {
		const response = await apiRequest(
			context,
			'GET',
			`/webhooks/${encodeURIComponent(webhookId)}/deliveries/${encodeURIComponent(deliveryId)}`,
			{ singleAttemptTimeoutMs: CLAIM_CHECK_TIMEOUT_MS },
		);
		const record = (response.body ?? {}) as IDataObject;
		const delivery = (typeof record.data === 'object' && record.data !== null && !Array.isArray(record.data) ? record.data : record) as IDataObject;
		return delivery.status === 'acknowledged' || (typeof delivery.acknowledged_at === 'string' && delivery.acknowledged_at !== '');
	} catch (error) {
		context.logger.debug('Document Signing Trigger could not check a retried delivery; its execution will', {
			deliveryId,
			error: (error as Error).message,
		});
		return false;
	}
}

export async function receiveDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const req = this.getRequestObject();
	const headers = (req.headers ?? {}) as IDataObject;
	const options = this.getNodeParameter('options', {}) as TriggerOptions;
	const toleranceSeconds = toleranceOf(options);
	const nowSeconds = Math.floor(Date.now() / 1000);

	const data = triggerStaticData(this);
	// No stored secret (nothing registered yet) leaves '' and the check refuses everything.
	const secret = typeof data.webhookSecret === 'string' ? data.webhookSecret : '';
	// n8n reads every webhook request into req.rawBody (a Buffer) before calling the node.
	const raw: unknown = req.rawBody;
	const rawBody = Buffer.isBuffer(raw) ? raw : typeof raw === 'string' ? Buffer.from(raw, 'utf8') : undefined;

	const verification = verifyWebhookSignature({
		header: req.headers?.[SIGNATURE_HEADER],
		rawBody,
		secret,
		nowSeconds,
		toleranceSeconds,
	});
	if (!verification.valid) {
		this.logger.debug('Document Signing Trigger refused a delivery', { reason: verification.reason });
		return reject(this, 401, 'invalid_signature', `The delivery's signature is not valid (${verification.reason})`);
	}

	let body: IDataObject;
	try {
		const parsed: unknown = JSON.parse(String(rawBody?.toString('utf8')));
		if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new TypeError('not a JSON object');
		body = parsed as IDataObject;
	} catch (error) {
		this.logger.debug('Document Signing Trigger received a signed delivery that is not a JSON object', {
			error: (error as Error).message,
		});
		return reject(this, 400, 'invalid_json', 'The delivery body is not a JSON object');
	}

	// The body is signed, the headers are not: the event comes from the body only, the delivery ID
	// from the body (the header is a fallback for a body without one).
	const event = typeof body.event === 'string' ? body.event : undefined;
	const deliveryId = typeof body.id === 'string' && body.id !== '' ? body.id : headerValue(headers, DELIVERY_ID_HEADER);

	const wanted = selectedEvents(this);
	if (!event || (!wanted.includes(ANY_EVENT) && !wanted.includes(event))) {
		return { webhookResponse: { received: true, ignored: true, reason: 'event not selected' } };
	}

	const webhookId = typeof body.webhook_id === 'string' && body.webhook_id !== '' ? body.webhook_id : data.webhookId;
	const attempt = Number(headerValue(headers, DELIVERY_ATTEMPT_HEADER));
	if (deliveryId && webhookId && attempt > 1 && (await claimedAlready(this, webhookId, deliveryId))) {
		return { webhookResponse: { received: true, ignored: true, reason: 'already processed' } };
	}

	const json: IDataObject = {
		event,
		deliveryId: deliveryId ?? null,
		timestamp:
			typeof body.created_at === 'string' ? body.created_at : new Date(verification.timestamp * 1000).toISOString(),
		data: (body.data ?? {}) as IDataObject,
	};
	if (typeof body.webhook_id === 'string') json.webhookId = body.webhook_id;
	if (options.includeHeaders) json.headers = withoutSignature(headers);

	return { workflowData: [[{ json }]] };
}
