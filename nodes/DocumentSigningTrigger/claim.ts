import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { apiRequest, deriveIdempotencyKey } from '../shared/transport';
import { triggerStaticData } from './staticData';

/**
 * Exactly once, across every n8n process: the execution claims its delivery at the service.
 *
 * webhook() (in whichever process received the request: main, or a webhook processor in queue
 * mode) only verifies and filters; it keeps no record of deliveries, because no record it could
 * keep is shared between processes or survives n8n starting an execution (n8n 2.41 does not save
 * static data changed by a request that starts one). Instead, the execution's first step, this
 * execute() running on the worker, claims the delivery with
 * `POST /webhooks/{webhook_id}/deliveries/{delivery_id}/acknowledge`: the service lets exactly
 * one claim win, so of several executions started for one delivery (a retry that reached another
 * webhook processor, a retry after a lost answer) one continues and the others end here with no
 * items. A delivery whose execution n8n could not start was never claimed, so the service's retry
 * runs normally: nothing is lost. The claim also stops the service's retries.
 *
 * The Idempotency-Key is this execution's own, so a claim repeated after a lost answer replays the
 * win instead of reading as somebody else's.
 */

export type ClaimOutcome = 'claimed' | 'claimed-elsewhere' | 'not-claimable';

/** Answers that mean "this service cannot settle the claim": the delivery goes on (at least once). */
const NOT_CLAIMABLE_STATUSES = [404, 405, 501];
const ALREADY_CLAIMED_STATUS = 409;

function stringField(json: IDataObject, name: string): string | undefined {
	const value = json[name];
	return typeof value === 'string' && value !== '' ? value : undefined;
}

export async function claimDelivery(
	context: IExecuteFunctions,
	webhookId: string,
	deliveryId: string,
	itemIndex: number,
): Promise<ClaimOutcome> {
	const response = await apiRequest(
		context,
		'POST',
		`/webhooks/${encodeURIComponent(webhookId)}/deliveries/${encodeURIComponent(deliveryId)}/acknowledge`,
		{
			idempotencyKey: deriveIdempotencyKey(
				'acknowledge',
				context.getExecutionId(),
				context.getWorkflow().id,
				context.getNode().id,
				itemIndex,
				deliveryId,
			),
			answerStatuses: [ALREADY_CLAIMED_STATUS, ...NOT_CLAIMABLE_STATUSES],
		},
	);
	if (response.statusCode === ALREADY_CLAIMED_STATUS) return 'claimed-elsewhere';
	if (NOT_CLAIMABLE_STATUSES.includes(response.statusCode)) return 'not-claimable';
	return 'claimed';
}

/** The trigger's execute(): passes on the deliveries this execution claimed, drops the others. */
export async function passClaimedDeliveries(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const registeredWebhookId = stringField(triggerStaticData(this) as IDataObject, 'webhookId');
	const passed: INodeExecutionData[] = [];

	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const item = items[itemIndex];
		const pairedItem = { item: itemIndex };
		const deliveryId = stringField(item.json, 'deliveryId');
		// The signed body names its webhook; the stored registration covers a body without one.
		const webhookId = stringField(item.json, 'webhookId') ?? registeredWebhookId;
		if (!deliveryId || !webhookId) {
			passed.push({ ...item, pairedItem });
			continue;
		}
		try {
			const outcome = await claimDelivery(this, webhookId, deliveryId, itemIndex);
			if (outcome === 'claimed-elsewhere') {
				this.logger.debug('Document Signing Trigger: delivery already processed by another execution', { deliveryId });
				continue;
			}
			if (outcome === 'not-claimable') {
				this.logger.warn('Document Signing Trigger: the service could not confirm the delivery; processing it anyway', {
					deliveryId,
				});
			}
			passed.push({ ...item, pairedItem });
		} catch (error) {
			const nodeError =
				error instanceof NodeApiError || error instanceof NodeOperationError
					? error
					: new NodeOperationError(this.getNode(), error as Error, { itemIndex });
			// Continue On Fail keeps the event (processed at least once) and says why it is unconfirmed.
			if (this.continueOnFail()) {
				passed.push({ json: { ...item.json, claimError: nodeError.message }, binary: item.binary, pairedItem });
				continue;
			}
			throw nodeError;
		}
	}
	return [passed];
}
