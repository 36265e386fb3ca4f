import { createHash } from 'crypto';
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { idText } from '../shared/ids';
import { CREDENTIAL_TYPE } from '../shared/transport';
import { headerValue, withoutHeaders } from '../shared/transport/headers';
import {
	ANY_EVENT,
	BODY_SIGNATURE_HEADERS,
	DELIVERY_ATTEMPT_HEADER,
	SIGNATURE_TOLERANCE_SECONDS,
	STANDARD_WEBHOOKS_HEADERS,
} from '../shared/vocabulary';
import { markProcessed, memoryOf, remember, type NodeMemory } from '../shared/nodeMemory';
import {
	acceptedLayouts,
	AUTOMATIC_LAYOUT,
	fixLayout,
	layoutChoice,
} from '../shared/signatureLayout';
import { parseObject, rawBodyOf, secretScope, signingSecret } from '../shared/webhooks';
import { verifyDelivery } from '../shared/deliveryLayouts';
import type { SignatureFailureReason } from '../shared/webhookSignature';
import { confirmDelivery, isAcknowledged, processedAlready } from './deliveryRecords';
import { selectedEvents } from './registration';
import { readRegistration, triggerStaticData, type Registration } from './staticData';

/**
 * One delivery: verify, filter, emit (docs/trigger.md, docs/delivery-signatures.md), in whichever
 * n8n process received it. A refusal is answered at once (`noWebhookResponse`: n8n starts nothing)
 * and logged, never with the secret. A repeat this process or the service can tell apart starts
 * nothing (deliveryRecords.ts); the executions' claims settle the rest (claim.ts).
 */

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
	const secret = signingSecret(
		secretScope(context, String(credentials.apiKey ?? ''), registration.secretNonce),
		registration.sealedSecret,
	);
	if (secret !== undefined) remember(memory.secrets, key, secret);
	return secret;
}

export async function receiveDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const req = this.getRequestObject();
	const headers = (req.headers ?? {}) as IDataObject;
	const options = this.getNodeParameter('options', {}) as TriggerOptions;
	const verify = this.getNodeParameter('verifySignature', true) !== false;
	const registration = readRegistration(triggerStaticData(this));
	const rawBody = rawBodyOf(this);

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
	let payload: IDataObject | undefined;
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
		const confirmed = await confirmDelivery(this, registration.id, claimedId);
		if (confirmed === 'unavailable') {
			this.getResponseObject()
				.status(503)
				.json({ error: { code: 'unavailable', message: 'Try again later' } });
			return { noWebhookResponse: true };
		}
		if ('refusal' in confirmed)
			return refuse(
				this,
				401,
				'not_confirmed',
				'The delivery cannot be confirmed',
				confirmed.refusal,
			);
		({ record, payload } = confirmed);
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
