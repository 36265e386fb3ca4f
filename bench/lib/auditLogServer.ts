/**
 * A small in-process audit log for the pollCatchUp scenario: N synthetic `GET /reports/audit-log`
 * entries of the contract's document events (docs/api-contract.md, "Audit-log entry"), served in
 * the contract's shape: newest first, `from`/`to` inclusive ISO timestamps, `event`, `limit`
 * (capped at 100) and cursor paging (`{ data, has_more, next_cursor }`, `?cursor=`). Every request
 * is counted. `ignoreLimit` serves the whole (filtered) list as one page, as a service that
 * ignores `limit` would. `GET /documents/{id}` answers a tiny record (counted on its own); the
 * entries' `document_id` is null, so the trigger has no reason to ask.
 *
 * The entries are serialised once when the server starts, so a page costs the server a slice and
 * a join, and the whole list (ignoreLimit) is one prepared body: the event loop's stalls measured
 * around the trigger are the trigger's, not this server's (its longest handler is reported too).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The contract's document events (the trigger's webhook events that need no signing request). */
export const DOCUMENT_EVENTS = [
	'document.created',
	'document.sent',
	'document.viewed',
	'document.signed',
	'document.completed',
] as const;

const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 20;

export interface AuditLogServerOptions {
	/** How many entries. */
	entries: number;
	/** The oldest entry's time (epoch ms). */
	startMs: number;
	/** Milliseconds between consecutive entries; 0 puts every entry at one instant. */
	spacingMs: number;
	/** Serve the whole filtered list as one page whatever `limit` says (no paging). */
	ignoreLimit?: boolean;
	/** Each id padded to this many characters (the longest the trigger reads is 200). */
	idChars?: number;
}

export interface AuditLogServer {
	baseUrl: string;
	/** The entries' ids, oldest first (the order a poll should emit them in). */
	ids: string[];
	/** Each entry's time (epoch ms), oldest first. */
	timesMs: number[];
	counts: {
		requests: number;
		/** `GET /reports/audit-log` pages. */
		auditPages: number;
		/** `GET /documents/{id}`. */
		documents: number;
		/** Anything else (answered 404). */
		other: number;
		/** Entries served in all pages. */
		entriesServed: number;
	};
	/** The longest synchronous stretch of one request handler (ms): the server's own share of a stall. */
	maxHandlerMs: number;
	close: () => Promise<void>;
}

/** The first index in ascending `sorted` whose value is >= `value` (or > with `after`). */
function lowerBound(sorted: number[], value: number, after = false): number {
	let lo = 0;
	let hi = sorted.length;
	while (lo < hi) {
		const mid = (lo + hi) >>> 1;
		if (sorted[mid] < value || (after && sorted[mid] === value)) lo = mid + 1;
		else hi = mid;
	}
	return lo;
}

function parseTime(text: string | null): number | undefined | 'bad' {
	if (text === null || text === '') return undefined;
	const ms = Date.parse(text);
	return Number.isNaN(ms) ? 'bad' : ms;
}

export async function startAuditLogServer(options: AuditLogServerOptions): Promise<AuditLogServer> {
	const { entries, startMs, spacingMs, ignoreLimit = false, idChars = 0 } = options;
	const width = String(entries).length;
	const ids: string[] = [];
	const timesMs: number[] = [];
	const events: string[] = [];
	/** Each entry as JSON, oldest first. */
	const json: string[] = [];
	for (let index = 0; index < entries; index++) {
		const number = `aud_${String(index + 1).padStart(width, '0')}`;
		const id = idChars > 0 ? `${number}_`.padEnd(idChars, 'x') : number;
		const ms = startMs + index * spacingMs;
		const event = DOCUMENT_EVENTS[index % DOCUMENT_EVENTS.length];
		ids.push(id);
		timesMs.push(ms);
		events.push(event);
		json.push(
			JSON.stringify({
				id,
				event,
				actor: { type: 'api_key', email: 'bench@example.com' },
				document_id: null,
				ip: '127.0.0.1',
				details: {},
				created_at: new Date(ms).toISOString(),
			}),
		);
	}
	/** The whole list newest first, ready (ignoreLimit's usual answer). */
	const wholeBody = ignoreLimit
		? `{"data":[${[...json].reverse().join(',')}],"has_more":false,"next_cursor":null}`
		: '';

	const counts: AuditLogServer['counts'] = {
		requests: 0,
		auditPages: 0,
		documents: 0,
		other: 0,
		entriesServed: 0,
	};
	let maxHandlerMs = 0;

	const send = (res: http.ServerResponse, status: number, body: string) => {
		res.writeHead(status, {
			'content-type': 'application/json',
			'content-length': Buffer.byteLength(body),
		});
		res.end(body);
	};
	const badRequest = (res: http.ServerResponse, param: string, message: string) =>
		send(
			res,
			400,
			JSON.stringify({ error: { code: 'invalid_request', message, details: { param } } }),
		);

	const auditLog = (url: URL, res: http.ServerResponse) => {
		counts.auditPages++;
		const from = parseTime(url.searchParams.get('from'));
		const to = parseTime(url.searchParams.get('to'));
		if (from === 'bad') return badRequest(res, 'from', '`from` is not a timestamp');
		if (to === 'bad') return badRequest(res, 'to', '`to` is not a timestamp');
		const rawLimit = url.searchParams.get('limit');
		const limit = rawLimit === null ? DEFAULT_LIMIT : Number(rawLimit);
		if (!Number.isInteger(limit) || limit < 1)
			return badRequest(res, 'limit', '`limit` must be a whole number from 1 to 100');
		const rawCursor = url.searchParams.get('cursor');
		const offset = rawCursor === null ? 0 : Number(rawCursor.replace(/^c_/, ''));
		if (!Number.isInteger(offset) || offset < 0 || (rawCursor !== null && !/^c_/.test(rawCursor)))
			return badRequest(res, 'cursor', '`cursor` was not issued by this service');
		// Entries [lo, hi) are in range; listed newest first: hi - 1 down to lo.
		const lo = from === undefined ? 0 : lowerBound(timesMs, from);
		const hi = to === undefined ? entries : lowerBound(timesMs, to, true);
		const event = url.searchParams.get('event');
		let positions: number[] | undefined;
		if (event !== null) {
			positions = [];
			for (let index = hi - 1; index >= lo; index--)
				if (events[index] === event) positions.push(index);
		}
		const total = positions ? positions.length : Math.max(0, hi - lo);
		if (ignoreLimit && !positions && lo === 0 && hi === entries) {
			counts.entriesServed += entries;
			return send(res, 200, wholeBody);
		}
		const size = ignoreLimit ? total : Math.min(limit, MAX_LIMIT);
		const end = Math.min(total, offset + size);
		const page: string[] = [];
		for (let at = offset; at < end; at++) page.push(json[positions ? positions[at] : hi - 1 - at]);
		counts.entriesServed += page.length;
		const more = end < total;
		send(
			res,
			200,
			`{"data":[${page.join(',')}],"has_more":${more},"next_cursor":${more ? `"c_${end}"` : 'null'}}`,
		);
	};

	const server = http.createServer((req, res) => {
		const started = performance.now();
		counts.requests++;
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		// The credential's Base URL ends in /v1; the paths are the contract's.
		const path = url.pathname.replace(/^\/v1(?=\/)/, '');
		const document = /^\/documents\/([^/]+)$/.exec(path);
		if (req.method === 'GET' && path === '/reports/audit-log') auditLog(url, res);
		else if (req.method === 'GET' && document) {
			counts.documents++;
			send(
				res,
				200,
				JSON.stringify({ id: decodeURIComponent(document[1]), status: 'draft', signers: [] }),
			);
		} else {
			counts.other++;
			send(res, 404, JSON.stringify({ error: { code: 'not_found', message: 'Not found' } }));
		}
		maxHandlerMs = Math.max(maxHandlerMs, performance.now() - started);
	});
	server.keepAliveTimeout = 30_000;
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		ids,
		timesMs,
		counts,
		get maxHandlerMs() {
			return maxHandlerMs;
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
