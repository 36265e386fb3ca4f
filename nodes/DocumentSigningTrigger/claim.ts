import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { apiPath, idText } from '../shared/ids';
import { fetchDocumentFile } from '../shared/documentFiles';
import {
	apiRequest,
	deriveIdempotencyKey,
	recordOf,
	ServiceBehaviourError,
	toNodeError,
} from '../shared/transport';
import { deliveryStarted, markProcessed, memoryOf, settleDelivery } from '../shared/nodeMemory';
import { triggerStaticData } from './staticData';

/**
 * Each execution claims its delivery at the service (docs/trigger.md, "Repeated deliveries"). The
 * Idempotency-Key is the execution's own: a claim repeated after a lost response replays the win.
 */

/** Answers that mean "this service cannot settle the claim". */
const NOT_CLAIMABLE_STATUSES = [404, 405, 501];
const ALREADY_CLAIMED_STATUS = 409;

async function claimDelivery(
	context: IExecuteFunctions,
	webhookId: string,
	deliveryId: string,
	itemIndex: number,
): Promise<'claimed' | 'claimed-elsewhere' | 'not-claimable'> {
	const { statusCode } = await apiRequest(
		context,
		'POST',
		apiPath`/webhooks/${webhookId}/deliveries/${deliveryId}/acknowledge`,
		{
			idempotencyKey: deriveIdempotencyKey(
				'acknowledge',
				context.getExecutionId(),
				context.getWorkflow().id,
				context.getNode().id,
				itemIndex,
				deliveryId,
			),
			acceptStatuses: [ALREADY_CLAIMED_STATUS, ...NOT_CLAIMABLE_STATUSES],
			abortSignal: context.getExecutionCancelSignal?.(),
		},
	);
	if (statusCode === ALREADY_CLAIMED_STATUS) return 'claimed-elsewhere';
	return NOT_CLAIMABLE_STATUSES.includes(statusCode) ? 'not-claimable' : 'claimed';
}

/** Attach Signed File: only the document's id comes from the delivery, the rest from the service. */
async function withSignedFile(
	context: IExecuteFunctions,
	item: INodeExecutionData,
): Promise<INodeExecutionData> {
	const document = (item.json.data as IDataObject | undefined)?.document as IDataObject | undefined;
	if (item.json.event !== 'document.completed' || !document) return item;
	const documentId = idText(document.id);
	if (documentId === undefined)
		throw new ServiceBehaviourError(
			'The delivery names no document ID',
			'The signed file cannot be looked up without it.',
		);
	const signal = context.getExecutionCancelSignal?.();
	const current = recordOf(
		(await apiRequest(context, 'GET', apiPath`/documents/${documentId}`, { abortSignal: signal }))
			.body,
	);
	const file = await fetchDocumentFile(
		context,
		{ ...current, id: current.id ?? documentId },
		'signed',
		signal,
	);
	const binary = await context.helpers.prepareBinaryData(file.data, file.fileName, file.mimeType);
	return { ...item, binary: { ...(item.binary ?? {}), data: binary } };
}

/** The trigger's execute(): passes on what this execution claimed; polled events pass as they are. */
export async function passClaimedDeliveries(
	this: IExecuteFunctions,
	items: INodeExecutionData[] = this.getInputData(),
): Promise<INodeExecutionData[][]> {
	const registeredWebhookId = idText(triggerStaticData(this).webhookId);
	const memory = memoryOf(this.getWorkflow().id, this.getNode().id);
	const attachSignedFile =
		(this.getNodeParameter('options', 0, {}) as IDataObject).attachSignedFile === true;

	const passOne = async (itemIndex: number): Promise<INodeExecutionData | undefined> => {
		let item = items[itemIndex];
		const pairedItem = { item: itemIndex };
		const deliveryId = idText(item.json.deliveryId);
		// webhook() named the webhook (a queue-mode worker may lack static data).
		const webhookId = idText(item.json.webhookId) ?? registeredWebhookId;
		// The file first: if it cannot be fetched, the delivery stays unclaimed and the service's retry
		// gets another chance (a claimed delivery is never sent again).
		if (attachSignedFile) {
			try {
				item = await withSignedFile(this, item);
			} catch (error) {
				const nodeError = toNodeError(this.getNode(), error, itemIndex);
				if (!this.continueOnFail()) throw nodeError;
				item = { ...item, json: { ...item.json, attachError: nodeError.message } };
			}
		}
		if (deliveryId === undefined || webhookId === undefined) return { ...item, pairedItem };
		let outcome;
		try {
			outcome = await claimDelivery(this, webhookId, deliveryId, itemIndex);
		} catch (error) {
			const nodeError = toNodeError(this.getNode(), error, itemIndex);
			if (!this.continueOnFail()) throw nodeError;
			// The event is kept (processed at least once) with why it is unconfirmed.
			return {
				json: { ...item.json, claimError: nodeError.message },
				binary: item.binary,
				pairedItem,
			};
		}
		const elsewhere = outcome === 'claimed-elsewhere';
		if (elsewhere || (outcome === 'not-claimable' && !markProcessed(memory, deliveryId))) {
			this.logger.debug(
				elsewhere
					? 'Document Signing Trigger: delivery already processed by another execution'
					: 'Document Signing Trigger: repeat of a delivery this n8n processed already',
				{ deliveryId },
			);
			return undefined;
		}
		if (outcome === 'not-claimable' && !memory.warnedNotClaimable) {
			memory.warnedNotClaimable = true;
			this.logger.warn(
				'Document Signing Trigger: the service cannot confirm deliveries (no acknowledge endpoint); repeats are suppressed within this n8n process only',
				{ deliveryId },
			);
		}
		return { ...item, pairedItem };
	};

	const passed: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const deliveryId = idText(items[itemIndex].json.deliveryId);
		if (deliveryId !== undefined) deliveryStarted(memory, deliveryId);
		// Processed (here or elsewhere): a later copy starts nothing. Failed: the service's retry runs.
		let processed = false;
		try {
			const item = await passOne(itemIndex);
			if (item) passed.push(item);
			processed = true;
		} finally {
			if (deliveryId !== undefined) settleDelivery(memory, deliveryId, processed);
		}
	}
	return [passed];
}
