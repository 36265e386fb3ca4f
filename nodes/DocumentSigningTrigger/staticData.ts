import type { IDataObject, IExecuteFunctions, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

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
 * }
 * ```
 *
 * Written only by the lifecycle methods (in the main process) and read by every process. Nothing
 * about deliveries is kept here or in memory: repeats are settled at the service (see claim.ts).
 * (Version 0.1 kept `recentDeliveries` here; `create` drops that leftover.)
 */
export interface TriggerStaticData extends IDataObject {
	webhookId?: string;
	webhookUrl?: string;
	webhookEvents?: string[];
	webhookSecret?: string;
	staleWebhookIds?: string[];
}

export interface Registration {
	id: string;
	url: string;
	events: string[];
	secret: string;
}

export function triggerStaticData(context: IHookFunctions | IWebhookFunctions | IExecuteFunctions): TriggerStaticData {
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

/** Forgets the registration; the list of stale IDs stays. */
export function forgetRegistration(data: TriggerStaticData): void {
	delete data.webhookId;
	delete data.webhookUrl;
	delete data.webhookEvents;
	delete data.webhookSecret;
}
