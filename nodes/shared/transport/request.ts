import { createHash } from 'crypto';
import type {
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
import { sleep } from 'n8n-workflow';

import { idText } from '../ids';
import { HttpStatusError, isHtml, ServiceBehaviourError, toNodeError } from './errors';
import { headerValue, withoutKey } from './text';
import { isObject, type PageResponse } from './listRecords';
import { sendWithRetries, TIME_LIMITS, timedOut, type Attempt } from './retry';
import {
	allowedDomainsFor,
	credentialKey,
	CREDENTIAL_TYPE,
	readCredentials,
	ServiceOrigin,
} from './service';

/** The package's own requests; the action node's go through n8n's routing engine (routedRequest.ts). */
export type ApiContext =
	| IExecutePaginationFunctions
	| IHookFunctions
	| IWebhookFunctions
	| ILoadOptionsFunctions
	| IExecuteSingleFunctions
	| IExecuteFunctions
	| ITriggerFunctions;

/** The same execution, node, run and item always give the same key, so a repeat is recognised. */
export function deriveIdempotencyKey(...parts: Array<string | number | undefined>): string {
	const joined = parts.map((part) => String(part ?? '')).join('\u0000');
	return `n8n-${createHash('sha256').update(joined).digest('hex').slice(0, 40)}`;
}

/** The record in a response: the body itself, or under `data`. */
export function recordOf(body: unknown): IDataObject {
	if (!isObject(body)) return {};
	return isObject(body.data) && idText(body.id) === undefined ? body.data : body;
}

export type ServiceClient = Awaited<ReturnType<typeof serviceClient>>;

/** Read for each request (or item): handed back to n8n with its requests as it decrypted it. */
export async function serviceClient(context: ApiContext) {
	const decrypted = await context.getCredentials(CREDENTIAL_TYPE);
	const credentials = readCredentials(decrypted);
	const origin = new ServiceOrigin(credentials.baseUrl, context.getNode());
	return { credentials, decrypted, origin };
}

export interface ApiRequestOptions {
	qs?: IDataObject;
	body?: IDataObject;
	binary?: boolean;
	/** Already loaded for this context (saves decrypting the credential again). */
	client?: ServiceClient;
	/** Makes a POST safe to retry: the service answers a repeat with the first result. */
	idempotencyKey?: string;
	/** Error statuses the caller reads as responses (returned, not thrown, never retried). */
	acceptStatuses?: number[];
	/** One attempt only, given up after this many ms (for checks that must not hold anything up). */
	singleAttemptTimeoutMs?: number;
	abortSignal?: AbortSignal;
	/** The whole request's bound when shorter than the retry policy's (list searches). */
	maxTotalWaitMs?: number;
}

const MB = 1024 * 1024;

type ResponseKind = 'json' | 'file' | 'export';

/** A file's or an export's limit is the credential's "Largest Download (MB)" when set, up to 2 GB. */
const BODY_LIMITS = { json: 16 * MB, download: 100 * MB, maxDownload: 2048 * MB };

const YIELD_ABOVE_BYTES = 1024 * 1024;

/** The body read whole within its kind's limit (BODY_LIMITS): JSON (or text), or a file's bytes. */
async function readResponse(
	response: IN8nHttpFullResponse,
	kind: ResponseKind,
	client: ServiceClient,
): Promise<IN8nHttpFullResponse> {
	// Past here the service's words never hold the key (docs/security.md); a file's bytes stay as sent.
	const { apiKey } = client.credentials;
	response.headers = JSON.parse(
		withoutKey(JSON.stringify(response.headers ?? {}), apiKey),
	) as IDataObject;
	// Error responses are read as API responses whatever was asked for: they carry the service's words.
	const readAs = response.statusCode >= 300 ? 'json' : kind;
	// readCredentials keeps "Largest Download (MB)" only when it is a positive number.
	const configured = client.credentials.largestDownloadMb;
	const limit =
		readAs === 'json'
			? BODY_LIMITS.json
			: configured
				? Math.min(Math.round(configured * MB), BODY_LIMITS.maxDownload)
				: BODY_LIMITS.download;
	// Read as a stream (encoding: 'stream'), dropped the moment it passes the limit or declares more.
	const stream = response.body as unknown as AsyncIterable<Buffer | string> & { destroy(): void };
	const tooLarge = () => {
		stream.destroy();
		return new ServiceBehaviourError(
			`The service's response is larger than the ${limit % MB === 0 ? `${limit / MB} MB` : `${limit} bytes`} allowed for ${readAs === 'json' ? 'an API response' : readAs === 'file' ? 'a file' : 'an export'}; it was not read`,
			readAs === 'json'
				? "API responses are read up to this size so a faulty or hostile server cannot exhaust n8n's memory. Lower the page size or narrow the request."
				: 'Downloads are read up to this size so a faulty or hostile server cannot exhaust n8n\'s memory. To allow larger files, raise "Largest Download (MB)" in the credentials.',
		);
	};
	const declared = Number(headerValue(response.headers, 'content-length'));
	if (Number.isFinite(declared) && declared > limit) throw tooLarge();
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of stream) {
		const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
		size += bytes.length;
		if (size > limit) throw tooLarge();
		chunks.push(bytes);
	}
	let body: unknown = Buffer.concat(chunks, size);
	(response as PageResponse).bytes = size;
	if (readAs === 'json') {
		// A large answer is decoded and parsed on turns of their own: each is one stretch of the event loop.
		const turn = async () => (size > YIELD_ABOVE_BYTES ? await sleep(0) : undefined);
		await turn();
		const text = withoutKey((body as Buffer).toString('utf8'), apiKey);
		await turn();
		body = jsonOrText(text);
	}
	response.body = body as IN8nHttpFullResponse['body'];
	return response;
}

/** JSON text as its value; other text as it is (checkResponse refuses it); blank text as ''. */
function jsonOrText(text: string): unknown {
	if (text.trim() === '') return '';
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
	}
}

/** Refuses error statuses (as HttpStatusError, for the retry policy), redirects, and text for JSON. */
function checkResponse(
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

/** Sends `request` under the retry policy (or once), its response read within BODY_LIMITS and checked. */
export async function sendChecked(
	context: ApiContext,
	client: ServiceClient,
	request: IHttpRequestOptions,
	settings: ApiRequestOptions & { kind: ResponseKind; itemIndex?: number; deletedIfGone?: boolean },
): Promise<IN8nHttpFullResponse> {
	const { kind, idempotencyKey, abortSignal, singleAttemptTimeoutMs } = settings;
	const { method } = request;
	const allowedDomains = allowedDomainsFor(client.credentials, client.origin);
	const sent: IHttpRequestOptions = {
		...request,
		...(idempotencyKey && { headers: { ...request.headers, 'Idempotency-Key': idempotencyKey } }),
		ignoreHttpStatusErrors: true,
		// Read as a stream and counted (readResponse): n8n would otherwise read any response whole.
		encoding: 'stream',
		timeout: singleAttemptTimeoutMs ?? TIME_LIMITS.attemptMs,
		// Redirects are never followed: a redirect to another origin would carry the key there.
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
		...(allowedDomains && { allowedDomains }),
		returnFullResponse: true,
	};
	// The credential as read once goes along (n8n would read and decrypt it again).
	const credentialsDecrypted = { id: '', name: '', type: CREDENTIAL_TYPE, data: client.decrypted };
	const send = async ({ signal, retriedAfterLostResponse }: Attempt) => {
		const response = (await context.helpers.httpRequestWithAuthentication.call(
			context,
			CREDENTIAL_TYPE,
			{ ...sent, abortSignal: signal },
			{ credentialsDecrypted },
		)) as IN8nHttpFullResponse;
		await readResponse(response, kind, client);
		// A DELETE repeated after a lost response finds nothing: it did what the user asked for.
		const gone = settings.deletedIfGone && method === 'DELETE' && retriedAfterLostResponse;
		const expectJson = kind === 'json' && method !== 'DELETE';
		checkResponse(response, { expectJson, acceptStatuses: gone ? [404] : settings.acceptStatuses });
		return response;
	};
	if (singleAttemptTimeoutMs) {
		const limit = AbortSignal.timeout(singleAttemptTimeoutMs);
		try {
			const signal = abortSignal ? AbortSignal.any([abortSignal, limit]) : limit;
			return await send({ signal, retriedAfterLostResponse: false });
		} catch (error) {
			throw toNodeError(context.getNode(), limit.aborted ? timedOut() : error);
		}
	}
	return await sendWithRetries(
		{
			node: context.getNode(),
			gateKey: credentialKey(client.credentials, client.origin),
			idempotent: (method !== 'POST' && method !== 'PATCH') || Boolean(idempotencyKey),
			itemIndex: settings.itemIndex,
			abortSignal,
			maxTotalWaitMs: settings.maxTotalWaitMs,
		},
		send,
	);
}

/** One request with the retry policy to a path (`/webhooks`) or an absolute URL under the Base URL. */
export async function apiRequest(
	context: ApiContext,
	method: IHttpRequestMethods,
	target: string,
	options: ApiRequestOptions = {},
): Promise<IN8nHttpFullResponse> {
	const { binary, qs, body } = options;
	const client = options.client ?? (await serviceClient(context));
	const { origin } = client;
	const url = target.startsWith('/')
		? origin.urlOf(target)
		: origin.followable(target, origin.baseUrl, 'a link');
	const headers = { Accept: binary ? '*/*' : 'application/json' };
	return await sendChecked(
		context,
		client,
		{ method, url, qs, body, headers, json: !binary },
		{ ...options, kind: binary ? 'file' : 'json' },
	);
}
