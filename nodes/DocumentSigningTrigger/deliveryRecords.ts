import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { apiPath, idText } from '../shared/ids';
import {
	inFlightDelivery,
	outcomeOf,
	passOn,
	settleDelivery,
	wasProcessed,
	type NodeMemory,
} from '../shared/nodeMemory';
import { apiRequest, recordOf } from '../shared/transport';
import { isObject } from '../shared/transport/listRecords';
import { parseObject } from '../shared/webhooks';

/**
 * What is known of a delivery besides its request: the service's record of it (an unverified
 * delivery's payload, whether a retry was claimed) and whether this process processed it.
 */

/** How long a retry's claim check may hold up the response to the service (which waits 10 s). */
export const CLAIM_CHECK_TIMEOUT_MS = 2000;

/** How long the service may take to show a delivery's record before the delivery is answered 503. */
const CONFIRM_TIMEOUT_MS = 5000;

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
		{ singleAttemptTimeoutMs: timeoutMs, acceptStatuses: [404, 405, 501] },
	);
	return response.statusCode === 200 ? recordOf(response.body) : undefined;
}

export const isAcknowledged = (record: IDataObject) =>
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
	if (typeof payload === 'string') payload = parseObject(payload);
	return isObject(payload) ? payload : undefined;
}

/**
 * Whether the delivery was processed already, so that this copy starts no execution. If not, this
 * process passes it on: it is marked in flight right after the last check, before anything else
 * is awaited, so of copies arriving at once exactly one goes on. A copy of one this process passed
 * on waits for that execution's claim (bounded, nodeMemory.ts). The service is asked when
 * this process cannot tell: a retry it never saw, or a first execution that ran elsewhere (queue
 * mode) or never started.
 */
export async function processedAlready(
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

/**
 * Verify Signatures off: the request only names a delivery. Its record at the service (this
 * trigger's registration), with the payload that passes on instead of the request's body; a
 * refusal when the service does not report it; 'unavailable' when it cannot be read now.
 */
export async function confirmDelivery(
	context: IWebhookFunctions,
	webhookId: string,
	deliveryId: string,
): Promise<{ record: IDataObject; payload: IDataObject } | { refusal: string } | 'unavailable'> {
	let record: IDataObject | undefined;
	try {
		record = await deliveryRecord(context, webhookId, deliveryId, CONFIRM_TIMEOUT_MS);
	} catch (error) {
		context.logger.warn(
			'Document Signing Trigger could not confirm an unverified delivery; the service retries it',
			{ error: (error as Error).message },
		);
		return 'unavailable';
	}
	if (!record)
		return {
			refusal:
				"Verify Signatures is off and the service does not report this delivery for this trigger's webhook (made up, or a service without GET /webhooks/{id}/deliveries/{delivery_id}); nothing was started",
		};
	const payload = payloadOf(record);
	if (!payload || idText(payload.id ?? record.id) !== deliveryId)
		return {
			refusal:
				"Verify Signatures is off and the service's record of the delivery does not hold its payload; nothing was started (turn Verify Signatures on)",
		};
	return { record, payload };
}
