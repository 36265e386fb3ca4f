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
 * Exactly once across every n8n process: the execution, not webhook(), claims its delivery at the
 * service (`POST …/acknowledge`, one claim wins), so a delivery whose execution never started
 * stays unclaimed and its retry runs (docs/trigger.md). Without the endpoint, this process's
 * memory (nodeMemory.ts) drops repeats. The Idempotency-Key is the execution's own, so a claim
 * repeated after a lost response replays the win instead of reading as somebody else's.
 */

export type ClaimOutcome = 'claimed' | 'claimed-elsewhere' | 'not-claimable';

/** Answers that mean "this service cannot settle the claim". */
const NOT_CLAIMABLE_STATUSES = [404, 405, 501];
const ALREADY_CLAIMED_STATUS = 409;

export async function claimDelivery(
	context: IExecuteFunctions,
	webhookId: string,
	deliveryId: string,
	itemIndex: number,
): Promise<ClaimOutcome> {
	const response = await apiRequest(
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
	if (response.statusCode === ALREADY_CLAIMED_STATUS) return 'claimed-elsewhere';
	if (NOT_CLAIMABLE_STATUSES.includes(response.statusCode)) return 'not-claimable';
	return 'claimed';
}

/**
 * Attach Signed File: the signed PDF of a completed document, as the item's binary `data`. Only
 * the document's id comes from the delivery: its state and links are read from the service first,
 * and a document the service does not report as completed gets nothing attached.
 */
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
 * The trigger's execute(): passes on the deliveries this execution claimed, drops the others.
 * Polled events (no delivery id) pass as they are, with the signed file when asked.
 */
export async function passClaimedDeliveries(
	this: IExecuteFunctions,
	items: INodeExecutionData[] = this.getInputData(),
): Promise<INodeExecutionData[][]> {
	const registeredWebhookId = idText((triggerStaticData(this) as IDataObject).webhookId);
	const memory = memoryOf(this.getWorkflow().id, this.getNode().id);
	const attachSignedFile =
		(this.getNodeParameter('options', 0, {}) as IDataObject).attachSignedFile === true;
	const passed: INodeExecutionData[] = [];

	/** One delivery: passed on (pushed), dropped as processed elsewhere, or an error. */
	const passOne = async (itemIndex: number): Promise<void> => {
		let item = items[itemIndex];
		const pairedItem = { item: itemIndex };
		const deliveryId = idText(item.json.deliveryId);
		// webhook() named the webhook: the one a verified body names, or the registration it read an
		// unverified delivery's record from (a queue-mode worker may lack static data).
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
		if (deliveryId === undefined || webhookId === undefined) {
			passed.push({ ...item, pairedItem });
			return;
		}
		try {
			const outcome = await claimDelivery(this, webhookId, deliveryId, itemIndex);
			if (outcome === 'claimed-elsewhere') {
				this.logger.debug(
					'Document Signing Trigger: delivery already processed by another execution',
					{ deliveryId },
				);
				return;
			}
			if (outcome === 'not-claimable') {
				if (!markProcessed(memory, deliveryId)) {
					this.logger.debug(
						'Document Signing Trigger: repeat of a delivery this n8n processed already',
						{ deliveryId },
					);
					return;
				}
				if (!memory.warnedNotClaimable) {
					memory.warnedNotClaimable = true;
					this.logger.warn(
						'Document Signing Trigger: the service cannot confirm deliveries (no acknowledge endpoint); repeats are suppressed within this n8n process only',
						{
							deliveryId,
						},
					);
				}
			}
			passed.push({ ...item, pairedItem });
		} catch (error) {
			const nodeError = toNodeError(this.getNode(), error, itemIndex);
			// Continue On Fail keeps the event (processed at least once) and says why it is unconfirmed.
			if (this.continueOnFail()) {
				passed.push({
					json: { ...item.json, claimError: nodeError.message },
					binary: item.binary,
					pairedItem,
				});
				return;
			}
			throw nodeError;
		}
	};

	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const deliveryId = idText(items[itemIndex].json.deliveryId);
		if (deliveryId !== undefined) deliveryStarted(memory, deliveryId);
		// Processed (here or by another execution): a copy arriving later starts nothing. Failed:
		// the service's retry runs (nodeMemory.ts lets a waiting copy go on).
		let processed = false;
		try {
			await passOne(itemIndex);
			processed = true;
		} finally {
			if (deliveryId !== undefined) settleDelivery(memory, deliveryId, processed);
		}
	}
	return [passed];
}
