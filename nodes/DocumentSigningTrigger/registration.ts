import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { idText } from '../shared/ids';
import {
	deriveIdempotencyKey,
	serviceClient,
	toNodeError,
	type ServiceClient,
} from '../shared/transport';
import {
	ANY_EVENT,
	selectedEvents,
	WEBHOOK_EVENTS,
	WEBHOOK_SWEEP_BUDGET,
} from '../shared/vocabulary';
import {
	findWebhook,
	keyCheck,
	newNonce,
	ownerTag,
	registerWebhook,
	registrationDescription,
	registrationNote,
	removeWebhook,
	secretScope,
} from '../shared/webhooks';

/**
 * The registration kept in the node's static data, written by the lifecycle methods only. No secret,
 * nor anything computed from the key alone: n8n's public API shows static data (webhooks.ts).
 */
export interface Registration {
	id: string;
	url: string;
	/** Sorted, as registered; `['*']` for Any Event. */
	events: string[];
	/** ownerTag(workflow id, node id); absent in static data of earlier versions. */
	owner?: string;
	/** With the credential's key, gives the webhook's secret (`secretNonce` in static data). */
	nonce: string;
	/** A secret the service chose itself, sealed with that key. */
	sealedSecret?: string;
}

const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined);

/** The stored registration, or undefined when any part of it is missing. */
export function readRegistration(data: IDataObject): Registration | undefined {
	const [id, url, nonce] = [data.webhookId, data.webhookUrl, data.secretNonce].map(text);
	const events = data.webhookEvents;
	if (!id || !url || !nonce || !Array.isArray(events) || events.length === 0) return;
	const [owner, sealedSecret] = [text(data.webhookOwner), text(data.sealedSecret)];
	return { id, url, events: events.map(String), owner, nonce, sealedSecret };
}

/** Forgets the registration (and a key check an earlier version kept); other keys stay. */
function forgetRegistration(data: IDataObject): void {
	const keys = ['webhookId', 'webhookUrl', 'webhookEvents', 'webhookOwner', 'secretNonce'];
	for (const key of [...keys, 'sealedSecret', 'keyCheck']) delete data[key];
}

const sameEvents = (a: unknown, b: string[]) =>
	Array.isArray(a) && JSON.stringify([...new Set(a.map(String))].sort()) === JSON.stringify(b);

/** URLs compared as URLs (case of scheme and host, default ports), not as text. */
const sameUrl = (a: unknown, b: string) =>
	typeof a === 'string' &&
	URL.canParse(a) &&
	URL.canParse(b) &&
	new URL(a).href === new URL(b).href;

const safeOrigin = (url: string) => (URL.canParse(url) ? new URL(url).origin : '(not a URL)');

/** This workflow node as a webhook's owner (a copy of the workflow is another owner). */
function ownTag(context: IHookFunctions): string {
	const node = context.getNode();
	return ownerTag(String(context.getWorkflow().id ?? ''), node.id ?? node.name);
}

/** Exactly this node's URL, and this node's owner tag, or none (a service that keeps no description). */
function ownWebhook(context: IHookFunctions, webhook: IDataObject, url: string): boolean {
	const owner = registrationNote(webhook.description)?.owner;
	return sameUrl(webhook.url, url) && (owner === undefined || owner === ownTag(context));
}

function cannotTell(context: IHookFunctions, what: string): void {
	context.logger.warn(
		`Document Signing Trigger: the account has more webhooks than one sweep reads (${WEBHOOK_SWEEP_BUDGET.pages} pages), so ${what}`,
		{ workflowId: context.getWorkflow().id, node: context.getNode().name },
	);
}

/** Removes its stored registration by id, else sweeps for this node's URL and owner (docs/trigger.md). */
async function removeOwn(
	context: IHookFunctions,
	client: ServiceClient,
	url: string,
	stored?: Registration,
): Promise<void> {
	if (stored && stored.owner === ownTag(context)) {
		await removeWebhook(context, stored.id, client);
		return;
	}
	// One own webhook is the rule; more are leftovers of failures, and ten bound the loop.
	for (let swept = 0; swept < 10; swept++) {
		const found = await findWebhook(context, (webhook) => ownWebhook(context, webhook, url));
		if (found === 'cannot tell')
			return cannotTell(context, 'a leftover webhook of this trigger further down it stays');
		const id = idText(found?.id);
		if (id === undefined) return;
		await removeWebhook(context, id, client);
	}
}

/** The stored registration of this URL; one of another address is logged and never used to delete. */
function storedFor(context: IHookFunctions, url: string): Registration | undefined {
	const stored = readRegistration(context.getWorkflowStaticData('node'));
	if (!stored || sameUrl(stored.url, url)) return stored;
	context.logger.warn(
		"Document Signing Trigger: the stored webhook registration points at another address (a copied workflow, or n8n's public URL changed); forgotten, not deleted. If it is an old registration of this workflow, delete it with Document Signing › Webhook › Delete",
		{ webhookId: stored.id, storedOrigin: safeOrigin(stored.url), currentOrigin: safeOrigin(url) },
	);
	return undefined;
}

/** Removes this node's earlier webhook and forgets it. */
async function removeEarlier(context: IHookFunctions, url: string): Promise<ServiceClient> {
	const stored = storedFor(context, url);
	const client = await serviceClient(context);
	await removeOwn(context, client, url, stored);
	forgetRegistration(context.getWorkflowStaticData('node'));
	return client;
}

/** True only if the stored webhook still exists on the service with this URL, these events and this key. */
export async function checkExists(this: IHookFunctions): Promise<boolean> {
	const data = this.getWorkflowStaticData('node');
	const url = this.getNodeWebhookUrl('default') as string;
	const stored = storedFor(this, url);
	if (!stored) {
		forgetRegistration(data);
		return false;
	}
	// A key check in static data lets its readers test key guesses: drop any.
	if ('keyCheck' in data) delete data.keyCheck;
	const client = await serviceClient(this);
	const events = selectedEvents(this.getNodeParameter('events', []));
	const onService = await findWebhook(this, (webhook) => idText(webhook.id) === stored.id);
	if (onService === 'cannot tell') {
		// Kept as registered: deliveries are verified with its secret either way.
		cannotTell(this, 'the stored registration is kept unconfirmed');
		return sameEvents(stored.events, events);
	}
	// The key check is in the webhook's description at the service; without one the webhook is kept
	// (re-registering on every start would drop the retries still due to it).
	const registeredCheck = registrationNote(onService?.description)?.keyCheck;
	const keyUnchanged =
		registeredCheck === undefined ||
		registeredCheck === keyCheck(secretScope(this, client.credentials.apiKey, stored.nonce));
	// Stale (other events, another key, gone): `create` removes it.
	return (
		onService !== undefined &&
		onService.active !== false &&
		ownWebhook(this, onService, url) &&
		sameEvents(onService.events, events) &&
		sameEvents(stored.events, events) &&
		keyUnchanged
	);
}

export async function create(this: IHookFunctions): Promise<boolean> {
	const node = this.getNode();
	const url = this.getNodeWebhookUrl('default') as string;
	const events = selectedEvents(this.getNodeParameter('events', []));
	if (events.length === 0) {
		throw new NodeOperationError(node, 'Choose at least one event to listen for', {
			description:
				'Pick the events that should start this workflow in the "Events" parameter, or "Any Event".',
		});
	}
	const unknown = events.filter(
		(event) => event !== ANY_EVENT && !(WEBHOOK_EVENTS as readonly string[]).includes(event),
	);
	if (unknown.length) {
		throw new NodeOperationError(node, `Unknown event: ${unknown.join(', ')}`, {
			description: `Events the service sends: ${WEBHOOK_EVENTS.join(', ')}`,
		});
	}

	const client = await removeEarlier(this, url);
	const data = this.getWorkflowStaticData('node');
	const nonce = newNonce();
	const scope = secretScope(this, client.credentials.apiKey, nonce);
	const workflow = this.getWorkflow();
	try {
		const registered = await registerWebhook(this, client, {
			url,
			events,
			description: registrationDescription(
				`n8n workflow ${workflow.name ?? workflow.id ?? ''}`.trim(),
				scope,
			),
			scope,
			// The same attempt (same nonce) always carries the same key, so a create the transport
			// retries after a lost response is recognised by the service and never makes a second webhook.
			idempotencyKey: deriveIdempotencyKey(
				'trigger-create',
				workflow.id,
				node.id ?? node.name,
				url,
				events.join(','),
				nonce,
			),
		});
		Object.assign(data, {
			webhookId: registered.id,
			webhookUrl: url,
			webhookEvents: events,
			webhookOwner: ownTag(this),
			secretNonce: nonce,
		});
		if (registered.sealedSecret) data.sealedSecret = registered.sealedSecret;
		return true;
	} catch (error) {
		forgetRegistration(data);
		// The service may have created it although its answer was lost; never hide the first failure.
		try {
			await removeOwn(this, client, url);
		} catch (cleanupError) {
			this.logger.warn(
				'Document Signing Trigger could not remove the webhook of a failed activation; the next activation or deactivation removes it',
				{ error: (cleanupError as Error).message },
			);
		}
		throw toNodeError(node, error);
	}
}

/** Removes this node's webhook (a 404 means already removed); any other failure is thrown. */
export async function deleteWebhook(this: IHookFunctions): Promise<boolean> {
	await removeEarlier(this, this.getNodeWebhookUrl('default') as string);
	return true;
}
