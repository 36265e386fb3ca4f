import { createHash } from 'crypto';
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { apiPath, idText } from '../shared/ids';
import { apiRequest, CREDENTIAL_TYPE, recordOf } from '../shared/transport';
import { headerValue, withoutHeaders } from '../shared/transport/headers';
import {
	ANY_EVENT,
	BODY_SIGNATURE_HEADERS,
	DELIVERY_ATTEMPT_HEADER,
	SIGNATURE_TOLERANCE_SECONDS,
	STANDARD_WEBHOOKS_HEADERS,
} from '../shared/vocabulary';
import {
	inFlightDelivery,
	markProcessed,
	memoryOf,
	outcomeOf,
	passOn,
	remember,
	settleDelivery,
	wasProcessed,
	type NodeMemory,
} from '../shared/nodeMemory';
import {
	acceptedLayouts,
	AUTOMATIC_LAYOUT,
	fixLayout,
	layoutChoice,
} from '../shared/signatureLayout';
import { signingSecret } from '../shared/webhooks';
import { verifyDelivery, type SignatureFailureReason } from '../shared/webhookSignature';
import { selectedEvents } from './registration';
import { readRegistration, triggerStaticData, type Registration } from './staticData';

/**
 * One delivery: verify, filter, emit. Runs in whichever n8n process received the request.
 *
 * - A request that fails the signature check (or arrives while nothing is registered) is answered
 *   401 straight away through the response object and returns `noWebhookResponse`, so n8n sends
 *   nothing more and starts no execution; n8n logs why at warning level (never the secret).
 * - The signature is checked over `req.rawBody`: n8n reads every webhook request body into that
 *   Buffer before calling the node, in the layout the registration accepts (Signature Layout;
 *   Automatic fixes the first layout that verifies, kept in the node's memory, nodeMemory.ts).
 * - With Verify Signatures off, the request only names a delivery: the service's record of it
 *   (`GET /webhooks/{id}/deliveries/{delivery_id}` of this trigger's registration, its `payload`)
 *   is what passes on. One the service does not report is refused before anything is marked.
 * - The repeat key comes from signed data only: the body's `id`, else the signed Standard
 *   Webhooks `webhook-id`, else a hash of the body (the unsigned X-Delivery-Id is never used).
 * - Accepted but unwanted deliveries (an event not chosen) are answered 2xx through
 *   `webhookResponse` without `workflowData`: n8n answers and starts nothing, and the service
 *   stops retrying.
 * - A repeat (the same delivery ID) starts no execution when this process, or the service, can
 *   tell it was processed (processedAlready): a delivery this process passed on is remembered
 *   until its execution settles the claim, and a copy arriving meanwhile waits for that outcome;
 *   the service is asked when the process cannot tell, and for a retry (attempt 2 or later) it
 *   never saw (one request, given up after CLAIM_CHECK_TIMEOUT_MS). Whatever still gets through
 *   is settled by the executions' claims (claim.ts).
 */

/** How long a retry's claim check may hold up the answer to the service (which waits 10 s). */
export const CLAIM_CHECK_TIMEOUT_MS = 2000;
/** Signature Tolerance is capped, so the replay window can never be turned off by a large value. */
export const MAX_SIGNATURE_TOLERANCE_SECONDS = 3600;

/** Why a delivery was refused, as the warning in n8n's log says it (never the secret). */
const REFUSAL_REASONS: Record<SignatureFailureReason, string> = {
	missing_header: `no signature header of a known layout (${STANDARD_WEBHOOKS_HEADERS.signature}, or an HMAC in ${BODY_SIGNATURE_HEADERS.join(', ')})`,
	malformed_header: 'the signature header cannot be read',
	unsupported_scheme: 'the signature header has no v1 signature',
	missing_timestamp: 'the layout signs a time, and the delivery carries none',
	stale_timestamp:
		"the signed time is too far from n8n's clock (check both clocks, or Signature Tolerance)",
	empty_body: 'empty body',
	signature_mismatch:
		"the signature does not match this webhook's secret (if the credential's API key changed since the webhook was registered, deactivate and activate the workflow)",
	layout_not_accepted: 'this registration accepts another layout',
};

interface TriggerOptions {
	includeHeaders?: boolean;
	signatureToleranceSeconds?: number;
	signatureLayout?: string;
}

/** Headers no output shows: every signature a delivery may carry. */
const SIGNATURE_HEADERS = [...BODY_SIGNATURE_HEADERS, STANDARD_WEBHOOKS_HEADERS.signature];

export function toleranceOf(options: TriggerOptions): number {
	const value = Number(options.signatureToleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS);
	if (!Number.isFinite(value) || value <= 0) return SIGNATURE_TOLERANCE_SECONDS;
	return Math.min(value, MAX_SIGNATURE_TOLERANCE_SECONDS);
}

function refuse(
	context: IWebhookFunctions,
	status: number,
	code: string,
	message: string,
	reason: string,
): IWebhookResponseData {
	const workflow = context.getWorkflow();
	context.logger.warn(`Document Signing Trigger refused a delivery: ${reason}`, {
		reason,
		workflowId: workflow.id,
		node: context.getNode().name,
	});
	context.getResponseObject().status(status).json({ error: { code, message } });
	return { noWebhookResponse: true };
}

/** A registration within its workflow node's memory: its nonce, and the sealed secret if any. */
const registrationKey = (registration: Registration) =>
	`${registration.secretNonce}\u0000${registration.sealedSecret ?? ''}`;

/**
 * The secret deliveries are signed with, recomputed from the credential (webhookSecret.ts) and
 * remembered by registration, so a burst of deliveries costs n8n's database one credential read.
 * A new registration has a new nonce, so nothing goes stale.
 */
async function registrationSecret(
	context: IWebhookFunctions,
	memory: NodeMemory,
	registration: Registration,
): Promise<string | undefined> {
	const key = registrationKey(registration);
	const cached = memory.secrets.get(key);
	if (cached !== undefined) return cached;
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	const node = context.getNode();
	const secret = signingSecret(
		{
			apiKey: String(credentials.apiKey ?? ''),
			workflowId: String(context.getWorkflow().id ?? ''),
			nodeId: node.id ?? node.name,
			nonce: registration.secretNonce,
		},
		registration.sealedSecret,
	);
	if (secret !== undefined) remember(memory.secrets, key, secret);
	return secret;
}

/** How long the service may take to show a delivery's record before the delivery is answered 503. */
export const CONFIRM_TIMEOUT_MS = 5000;

/** The service's record of a delivery: undefined when it has none (404, or no such endpoint). */
async function deliveryRecord(
	context: IWebhookFunctions,
	webhookId: string,
	deliveryId: string,
	timeoutMs: number,
): Promise<IDataObject | undefined> {
	const response = await apiRequest(
		context,
		'GET',
		apiPath`/webhooks/${webhookId}/deliveries/${deliveryId}`,
		{ singleAttemptTimeoutMs: timeoutMs, answerStatuses: [404, 405, 501] },
	);
	return response.statusCode === 200 ? recordOf(response.body) : undefined;
}

const isAcknowledged = (record: IDataObject) =>
	record.status === 'acknowledged' ||
	(typeof record.acknowledged_at === 'string' && record.acknowledged_at !== '');

/** Whether the service reports the delivery as claimed by an execution; false when it cannot tell. */
async function claimedAlready(
	context: IWebhookFunctions,
	webhookId: string,
	deliveryId: string,
): Promise<boolean> {
	try {
		const record = await deliveryRecord(context, webhookId, deliveryId, CLAIM_CHECK_TIMEOUT_MS);
		return record !== undefined && isAcknowledged(record);
	} catch (error) {
		context.logger.debug(
			'Document Signing Trigger could not check a retried delivery; its execution will',
			{
				deliveryId,
				error: (error as Error).message,
			},
		);
		return false;
	}
}

/**
 * The delivery's body as the service reports it (its record's `payload`, or `request.payload` as
 * GitHub's delivery log has it), for an unverified request: the request only names the delivery.
 */
function payloadOf(record: IDataObject): IDataObject | undefined {
	const request = record.request as IDataObject | undefined;
	let payload: unknown = record.payload ?? (isObject(request) ? request.payload : undefined);
	if (typeof payload === 'string') payload = parseObject(Buffer.from(payload, 'utf8'));
	return isObject(payload) ? payload : undefined;
}

const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

function parseObject(raw: Buffer | undefined): IDataObject | undefined {
	try {
		const parsed: unknown = JSON.parse(String(raw?.toString('utf8')));
		return isObject(parsed) ? parsed : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Whether the delivery was processed already, so that this copy starts no execution. If not, this
 * process passes it on: it is marked in flight right after the last check, before anything else
 * is awaited, so of copies arriving at once exactly one goes on. A copy of one this process passed
 * on waits for that execution's claim (bounded, nodeMemory.ts). The service is asked when
 * this process cannot tell: a retry it never saw, or a first execution that ran elsewhere (queue
 * mode) or never started.
 */
async function processedAlready(
	context: IWebhookFunctions,
	memory: NodeMemory,
	webhookId: string | undefined,
	deliveryId: string,
	retried: boolean,
): Promise<boolean> {
	let ask = retried;
	for (;;) {
		if (wasProcessed(memory, deliveryId)) return true;
		const earlier = inFlightDelivery(memory, deliveryId);
		if (!earlier) break;
		const outcome = await outcomeOf(earlier);
		if (outcome === true) return true;
		// Another copy took over meanwhile (or the first failed its claim): check again.
		if (inFlightDelivery(memory, deliveryId) !== earlier) continue;
		ask = true;
		break;
	}
	passOn(memory, deliveryId);
	if (ask && webhookId !== undefined && (await claimedAlready(context, webhookId, deliveryId))) {
		settleDelivery(memory, deliveryId, true);
		return true;
	}
	return false;
}

export async function receiveDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const req = this.getRequestObject();
	const headers = (req.headers ?? {}) as IDataObject;
	const options = this.getNodeParameter('options', {}) as TriggerOptions;
	const verify = this.getNodeParameter('verifySignature', true) !== false;
	const registration = readRegistration(triggerStaticData(this));
	// n8n reads every webhook request into req.rawBody (a Buffer) before calling the node.
	const raw: unknown = req.rawBody;
	const rawBody = Buffer.isBuffer(raw)
		? raw
		: typeof raw === 'string'
			? Buffer.from(raw, 'utf8')
			: undefined;

	const memory = memoryOf(this.getWorkflow().id, this.getNode().id);
	let signedAt: number | undefined;
	let signedId: string | undefined;
	if (verify) {
		if (!registration) {
			return refuse(
				this,
				401,
				'invalid_signature',
				"The delivery's signature is not valid (no webhook registered)",
				'no webhook is registered for this workflow (activate it again)',
			);
		}
		const chosen = layoutChoice(options.signatureLayout);
		const key = registrationKey(registration);
		const accepted = acceptedLayouts(memory.layouts, chosen, key);
		const secret = await registrationSecret(this, memory, registration);
		const verification = verifyDelivery({
			header: (name) => headerValue(headers, name),
			rawBody,
			secret: secret ?? '',
			nowSeconds: Math.floor(Date.now() / 1000),
			toleranceSeconds: toleranceOf(options),
			accepted,
		});
		if (!verification.valid) {
			const seen = verification.layout ?? 'none';
			let why = `layout ${seen}: ${REFUSAL_REASONS[verification.reason]}`;
			if (verification.reason === 'layout_not_accepted') {
				const by =
					chosen === AUTOMATIC_LAYOUT
						? 'the first delivery that verified'
						: 'the Signature Layout option';
				why += ` (${accepted?.join(', ') || 'none'}, fixed by ${by})`;
			}
			return refuse(
				this,
				401,
				'invalid_signature',
				`The delivery's signature is not valid (${verification.reason})`,
				why,
			);
		}
		if (fixLayout(memory.layouts, chosen, key, verification.layout)) {
			this.logger.info(
				`Document Signing Trigger: deliveries verify as layout ${verification.layout}; this n8n process now accepts only that layout for this registration (set Signature Layout to fix it in every process)`,
				{ workflowId: this.getWorkflow().id, node: this.getNode().name },
			);
		}
		signedAt = verification.timestamp;
		signedId = verification.signedId;
	}

	let body = parseObject(rawBody);
	if (!body)
		return refuse(
			this,
			400,
			'invalid_json',
			'The delivery body is not a JSON object',
			'the body is not a JSON object',
		);
	let record: IDataObject | undefined;
	if (!verify) {
		// Unverified, the request only names a delivery: what passes on is the service's own record of
		// it, read with the key from this trigger's registration. A delivery the service does not
		// report (made up, or a service without delivery records) starts nothing and marks nothing.
		const claimedId = idText(body.id);
		if (!registration || claimedId === undefined)
			return refuse(
				this,
				401,
				'not_confirmed',
				'The delivery cannot be confirmed',
				!registration
					? 'no webhook is registered for this workflow (activate it again)'
					: 'Verify Signatures is off and the body names no delivery id to confirm',
			);
		try {
			record = await deliveryRecord(this, registration.id, claimedId, CONFIRM_TIMEOUT_MS);
		} catch (error) {
			this.logger.warn(
				'Document Signing Trigger could not confirm an unverified delivery; the service retries it',
				{ error: (error as Error).message },
			);
			this.getResponseObject()
				.status(503)
				.json({ error: { code: 'unavailable', message: 'Try again later' } });
			return { noWebhookResponse: true };
		}
		const payload = record && payloadOf(record);
		if (!record || !payload || idText(payload.id ?? record.id) !== claimedId)
			return refuse(
				this,
				401,
				'not_confirmed',
				'The delivery cannot be confirmed',
				!record
					? "Verify Signatures is off and the service does not report this delivery for this trigger's webhook (made up, or a service without GET /webhooks/{id}/deliveries/{delivery_id}); nothing was started"
					: "Verify Signatures is off and the service's record of the delivery does not hold its payload; nothing was started (turn Verify Signatures on)",
			);
		body = payload;
	}

	// A secret the service chose may be its one secret for every webhook of the account: then a
	// delivery meant for another webhook verifies here too. Its signed webhook_id says whose it is.
	const namedWebhook = verify ? idText(body.webhook_id) : undefined;
	if (registration?.sealedSecret && namedWebhook !== undefined && namedWebhook !== registration.id)
		return refuse(
			this,
			401,
			'invalid_signature',
			"The delivery's signature is not valid (another webhook's delivery)",
			`the delivery names webhook ${namedWebhook.slice(0, 100)}, not this trigger's; the service signs every webhook of the account with one secret`,
		);

	// The body is signed, most headers are not: the event comes from the body only, the delivery
	// ID from the body or from the signed webhook-id, never from X-Delivery-Id.
	const event = typeof body.event === 'string' ? body.event : undefined;
	const deliveryId = idText(body.id) ?? signedId;

	const wanted = selectedEvents(this);
	if (!event || (!wanted.includes(ANY_EVENT) && !wanted.includes(event))) {
		return { webhookResponse: { received: true, ignored: true, reason: 'event not selected' } };
	}

	// The webhook a signed body names (the service signed it with this webhook's secret; as the
	// claim does, claim.ts), else this trigger's own registration, which a queue-mode webhook
	// process may hold from before the last activation. An unsigned body's id is never used.
	const webhookId = (verify ? idText(body.webhook_id) : undefined) ?? registration?.id;
	const processed = {
		webhookResponse: { received: true, ignored: true, reason: 'already processed' },
	};
	if (record && isAcknowledged(record)) return processed;
	// No signed id: nothing to claim at the service, so this process recognises a repeat by the
	// signed body itself (a retry's body is byte for byte the same).
	if (
		deliveryId === undefined &&
		rawBody !== undefined &&
		!markProcessed(memory, `body-sha256:${createHash('sha256').update(rawBody).digest('hex')}`)
	) {
		return processed;
	}
	const attempt = Number(headerValue(headers, DELIVERY_ATTEMPT_HEADER));
	if (
		deliveryId !== undefined &&
		(await processedAlready(this, memory, webhookId, deliveryId, attempt > 1))
	) {
		return processed;
	}

	const json: IDataObject = {
		event,
		deliveryId: idText(body.id) !== undefined ? (body.id as string | number) : (deliveryId ?? null),
		timestamp:
			typeof body.created_at === 'string'
				? body.created_at
				: new Date((signedAt ?? Math.floor(Date.now() / 1000)) * 1000).toISOString(),
		data: (body.data ?? {}) as IDataObject,
	};
	// Read here where static data is at hand (a queue-mode worker may lack it).
	if (webhookId !== undefined) json.webhookId = webhookId;
	if (options.includeHeaders) json.headers = withoutHeaders(headers, SIGNATURE_HEADERS);

	return { workflowData: [[{ json }]] };
}
