/** Low-level HTTP helpers: errors, replies, bounded body reading, request-target parsing. */
import type { IncomingMessage, ServerResponse } from 'http';

import type { ErrorBody, ErrorCode } from '../contract';

/** A failure that maps to the contract's error body. Thrown by handlers, caught by the pipeline. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: ErrorCode,
		message: string,
		readonly field?: string,
		readonly details?: Array<{ field: string; message: string }>,
		readonly headers: Record<string, string> = {},
	) {
		super(message);
	}
}

export const notFound = (what: string, field?: string) =>
	new ApiError(404, 'not_found', `No such ${what}`, field);
export const conflict = (message: string, field?: string) =>
	new ApiError(409, 'conflict', message, field);

/** What a handler returns; the pipeline turns it into bytes. */
export interface Reply {
	status: number;
	/** JSON-serialised unless `raw` is given. Omitted for 204. */
	body?: unknown;
	raw?: { contentType: string; data: string | Buffer };
	headers?: Record<string, string>;
}

export function errorBody(error: ApiError, requestId: string): ErrorBody {
	return {
		error: {
			code: error.code,
			message: error.message,
			...(error.field !== undefined ? { field: error.field } : {}),
			...(error.details !== undefined && error.details.length > 1
				? { details: error.details }
				: {}),
			request_id: requestId,
		},
	};
}

export function errorReply(error: ApiError, requestId: string): Reply {
	return { status: error.status, body: errorBody(error, requestId), headers: error.headers };
}

/** Writes a reply unless the client already went away. */
export function sendReply(
	res: ServerResponse,
	reply: Reply,
	extraHeaders: Record<string, string> = {},
): void {
	if (res.headersSent || res.destroyed) return;
	const headers: Record<string, string> = { ...extraHeaders, ...(reply.headers ?? {}) };
	let payload: string | Buffer | undefined;
	if (reply.raw) {
		headers['Content-Type'] = reply.raw.contentType;
		payload = reply.raw.data;
	} else if (reply.body !== undefined && reply.status !== 204) {
		headers['Content-Type'] = 'application/json; charset=utf-8';
		payload = JSON.stringify(reply.body);
	}
	if (payload !== undefined) headers['Content-Length'] = String(Buffer.byteLength(payload));
	res.writeHead(reply.status, headers);
	res.end(payload);
}

/**
 * Answers while the client may still be uploading (413): the whole answer is written at once, but
 * the response is only ended once the request has been drained (readBody keeps discarding it).
 * Ending earlier would make Node close a `Connection: close` socket under the client's pending
 * writes, and the client would see EPIPE instead of the 413.
 */
export function sendReplyWhileDraining(
	req: IncomingMessage,
	res: ServerResponse,
	reply: Reply,
	extraHeaders: Record<string, string> = {},
): void {
	if (req.complete || req.destroyed) {
		sendReply(res, reply, extraHeaders);
		return;
	}
	const payload = reply.raw ? reply.raw.data : JSON.stringify(reply.body);
	res.writeHead(reply.status, {
		...extraHeaders,
		...(reply.headers ?? {}),
		'Content-Type': reply.raw ? reply.raw.contentType : 'application/json; charset=utf-8',
		'Content-Length': String(Buffer.byteLength(payload)),
	});
	res.write(payload);
	const finish = () => {
		if (!res.writableEnded && !res.destroyed) res.end();
	};
	req.once('end', finish);
	req.once('close', finish);
}

export type BodyResult = { kind: 'ok'; raw: Buffer } | { kind: 'too_large' } | { kind: 'aborted' };

/**
 * Reads a request body up to `limit` bytes. Past the limit it stops keeping data (so memory
 * stays bounded) and reports `too_large`; the rest of the upload is read and thrown away rather
 * than cutting the connection, so the client still receives the 413 instead of a reset. Past
 * `discardLimit` it gives up and destroys the socket.
 */
export function readBody(
	req: IncomingMessage,
	limit: number,
	discardLimit = limit * 4,
): Promise<BodyResult> {
	return new Promise((resolve) => {
		const declared = Number(req.headers['content-length']);
		const chunks: Buffer[] = [];
		let received = 0;
		let tooLarge = Number.isFinite(declared) && declared > limit;
		let settled = false;
		const settle = (result: BodyResult) => {
			if (!settled) {
				settled = true;
				resolve(result);
			}
		};

		if (tooLarge) settle({ kind: 'too_large' });

		req.on('data', (chunk: Buffer) => {
			received += chunk.length;
			if (received > discardLimit) {
				req.destroy();
				return;
			}
			if (tooLarge) return;
			if (received > limit) {
				tooLarge = true;
				chunks.length = 0;
				settle({ kind: 'too_large' });
				return;
			}
			chunks.push(chunk);
		});
		req.on('end', () =>
			settle(tooLarge ? { kind: 'too_large' } : { kind: 'ok', raw: Buffer.concat(chunks) }),
		);
		req.on('error', () => settle({ kind: 'aborted' }));
		req.on('close', () => settle({ kind: 'aborted' }));
	});
}

export interface RequestTarget {
	/** Decoded path segments, e.g. ['v1', 'documents', 'doc_1']. */
	segments: string[];
	pathname: string;
	query: Record<string, string | string[]>;
}

/**
 * Parses `req.url` without resolving it against a base (a path starting with `//` must not
 * become a host). Returns null for anything that is not an origin-form target or whose
 * percent-encoding is broken.
 */
export function parseTarget(rawUrl: string | undefined): RequestTarget | null {
	if (!rawUrl || !rawUrl.startsWith('/')) return null;
	const questionMark = rawUrl.indexOf('?');
	const rawPath = questionMark === -1 ? rawUrl : rawUrl.slice(0, questionMark);
	const rawQuery = questionMark === -1 ? '' : rawUrl.slice(questionMark + 1);

	const segments: string[] = [];
	for (const piece of rawPath.split('/')) {
		if (piece === '') continue; // tolerate a trailing slash and doubled slashes
		try {
			segments.push(decodeURIComponent(piece));
		} catch {
			return null;
		}
	}

	const query: Record<string, string | string[]> = {};
	for (const [key, value] of new URLSearchParams(rawQuery)) {
		// An empty value means "not given" (`?status=` is what a form sends for "any").
		if (value === '') continue;
		const existing = query[key];
		if (existing === undefined) query[key] = value;
		else query[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
	}
	return { segments, pathname: `/${segments.join('/')}`, query };
}

/** The client's address, without the IPv4-mapped IPv6 prefix. */
export function clientIp(req: IncomingMessage): string | null {
	const address = req.socket.remoteAddress;
	if (!address) return null;
	return address.startsWith('::ffff:') ? address.slice(7) : address;
}
