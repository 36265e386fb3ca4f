import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { idText } from '../shared/ids';
import {
	deriveIdempotencyKey,
	serviceClient,
	toNodeError,
	type ServiceClient,
} from '../shared/transport';
import { ANY_EVENT, WEBHOOK_EVENTS, WEBHOOK_SWEEP_BUDGET } from '../shared/vocabulary';
import {
	keyCheck,
	newNonce,
	ownerTag,
	registrationDescription,
	registrationNote,
} from '../shared/webhookSecret';
import { findWebhook, registerWebhook, removeWebhook, secretScope } from '../shared/webhooks';
import {
	forgetRegistration,
	readRegistration,
	saveRegistration,
	triggerStaticData,
	type Registration,
} from './staticData';

/**
 * The trigger's webhook lifecycle: checkExists / create / delete (docs/trigger.md). At most one
 * webhook points at this node's production URL, none while the workflow is inactive, and nothing
 * outlives a failed activation. A webhook is this node's by its URL and the owner its description
 * names (a copied workflow has the URL but another owner). A stored registration of another
 * address is forgotten, never deleted.
 */

/** The chosen events as the service stores them: sorted, unique, or just `*` when Any Event is among them. */
export function selectedEvents(context: {
	getNodeParameter(name: string, fallback: unknown): unknown;
}): string[] {
	const raw = context.getNodeParameter('events', []);
	const list = (Array.isArray(raw) ? raw : [raw])
		.map((event) => String(event).trim())
		.filter(Boolean);
	if (list.includes(ANY_EVENT)) return [ANY_EVENT];
	return [...new Set(list)].sort();
}

function sameEvents(a: unknown, b: string[]): boolean {
	if (!Array.isArray(a)) return false;
	const left = [...new Set(a.map(String))].sort();
	return left.length === b.length && left.every((event, index) => event === b[index]);
}

/** URLs compared as URLs (case of scheme and host, default ports), not as text. */
export function sameUrl(a: unknown, b: string): boolean {
	if (typeof a !== 'string') return false;
	try {
		return new URL(a).href === new URL(b).href;
	} catch {
		return false;
	}
}

function productionUrl(context: IHookFunctions): string {
	const url = context.getNodeWebhookUrl('default');
	if (!url)
		throw new NodeOperationError(context.getNode(), 'n8n did not give this trigger a webhook URL');
	return url;
}

/** This workflow node as a webhook's owner (a copy of the workflow is another owner). */
function ownTag(context: IHookFunctions): string {
	const node = context.getNode();
	return ownerTag(String(context.getWorkflow().id ?? ''), node.id ?? node.name);
}

/** Exactly this node's URL, and this node's owner tag, or none (a service that keeps no description). */
function ownWebhook(context: IHookFunctions, webhook: IDataObject, url: string): boolean {
	if (!sameUrl(webhook.url, url)) return false;
	const owner = registrationNote(webhook.description)?.owner;
	return owner === undefined || owner === ownTag(context);
}

/** Own webhooks a sweep removes at most (the invariant allows one; more are leftovers of failures). */
const MAX_SWEPT = 10;

function cannotTell(context: IHookFunctions, what: string): void {
	context.logger.warn(
		`Document Signing Trigger: the account has more webhooks than one sweep reads (${WEBHOOK_SWEEP_BUDGET.pages} pages), so ${what}`,
		{ workflowId: context.getWorkflow().id, node: context.getNode().name },
	);
}

/** Whether static data says this workflow node registered the stored webhook at this URL. */
function isOwnRegistration(
	context: IHookFunctions,
	stored: Registration | undefined,
	url: string,
): stored is Registration {
	return stored !== undefined && sameUrl(stored.url, url) && stored.owner === ownTag(context);
}

/**
 * Removes this node's webhooks: its own stored registration by id; without one, each webhook a
 * sweep finds with this node's URL and owner. Throws on any failure but 404 and a long list.
 */
async function removeOwn(
	context: IHookFunctions,
	client: ServiceClient,
	url: string,
	stored: Registration | undefined,
): Promise<void> {
	if (isOwnRegistration(context, stored, url)) {
		await removeWebhook(context, stored.id, client);
		return;
	}
	for (let swept = 0; swept < MAX_SWEPT; swept++) {
		const found = await findWebhook(context, (webhook) => ownWebhook(context, webhook, url));
		if (found === 'cannot tell')
			return cannotTell(context, 'a leftover webhook of this trigger further down it stays');
		const id = idText(found?.id);
		if (id === undefined) return;
		await removeWebhook(context, id, client);
	}
}

/** After a failed activation: removes what it may have created, and never hides the first failure. */
async function cleanUpAfterFailure(
	context: IHookFunctions,
	client: ServiceClient,
	url: string,
): Promise<void> {
	try {
		await removeOwn(context, client, url, undefined);
	} catch (cleanupError) {
		context.logger.warn(
			'Document Signing Trigger could not remove the webhook of a failed activation; the next activation or deactivation removes it',
			{ error: (cleanupError as Error).message },
		);
	}
}

/** Logs (never deletes) a stored registration that belongs to another n8n address. */
function forgetForeign(
	context: IHookFunctions,
	stored: { id: string; url: string },
	url: string,
): void {
	context.logger.warn(
		"Document Signing Trigger: the stored webhook registration points at another address (a copied workflow, or n8n's public URL changed); forgotten, not deleted. If it is an old registration of this workflow, delete it with Document Signing › Webhook › Delete",
		{ webhookId: stored.id, storedOrigin: safeOrigin(stored.url), currentOrigin: safeOrigin(url) },
	);
}

const safeOrigin = (url: string) => (URL.canParse(url) ? new URL(url).origin : '(not a URL)');

/** True only if the stored webhook still exists on the service with this URL, these events and this key. */
export async function checkExists(this: IHookFunctions): Promise<boolean> {
	const data = triggerStaticData(this);
	const stored = readRegistration(data);
	const url = productionUrl(this);
	if (!stored) {
		forgetRegistration(data);
		return false;
	}
	if (!sameUrl(stored.url, url)) {
		forgetForeign(this, stored, url);
		forgetRegistration(data);
		return false;
	}
	// A key check in static data lets its readers test key guesses: drop any.
	if ('keyCheck' in data) delete data.keyCheck;
	const client = await serviceClient(this);
	const events = selectedEvents(this);
	const found = await findWebhook(this, (webhook) => idText(webhook.id) === stored.id);
	if (found === 'cannot tell') {
		// Kept as registered: deliveries are verified with its secret either way.
		cannotTell(this, 'the stored registration is kept unconfirmed');
		return sameEvents(stored.events, events);
	}
	const onService = found;
	// The key check sits in the webhook's description at the service; a service that keeps no
	// description cannot tell, and then the webhook is kept (re-registering on every start would
	// drop the retries still due to it).
	const registeredCheck = registrationNote(onService?.description)?.keyCheck;
	const keyUnchanged =
		registeredCheck === undefined ||
		registeredCheck === keyCheck(secretScope(this, client.credentials.apiKey, stored.secretNonce));
	if (
		onService &&
		onService.active !== false &&
		ownWebhook(this, onService, url) &&
		sameEvents(onService.events, events) &&
		sameEvents(stored.events, events) &&
		keyUnchanged
	) {
		return true;
	}
	// Stale (other events, another key, gone): `create` runs and removes it by its id when this node
	// registered it (else its sweep finds it by URL). checkExists itself deletes nothing.
	return false;
}

/** Registers the webhook, after removing any earlier registration of this node (see above). */
export async function create(this: IHookFunctions): Promise<boolean> {
	const node = this.getNode();
	const data = triggerStaticData(this);
	const url = productionUrl(this);
	const events = selectedEvents(this);
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

	const stored = readRegistration(data);
	if (stored && !sameUrl(stored.url, url)) forgetForeign(this, stored, url);
	const client = await serviceClient(this);
	await removeOwn(this, client, url, stored);
	forgetRegistration(data);

	const nonce = newNonce();
	const scope = secretScope(this, client.credentials.apiKey, nonce);
	const workflow = this.getWorkflow();
	// The same attempt (same nonce) always carries the same key, so a create the transport retries
	// after a lost response is recognised by the service and never makes a second webhook.
	const idempotencyKey = deriveIdempotencyKey(
		'trigger-create',
		workflow.id,
		node.id ?? node.name,
		url,
		events.join(','),
		nonce,
	);
	try {
		const registered = await registerWebhook(this, client, {
			url,
			events,
			description: registrationDescription(
				`n8n workflow ${workflow.name ?? workflow.id ?? ''}`.trim(),
				scope,
			),
			scope,
			idempotencyKey,
		});
		saveRegistration(data, {
			id: registered.id,
			url,
			events,
			owner: ownTag(this),
			secretNonce: nonce,
			sealedSecret: registered.sealedSecret,
		});
		return true;
	} catch (error) {
		forgetRegistration(data);
		// The service may have created the webhook although its response never arrived or was unusable.
		await cleanUpAfterFailure(this, client, url);
		throw toNodeError(node, error);
	}
}

/** Removes this node's webhook (a 404 means already removed); any other failure is thrown. */
export async function deleteWebhook(this: IHookFunctions): Promise<boolean> {
	const data = triggerStaticData(this);
	const url = productionUrl(this);
	const stored = readRegistration(data);
	if (stored && !sameUrl(stored.url, url)) forgetForeign(this, stored, url);
	const client = await serviceClient(this);
	await removeOwn(this, client, url, stored);
	forgetRegistration(data);
	return true;
}
