import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

/**
 * What the trigger keeps in the workflow's static data (`getWorkflowStaticData('node')`, stored
 * by n8n under `node:<node name>`):
 *
 * ```
 * {
 *   webhookId: 'wh_…',                 // the service webhook this node registered
 *   webhookUrl: 'https://…/webhook/<uuid>/webhook',
 *   webhookEvents: ['document.completed'] | ['*'],   // sorted, as registered
 *   webhookSecret: '<64 hex chars>',   // signs deliveries; the service shows it only once
 *   staleWebhookIds?: ['wh_…'],        // replaced registrations `create` still has to remove
 *   recentDeliveries?: { 'dlv_…': <unix seconds received> }   // duplicate-delivery guard
 * }
 * ```
 */
export interface TriggerStaticData extends IDataObject {
	webhookId?: string;
	webhookUrl?: string;
	webhookEvents?: string[];
	webhookSecret?: string;
	staleWebhookIds?: string[];
	recentDeliveries?: Record<string, number>;
}

export interface Registration {
	id: string;
	url: string;
	events: string[];
	secret: string;
}

export function triggerStaticData(context: IHookFunctions | IWebhookFunctions): TriggerStaticData {
	return context.getWorkflowStaticData('node') as TriggerStaticData;
}

/** The stored registration, or undefined when any part of it is missing. */
export function readRegistration(data: TriggerStaticData): Registration | undefined {
	const { webhookId, webhookUrl, webhookEvents, webhookSecret } = data;
	if (typeof webhookId !== 'string' || !webhookId) return undefined;
	if (typeof webhookUrl !== 'string' || !webhookUrl) return undefined;
	if (!Array.isArray(webhookEvents) || webhookEvents.length === 0) return undefined;
	if (typeof webhookSecret !== 'string' || !webhookSecret) return undefined;
	return { id: webhookId, url: webhookUrl, events: webhookEvents.map(String), secret: webhookSecret };
}

/** Forgets the registration; the duplicate-delivery guard and the list of stale IDs stay. */
export function forgetRegistration(data: TriggerStaticData): void {
	delete data.webhookId;
	delete data.webhookUrl;
	delete data.webhookEvents;
	delete data.webhookSecret;
}

/**
 * Duplicate-delivery guard limits. A retry keeps its delivery ID but carries a fresh signature
 * time, so the signature tolerance does not bound how late a retry can come: IDs are kept for
 * twice the tolerance, and never less than an hour (the service's default retry schedule spans a
 * few minutes), with the newest MAX_RECENT_DELIVERIES kept at most.
 */
export const MAX_RECENT_DELIVERIES = 500;
export const MIN_DELIVERY_MEMORY_SECONDS = 3600;
/** Triggers whose recent deliveries one n8n process keeps in memory (the least recently used go first). */
export const MAX_TRIGGERS_IN_PROCESS = 1000;

export function deliveryMemorySeconds(toleranceSeconds: number): number {
	return Math.max(2 * toleranceSeconds, MIN_DELIVERY_MEMORY_SECONDS);
}

/** Adds `deliveryId` to a list of recent IDs: the pruned list, and whether the ID was new. */
function record(
	recent: Record<string, number> | undefined,
	deliveryId: string,
	nowSeconds: number,
	toleranceSeconds: number,
): { isNew: boolean; next: Record<string, number> } {
	const oldest = nowSeconds - deliveryMemorySeconds(toleranceSeconds);
	const kept = Object.entries(recent ?? {}).filter(
		([, seenAt]) => typeof seenAt === 'number' && Number.isFinite(seenAt) && seenAt >= oldest,
	);
	const isNew = !kept.some(([id]) => id === deliveryId);
	if (isNew) kept.push([deliveryId, nowSeconds]);
	kept.sort((a, b) => a[1] - b[1]);
	return { isNew, next: Object.fromEntries(kept.slice(-MAX_RECENT_DELIVERIES)) };
}

/**
 * Records a delivery ID in the workflow's static data; false if it was already there. Always
 * assigns a fresh object, so n8n's change tracking notices the write.
 *
 * n8n 2.41 saves static data changed by webhook() only when the request starts NO execution:
 * when it does start one, WorkflowRunner builds another Workflow over the same static-data object
 * before the save, which clears its "changed" mark, so the write is dropped. This record is
 * therefore durable for duplicates caught here (no execution) and wherever n8n saves it, and the
 * in-process record below is what stops a repeat of an accepted delivery in 2.41.
 */
export function rememberDelivery(data: TriggerStaticData, deliveryId: string, nowSeconds: number, toleranceSeconds: number): boolean {
	const { isNew, next } = record(data.recentDeliveries, deliveryId, nowSeconds, toleranceSeconds);
	data.recentDeliveries = next;
	return isNew;
}

/** Recent delivery IDs per trigger, in this n8n instance's memory. Lost on restart; not shared with other instances. */
const processMemory = new Map<string, Record<string, number>>();

/**
 * Records a delivery ID in this process's memory; false if it was already there. Synchronous, so
 * two copies of a delivery arriving at once in one process cannot both pass.
 */
export function rememberDeliveryInProcess(triggerKey: string, deliveryId: string, nowSeconds: number, toleranceSeconds: number): boolean {
	const { isNew, next } = record(processMemory.get(triggerKey), deliveryId, nowSeconds, toleranceSeconds);
	processMemory.delete(triggerKey);
	processMemory.set(triggerKey, next);
	while (processMemory.size > MAX_TRIGGERS_IN_PROCESS) {
		const leastRecent = processMemory.keys().next().value;
		if (leastRecent === undefined) break;
		processMemory.delete(leastRecent);
	}
	return isNew;
}

/** Empties the in-process memory (what an n8n restart does). */
export function forgetDeliveriesInProcess(): void {
	processMemory.clear();
}
