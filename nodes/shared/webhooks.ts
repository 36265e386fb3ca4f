import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiPath, idText } from './ids';
import {
	apiRequest,
	apiSweepRecords,
	isNotFound,
	recordOf,
	toNodeError,
	type ApiContext,
	type ServiceClient,
} from './transport';
import { isObject, type PageRequest } from './transport/listRecords';
import type { WalkResult } from './transport/pageWalk';
import { WEBHOOK_SWEEP_BUDGET } from './vocabulary';
import { derivedSecret, openSealedSecret, sealSecret, type SecretScope } from './webhookSecret';

export interface NewWebhook {
	url: string;
	events: readonly string[];
	description: string;
	/** The secret is derived from it; a secret the service issues is sealed with it. */
	scope: SecretScope;
	/** The same for a retried attempt, so it never makes a second webhook. */
	idempotencyKey: string;
	/** Optional fields a service may honour (a wait's `document_id`, `expires_at`). */
	extra?: IDataObject;
}

export interface RegisteredWebhook {
	id: string;
	/** A secret the service chose itself, sealed with the scope's key. */
	sealedSecret?: string;
}

/** Registers a webhook signed with the scope's secret; throws when the service names no id. */
export async function registerWebhook(
	context: ApiContext,
	client: ServiceClient,
	webhook: NewWebhook,
): Promise<RegisteredWebhook> {
	const secret = derivedSecret(webhook.scope);
	const response = await apiRequest(context, 'POST', '/webhooks', {
		client,
		body: {
			url: webhook.url,
			events: [...webhook.events],
			secret,
			description: webhook.description,
			...webhook.extra,
		},
		idempotencyKey: webhook.idempotencyKey,
	});
	const created = recordOf(response.body);
	const id = idText(created.id);
	if (id === undefined)
		throw new NodeOperationError(
			context.getNode(),
			'The service did not return an ID for the new webhook',
			{
				description: 'Check that the Base URL points at the signing service.',
			},
		);
	// The service echoes the secret it stored; it is ours unless it chose its own.
	const issued = created.secret;
	if (typeof issued !== 'string' || issued === '' || issued === secret) return { id };
	return { id, sealedSecret: sealSecret(issued, webhook.scope) };
}

/** Whose a webhook is: this workflow node, the credential's key and the registration's nonce. */
export function secretScope(
	context: Pick<IHookFunctions, 'getNode' | 'getWorkflow'>,
	apiKey: string,
	nonce: string,
): SecretScope {
	const node = context.getNode();
	return {
		apiKey,
		workflowId: String(context.getWorkflow().id ?? ''),
		nodeId: node.id ?? node.name,
		nonce,
	};
}

/** A delivery's body as n8n read it (req.rawBody, before calling the node). */
export function rawBodyOf(context: IWebhookFunctions): Buffer | undefined {
	const raw: unknown = context.getRequestObject().rawBody;
	if (Buffer.isBuffer(raw)) return raw;
	return typeof raw === 'string' ? Buffer.from(raw, 'utf8') : undefined;
}

/** A JSON object, or undefined for anything else. */
export function parseObject(raw: Buffer | string | undefined): IDataObject | undefined {
	try {
		const parsed: unknown = JSON.parse(String(raw?.toString('utf8')));
		return isObject(parsed) ? parsed : undefined;
	} catch {
		return undefined;
	}
}

/** The secret deliveries are signed with; undefined when a sealed one cannot be opened. */
export function signingSecret(scope: SecretScope, sealedSecret?: string): string | undefined {
	return sealedSecret ? openSealedSecret(sealedSecret, scope) : derivedSecret(scope);
}

/** Removes a webhook; false when the service no longer had it (404). */
export async function removeWebhook(
	context: ApiContext,
	id: string,
	client?: ServiceClient,
): Promise<boolean> {
	try {
		await apiRequest(context, 'DELETE', apiPath`/webhooks/${id}`, { client });
		return true;
	} catch (error) {
		if (isNotFound(error)) return false;
		throw toNodeError(context.getNode(), error);
	}
}

/** One sweep of the account's webhooks, up to the first `stopAt` accepts; `next` goes on. */
export async function sweepWebhooks(
	context: ApiContext,
	options: { start?: PageRequest; stopAt?: (webhook: IDataObject) => boolean } = {},
): Promise<WalkResult<IDataObject>> {
	return await apiSweepRecords(context, '/webhooks', { ...options, budget: WEBHOOK_SWEEP_BUDGET });
}

/** The first webhook `wanted` accepts; 'cannot tell' when one sweep does not read them all. */
export async function findWebhook(
	context: ApiContext,
	wanted: (webhook: IDataObject) => boolean,
): Promise<IDataObject | undefined | 'cannot tell'> {
	const { records, next } = await sweepWebhooks(context, { stopAt: wanted });
	const last = records[records.length - 1];
	if (last !== undefined && wanted(last)) return last;
	return next ? 'cannot tell' : undefined;
}
