import { randomBytes } from 'crypto';
import type { IDataObject, IHookFunctions, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { apiRequest, apiRequestAllRecords, deriveIdempotencyKey } from '../shared/transport';
import { ANY_EVENT, WEBHOOK_EVENTS } from '../shared/vocabulary';
import { forgetRegistration, readRegistration, triggerStaticData, type TriggerStaticData } from './staticData';

/**
 * The trigger's webhook lifecycle: checkExists / create / delete.
 *
 * Invariant: at most one webhook on the service points at this node's URL, and when the workflow
 * is inactive none does. The URL n8n gives a trigger (`<base>/webhook/<node webhookId>/webhook`)
 * holds the node's own webhookId, a UUID n8n assigns per node and refuses to share between two
 * active workflows, so a service webhook with exactly this URL can only have been made by this node.
 *
 * Decision on a webhook left over from an earlier activation whose static data was lost (n8n
 * stopped after the service created it but before the static data was saved, the workflow was
 * imported, …): its secret is gone (the service shows it only in the creation response), so it
 * cannot be adopted. `create` therefore deletes every service webhook whose URL is exactly this
 * node's URL, plus any webhook this node remembers replacing, before registering a fresh one.
 * `delete` does the same sweep, so a deactivation never leaves one behind either.
 */

/** Bytes of randomness in a generated secret (hex-encoded: 64 characters, within the 32–256 the service accepts). */
const SECRET_BYTES = 32;

/** The chosen events as the service stores them: sorted, unique, or just `*` when Any Event is among them. */
export function selectedEvents(context: { getNodeParameter(name: string, fallback: unknown): unknown }): string[] {
	const raw = context.getNodeParameter('events', []);
	const list = (Array.isArray(raw) ? raw : [raw]).map((event) => String(event).trim()).filter(Boolean);
	if (list.includes(ANY_EVENT)) return [ANY_EVENT];
	return [...new Set(list)].sort();
}

function sameEvents(a: unknown, b: string[]): boolean {
	if (!Array.isArray(a)) return false;
	const left = [...new Set(a.map(String))].sort();
	return left.length === b.length && left.every((event, index) => event === b[index]);
}

function productionUrl(context: IHookFunctions): string {
	const url = context.getNodeWebhookUrl('default');
	if (!url) throw new NodeOperationError(context.getNode(), 'n8n did not give this trigger a webhook URL');
	return url;
}

function recordOf(body: unknown): IDataObject {
	if (typeof body !== 'object' || body === null) return {};
	const record = body as IDataObject;
	if (typeof record.id === 'string') return record;
	const wrapped = record.data;
	return typeof wrapped === 'object' && wrapped !== null && !Array.isArray(wrapped) ? (wrapped as IDataObject) : record;
}

/** The transport already answers with NodeApiError; anything else is wrapped, never dropped. */
function asNodeError(node: INode, error: unknown): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error as Error);
}

function isNotFound(error: unknown): boolean {
	return String((error as { httpCode?: unknown })?.httpCode ?? '') === '404';
}

/** Removes one webhook from the service; one that is already gone (404) counts as removed. */
async function removeServiceWebhook(context: IHookFunctions, id: string): Promise<void> {
	try {
		await apiRequest(context, 'DELETE', `/webhooks/${encodeURIComponent(id)}`);
	} catch (error) {
		if (isNotFound(error)) return;
		throw asNodeError(context.getNode(), error);
	}
}

async function listServiceWebhooks(context: IHookFunctions): Promise<IDataObject[]> {
	return await apiRequestAllRecords(context, '/webhooks');
}

/**
 * Deletes the webhooks this node is responsible for: the ones it remembers (current and replaced)
 * and every service webhook pointing at exactly its URL. Throws on any failure other than 404.
 */
async function removeOwnWebhooks(context: IHookFunctions, data: TriggerStaticData, url: string): Promise<void> {
	const remembered = new Set<string>(data.staleWebhookIds ?? []);
	if (data.webhookId) remembered.add(data.webhookId);
	for (const id of remembered) await removeServiceWebhook(context, id);
	// The sweep by URL catches registrations the static data never heard of. The stored URL counts
	// too: it differs from the current one when n8n's public address changed since activation.
	const ownUrls = new Set([url, ...(data.webhookUrl ? [data.webhookUrl] : [])]);
	for (const webhook of await listServiceWebhooks(context)) {
		if (typeof webhook.id !== 'string' || remembered.has(webhook.id)) continue;
		if (typeof webhook.url === 'string' && ownUrls.has(webhook.url)) await removeServiceWebhook(context, webhook.id);
	}
}

/** True only if the stored webhook still exists on the service with this URL and these events. */
export async function checkExists(this: IHookFunctions): Promise<boolean> {
	const data = triggerStaticData(this);
	const stored = readRegistration(data);
	if (!stored) {
		forgetRegistration(data);
		return false;
	}
	const url = productionUrl(this);
	const events = selectedEvents(this);
	const onService = (await listServiceWebhooks(this)).find((webhook) => webhook.id === stored.id);
	if (
		onService &&
		onService.active !== false &&
		onService.url === url &&
		stored.url === url &&
		sameEvents(onService.events, events) &&
		sameEvents(stored.events, events)
	) {
		return true;
	}
	// Stale: forget it so `create` runs. A webhook that still exists but no longer fits (other
	// events, other n8n address) is remembered for `create` to remove; checkExists deletes nothing.
	if (onService) data.staleWebhookIds = [...new Set([...(data.staleWebhookIds ?? []), stored.id])];
	forgetRegistration(data);
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
			description: 'Pick the events that should start this workflow in the "Events" parameter, or "Any Event".',
		});
	}
	const unknown = events.filter((event) => event !== ANY_EVENT && !(WEBHOOK_EVENTS as readonly string[]).includes(event));
	if (unknown.length) {
		throw new NodeOperationError(node, `Unknown event: ${unknown.join(', ')}`, {
			description: `Events the service sends: ${WEBHOOK_EVENTS.join(', ')}`,
		});
	}

	await removeOwnWebhooks(this, data, url);
	forgetRegistration(data);
	delete data.staleWebhookIds;
	// Version 0.1's delivery-id guard; repeats are now settled at the service (claim.ts).
	delete data.recentDeliveries;

	const secret = randomBytes(SECRET_BYTES).toString('hex');
	const workflow = this.getWorkflow();
	// The same attempt (same secret) always carries the same key, so a create the transport retries
	// after a lost answer is recognised by the service and never makes a second webhook.
	const idempotencyKey = deriveIdempotencyKey('trigger-create', workflow.id, node.id ?? node.name, url, events.join(','), secret);
	const response = await apiRequest(this, 'POST', '/webhooks', {
		body: {
			url,
			events,
			secret,
			description: `n8n workflow ${workflow.name ?? workflow.id ?? ''}`.trim().slice(0, 200),
		},
		idempotencyKey,
	});
	const created = recordOf(response.body);
	if (typeof created.id !== 'string' || created.id === '') {
		throw new NodeOperationError(node, 'The service did not return an ID for the new webhook');
	}
	data.webhookId = created.id;
	data.webhookUrl = url;
	data.webhookEvents = events;
	// The service echoes the secret it stored; it is ours unless it chose to replace it.
	data.webhookSecret = typeof created.secret === 'string' && created.secret !== '' ? created.secret : secret;
	return true;
}

/** Removes the webhook (a 404 means already removed) and forgets it; any other failure is thrown. */
export async function deleteWebhook(this: IHookFunctions): Promise<boolean> {
	const data = triggerStaticData(this);
	const url = productionUrl(this);
	await removeOwnWebhooks(this, data, url);
	forgetRegistration(data);
	delete data.staleWebhookIds;
	return true;
}
