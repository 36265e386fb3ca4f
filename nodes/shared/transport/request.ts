import { createHash } from 'crypto';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import { idText } from '../ids';
import { bodyLimit, jsonOrText, readBody, TIME_LIMITS, type ResponseKind } from './bounds';
import { HttpStatusError, ServiceBehaviourError, toNodeError } from './errors';
import { isHtml } from './htmlPages';
import { headerValue } from './headers';
import type { PageResponse } from './listRecords';
import { sendWithRetries } from './retry';
import {
	allowedDomainsFor,
	credentialKey,
	CREDENTIAL_TYPE,
	readCredentials,
	ServiceOrigin,
	type ServiceCredentials,
} from './service';

/**
 * Requests the package makes itself (outside n8n's routing engine): the trigger's webhook lifecycle,
 * its claims, the list searches and downloads. The action node's operations go through the routing
 * engine instead (nodes/DocumentSigning/shared/routedRequest.ts); both share the checks below.
 */

export type ApiContext =
	| IHookFunctions
	| IWebhookFunctions
	| ILoadOptionsFunctions
	| IExecuteSingleFunctions
	| IExecuteFunctions
	| ITriggerFunctions;

/** The same execution, node, run and item always give the same key, so a repeat is recognised. */
export function deriveIdempotencyKey(...parts: Array<string | number | undefined>): string {
	return (
		'n8n-' +
		createHash('sha256')
			.update(parts.map((part) => String(part ?? '')).join('\u0000'))
			.digest('hex')
			.slice(0, 40)
	);
}

/** Request settings every request of the package carries, whichever path it takes. */
export function safeRequestSettings(
	allowedDomains: string | undefined,
): Partial<IHttpRequestOptions> {
	return {
		// Redirects are never followed: a redirect to another origin would carry the key there.
		disableFollowRedirect: true,
		...({ sendCredentialsOnCrossOriginRedirect: false } as object),
		...(allowedDomains ? ({ allowedDomains } as object) : {}),
	};
}

/**
 * Refuses answers the package cannot use: error statuses (thrown as HttpStatusError for the retry
 * policy), redirects, and text where JSON was expected (a proxy's page, a cut-off body).
 */
export function checkResponse(
	response: IN8nHttpFullResponse,
	{ expectJson, acceptStatuses = [] }: { expectJson: boolean; acceptStatuses?: number[] },
): void {
	const status = response.statusCode;
	if (acceptStatuses.includes(status)) return;
	if (status >= 400) throw new HttpStatusError(response);
	if (status >= 300) {
		const location = headerValue(response.headers, 'location');
		throw new ServiceBehaviourError(
			`The service answered with a redirect (HTTP ${status})${location ? ` to ${location.slice(0, 200)}` : ''}; it was not followed`,
			'Redirects are never followed, so the API key cannot be carried to another address. Check the Base URL in the credentials (for example https:// instead of http://, or the /v1 at its end).',
			String(status),
		);
	}
	if (expectJson && typeof response.body === 'string' && response.body.trim() !== '') {
		const page = isHtml(response.body, headerValue(response.headers, 'content-type'));
		throw new ServiceBehaviourError(
			page
				? `The service answered HTTP ${status} with a web page instead of an API response`
				: `The service answered HTTP ${status} with a body that is not valid JSON`,
			page
				? 'Such pages come from a proxy, gateway or login page in front of the API, or from a Base URL that points at a website. Check the Base URL in the credentials.'
				: 'The response may have been cut off on its way. Try again; if it keeps happening, the service is probably having trouble.',
			String(status),
		);
	}
}

/** The record in a response: the body itself, or under `data`. */
export function recordOf(body: unknown): IDataObject {
	if (typeof body !== 'object' || body === null || Array.isArray(body)) return {};
	const record = body as IDataObject;
	if (
		idText(record.id) === undefined &&
		typeof record.data === 'object' &&
		record.data !== null &&
		!Array.isArray(record.data)
	)
		return record.data as IDataObject;
	return record;
}

export interface ServiceClient {
	credentials: ServiceCredentials;
	/** The credential as n8n decrypted it, handed back to n8n with each request (no second read). */
	decrypted: ICredentialDataDecryptedObject;
	origin: ServiceOrigin;
	gateKey: string;
	allowedDomains?: string;
}

export async function serviceClient(context: ApiContext): Promise<ServiceClient> {
	const decrypted = await context.getCredentials(CREDENTIAL_TYPE);
	const credentials = readCredentials(decrypted);
	const origin = new ServiceOrigin(credentials.baseUrl, context.getNode());
	return {
		credentials,
		decrypted,
		origin,
		gateKey: credentialKey(credentials, origin),
		allowedDomains: allowedDomainsFor(credentials, origin),
	};
}

export interface ApiRequestOptions {
	qs?: IDataObject;
	body?: IDataObject;
	/** Makes a POST safe to retry: the service answers a repeat with the first result. */
	idempotencyKey?: string;
	/** Error statuses the caller reads as answers (returned, not thrown, never retried). */
	acceptStatuses?: number[];
	/** One attempt only, given up after this many ms (for checks that must not hold anything up). */
	singleAttemptTimeoutMs?: number;
	/** The response's body as bytes (a file), not JSON. */
	binary?: boolean;
	/** Which size limit the response is read under (bounds.ts); `file` for binary answers unless said. */
	kind?: ResponseKind;
	abortSignal?: AbortSignal;
	/** The whole request's bound when shorter than the retry policy's (list searches). */
	maxTotalWaitMs?: number;
	/** Already loaded for this context (saves decrypting the credential again). */
	client?: ServiceClient;
}

/** The response's body read whole within its kind's limit: parsed JSON (or text), or bytes for a file. */
export async function readResponse(
	response: IN8nHttpFullResponse,
	kind: ResponseKind,
	client: ServiceClient,
): Promise<IN8nHttpFullResponse> {
	// Error answers are read as API answers whatever was asked for: they carry the service's words.
	const limit = bodyLimit(
		response.statusCode >= 300 ? 'json' : kind,
		client.credentials.largestDownloadMb,
	);
	const bytes = await readBody(
		response.body,
		limit,
		response.statusCode >= 300 ? 'json' : kind,
		headerValue(response.headers, 'content-length'),
	);
	if (Buffer.isBuffer(bytes)) (response as PageResponse).bytes = bytes.length;
	response.body =
		kind === 'json'
			? (jsonOrText(bytes) as IN8nHttpFullResponse['body'])
			: (bytes as IN8nHttpFullResponse['body']);
	return response;
}

/**
 * One attempt of a request to the service: the only place the package calls n8n's authenticated
 * request helper. The credential as read once goes along (n8n would read and decrypt it again).
 */
export async function sendAttempt(
	context: ApiContext | IExecutePaginationFunctions,
	client: ServiceClient,
	options: IHttpRequestOptions,
): Promise<IN8nHttpFullResponse> {
	return (await context.helpers.httpRequestWithAuthentication.call(
		context,
		CREDENTIAL_TYPE,
		{ ...options, returnFullResponse: true },
		{
			credentialsDecrypted: { id: '', name: '', type: CREDENTIAL_TYPE, data: client.decrypted },
		},
	)) as IN8nHttpFullResponse;
}

/**
 * A request to this n8n itself, never to the service: no credential goes along, redirects are not
 * followed, and any status is a response (Send and Wait's probe of a wait's own resume URL).
 */
export async function askOwnN8n(
	context: Pick<IExecuteFunctions, 'helpers'>,
	url: string,
	body: IDataObject,
	timeoutMs: number,
): Promise<IN8nHttpFullResponse> {
	return (await context.helpers.httpRequest({
		method: 'POST',
		url,
		body,
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		disableFollowRedirect: true,
		timeout: timeoutMs,
	})) as IN8nHttpFullResponse;
}

/**
 * One request with the retry policy; returns the full response (2xx, or one of `acceptStatuses`).
 * `target` is a path under the Base URL (`/webhooks`) or an absolute URL, which must be on the
 * credential's origin, under the Base URL's path.
 */
export async function apiRequest(
	context: ApiContext,
	method: IHttpRequestMethods,
	target: string,
	options: ApiRequestOptions = {},
): Promise<IN8nHttpFullResponse> {
	const node = context.getNode();
	const client = options.client ?? (await serviceClient(context));
	const url = target.startsWith('/')
		? client.origin.urlOf(target)
		: client.origin.followable(target, client.origin.baseUrl, 'a link');
	const headers: IDataObject = { Accept: options.binary ? '*/*' : 'application/json' };
	if (options.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;
	const kind: ResponseKind = options.kind ?? (options.binary ? 'file' : 'json');
	const request: IHttpRequestOptions = {
		method,
		url,
		qs: options.qs,
		body: options.body,
		headers,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// Read as a stream and counted (bounds.ts): n8n would otherwise read any response whole.
		encoding: 'stream',
		json: !options.binary,
		timeout: options.singleAttemptTimeoutMs ?? TIME_LIMITS.attemptMs,
		...safeRequestSettings(client.allowedDomains),
	};
	const send = async (signal: AbortSignal) => {
		const response = await sendAttempt(context, client, { ...request, abortSignal: signal });
		await readResponse(response, kind, client);
		checkResponse(response, {
			expectJson: !options.binary && method !== 'DELETE',
			acceptStatuses: options.acceptStatuses,
		});
		return response;
	};
	if (options.singleAttemptTimeoutMs) {
		const limit = AbortSignal.timeout(options.singleAttemptTimeoutMs);
		try {
			return await send(
				options.abortSignal ? AbortSignal.any([options.abortSignal, limit]) : limit,
			);
		} catch (error) {
			throw toNodeError(
				node,
				limit.aborted ? Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }) : error,
			);
		}
	}
	const idempotent =
		method !== 'POST' && method !== 'PATCH' ? true : Boolean(options.idempotencyKey);
	return await sendWithRetries(
		{
			node,
			gateKey: client.gateKey,
			idempotent,
			abortSignal: options.abortSignal,
			maxTotalWaitMs: options.maxTotalWaitMs,
		},
		async (attempt) => await send(attempt.signal),
	);
}
