import type { IDataObject, IN8nHttpFullResponse, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeError, NodeOperationError } from 'n8n-workflow';

import { networkCode, networkError } from './retry';
import { headerValue, shownText } from './text';

/**
 * Every failure of a request becomes a NodeApiError carrying the service's own words and HTTP code,
 * or a NodeOperationError, built from plain data; never with a request header (the API key), the
 * request library's error or config, or a socket, at any depth of the error (docs/security.md).
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

/**
 * Keys under which a request travels in an error: the request library's config and request, a
 * socket, raw header text, or a header itself.
 */
const REQUEST_KEYS: ReadonlySet<string> = new Set([
	'_header',
	'agent',
	'authorization',
	'config',
	'cookie',
	'headers',
	'proxy-authorization',
	'req',
	'request',
	'res',
	'response',
	'set-cookie',
	'socket',
	'x-api-key',
]);
/** Values looked at before an error is judged too large to vouch for (it is rebuilt then). */
const MAX_VALUES_CHECKED = 2_000;

/**
 * Whether an n8n error holds only plain data in all it carries (own properties, hidden ones too:
 * `cause`, `errorResponse`, `context`, …, at every depth): no object of a class other than Error,
 * and no key under which a request, its headers or its socket travel. The n8n node it names (the
 * workflow's node, which n8n adds to every error) is not looked into.
 */
function holdsOnlyPlainData(error: NodeApiError | NodeOperationError): boolean {
	const seen = new Set<object>();
	const pending: Array<{ value: unknown; depth: number }> = [{ value: error, depth: 0 }];
	while (pending.length > 0) {
		const { value, depth } = pending.pop()!;
		if (value === null || value === undefined) continue;
		if (typeof value === 'function' || typeof value === 'symbol') return false;
		if (typeof value !== 'object') continue;
		if (seen.has(value)) continue;
		seen.add(value);
		if (seen.size > MAX_VALUES_CHECKED || depth > 12) return false;
		const prototype = Object.getPrototypeOf(value) as unknown;
		const plain =
			value instanceof Error ||
			Array.isArray(value) ||
			prototype === Object.prototype ||
			prototype === null;
		if (!plain) return false;
		for (const key of Object.getOwnPropertyNames(value)) {
			if (REQUEST_KEYS.has(key.toLowerCase())) return false;
			if (key === 'node' && value instanceof NodeError) continue;
			const descriptor = Object.getOwnPropertyDescriptor(value, key);
			if (descriptor?.get || descriptor?.set) return false;
			pending.push({ value: descriptor?.value, depth: depth + 1 });
		}
	}
	return true;
}

/** An n8n error rebuilt from its words alone (message, description, HTTP code, item). */
function rebuilt(
	node: INode,
	error: NodeApiError | NodeOperationError,
	itemIndex?: number,
): NodeApiError | NodeOperationError {
	const message =
		firstText([error.message]) ?? 'The request to the Document Signing service failed';
	const description = firstText([error.description]);
	const item = itemIndex ?? (error.context?.itemIndex as number | undefined);
	if (error instanceof NodeApiError) {
		const httpCode = firstText([error.httpCode]) ?? 'none';
		return new NodeApiError(node, { message }, { message, description, httpCode, itemIndex: item });
	}
	return new NodeOperationError(node, message, { description, itemIndex: item });
}

/** The first of `values` that is text, trimmed and bounded. */
const firstText = (values: unknown[], max?: number): string | undefined => {
	const found = values.find((value) => typeof value === 'string' && value.trim() !== '');
	return found === undefined ? undefined : shownText((found as string).trim(), max);
};
const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null;

/** The service's own words from an error body, whatever its shape. */
function serviceWords(body: unknown) {
	if (typeof body === 'string') return { message: firstText([body]) };
	if (!isObject(body))
		return {} as { message?: string; code?: string; field?: string; more?: number };
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

/** HTML error pages (a proxy's, a gateway's, a login page): recognised, and read within a bound in one pass. */
const HTML = /^\s*(<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>])/i;

export function isHtml(body: unknown, contentType?: string): boolean {
	return (typeof body === 'string' && HTML.test(body)) || /\btext\/html\b/i.test(contentType ?? '');
}

/** The most of a page that is read: its title and first words are near its start. */
const MAX_PAGE_READ = 8_000;
const HIDDEN_ELEMENTS: readonly string[] = ['script', 'style', 'template', 'noscript'];
const ENTITIES = { nbsp: ' ', amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };
/** `<name`, `</name` or `<!`/`<?`; anything else after `<` is text ("a < b"). */
const TAG = /<(\/?)([a-z][a-z\d]*)|<[!?]/iy;

/**
 * The page's title (its <title>, else its first <h1>) and the words a person would read on it,
 * from its first MAX_PAGE_READ characters. Every search starts where the last one ended: linear.
 */
function readPage(page: string): { title?: string; words: string } {
	const html = page.slice(0, MAX_PAGE_READ);
	const lower = html.toLowerCase();
	const find = (needle: string, from: number) => {
		const at = lower.indexOf(needle, from);
		return at < 0 ? html.length : at;
	};
	let words = '';
	let title: string | undefined;
	let heading: string | undefined;
	let capture: { name: string; text: string } | undefined;
	// A title's text is not among the page's words; a heading's is.
	const emit = (text: string) => {
		if (capture) capture.text += text;
		if (capture?.name !== 'title') words += text;
	};
	let position = 0;
	while (position < html.length) {
		const open = find('<', position);
		emit(html.slice(position, open));
		if (open === html.length) break;
		if (html.startsWith('<!--', open)) {
			position = find('-->', open + 4) + 3;
			continue;
		}
		TAG.lastIndex = open;
		const tag = TAG.exec(html);
		if (!tag) {
			emit('<');
			position = open + 1;
			continue;
		}
		const name = (tag[2] ?? '').toLowerCase();
		position = find('>', TAG.lastIndex) + 1;
		emit(' ');
		if (tag[1]) {
			if (capture?.name === name) {
				const text = pageText(capture.text, 200) || undefined;
				if (name === 'title') title ??= text;
				else heading ??= text;
				capture = undefined;
			}
		} else if (HIDDEN_ELEMENTS.includes(name)) position = find(`</${name}`, position);
		else if ((name === 'title' && title === undefined) || (name === 'h1' && heading === undefined))
			capture = { name, text: '' };
	}
	return { title: title ?? heading, words: pageText(words, 300) };
}

/** Page text as shown: entities read, white space collapsed, cut, markup characters as look-alikes. */
function pageText(text: string, max: number): string {
	const entity = (_: string, name: string) => ENTITIES[name.toLowerCase() as keyof typeof ENTITIES];
	const plain = text.replace(/&(nbsp|amp|lt|gt|quot|#39);/gi, entity).replace(/\s+/g, ' ');
	return shownText(plain.trim(), max);
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
		const message = `The service answered HTTP ${statusCode} with a web page${title ? ` ("${title}")` : ''} instead of an API response`;
		const description = `${words ? `The page says: "${words}". ` : ''}Such pages come from a proxy, load balancer or gateway in front of the API, or from a Base URL that points at a website. Check the Base URL in the credentials; if it is right, the service is probably having trouble.`;
		const answer = { message, description, httpCode, itemIndex };
		return new NodeApiError(node, { message: `HTTP ${statusCode}` }, answer);
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
 * The error users see for any failure of a request. n8n's own errors pass on as they are when they
 * hold only plain data, unless `ourNetworkWords` (the retry policy): then a failure of the connection
 * is told in our words even when n8n's helper wrapped it. Any other n8n error is rebuilt from its
 * words: n8n's request helper builds its errors around the request library's, which holds the
 * request's headers (the API key) and its socket.
 */
export function toNodeError(
	node: INode,
	error: unknown,
	itemIndex?: number,
	ourNetworkWords = false,
): NodeApiError | NodeOperationError {
	const n8nError = error instanceof NodeApiError || error instanceof NodeOperationError;
	const plain = n8nError && holdsOnlyPlainData(error);
	if (plain && !ourNetworkWords) return error;
	if (error instanceof HttpStatusError) return statusError(node, error.response, itemIndex);
	if (error instanceof ServiceBehaviourError) {
		const { message, description, httpCode } = error;
		return new NodeApiError(node, { message }, { message, description, httpCode, itemIndex });
	}
	const code = networkCode(error);
	if (code) return networkError(node, code, itemIndex);
	// A nested request of ours failed: passed on as it is.
	if (plain) return error;
	if (n8nError) return rebuilt(node, error, itemIndex);
	// The message only: an unexpected error (from the HTTP layer, say) may carry the request's headers.
	return new NodeOperationError(node, error instanceof Error ? error.message : String(error), {
		itemIndex,
	});
}

/** Whether a failure is the service's 404 (a record already gone). */
export function isNotFound(error: unknown): boolean {
	return String((error as { httpCode?: unknown })?.httpCode ?? '') === '404';
}
