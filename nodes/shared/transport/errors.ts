import type { IDataObject, IN8nHttpFullResponse, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { headerValue } from './headers';

/**
 * Every failure of a request becomes one of two n8n errors: a NodeApiError carrying the service's
 * own words and HTTP code, or the NodeOperationError of a check that ran before anything was sent.
 * Never a request header (the API key) or a response's raw request object.
 */

/** An answer with an error status, kept whole so the retry policy can read Retry-After. */
export class HttpStatusError extends Error {
	constructor(readonly response: IN8nHttpFullResponse) {
		super(`HTTP ${response.statusCode}`);
	}
}

/**
 * The service did something the package refuses to go along with (a next link to another origin,
 * a page that repeats, an answer that is not JSON): `message` says what it did, `description`
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

const HTML = /^\s*(<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>])/i;

export function isHtml(body: unknown, contentType?: string): boolean {
	return (typeof body === 'string' && HTML.test(body)) || /\btext\/html\b/i.test(contentType ?? '');
}

/**
 * The most of an HTML error page that is read. Its title and first words are near its start, and
 * a bound here keeps the reading cheap whatever a server sends.
 */
export const MAX_PAGE_READ = 8_000;
const MAX_PAGE_WORDS = 300;
const MAX_PAGE_TITLE = 200;

export interface PageSummary {
	/** The page's <title>, else its first <h1>. */
	title?: string;
	/** What a person would read on it: no markup, scripts, styles or comments. */
	words: string;
}

/** Elements whose content is never shown as text. */
const HIDDEN_ELEMENTS = new Set(['script', 'style', 'template', 'noscript']);
const ENTITIES: Record<string, string> = {
	'&nbsp;': ' ',
	'&amp;': '&',
	'&lt;': '<',
	'&gt;': '>',
	'&quot;': '"',
	'&#39;': "'",
};

const isLetter = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
const isNameCharacter = (code: number) => isLetter(code) || (code >= 48 && code <= 57);

/**
 * The title and words of an HTML page, read from its first MAX_PAGE_READ characters in one pass:
 * every search starts where the previous one ended (a search that found nothing is not repeated),
 * so the work grows with the page's length only, whatever its markup.
 */
export function readPage(page: string): PageSummary {
	const html = page.slice(0, MAX_PAGE_READ);
	const lower = html.toLowerCase();
	const found = new Map<string, number>();
	/** The next `needle` at or after `from` (the end when none); repeated searches resume. */
	const next = (needle: string, from: number): number => {
		const known = found.get(needle);
		if (known !== undefined && (known >= from || known === html.length)) return known;
		const at = lower.indexOf(needle, from);
		const result = at === -1 ? html.length : at;
		found.set(needle, result);
		return result;
	};
	const words: string[] = [];
	let title: string | undefined;
	let heading: string | undefined;
	/** The open <title> or <h1> whose text is being read. */
	let capture: { name: string; words: string[] } | undefined;
	// A title's text is not among the page's words; a heading's is.
	const emit = (text: string) => {
		if (capture) capture.words.push(text);
		if (capture?.name !== 'title') words.push(text);
	};
	let position = 0;
	while (position < html.length) {
		const open = next('<', position);
		if (open > position) emit(html.slice(position, open));
		if (open >= html.length) break;
		const after = html.charCodeAt(open + 1);
		if (html.startsWith('<!--', open)) {
			position = next('-->', open + 4) + 3;
			continue;
		}
		const closing = after === 47; /* / */
		const nameStart = open + (closing ? 2 : 1);
		if (!(isLetter(html.charCodeAt(nameStart)) || (!closing && (after === 33 || after === 63)))) {
			// "a < b": not a tag, the "<" is text.
			emit('<');
			position = open + 1;
			continue;
		}
		let nameEnd = nameStart;
		while (
			nameEnd < html.length &&
			nameEnd - nameStart < 10 &&
			isNameCharacter(html.charCodeAt(nameEnd))
		)
			nameEnd++;
		const name = lower.slice(nameStart, nameEnd);
		const end = next('>', nameEnd);
		position = end + 1;
		emit(' ');
		if (closing) {
			if (capture?.name === name) {
				const text = pageText(capture.words.join(''), MAX_PAGE_TITLE);
				if (name === 'title') title ??= text || undefined;
				else heading ??= text || undefined;
				capture = undefined;
			}
		} else if (HIDDEN_ELEMENTS.has(name)) {
			position = next(`</${name}`, position);
		} else if (
			(name === 'title' && title === undefined) ||
			(name === 'h1' && heading === undefined)
		) {
			capture = { name, words: [] };
		}
	}
	return { title: title ?? heading, words: pageText(words.join(''), MAX_PAGE_WORDS) };
}

/** Page text as shown: entities read, white space collapsed, cut, markup characters as look-alikes. */
function pageText(text: string, max: number): string {
	const plain = text
		.replace(/&(?:nbsp|amp|lt|gt|quot|#39);/gi, (entity) => ENTITIES[entity.toLowerCase()])
		.replace(/\s+/g, ' ')
		.trim();
	return shownText(plain, max);
}

interface ServiceWords {
	message?: string;
	code?: string;
	field?: string;
	more?: number;
}

/** Longest service message shown; codes and field names are shorter still. */
export const MAX_MESSAGE_LENGTH = 500;
const MAX_WORD_LENGTH = 100;
/** An error body larger than this (as JSON) is not kept whole in the error, only the words read from it. */
const MAX_KEPT_BODY_LENGTH = 4_000;

/**
 * The service's text as n8n may show it: cut to `max` characters, and with `<` and `>` replaced by
 * look-alikes, so markup in it shows as text wherever n8n renders a message or description as HTML.
 */
export function shownText(value: string, max = MAX_MESSAGE_LENGTH): string {
	const cut = value.length > max ? `${value.slice(0, max - 1).trimEnd()}…` : value;
	return cut.replace(/</g, '‹').replace(/>/g, '›');
}

/** Longest input value an error message repeats; the rest is replaced by its length. */
const MAX_SHOWN_INPUT = 80;

/**
 * A value from the user, an input item or a model as an error repeats it: quoted, and cut to
 * MAX_SHOWN_INPUT characters with its length said, so a huge value never fills a message.
 */
export function shownInput(value: string): string {
	return value.length > MAX_SHOWN_INPUT
		? `"${value.slice(0, MAX_SHOWN_INPUT)}…" (${value.length} characters)`
		: `"${value}"`;
}

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
						? 'No complete answer came within the time allowed for one attempt (ETIMEDOUT). Check that the service is reachable from n8n and not overloaded.'
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
