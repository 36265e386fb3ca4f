import type { IDataObject, IN8nHttpFullResponse, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { headerValue } from './headers';
import { isHtml, readPage } from './htmlPages';
import { shownText } from './text';

/**
 * Every failure of a request becomes a NodeApiError carrying the service's own words and HTTP code,
 * or a NodeOperationError; never with a request header (the API key) or the raw request object.
 */

/** A response with an error status, kept whole so the retry policy can read Retry-After. */
export class HttpStatusError extends Error {
	constructor(readonly response: IN8nHttpFullResponse) {
		super(`HTTP ${response.statusCode}`);
	}
}

/** The service did something the package refuses to go along with: `description` says what to do. */
export class ServiceBehaviourError extends Error {
	constructor(
		message: string,
		readonly description: string,
		readonly httpCode = 'none',
	) {
		super(message);
	}
}

/** Refuses error statuses (as HttpStatusError, for the retry policy), redirects, and text for JSON. */
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

/** An attempt given up at its own time limit: reported as the network's ETIMEDOUT. */
export const timedOut = () => Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' });

/** The network error code (ECONNRESET…) of an error or of its causes. */
export function networkCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 5 && current; depth++) {
		const code = (current as { code?: unknown }).code;
		if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

/** The first of `values` that is text, trimmed and bounded. */
const firstText = (values: unknown[], max?: number): string | undefined => {
	const found = values.find((value) => typeof value === 'string' && value.trim() !== '');
	return found === undefined ? undefined : shownText((found as string).trim(), max);
};
const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null;

/** The service's own words from an error body, whatever its shape. */
export function serviceWords(body: unknown): {
	message?: string;
	code?: string;
	field?: string;
	more?: number;
} {
	if (typeof body === 'string') return { message: firstText([body]) };
	if (!isObject(body)) return {};
	const listed = Array.isArray(body.errors) ? body.errors : undefined;
	const first = listed?.[0];
	const source =
		(isObject(body.error) && !Array.isArray(body.error) ? body.error : undefined) ??
		(isObject(first) ? first : body);
	return {
		message: firstText([
			source.message,
			source.detail,
			source.title,
			source.msg,
			first,
			body.error,
			body.error_description,
			body.message,
			body.detail,
		]),
		code: firstText([typeof source.code === 'number' ? String(source.code) : source.code], 100),
		field: firstText(
			[source.field, source.param, source.pointer, (source.source as IDataObject)?.pointer],
			100,
		),
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

function statusError(node: INode, response: IN8nHttpFullResponse, itemIndex?: number) {
	const { statusCode, body } = response;
	const httpCode = String(statusCode);
	if (isHtml(body, headerValue(response.headers, 'content-type'))) {
		const { title, words } = readPage(typeof body === 'string' ? body : '');
		return new NodeApiError(
			node,
			{ message: `HTTP ${statusCode}` },
			{
				message: `The service answered HTTP ${statusCode} with a web page${title ? ` ("${title}")` : ''} instead of an API response`,
				description: `${words ? `The page says: "${words}". ` : ''}Such pages come from a proxy, load balancer or gateway in front of the API, or from a Base URL that points at a website. Check the Base URL in the credentials; if it is right, the service is probably having trouble.`,
				httpCode,
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
	const small = isObject(body) && JSON.stringify(body).length <= 4_000;
	const errorBody = small
		? body
		: {
				message: message ?? `HTTP ${statusCode}`,
				...(code ? { code } : {}),
				...(field ? { field } : {}),
			};
	return new NodeApiError(node, errorBody as JsonObject, {
		message: message ?? `The service answered HTTP ${statusCode}`,
		description: description || undefined,
		httpCode,
		itemIndex,
	});
}

/**
 * The error users see for any failure of a request. n8n's own errors pass on as they are, unless
 * `ourNetworkWords` (the retry policy): then a network failure is told in our words even when n8n's
 * helper wrapped it.
 */
export function toNodeError(
	node: INode,
	error: unknown,
	itemIndex?: number,
	ourNetworkWords = false,
): NodeApiError | NodeOperationError {
	const n8nError = error instanceof NodeApiError || error instanceof NodeOperationError;
	if (n8nError && !ourNetworkWords) return error;
	if (error instanceof HttpStatusError) return statusError(node, error.response, itemIndex);
	if (error instanceof ServiceBehaviourError) {
		const { message, description, httpCode } = error;
		return new NodeApiError(node, { message }, { message, description, httpCode, itemIndex });
	}
	const code = networkCode(error);
	if (code) {
		return new NodeApiError(
			node,
			// Only our own words: the original error carries the request, headers included.
			{ message: 'Could not reach the Document Signing service' },
			{
				// The code stays out of the message: n8n would swap such a message for its generic one.
				message: 'Could not reach the Document Signing service',
				description:
					code === 'ETIMEDOUT'
						? 'No complete response came within the time allowed for one attempt (ETIMEDOUT). Check that the service is reachable from n8n and not overloaded.'
						: `Network error ${code}. Check the Base URL in the credentials and that the service is reachable from n8n.`,
				httpCode: 'none',
				itemIndex,
			},
		);
	}
	// A nested request of ours failed: passed on as it is.
	if (n8nError) return error;
	// The message only: an unexpected error (from the HTTP layer, say) may carry the request's headers.
	return new NodeOperationError(node, error instanceof Error ? error.message : String(error), {
		itemIndex,
	});
}

/** Whether a failure is the service's 404 (a record already gone). */
export function isNotFound(error: unknown): boolean {
	return String((error as { httpCode?: unknown })?.httpCode ?? '') === '404';
}
