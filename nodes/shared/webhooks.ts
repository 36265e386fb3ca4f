import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'crypto';
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
	isObject,
	type PageRequest,
	type WalkResult,
} from './transport';
import { WEBHOOK_SWEEP_BUDGET } from './vocabulary';

/**
 * The package's webhooks and their secrets, kept out of static and execution data (n8n's public API
 * shows those): derived from the API key and a nonce, or sealed with a key derived the same way.
 */

/** Whose a webhook is: this workflow node, the credential's key and the registration's nonce. */
export function secretScope(
	context: Pick<IHookFunctions, 'getNode' | 'getWorkflow'>,
	apiKey: string,
	nonce: string,
) {
	const node = context.getNode();
	return {
		apiKey,
		workflowId: String(context.getWorkflow().id ?? ''),
		nodeId: node.id ?? node.name,
		nonce,
	};
}
export type SecretScope = ReturnType<typeof secretScope>;

const tagged = (...parts: string[]) => ['n8n-nodes-document-signing', ...parts].join('\u0000');

function derive(purpose: string, { apiKey, workflowId, nodeId, nonce }: SecretScope): Buffer {
	return createHmac('sha256', apiKey)
		.update(tagged(purpose, workflowId, nodeId, nonce))
		.digest();
}

export const newNonce = (): string => randomBytes(16).toString('hex');

/** 64 hex characters: within the 32–256 characters the service accepts. */
const derivedSecret = (scope: SecretScope): string =>
	derive('webhook-secret', scope).toString('hex');

/** Changes with the key; it lets guesses of the key be tested offline, so never in static data. */
export const keyCheck = (scope: SecretScope): string =>
	derive('key-check', scope).toString('hex').slice(0, 16);

/** Which workflow node registered a webhook: a copied workflow has the same URL, another id. */
export const ownerTag = (workflowId: string, nodeId: string): string =>
	createHash('sha256')
		.update(tagged('owner', workflowId, nodeId))
		.digest('hex')
		.slice(0, 16);

/** The webhook's description at the service: a readable part, then its owner and key check. */
export function registrationDescription(description: string, scope: SecretScope): string {
	const note = ` [n8n ${ownerTag(scope.workflowId, scope.nodeId)} ${keyCheck(scope)}]`;
	return description.slice(0, 200 - note.length).trimEnd() + note;
}

export function registrationNote(
	description: unknown,
): { owner: string; keyCheck: string } | undefined {
	const match = /\[n8n ([0-9a-f]{16}) ([0-9a-f]{16})\]$/.exec(
		typeof description === 'string' ? description : '',
	);
	return match ? { owner: match[1], keyCheck: match[2] } : undefined;
}

/** AES-256-GCM: iv (12 bytes) + tag (16 bytes) + ciphertext, base64. */
function sealSecret(secret: string, scope: SecretScope): string {
	const iv = randomBytes(12);
	const cipher = createCipheriv('aes-256-gcm', derive('seal', scope), iv);
	const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
	return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
}

/** The secret deliveries are signed with; undefined when a sealed one cannot be opened. */
export function signingSecret(scope: SecretScope, sealedSecret?: string): string | undefined {
	if (!sealedSecret) return derivedSecret(scope);
	try {
		const bytes = Buffer.from(sealedSecret, 'base64');
		const decipher = createDecipheriv('aes-256-gcm', derive('seal', scope), bytes.subarray(0, 12));
		decipher.setAuthTag(bytes.subarray(12, 28));
		return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
	} catch {
		// Another key, or tampered with.
		return undefined;
	}
}

interface NewWebhook {
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

/** Registers a webhook signed with the scope's secret; `sealedSecret`: one the service chose. */
export async function registerWebhook(
	context: ApiContext,
	client: ServiceClient,
	webhook: NewWebhook,
): Promise<{ id: string; sealedSecret?: string }> {
	const { url, description, scope, idempotencyKey } = webhook;
	const secret = derivedSecret(scope);
	const body = { url, events: [...webhook.events], secret, description, ...webhook.extra };
	const response = await apiRequest(context, 'POST', '/webhooks', { client, body, idempotencyKey });
	const created = recordOf(response.body);
	const id = idText(created.id);
	if (id === undefined)
		throw new NodeOperationError(
			context.getNode(),
			'The service did not return an ID for the new webhook',
			{ description: 'Check that the Base URL points at the signing service.' },
		);
	// The service echoes the secret it stored; it is ours unless it chose its own.
	const issued = created.secret;
	if (typeof issued !== 'string' || issued === '' || issued === secret) return { id };
	return { id, sealedSecret: sealSecret(issued, scope) };
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

/** A delivery's body as n8n read it (req.rawBody, before calling the node). */
export function rawBodyOf(context: IWebhookFunctions): Buffer | undefined {
	const raw: unknown = context.getRequestObject().rawBody;
	if (Buffer.isBuffer(raw)) return raw;
	return typeof raw === 'string' ? Buffer.from(raw, 'utf8') : undefined;
}

export function parseObject(raw: Buffer | string | undefined): IDataObject | undefined {
	try {
		const parsed: unknown = JSON.parse(String(raw?.toString('utf8')));
		return isObject(parsed) ? parsed : undefined;
	} catch {
		return undefined;
	}
}
