import { createHash } from 'crypto';
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { SignatureFailureReason } from '../shared/deliveryLayouts';
import { apiPath, idText } from '../shared/ids';
import {
	inFlightDelivery,
	markProcessed,
	memoryOf,
	outcomeOf,
	passOn,
	settleDelivery,
	wasProcessed,
	type NodeMemory,
} from '../shared/nodeMemory';
import {
	apiRequest,
	CREDENTIAL_TYPE,
	headerValue,
	isObject,
	recordOf,
	withoutHeaders,
} from '../shared/transport';
import {
	ANY_EVENT,
	BODY_SIGNATURE_HEADERS,
	DELIVERY_ATTEMPT_HEADER,
	NOT_CLAIMABLE,
	selectedEvents,
	SIGNATURE_TOLERANCE_SECONDS,
	STANDARD_WEBHOOKS_HEADERS,
} from '../shared/vocabulary';
import { AUTOMATIC_LAYOUT, layoutChoice, verifyCall } from '../shared/webhookSignature';
import { parseObject, rawBodyOf } from '../shared/webhooks';
import { caughtUp } from './catchUp';
import { readRegistration, type Registration } from './registration';

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
		{ singleAttemptTimeoutMs: timeoutMs, acceptStatuses: NOT_CLAIMABLE },
	);
	return response.statusCode === 200 ? recordOf(response.body) : undefined;
}

const isAcknowledged = (record: IDataObject) =>
	record.status === 'acknowledged' ||
	(typeof record.acknowledged_at === 'string' && record.acknowledged_at !== '');

/**
 * Whether the delivery was processed already (docs/trigger.md, "A repeat"). If not, it is marked in
 * flight before anything else is awaited, so of copies arriving at once exactly one goes on.
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
		if ((await outcomeOf(earlier)) === true) return true;
		// Another copy took over meanwhile (or the first failed its claim): check again.
		if (inFlightDelivery(memory, deliveryId) !== earlier) continue;
		ask = true;
		break;
	}
	passOn(memory, deliveryId);
	if (!ask || webhookId === undefined) return false;
	try {
		// At most 2 s of the 10 s the service waits for the response.
		const record = await deliveryRecord(context, webhookId, deliveryId, 2000);
		if (!record || !isAcknowledged(record)) return false;
	} catch (error) {
		context.logger.debug(
			'Document Signing Trigger could not check a retried delivery; its execution will',
			{ deliveryId, error: (error as Error).message },
		);
		return false;
	}
	settleDelivery(memory, deliveryId, true);
	return true;
}

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

const NO_REGISTRATION = 'no webhook is registered for this workflow (activate it again)';
/** Headers no output shows: every signature a delivery may carry. */
const SIGNATURE_HEADERS = [...BODY_SIGNATURE_HEADERS, STANDARD_WEBHOOKS_HEADERS.signature];

/** Answers at once (`noWebhookResponse`: n8n starts nothing); logs the reason (never the secret). */
function refuse(
	context: IWebhookFunctions,
	status: number,
	code: string,
	message: string,
	reason?: string,
): IWebhookResponseData {
	if (reason !== undefined)
		context.logger.warn(`Document Signing Trigger refused a delivery: ${reason}`, {
			reason,
			workflowId: context.getWorkflow().id,
			node: context.getNode().name,
		});
	context.getResponseObject().status(status).json({ error: { code, message } });
	return { noWebhookResponse: true };
}

const invalidSignature = (context: IWebhookFunctions, detail: string, reason: string) =>
	refuse(
		context,
		401,
		'invalid_signature',
		`The delivery's signature is not valid (${detail})`,
		reason,
	);

const notConfirmed = (context: IWebhookFunctions, reason: string) =>
	refuse(context, 401, 'not_confirmed', 'The delivery cannot be confirmed', reason);

/** Verify Signatures off: the delivery's record at the service and its payload, or the response. */
async function confirmDelivery(
	context: IWebhookFunctions,
	registration: Registration | undefined,
	body: IDataObject,
): Promise<{ record: IDataObject; payload: IDataObject } | IWebhookResponseData> {
	const deliveryId = idText(body.id);
	if (!registration) return notConfirmed(context, NO_REGISTRATION);
	if (deliveryId === undefined)
		return notConfirmed(
			context,
			'Verify Signatures is off and the body names no delivery id to confirm',
		);
	let record: IDataObject | undefined;
	try {
		// The service may take this long to show a delivery's record before it is answered 503.
		record = await deliveryRecord(context, registration.id, deliveryId, 5000);
	} catch (error) {
		context.logger.warn(
			'Document Signing Trigger could not confirm an unverified delivery; the service retries it',
			{ error: (error as Error).message },
		);
		return refuse(context, 503, 'unavailable', 'Try again later');
	}
	if (!record)
		return notConfirmed(
			context,
			"Verify Signatures is off and the service does not report this delivery for this trigger's webhook (made up, or a service without GET /webhooks/{id}/deliveries/{delivery_id}); nothing was started",
		);
	// The delivery's body as the record has it: `payload`, or `request.payload` (GitHub's).
	const request = record.request;
	let payload: unknown = record.payload ?? (isObject(request) ? request.payload : undefined);
	if (typeof payload === 'string') payload = parseObject(payload);
	if (!isObject(payload) || idText(payload.id ?? record.id) !== deliveryId)
		return notConfirmed(
			context,
			"Verify Signatures is off and the service's record of the delivery does not hold its payload; nothing was started (turn Verify Signatures on)",
		);
	return { record, payload };
}

/** The trigger's webhook(): verifies, filters and passes on a delivery, or answers why not. */
export async function receiveDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const headers = (this.getHeaderData() ?? {}) as IDataObject;
	const options = this.getNodeParameter('options', {}) as {
		includeHeaders?: boolean;
		signatureToleranceSeconds?: number;
		signatureLayout?: string;
	};
	const verify = this.getNodeParameter('verifySignature', true) !== false;
	const registration = readRegistration(this.getWorkflowStaticData('node'));
	const rawBody = rawBodyOf(this);

	const memory = memoryOf(this.getWorkflow().id, this.getNode().id);
	let signedAt: number | undefined;
	let signedId: string | undefined;
	if (verify) {
		if (!registration) return invalidSignature(this, 'no webhook registered', NO_REGISTRATION);
		const chosen = layoutChoice(options.signatureLayout);
		const verification = await verifyCall(
			this,
			async () => String((await this.getCredentials(CREDENTIAL_TYPE)).apiKey ?? ''),
			registration,
			chosen,
			Number(options.signatureToleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS),
		);
		if (!verification.valid) {
			let why = `layout ${verification.layout ?? 'none'}: ${REFUSAL_REASONS[verification.reason]}`;
			if (verification.reason === 'layout_not_accepted') {
				const by =
					chosen === AUTOMATIC_LAYOUT
						? 'the first delivery that verified'
						: 'the Signature Layout option';
				why += ` (${verification.accepted?.join(', ') || 'none'}, fixed by ${by})`;
			}
			return invalidSignature(this, verification.reason, why);
		}
		if (verification.newlyFixed) {
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
		// Unverified, the request only names a delivery: what passes on is the service's own record.
		const confirmed = await confirmDelivery(this, registration, body);
		if (!('payload' in confirmed)) return confirmed;
		({ record, payload: body } = confirmed);
	}

	// An unsigned body's webhook id is never used.
	const namedWebhook = verify ? idText(body.webhook_id) : undefined;
	// A secret the service chose may sign every webhook of the account: then the body says whose.
	if (registration?.sealedSecret && namedWebhook !== undefined && namedWebhook !== registration.id)
		return invalidSignature(
			this,
			"another webhook's delivery",
			`the delivery names webhook ${namedWebhook.slice(0, 100)}, not this trigger's; the service signs every webhook of the account with one secret`,
		);

	// The body is signed, most headers are not: the event comes from the body only, the delivery
	// ID from the body or from the signed webhook-id, never from X-Delivery-Id.
	const event = typeof body.event === 'string' ? body.event : undefined;
	const deliveryId = idText(body.id) ?? signedId;

	const wanted = selectedEvents(this.getNodeParameter('events', []));
	if (!event || (!wanted.includes(ANY_EVENT) && !wanted.includes(event)))
		return { webhookResponse: { received: true, ignored: true, reason: 'event not selected' } };

	const webhookId = namedWebhook ?? registration?.id;
	const retried = Number(headerValue(headers, DELIVERY_ATTEMPT_HEADER)) > 1;
	const repeat =
		caughtUp(this.getWorkflowStaticData('node'), body, memory) ||
		(record !== undefined && isAcknowledged(record)) ||
		(deliveryId === undefined
			? // No signed id, nothing to claim: a retry's body is byte for byte the same.
				rawBody !== undefined &&
				!markProcessed(memory, `body-sha256:${createHash('sha256').update(rawBody).digest('hex')}`)
			: await processedAlready(this, memory, webhookId, deliveryId, retried));
	if (repeat)
		return { webhookResponse: { received: true, ignored: true, reason: 'already processed' } };

	const json: IDataObject = {
		event,
		deliveryId: idText(body.id) !== undefined ? (body.id as string | number) : (deliveryId ?? null),
		timestamp:
			typeof body.created_at === 'string'
				? body.created_at
				: new Date((signedAt ?? Math.floor(Date.now() / 1000)) * 1000).toISOString(),
		data: (body.data ?? {}) as IDataObject,
		via: 'webhook',
	};
	// Read here where static data is at hand (a queue-mode worker may lack it).
	if (webhookId !== undefined) json.webhookId = webhookId;
	if (options.includeHeaders) json.headers = withoutHeaders(headers, SIGNATURE_HEADERS);

	return { workflowData: [[{ json }]] };
}
