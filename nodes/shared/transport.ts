import { createHash } from 'crypto';
import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecuteFunctions,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	INode,
	INodeExecutionData,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { extractRecords, findNextPage, type NextPage } from './listPages';
import { RequestGate } from './requestGate';
import { IDEMPOTENCY_KEY_HEADER, MAX_PAGE_SIZE } from './vocabulary';

/**
 * Every request the nodes make goes through here: one place for concurrency, retries, the
 * Idempotency-Key, error mapping and pagination.
 *
 * n8n's routing engine starts every item's request at once and has no retry hook of its own.
 * The one hook that owns the request loop is `requestOperations.pagination` given as a
 * function, so the action node routes every operation through `executeRoutedRequest` below;
 * the trigger and the list searches use `apiRequest`.
 */

export const CREDENTIAL_TYPE = 'documentSigningApi';

export const RETRY_POLICY = {
	/** Attempts for 5xx answers and dropped connections (the first try included). */
	maxAttempts: 7,
	baseDelayMs: 250,
	maxDelayMs: 8_000,
	/** 429 answers wait as long as Retry-After says, this many times at most per request. */
	maxRateLimitWaits: 60,
	maxRetryAfterMs: 120_000,
	/** Requests in flight at once to one service address, across all items and executions. */
	concurrency: 8,
};

const RETRYABLE_STATUS = new Set([500, 502, 503, 504]);
const RETRYABLE_NETWORK_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'EAI_AGAIN', 'ESOCKETTIMEDOUT', 'ECONNREFUSED']);
/** Refused connections are retried only briefly: usually the address is simply wrong. */
const MAX_REFUSED_ATTEMPTS = 2;

const gates = new Map<string, RequestGate>();

function gateFor(baseURL: string | undefined): RequestGate {
	const key = baseURL ?? '';
	let gate = gates.get(key);
	if (!gate) {
		gate = new RequestGate(RETRY_POLICY.concurrency);
		gates.set(key, gate);
	}
	return gate;
}

/** An answer with an error status, kept whole so the retry policy can read Retry-After. */
export class HttpStatusError extends Error {
	constructor(readonly response: IN8nHttpFullResponse) {
		super(`HTTP ${response.statusCode}`);
	}
}

type Failure =
	| { kind: 'status'; response: IN8nHttpFullResponse }
	| { kind: 'network'; code: string; message: string }
	| { kind: 'other'; error: Error };

function networkCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 5 && current; depth++) {
		const code = (current as { code?: unknown }).code;
		if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

function describeFailure(error: unknown): Failure {
	if (error instanceof HttpStatusError) return { kind: 'status', response: error.response };
	const code = networkCode(error);
	if (code) return { kind: 'network', code, message: (error as Error).message };
	return { kind: 'other', error: error as Error };
}

function header(response: IN8nHttpFullResponse, name: string): string | undefined {
	for (const [key, value] of Object.entries(response.headers ?? {})) {
		if (key.toLowerCase() === name) return Array.isArray(value) ? String(value[0]) : String(value);
	}
	return undefined;
}

/** Retry-After in seconds or as an HTTP date; one second when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number {
	if (value) {
		const seconds = Number(value);
		if (Number.isFinite(seconds) && seconds >= 0) return Math.max(seconds * 1000, 1);
		const date = Date.parse(value);
		if (Number.isFinite(date)) return Math.max(date - now, 100);
	}
	return 1000;
}

/**
 * How long a 429 asks to wait: `X-RateLimit-Reset-After` (fractional seconds, see the contract)
 * when given, since `Retry-After` rounds up to whole seconds; otherwise `Retry-After`.
 */
export function rateLimitWaitMs(response: IN8nHttpFullResponse): number {
	const precise = Number(header(response, 'x-ratelimit-reset-after'));
	if (Number.isFinite(precise) && precise >= 0 && precise <= RETRY_POLICY.maxRetryAfterMs / 1000) return Math.max(precise * 1000, 1);
	return retryAfterMs(header(response, 'retry-after'));
}

/**
 * How far apart requests start after a 429: the service's own time to the next allowed request,
 * when it says so precisely (`X-RateLimit-Reset-After`) and it is under a second; otherwise 0,
 * since a whole-second Retry-After says nothing about the rate.
 */
export function rateLimitPaceMs(response: IN8nHttpFullResponse): number {
	const precise = Number(header(response, 'x-ratelimit-reset-after'));
	return Number.isFinite(precise) && precise > 0 && precise < 1 ? precise * 1000 : 0;
}

export function backoffMs(failures: number): number {
	const ceiling = Math.min(RETRY_POLICY.maxDelayMs, RETRY_POLICY.baseDelayMs * 2 ** (failures - 1));
	// Full jitter keeps retries of many items from arriving together.
	return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** The service's own words from an error body, whatever its shape. */
/** Binary downloads (the export) receive their error bodies as bytes: read them as JSON or text. */
function readableBody(body: unknown): unknown {
	if (!(body instanceof Buffer || body instanceof ArrayBuffer)) return body;
	const text = Buffer.from(body as Buffer).toString('utf8');
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}

function serviceError(body: unknown): { message?: string; code?: string; field?: string } {
	if (typeof body === 'string') return { message: body.trim().slice(0, 500) || undefined };
	if (typeof body !== 'object' || body === null) return {};
	const record = body as IDataObject;
	const nested = typeof record.error === 'object' && record.error !== null ? (record.error as IDataObject) : undefined;
	const firstListed = Array.isArray(record.errors) ? (record.errors[0] as IDataObject | undefined) : undefined;
	const source = nested ?? firstListed ?? record;
	const message =
		source.message ?? source.detail ?? source.title ?? (typeof record.error === 'string' ? record.error : undefined) ?? record.message;
	return {
		message: typeof message === 'string' ? message : undefined,
		code: typeof source.code === 'string' ? source.code : undefined,
		field: typeof (source.field ?? source.param) === 'string' ? String(source.field ?? source.param) : undefined,
	};
}

const STATUS_HINTS: Record<number, string> = {
	401: 'Check the API key in the credentials.',
	403: "The API key's role does not allow this operation.",
	404: 'No record with this ID in the account.',
	409: "The record's current state does not allow this.",
	413: 'The request is too large: use a smaller file.',
	429: 'The service kept answering "too many requests". Try again later or lower the number of items per run.',
};

/** The NodeApiError users see: the service's message and HTTP code; never a request header. */
export function toNodeApiError(node: INode, failure: Failure, itemIndex?: number): NodeApiError | NodeOperationError {
	if (failure.kind === 'status') {
		const { statusCode } = failure.response;
		const body = readableBody(failure.response.body);
		const { message, code, field } = serviceError(body);
		const details = [code && `code: ${code}`, field && `field: ${field}`].filter(Boolean).join(', ');
		const description = [details && `The service said ${details}.`, STATUS_HINTS[statusCode]].filter(Boolean).join(' ');
		const errorBody = (typeof body === 'object' && body !== null ? body : { message: String(body ?? '') }) as JsonObject;
		return new NodeApiError(node, errorBody, {
			message: message ?? `The service answered HTTP ${statusCode}`,
			description: description || undefined,
			httpCode: String(statusCode),
			itemIndex,
		});
	}
	if (failure.kind === 'network') {
		return new NodeApiError(
			node,
			// Only our own words: the original error carries the request, headers included.
			{ message: 'Could not reach the Document Signing service' },
			{
				// The code stays out of the message: n8n would swap such a message for its generic one.
				message: 'Could not reach the Document Signing service',
				description: `Network error ${failure.code}. Check the Base URL in the credentials and that the service is reachable from n8n.`,
				httpCode: 'none',
				itemIndex,
			},
		);
	}
	const { error } = failure;
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error, { itemIndex });
}

interface SendSettings {
	node: INode;
	method: string;
	baseURL?: string;
	/** A POST may be repeated only when the service can recognise the repeat. */
	idempotent: boolean;
	itemIndex?: number;
	abortSignal?: AbortSignal;
	/** Counted by sendWithRetries: retries after an answer that may hide a completed request. */
	uncertainRetries?: number;
}

/** Runs `send` under the gate, retrying what can be retried without sending anything twice. */
async function sendWithRetries<T>(settings: SendSettings, send: () => Promise<T>): Promise<T> {
	const gate = gateFor(settings.baseURL);
	let failures = 0;
	let refused = 0;
	let rateLimitWaits = 0;
	settings.uncertainRetries = 0;
	for (;;) {
		const startedAt = await gate.acquire();
		let failure: Failure;
		try {
			const result = await send();
			gate.admitted();
			return result;
		} catch (error) {
			failure = describeFailure(error);
			if (failure.kind === 'status' && failure.response.statusCode !== 429) gate.admitted();
		} finally {
			gate.release();
		}

		if (settings.abortSignal?.aborted) throw toNodeApiError(settings.node, failure, settings.itemIndex);

		if (failure.kind === 'status' && failure.response.statusCode === 429) {
			if (++rateLimitWaits > RETRY_POLICY.maxRateLimitWaits) throw toNodeApiError(settings.node, failure, settings.itemIndex);
			const wait = rateLimitWaitMs(failure.response);
			if (wait > RETRY_POLICY.maxRetryAfterMs) throw toNodeApiError(settings.node, failure, settings.itemIndex);
			gate.rateLimited(wait, rateLimitPaceMs(failure.response), startedAt);
			continue;
		}

		const transient =
			(failure.kind === 'status' && RETRYABLE_STATUS.has(failure.response.statusCode)) ||
			(failure.kind === 'network' && RETRYABLE_NETWORK_CODES.has(failure.code));
		// A refused connection never reached the service, so even a plain POST is safe to repeat.
		const safe = settings.idempotent || (failure.kind === 'network' && failure.code === 'ECONNREFUSED');
		if (failure.kind === 'network' && failure.code === 'ECONNREFUSED' && ++refused >= MAX_REFUSED_ATTEMPTS) {
			throw toNodeApiError(settings.node, failure, settings.itemIndex);
		}
		if (transient && safe && ++failures < RETRY_POLICY.maxAttempts) {
			if (!(failure.kind === 'network' && failure.code === 'ECONNREFUSED')) settings.uncertainRetries++;
			await sleep(backoffMs(failures));
			continue;
		}
		throw toNodeApiError(settings.node, failure, settings.itemIndex);
	}
}

function isIdempotentMethod(method: string): boolean {
	return method !== 'POST' && method !== 'PATCH';
}

function findHeader(headers: IDataObject | undefined, name: string): string | undefined {
	for (const [key, value] of Object.entries(headers ?? {})) {
		if (key.toLowerCase() === name && value !== undefined && value !== '') return String(value);
	}
	return undefined;
}

/** The same execution, node, run and item always give the same key, so a repeat is recognised. */
export function deriveIdempotencyKey(...parts: Array<string | number | undefined>): string {
	return 'n8n-' + createHash('sha256').update(parts.map((part) => String(part ?? '')).join('\u0000')).digest('hex').slice(0, 40);
}

// ---------------------------------------------------------------------------------------------
// Validation errors found while building a request are held until the transport runs, so the
// failing item is answered like any other (continueOnFail, pairedItem) and nothing is sent.

const DEFERRED_ERROR = Symbol('documentSigning.deferredError');

type OptionsWithDeferred = IHttpRequestOptions & { [DEFERRED_ERROR]?: Error };

/** Wraps a preSend step: an error it throws is deferred to the transport, not raised mid-build. */
export function deferErrors(
	step: (this: IExecuteSingleFunctions, options: IHttpRequestOptions) => Promise<IHttpRequestOptions>,
) {
	return async function (this: IExecuteSingleFunctions, options: IHttpRequestOptions): Promise<IHttpRequestOptions> {
		if ((options as OptionsWithDeferred)[DEFERRED_ERROR]) return options;
		try {
			return await step.call(this, options);
		} catch (error) {
			(options as OptionsWithDeferred)[DEFERRED_ERROR] = error as Error;
			return options;
		}
	};
}

// ---------------------------------------------------------------------------------------------
// The action node's routing hook.

function listSettings(context: IExecuteSingleFunctions): { returnAll: boolean; limit: number } | undefined {
	const returnAll = context.getNodeParameter('returnAll', false) as boolean;
	const limit = Number(context.getNodeParameter('limit', 0));
	if (!returnAll && !(limit > 0)) return undefined;
	return { returnAll, limit };
}

function applyNextPage(options: DeclarativeRestApiSettings.HttpRequestOptions, next: NextPage): void {
	options.qs = options.qs ?? {};
	if (next.kind === 'cursor') options.qs.cursor = next.cursor;
	if (next.kind === 'page') options.qs.page = next.page;
	if (next.kind === 'url') {
		// The next link carries the whole query.
		options.url = next.url;
		options.qs = {};
	}
}

/** Upper bound on pages for one list, against a service that never stops saying "more". */
const MAX_PAGES = 100_000;

/**
 * `requestOperations.pagination` of the action node: sends one item's request (or every page of
 * a list) through the retry policy and returns its output items, each paired with the input item.
 */
export async function executeRoutedRequest(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	const itemIndex = this.getItemIndex();
	const node = this.getNode();
	const pair = (items: INodeExecutionData[]) => items.map((item) => ({ ...item, pairedItem: { item: itemIndex } }));

	try {
		const deferred = (requestData.options as OptionsWithDeferred)[DEFERRED_ERROR];
		if (deferred) throw deferred;

		const options = requestData.options;
		const method = String(options.method ?? 'GET').toUpperCase();
		options.ignoreHttpStatusErrors = true;
		options.headers = options.headers ?? {};
		if (method === 'POST' && !findHeader(options.headers, IDEMPOTENCY_KEY_HEADER)) {
			const runIndex = this.evaluateExpression('{{ $runIndex }}', itemIndex) as number;
			options.headers['Idempotency-Key'] = deriveIdempotencyKey(
				this.getExecutionId(),
				this.getWorkflow().id,
				node.id ?? node.name,
				runIndex,
				itemIndex,
			);
		}

		// Checked first on every answer: error statuses leave before the output steps see them.
		let lastResponse: IN8nHttpFullResponse | undefined;
		const list = listSettings(this);
		const steps: DeclarativeRestApiSettings.ResultOptions['postReceive'] = [
			{
				data: { parameterValue: undefined },
				actions: [
					async function checkStatus(items, response) {
						if (response.statusCode >= 400) throw new HttpStatusError(response);
						lastResponse = response;
						if (!list) return items;
						return extractRecords(response.body).map((json) => ({ json }));
					},
				],
			},
		];
		requestData.postReceive.unshift(...steps);

		const settings: SendSettings = {
			node,
			method,
			baseURL: options.baseURL,
			idempotent: isIdempotentMethod(method) || Boolean(findHeader(options.headers, IDEMPOTENCY_KEY_HEADER)),
			itemIndex,
			abortSignal: this.getExecutionCancelSignal(),
		};
		const send = async () => await this.makeRoutingRequest(requestData);

		if (!list) {
			try {
				return pair(await sendWithRetries(settings, send));
			} catch (error) {
				// A DELETE whose first attempt went through but whose answer was lost finds nothing the
				// second time: that is the outcome the user asked for.
				if (method === 'DELETE' && error instanceof NodeApiError && error.httpCode === '404' && (settings.uncertainRetries ?? 0) > 0) {
					return pair([{ json: { deleted: true } }]);
				}
				throw toNodeApiError(node, describeFailure(error), itemIndex);
			}
		}

		const results: INodeExecutionData[] = [];
		const seenCursors = new Set<string>();
		let page = 1;
		for (let pages = 0; pages < MAX_PAGES; pages++) {
			const wanted = list.returnAll ? MAX_PAGE_SIZE : Math.min(MAX_PAGE_SIZE, list.limit - results.length);
			options.qs = options.qs ?? {};
			if (!options.url?.startsWith('http')) options.qs.limit = wanted;
			const records = await sendWithRetries(settings, send);
			results.push(...records);
			if (!list.returnAll && results.length >= list.limit) break;
			const next = lastResponse && findNextPage(lastResponse as never, page, records.length, wanted);
			if (!next) break;
			const marker = JSON.stringify(next);
			if (seenCursors.has(marker)) break;
			seenCursors.add(marker);
			if (next.kind === 'page') page = next.page;
			applyNextPage(options, next);
		}
		return pair(list.returnAll ? results : results.slice(0, list.limit));
	} catch (error) {
		const nodeError = toNodeApiError(node, describeFailure(error), itemIndex);
		if (this.continueOnFail()) {
			return [{ json: { error: nodeError.message }, error: nodeError, pairedItem: { item: itemIndex } }];
		}
		throw nodeError;
	}
}

// ---------------------------------------------------------------------------------------------
// Direct requests: the trigger's webhook lifecycle and the list searches.

type ApiContext = IHookFunctions | IWebhookFunctions | ILoadOptionsFunctions | IExecuteSingleFunctions | IExecuteFunctions;

export interface ApiRequestOptions {
	qs?: IDataObject;
	body?: IDataObject;
	/** Makes a POST safe to retry: the service answers a repeat with the first result. */
	idempotencyKey?: string;
	/** Error statuses the caller reads as answers (returned, not thrown, never retried). */
	answerStatuses?: number[];
	/** One attempt only, given up after this many ms (for checks that must not hold anything up). */
	singleAttemptTimeoutMs?: number;
}

export async function credentialsBaseUrl(context: ApiContext): Promise<string> {
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	return String(credentials.baseUrl ?? '').replace(/\/+$/, '');
}

/** One request with the retry policy; returns the full answer (2xx, or one of `answerStatuses`). */
export async function apiRequest(
	context: ApiContext,
	method: IHttpRequestMethods,
	path: string,
	{ qs, body, idempotencyKey, answerStatuses = [], singleAttemptTimeoutMs }: ApiRequestOptions = {},
): Promise<IN8nHttpFullResponse> {
	const baseURL = await credentialsBaseUrl(context);
	const headers: IDataObject = {};
	if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
	const options: IHttpRequestOptions = {
		method,
		url: path.startsWith('http') ? path : `${baseURL}${path}`,
		qs,
		body,
		json: true,
		headers,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		...(singleAttemptTimeoutMs ? { timeout: singleAttemptTimeoutMs } : {}),
	};
	const send = async () => {
		const response = (await context.helpers.httpRequestWithAuthentication.call(context, CREDENTIAL_TYPE, options)) as IN8nHttpFullResponse;
		if (response.statusCode >= 400 && !answerStatuses.includes(response.statusCode)) throw new HttpStatusError(response);
		return response;
	};
	if (singleAttemptTimeoutMs) {
		try {
			return await send();
		} catch (error) {
			throw toNodeApiError(context.getNode(), describeFailure(error));
		}
	}
	return await sendWithRetries(
		{ node: context.getNode(), method, baseURL, idempotent: isIdempotentMethod(method) || Boolean(idempotencyKey) },
		send,
	);
}

/** One page of a list: its records and where the next page is (for list searches). */
export async function apiRequestPage(
	context: ApiContext,
	path: string,
	qs: IDataObject,
	pageToken?: string,
): Promise<{ records: IDataObject[]; nextToken?: string }> {
	const token = pageToken ? (JSON.parse(pageToken) as NextPage & { page?: number }) : undefined;
	const query: IDataObject = { ...qs };
	let url = path;
	if (token?.kind === 'cursor') query.cursor = token.cursor;
	if (token?.kind === 'page') query.page = token.page;
	if (token?.kind === 'url') url = token.url;
	const pageSize = Number(query.limit ?? MAX_PAGE_SIZE);
	const response = await apiRequest(context, 'GET', url, {
		qs: token?.kind === 'url' ? undefined : query,
	});
	const records = extractRecords(response.body);
	const next = findNextPage(response as never, token?.kind === 'page' ? token.page : 1, records.length, pageSize);
	return { records, nextToken: next ? JSON.stringify(next) : undefined };
}

/** Every record of a list, page after page. */
export async function apiRequestAllRecords(context: ApiContext, path: string, qs: IDataObject = {}): Promise<IDataObject[]> {
	const records: IDataObject[] = [];
	let token: string | undefined;
	const seen = new Set<string>();
	do {
		const page = await apiRequestPage(context, path, { limit: MAX_PAGE_SIZE, ...qs }, token);
		records.push(...page.records);
		token = page.nextToken;
		if (token && seen.has(token)) break;
		if (token) seen.add(token);
	} while (token);
	return records;
}
