import type { IDataObject, IN8nHttpFullResponse, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { headerValue } from './headers';
import { isHtml, readPage } from './htmlPages';
import { MAX_MESSAGE_LENGTH, shownText } from './text';

/**
 * Every failure of a request becomes one of two n8n errors: a NodeApiError carrying the service's
 * own words and HTTP code, or the NodeOperationError of a check that ran before anything was sent.
 * Never a request header (the API key) or a response's raw request object.
 */

/** A response with an error status, kept whole so the retry policy can read Retry-After. */
export class HttpStatusError extends Error {
	constructor(readonly response: IN8nHttpFullResponse) {
		super(`HTTP ${response.statusCode}`);
	}
}

/**
 * The service did something the package refuses to go along with (a next link to another origin,
 * a page that repeats, a response that is not JSON): `message` says what it did, `description`
 * what happened instead and what to do.
 */
export class ServiceBehaviourError extends Error {
	constructor(
		message: string,
		readonly description: string,
		readonly httpCode = 'none',
	) {
		super(message);
	}
}

export type Failure =
	| { kind: 'status'; response: IN8nHttpFullResponse }
	| { kind: 'network'; code: string }
	| { kind: 'behaviour'; error: ServiceBehaviourError }
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

export function describeFailure(error: unknown): Failure {
	if (error instanceof HttpStatusError) return { kind: 'status', response: error.response };
	if (error instanceof ServiceBehaviourError) return { kind: 'behaviour', error };
	const code = networkCode(error);
	if (code) return { kind: 'network', code };
	return { kind: 'other', error: error instanceof Error ? error : new Error(String(error)) };
}

/** Binary downloads receive their error bodies as bytes: read them as JSON or text. */
export function readableBody(body: unknown): unknown {
	if (!(body instanceof Buffer || body instanceof ArrayBuffer)) return body;
	const text = Buffer.from(body as Buffer).toString('utf8');
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}

interface ServiceWords {
	message?: string;
	code?: string;
	field?: string;
	more?: number;
}

const MAX_WORD_LENGTH = 100;
/** An error body larger than this (as JSON) is not kept whole in the error, only the words read from it. */
const MAX_KEPT_BODY_LENGTH = 4_000;

const text = (value: unknown, max = MAX_MESSAGE_LENGTH): string | undefined =>
	typeof value === 'string' && value.trim() !== '' ? shownText(value.trim(), max) : undefined;

/** The service's own words from an error body, whatever its shape. */
export function serviceWords(body: unknown): ServiceWords {
	if (typeof body === 'string') return { message: text(body) };
	if (typeof body !== 'object' || body === null) return {};
	const record = body as IDataObject;
	const nested =
		typeof record.error === 'object' && record.error !== null && !Array.isArray(record.error)
			? (record.error as IDataObject)
			: undefined;
	const listed = Array.isArray(record.errors) ? record.errors : undefined;
	const first = listed?.[0];
	const firstObject =
		typeof first === 'object' && first !== null ? (first as IDataObject) : undefined;
	const source = nested ?? firstObject ?? record;
	const message =
		text(source.message) ??
		text(source.detail) ??
		text(source.title) ??
		text(source.msg) ??
		text(first) ??
		text(record.error) ??
		text(record.error_description) ??
		text(record.message) ??
		text(record.detail);
	const field =
		text(source.field, MAX_WORD_LENGTH) ??
		text(source.param, MAX_WORD_LENGTH) ??
		text(source.pointer, MAX_WORD_LENGTH) ??
		text((source.source as IDataObject | undefined)?.pointer, MAX_WORD_LENGTH);
	return {
		message,
		code:
			text(source.code, MAX_WORD_LENGTH) ??
			(typeof source.code === 'number' ? String(source.code) : undefined),
		field,
		more: listed && listed.length > 1 ? listed.length - 1 : undefined,
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

function statusError(
	node: INode,
	response: IN8nHttpFullResponse,
	itemIndex?: number,
): NodeApiError {
	const { statusCode } = response;
	const body = readableBody(response.body);
	const contentType = headerValue(response.headers, 'content-type');
	if (isHtml(body, contentType)) {
		const { title, words } = readPage(typeof body === 'string' ? body : '');
		return new NodeApiError(
			node,
			{ message: `HTTP ${statusCode}` },
			{
				message: `The service answered HTTP ${statusCode} with a web page${title ? ` ("${title}")` : ''} instead of an API response`,
				description: `${words ? `The page says: "${words}". ` : ''}Such pages come from a proxy, load balancer or gateway in front of the API, or from a Base URL that points at a website. Check the Base URL in the credentials; if it is right, the service is probably having trouble.`,
				httpCode: String(statusCode),
				itemIndex,
			},
		);
	}
	const { message, code, field, more } = serviceWords(body);
	const details = [code && `code: ${code}`, field && `field: ${field}`].filter(Boolean).join(', ');
	const description = [
		details && `The service said ${details}.`,
		more && `It reported ${more} more problem${more > 1 ? 's' : ''}.`,
		STATUS_HINTS[statusCode],
	]
		.filter(Boolean)
		.join(' ');
	// The body goes into the execution's data with the error: kept whole only when small.
	const small =
		typeof body === 'object' &&
		body !== null &&
		JSON.stringify(body).length <= MAX_KEPT_BODY_LENGTH;
	const errorBody = (
		small
			? body
			: {
					message: message ?? `HTTP ${statusCode}`,
					...(code ? { code } : {}),
					...(field ? { field } : {}),
				}
	) as JsonObject;
	return new NodeApiError(node, errorBody, {
		message: message ?? `The service answered HTTP ${statusCode}`,
		description: description || undefined,
		httpCode: String(statusCode),
		itemIndex,
	});
}

/** The error users see for any failure of a request. */
export function toNodeError(
	node: INode,
	error: unknown,
	itemIndex?: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return failureToNodeError(node, describeFailure(error), itemIndex);
}

export function failureToNodeError(
	node: INode,
	failure: Failure,
	itemIndex?: number,
): NodeApiError | NodeOperationError {
	// Already one of n8n's (a nested request of ours failed): passed on as it is.
	if (
		failure.kind === 'other' &&
		(failure.error instanceof NodeApiError || failure.error instanceof NodeOperationError)
	)
		return failure.error;
	if (failure.kind === 'status') return statusError(node, failure.response, itemIndex);
	if (failure.kind === 'network') {
		return new NodeApiError(
			node,
			// Only our own words: the original error carries the request, headers included.
			{ message: 'Could not reach the Document Signing service' },
			{
				// The code stays out of the message: n8n would swap such a message for its generic one.
				message: 'Could not reach the Document Signing service',
				description:
					failure.code === 'ETIMEDOUT'
						? 'No complete response came within the time allowed for one attempt (ETIMEDOUT). Check that the service is reachable from n8n and not overloaded.'
						: `Network error ${failure.code}. Check the Base URL in the credentials and that the service is reachable from n8n.`,
				httpCode: 'none',
				itemIndex,
			},
		);
	}
	if (failure.kind === 'behaviour') {
		const { message, description, httpCode } = failure.error;
		return new NodeApiError(node, { message }, { message, description, httpCode, itemIndex });
	}
	// The message only: an unexpected error (from the HTTP layer, say) may carry the request's headers.
	return new NodeOperationError(node, failure.error.message, { itemIndex });
}

/** Whether a failure is the service's 404 (a record already gone). */
export function isNotFound(error: unknown): boolean {
	return String((error as { httpCode?: unknown })?.httpCode ?? '') === '404';
}
