import { ServiceBehaviourError } from './errors';

/**
 * Bounds on what a server may send and how long anything may take. n8n's request helpers read
 * every response whole (its axios settings say `maxContentLength: Infinity`, and no request option
 * changes that), so every request of the package asks for the response as a stream and reads it
 * here, counting bytes; a response over its limit is dropped the moment it passes the limit.
 */

const MB = 1024 * 1024;

export type ResponseKind = 'json' | 'file' | 'export';

export const BODY_LIMITS = {
	/** API answers: records and pages of at most 100 records. */
	json: 16 * MB,
	/** A document's file (original, signed copy, audit trail). Raised by the credential's "Largest Download (MB)". */
	file: 100 * MB,
	/** Reports › Export. Raised by the same credential field. */
	export: 100 * MB,
	/** The largest value "Largest Download (MB)" accepts. */
	maxConfigurableDownload: 2048 * MB,
};

export const TIME_LIMITS = {
	/** One attempt of a request (connecting, sending, the whole response): then it is abandoned as timed out. */
	attemptMs: 120_000,
	/** One list search in the editor, retries and 429 waits included (n8n gives it no cancel signal). */
	listSearchMs: 30_000,
};

/** The limit for one response: the credential's "Largest Download (MB)" raises the file and export limits. */
export function bodyLimit(kind: ResponseKind, largestDownloadMb?: number): number {
	if (kind === 'json') return BODY_LIMITS.json;
	const configured = Number(largestDownloadMb);
	if (Number.isFinite(configured) && configured > 0)
		return Math.min(Math.round(configured * MB), BODY_LIMITS.maxConfigurableDownload);
	return BODY_LIMITS[kind];
}

export function describeLimit(bytes: number): string {
	return bytes % MB === 0 ? `${bytes / MB} MB` : `${bytes} bytes`;
}

interface ByteStream extends AsyncIterable<unknown> {
	destroy?: (error?: Error) => void;
}

export function isByteStream(body: unknown): body is ByteStream {
	return (
		typeof body === 'object' &&
		body !== null &&
		typeof (body as { pipe?: unknown }).pipe === 'function' &&
		Symbol.asyncIterator in body
	);
}

export class BodyTooLargeError extends ServiceBehaviourError {
	constructor(
		readonly limit: number,
		kind: ResponseKind,
	) {
		super(
			`The service's response is larger than the ${describeLimit(limit)} allowed for ${kind === 'json' ? 'an API response' : kind === 'file' ? 'a file' : 'an export'}; it was not read`,
			kind === 'json'
				? "API responses are read up to this size so a faulty or hostile server cannot exhaust n8n's memory. Lower the page size or narrow the request."
				: 'Downloads are read up to this size so a faulty or hostile server cannot exhaust n8n\'s memory. To allow larger files, raise "Largest Download (MB)" in the credentials.',
		);
	}
}

/**
 * The whole body of a streamed response as bytes, refusing it once it passes `limit` (the stream is
 * destroyed then, so the rest is never read). A Content-Length over the limit is refused before
 * anything is read. Answers that are not streams (a test double) are returned as they are.
 */
export async function readBody(
	body: unknown,
	limit: number,
	kind: ResponseKind,
	contentLength?: string,
): Promise<unknown> {
	if (!isByteStream(body)) return body;
	const declared = Number(contentLength);
	if (Number.isFinite(declared) && declared > limit) {
		body.destroy?.();
		throw new BodyTooLargeError(limit, kind);
	}
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of body) {
		const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
		size += bytes.length;
		if (size > limit) {
			body.destroy?.();
			throw new BodyTooLargeError(limit, kind);
		}
		chunks.push(bytes);
	}
	return Buffer.concat(chunks, size);
}

/** A JSON response's bytes as a value: parsed JSON, or the text when it is not JSON (checkResponse then says so). */
export function jsonOrText(bytes: unknown): unknown {
	if (!Buffer.isBuffer(bytes)) return bytes;
	const text = bytes.toString('utf8');
	if (text.trim() === '') return '';
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
	}
}
