import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { fetchDocumentFile } from '../shared/documentFiles';
import { apiPath, idText } from '../shared/ids';
import { deliveryStarted, markProcessed, memoryOf, settleDelivery } from '../shared/nodeMemory';
import {
	apiRequest,
	deriveIdempotencyKey,
	recordOf,
	ServiceBehaviourError,
	toNodeError,
} from '../shared/transport';
import { NOT_CLAIMABLE, selectedEvents } from '../shared/vocabulary';
import { newestEventItems } from './eventItems';

/** The answer when another execution claimed the delivery first. */
const ALREADY_CLAIMED = 409;

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

/**
 * The trigger's execute(), run before trigger() (on a worker in queue mode): passes on what this
 * execution claimed at the service (docs/trigger.md, "Repeated deliveries"); polled events pass as
 * they are, and a manual Polling run fetches the newest.
 */
export async function passClaimedDeliveries(
	this: IExecuteFunctions,
): Promise<INodeExecutionData[][]> {
	const items =
		this.getMode() === 'manual' &&
		this.getNodeParameter('receiveEventsBy', 0, 'webhook') === 'polling'
			? await newestEventItems(this, selectedEvents(this.getNodeParameter('events', 0, [])))
			: this.getInputData();
	const registeredWebhookId = idText(this.getWorkflowStaticData('node').webhookId);
	const memory = memoryOf(this.getWorkflow().id, this.getNode().id);
	const attachSignedFile =
		(this.getNodeParameter('options', 0, {}) as IDataObject).attachSignedFile === true;

	const passOne = async (itemIndex: number): Promise<INodeExecutionData | undefined> => {
		let item = items[itemIndex];
		const pairedItem = { item: itemIndex };
		/** The error's message under continueOnFail; otherwise it is thrown. */
		const failed = (error: unknown) => {
			const nodeError = toNodeError(this.getNode(), error, itemIndex);
			if (!this.continueOnFail()) throw nodeError;
			return nodeError.message;
		};
		const deliveryId = idText(item.json.deliveryId);
		// webhook() named the webhook (a queue-mode worker may lack static data).
		const webhookId = idText(item.json.webhookId) ?? registeredWebhookId;
		// The file first: if it cannot be fetched, the delivery stays unclaimed and the service's retry
		// gets another chance (a claimed delivery is never sent again).
		if (attachSignedFile) {
			try {
				item = await withSignedFile(this, item);
			} catch (error) {
				item = { ...item, json: { ...item.json, attachError: failed(error) } };
			}
		}
		if (deliveryId === undefined || webhookId === undefined) return { ...item, pairedItem };
		let status: number;
		try {
			// The execution's own Idempotency-Key: a claim repeated after a lost response replays the win.
			({ statusCode: status } = await apiRequest(
				this,
				'POST',
				apiPath`/webhooks/${webhookId}/deliveries/${deliveryId}/acknowledge`,
				{
					idempotencyKey: deriveIdempotencyKey(
						'acknowledge',
						this.getExecutionId(),
						this.getWorkflow().id,
						this.getNode().id,
						itemIndex,
						deliveryId,
					),
					acceptStatuses: [ALREADY_CLAIMED, ...NOT_CLAIMABLE],
					abortSignal: this.getExecutionCancelSignal?.(),
				},
			));
		} catch (error) {
			// The event is kept (processed at least once) with why it is unconfirmed.
			const claimError = failed(error);
			return { json: { ...item.json, claimError }, binary: item.binary, pairedItem };
		}
		const elsewhere = status === ALREADY_CLAIMED;
		const notClaimable = NOT_CLAIMABLE.includes(status);
		if (elsewhere || (notClaimable && !markProcessed(memory, deliveryId))) {
			this.logger.debug(
				elsewhere
					? 'Document Signing Trigger: delivery already processed by another execution'
					: 'Document Signing Trigger: repeat of a delivery this n8n processed already',
				{ deliveryId },
			);
			return undefined;
		}
		if (notClaimable && !memory.warnedNotClaimable) {
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
