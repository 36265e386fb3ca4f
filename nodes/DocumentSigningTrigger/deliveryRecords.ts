import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { apiPath } from '../shared/ids';
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

/** The service's record of a delivery: whether it was claimed already, and its payload. */

/** How long a retry's claim check may hold up the response to the service (which waits 10 s). */
const CLAIM_CHECK_TIMEOUT_MS = 2000;

/** The service's record of a delivery: undefined when it has none (404, or no such endpoint). */
export async function deliveryRecord(
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
			{ deliveryId, error: (error as Error).message },
		);
		return false;
	}
}

/** The delivery's body as the service's record has it: `payload`, or `request.payload` (GitHub's). */
export function payloadOf(record: IDataObject): IDataObject | undefined {
	const request = record.request as IDataObject | undefined;
	let payload: unknown = record.payload ?? (isObject(request) ? request.payload : undefined);
	if (typeof payload === 'string') payload = parseObject(payload);
	return isObject(payload) ? payload : undefined;
}

/**
 * Whether the delivery was processed already (docs/trigger.md, "A repeat"). If not, it is marked in
 * flight before anything else is awaited, so of copies arriving at once exactly one goes on.
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
		if ((await outcomeOf(earlier)) === true) return true;
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
