import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

/**
 * The registration kept in the node's static data. No secret, nor anything computed from the key
 * alone: n8n's public API shows static data to anyone who may read the workflow, who could then
 * test key guesses offline (webhookSecret.ts). Written by the lifecycle methods only.
 */
export interface TriggerStaticData extends IDataObject {
	webhookId?: string;
	webhookUrl?: string;
	/** Sorted, as registered; `['*']` for Any Event. */
	webhookEvents?: string[];
	/** ownerTag(workflow id, node id): a copied workflow's is another. */
	webhookOwner?: string;
	/** With the credential's key, gives the webhook's secret. */
	secretNonce?: string;
	/** A secret the service chose itself, encrypted with that key. */
	sealedSecret?: string;
}

export interface Registration {
	id: string;
	url: string;
	events: string[];
	/** Absent in static data of earlier versions. */
	owner?: string;
	secretNonce: string;
	sealedSecret?: string;
}

export function triggerStaticData(
	context: IHookFunctions | IWebhookFunctions | IExecuteFunctions,
): TriggerStaticData {
	return context.getWorkflowStaticData('node') as TriggerStaticData;
}

/** The stored registration, or undefined when any part of it is missing. */
export function readRegistration(data: TriggerStaticData): Registration | undefined {
	const { webhookId, webhookUrl, webhookEvents, webhookOwner, secretNonce, sealedSecret } = data;
	if (typeof webhookId !== 'string' || !webhookId) return undefined;
	if (typeof webhookUrl !== 'string' || !webhookUrl) return undefined;
	if (!Array.isArray(webhookEvents) || webhookEvents.length === 0) return undefined;
	if (typeof secretNonce !== 'string' || !secretNonce) return undefined;
	return {
		id: webhookId,
		url: webhookUrl,
		events: webhookEvents.map(String),
		owner: typeof webhookOwner === 'string' ? webhookOwner : undefined,
		secretNonce,
		sealedSecret: typeof sealedSecret === 'string' && sealedSecret ? sealedSecret : undefined,
	};
}

export function saveRegistration(data: TriggerStaticData, registration: Registration): void {
	forgetRegistration(data);
	data.webhookId = registration.id;
	data.webhookUrl = registration.url;
	data.webhookEvents = registration.events;
	if (registration.owner) data.webhookOwner = registration.owner;
	data.secretNonce = registration.secretNonce;
	if (registration.sealedSecret) data.sealedSecret = registration.sealedSecret;
}

/** Forgets the registration; other keys stay. */
export function forgetRegistration(data: TriggerStaticData): void {
	for (const key of [
		'webhookId',
		'webhookUrl',
		'webhookEvents',
		'webhookOwner',
		'secretNonce',
		'sealedSecret',
		'keyCheck',
	])
		delete data[key];
}
