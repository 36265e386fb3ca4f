import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

/**
 * What the trigger keeps in the workflow's static data (`getWorkflowStaticData('node')`, stored
 * by n8n under `node:<node name>`):
 *
 * ```
 * {
 *   webhookId: 'wh_…' | '1004',        // the service webhook this node registered (as text)
 *   webhookUrl: 'https://…/webhook/<uuid>/webhook',
 *   webhookEvents: ['document.completed'] | ['*'],   // sorted, as registered
 *   webhookOwner: '<16 hex chars>',    // ownerTag(workflow id, node id): a copy's is another workflow's
 *   secretNonce: '<32 hex chars>',     // with the credential's key, gives the webhook's secret
 *   sealedSecret?: '<base64>',         // a secret the service chose itself, encrypted with that key
 * }
 * ```
 *
 * No secret is readable here (n8n's public API returns static data to anyone who may read the
 * workflow), nor anything computed from the key alone that would let a reader test guesses of it
 * offline: whether the key changed is told by the webhook's description at the service
 * (webhookSecret.ts). Written only by the lifecycle methods (in the main process) and read by
 * every process. Nothing about deliveries is kept here (see claim.ts and nodeMemory.ts).
 */
export interface TriggerStaticData extends IDataObject {
	webhookId?: string;
	webhookUrl?: string;
	webhookEvents?: string[];
	webhookOwner?: string;
	secretNonce?: string;
	sealedSecret?: string;
}

export interface Registration {
	id: string;
	url: string;
	events: string[];
	/** Who registered it (webhookSecret.ts ownerTag); absent in static data of earlier versions. */
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

/** Forgets the registration; keys that are not the registration's are left alone. */
export function forgetRegistration(data: TriggerStaticData): void {
	for (const key of [
		'webhookId',
		'webhookUrl',
		'webhookEvents',
		'webhookOwner',
		'secretNonce',
		'sealedSecret',
		'keyCheck',
	]) {
		delete data[key];
	}
}
