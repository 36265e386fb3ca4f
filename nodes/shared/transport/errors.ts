import type { IDataObject, IN8nHttpFullResponse, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeError, NodeOperationError } from 'n8n-workflow';

import { headerValue } from './headers';
import { isHtml, readPage } from './htmlPages';
import { shownText } from './text';

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

/**
 * Node's certificate checks (its X509 verify errors) and the host-name check: the service's TLS
 * certificate is not trusted. Nothing was sent, the key included.
 */
const CERTIFICATE_CODES: ReadonlySet<string> = new Set([
	'CERT_CHAIN_TOO_LONG',
	'CERT_HAS_EXPIRED',
	'CERT_NOT_YET_VALID',
	'CERT_REJECTED',
	'CERT_REVOKED',
	'CERT_SIGNATURE_FAILURE',
	'CERT_UNTRUSTED',
	'CRL_HAS_EXPIRED',
	'CRL_NOT_YET_VALID',
	'CRL_SIGNATURE_FAILURE',
	'DEPTH_ZERO_SELF_SIGNED_CERT',
	'ERROR_IN_CERT_NOT_AFTER_FIELD',
	'ERROR_IN_CERT_NOT_BEFORE_FIELD',
	'ERROR_IN_CRL_LAST_UPDATE_FIELD',
	'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
	'HOSTNAME_MISMATCH',
	'INVALID_CA',
	'INVALID_PURPOSE',
	'PATH_LENGTH_EXCEEDED',
	'SELF_SIGNED_CERT_IN_CHAIN',
	'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
	'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
	'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
	'UNABLE_TO_GET_CRL',
	'UNABLE_TO_GET_ISSUER_CERT',
	'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
	'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
]);

/** The kinds of failure of the connection itself, each told in its own words (networkError). */
type NetworkFamily = 'timeout' | 'certificate' | 'tls' | 'http' | 'network';

/** The family of an error code, or undefined when it is no code of the connection. */
function familyOf(code: string): NetworkFamily | undefined {
	if (code.length > 100 || !/^[A-Z][A-Z0-9_]*$/.test(code)) return undefined;
	if (code === 'ETIMEDOUT') return 'timeout';
	if (CERTIFICATE_CODES.has(code) || code.startsWith('ERR_TLS_CERT_')) return 'certificate';
	if (code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || code === 'EPROTO') return 'tls';
	// Node's HTTP parser (llhttp): the answer is no HTTP.
	if (code.startsWith('HPE_')) return 'http';
	if (/^E[A-Z_]+$/.test(code)) return 'network';
	return undefined;
}

/**
 * The code of a failure of the connection (ECONNRESET…, a TLS certificate's, the HTTP parser's) of
 * an error or of its causes.
 */
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
	const message = {
		timeout: 'Could not reach the Document Signing service',
		network: 'Could not reach the Document Signing service',
		certificate: 'Could not connect securely to the Document Signing service',
		tls: 'Could not connect securely to the Document Signing service',
		http: "The Document Signing service's answer could not be read",
	}[family];
	const description = {
		timeout:
			'No complete response came within the time allowed for one attempt (ETIMEDOUT). Check that the service is reachable from n8n and not overloaded.',
		network: `Network error ${code}. Check the Base URL in the credentials and that the service is reachable from n8n.`,
		certificate: `The service's TLS certificate is not trusted (${code}): it is self-signed, expired, issued by an authority n8n does not know, or made out for another host name. Nothing was sent. Check the Base URL in the credentials; if the service uses a certificate of your own authority, n8n must be told to trust it (NODE_EXTRA_CA_CERTS).`,
		tls: `The secure (TLS) connection to the service failed (${code}). Check that the Base URL in the credentials has the right scheme and port (https:// for a TLS port, http:// otherwise) and that the service offers a current TLS version.`,
		http: `The service's answer is not valid HTTP (${code}). Something other than the API may be answering at the Base URL's address, or a proxy in front of it is faulty. Check the Base URL in the credentials.`,
	}[family];
	// Only our own words: the original error carries the request, headers included.
	return new NodeApiError(node, { message }, { message, description, httpCode: 'none', itemIndex });
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

/**
 * An n8n error rebuilt from its words alone (message, description, HTTP code, item): n8n's request
 * helper builds its errors around the request library's error, whose config holds the request's
 * headers (the API key) and whose request holds the socket.
 */
function rebuilt(
	node: INode,
	error: NodeApiError | NodeOperationError,
	itemIndex?: number,
): NodeApiError | NodeOperationError {
	const text = (value: unknown) =>
		typeof value === 'string' && value.trim() !== '' ? shownText(value.trim()) : undefined;
	const message = text(error.message) ?? 'The request to the Document Signing service failed';
	const description = text(error.description);
	const item = itemIndex ?? (error.context?.itemIndex as number | undefined);
	if (error instanceof NodeApiError) {
		const httpCode = text(error.httpCode) ?? 'none';
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
 * The error users see for any failure of a request, built from plain data only (message,
 * description, HTTP code, the service's words): never around the request library's error, which
 * holds the request's headers (the API key) and its socket. n8n's own errors pass on as they are
 * when they hold only plain data (holdsOnlyPlainData), unless `ourNetworkWords` (the retry
 * policy): then a failure of the connection is told in our words even when n8n's helper wrapped it.
 * Any other n8n error is rebuilt from its words.
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
