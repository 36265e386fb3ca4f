import type { IDataObject, IN8nHttpFullResponse, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeError, NodeOperationError } from 'n8n-workflow';

import { headerValue, shownText } from './text';

/**
 * Every failure becomes a NodeApiError (the service's words, key removed, and HTTP code) or a
 * NodeOperationError, built anew from plain data: never holding a request header or socket.
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

const firstText = (values: unknown[], max?: number): string | undefined => {
	const found = values.find((value) => typeof value === 'string' && value.trim() !== '');
	return found === undefined ? undefined : shownText((found as string).trim(), max);
};
const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null;

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

/** The page's <title> (else first <h1>) and readable words; each search starts where the last ended. */
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

/** The service's body an error of ours keeps (its errorResponse), for when it is built again. */
const keptBodies = new WeakMap<NodeApiError, JsonObject>();
function kept(error: NodeApiError, body: JsonObject): NodeApiError {
	keptBodies.set(error, body);
	return error;
}

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
	const answer = {
		message: message ?? `The service answered HTTP ${statusCode}`,
		description: description || undefined,
		httpCode,
		itemIndex,
	};
	return kept(new NodeApiError(node, errorBody as JsonObject, answer), errorBody as JsonObject);
}

/** The error users see, built anew: n8n's errors hold the request's headers (the API key). */
export function toNodeError(
	node: INode,
	error: unknown,
	itemIndex?: number,
): NodeApiError | NodeOperationError {
	if (error instanceof HttpStatusError) return statusError(node, error.response, itemIndex);
	if (error instanceof ServiceBehaviourError) {
		const { message, description, httpCode } = error;
		return new NodeApiError(node, { message }, { message, description, httpCode, itemIndex });
	}
	const code = networkCode(error);
	if (code) return networkError(node, code, itemIndex);
	const words = error instanceof NodeError ? error : undefined;
	const message =
		textOf(error instanceof Error ? error.message : String(error)) ??
		'The request to the Document Signing service failed';
	const description = textOf(words?.description);
	const item = itemIndex ?? (words?.context.itemIndex as number | undefined);
	if (!(error instanceof NodeApiError))
		return new NodeOperationError(node, message, { description, itemIndex: item });
	const httpCode = textOf(error.httpCode) ?? 'none';
	const body = keptBodies.get(error) ?? { message };
	const answer = { message, description, httpCode, itemIndex: item };
	return kept(new NodeApiError(node, body, answer), body);
}

const textOf = (value: unknown) =>
	typeof value === 'string' && value.trim() !== '' ? value : undefined;

export function isNotFound(error: unknown): boolean {
	return String((error as { httpCode?: unknown })?.httpCode ?? '') === '404';
}

/** Node's X509 verify errors and host-name check: the TLS certificate is not trusted (nothing sent). */
const CERTIFICATE_CODE =
	/^(CERT_|CRL_|ERROR_IN_C(ERT|RL)_|UNABLE_TO_(DECODE|DECRYPT|GET|VERIFY)_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$|INVALID_(CA|PURPOSE)$|PATH_LENGTH_EXCEEDED$)/;

type NetworkFamily = 'timeout' | 'certificate' | 'tls' | 'http' | 'network';

function familyOf(code: string): NetworkFamily | undefined {
	if (code.length > 100 || !/^[A-Z][A-Z0-9_]*$/.test(code)) return undefined;
	if (code === 'ETIMEDOUT') return 'timeout';
	if (CERTIFICATE_CODE.test(code) || code.startsWith('ERR_TLS_CERT_')) return 'certificate';
	if (code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || code === 'EPROTO') return 'tls';
	// Node's HTTP parser (llhttp): the answer is no HTTP.
	if (code.startsWith('HPE_')) return 'http';
	if (/^E[A-Z_]+$/.test(code)) return 'network';
	return undefined;
}

/** The code of a failure of the connection (ECONNRESET…, TLS, HTTP parser) of an error or its causes. */
export function networkCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 5 && current; depth++) {
		const code = (current as { code?: unknown }).code;
		if (typeof code === 'string' && familyOf(code)) return code;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

/** Our own words for a failure of the connection; only the code is taken from the original. */
function networkError(node: INode, code: string, itemIndex?: number): NodeApiError {
	const family = familyOf(code) ?? 'network';
	// The code stays out of the message: n8n would swap such a message for its generic one.
	const secure = family === 'certificate' || family === 'tls';
	const message =
		family === 'http'
			? "The Document Signing service's answer could not be read"
			: `Could not ${secure ? 'connect securely to' : 'reach'} the Document Signing service`;
	const description = {
		timeout:
			'No complete response came within the time allowed for one attempt (ETIMEDOUT). Check that the service is reachable from n8n and not overloaded.',
		network: `Network error ${code}. Check the Base URL in the credentials and that the service is reachable from n8n.`,
		certificate: `The service's TLS certificate is not trusted (${code}): it is self-signed, expired, issued by an authority n8n does not know, or made out for another host name. Nothing was sent. Check the Base URL in the credentials; if the service uses a certificate of your own authority, n8n must be told to trust it (NODE_EXTRA_CA_CERTS).`,
		tls: `The secure (TLS) connection to the service failed (${code}). Check that the Base URL in the credentials has the right scheme and port (https:// for a TLS port, http:// otherwise) and that the service offers a current TLS version.`,
		http: `The service's answer is not valid HTTP (${code}). Something other than the API may be answering at the Base URL's address, or a proxy in front of it is faulty. Check the Base URL in the credentials.`,
	}[family];
	return new NodeApiError(node, { message }, { message, description, httpCode: 'none', itemIndex });
}
