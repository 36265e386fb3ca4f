/**
 * A small service with a hostile or careless audit log, for the polling trigger's tests: entries
 * as a test writes them (any field names, any times), listed newest first, oldest first or as
 * written, with `from`/`to` honoured or ignored, paged with `{ data, has_more, next_cursor }` (or
 * one oversized page), and `GET /documents/{id}` answering what the test says. On 127.0.0.1 only.
 */
import http from 'http';
import type { AddressInfo } from 'net';

import type { IDataObject } from 'n8n-workflow';

export interface AuditLogOptions {
	/** How entries are listed: by time, newest or oldest first, or in the order written. */
	order: 'newest-first' | 'oldest-first' | 'as-written';
	/** Whether `from`/`to` (inclusive) filter the list; they filter by `timeOf`. */
	honoursFrom: boolean;
	/** Entries per page (`limit` capped here); Infinity serves everything in one page. */
	pageSize: number;
	/** An entry's time for ordering and filtering (default: Date.parse of `created_at`, as UTC). */
	timeOf: (entry: IDataObject) => number;
	/**
	 * `GET /documents/{id}`: a status and body (default 200 `{ id }`), or undefined when the test
	 * answered on `response` itself (a web page, a redirect, a dropped connection, no answer).
	 */
	document: (
		id: string,
		response: http.ServerResponse,
	) => { status: number; body: IDataObject } | undefined;
	/** The `Date` header, or undefined for none. */
	date: () => string | undefined;
}

const utcMs = (text: unknown) =>
	Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(String(text)) ? String(text) : `${String(text)}Z`);

export class AuditLogService {
	readonly entries: IDataObject[] = [];
	readonly requests: string[] = [];
	options: AuditLogOptions = {
		order: 'newest-first',
		honoursFrom: true,
		pageSize: 100,
		timeOf: (entry) => utcMs(entry.created_at),
		document: (id) => ({ status: 200, body: { id, status: 'pending', signers: [] } }),
		date: () => new Date().toUTCString(),
	};
	private server?: http.Server;
	/** Each entry's time as last read, so a long log costs a request no parsing. */
	private readonly times = new WeakMap<
		IDataObject,
		{ timeOf: AuditLogOptions['timeOf']; ms: number }
	>();
	baseUrl = '';

	/** Requests of the audit log made so far. */
	get logReads(): number {
		return this.requests.filter((url) => url.startsWith('/v1/reports/audit-log')).length;
	}

	private listed(query: URLSearchParams): IDataObject[] {
		const { order, honoursFrom, timeOf } = this.options;
		const from = query.get('from');
		const to = query.get('to');
		const msOf = (entry: IDataObject) => {
			const known = this.times.get(entry);
			if (known?.timeOf === timeOf) return known.ms;
			const ms = timeOf(entry);
			this.times.set(entry, { timeOf, ms });
			return ms;
		};
		let list = this.entries.map((entry, index) => ({ entry, index, ms: msOf(entry) }));
		const [fromMs, toMs] = [utcMs(from ?? '-'), utcMs(to ?? '-')];
		if (honoursFrom && from) list = list.filter((one) => one.ms >= fromMs);
		if (honoursFrom && to) list = list.filter((one) => one.ms <= toMs);
		if (order !== 'as-written') {
			const sign = order === 'oldest-first' ? 1 : -1;
			list.sort((a, b) => sign * (a.ms - b.ms || a.index - b.index));
		}
		return list.map((one) => one.entry);
	}

	private answer(request: http.IncomingMessage, response: http.ServerResponse) {
		const url = new URL(request.url ?? '/', 'http://127.0.0.1');
		this.requests.push(`${url.pathname}${url.search}`);
		const date = this.options.date();
		if (date) response.setHeader('Date', date);
		response.setHeader('Content-Type', 'application/json');
		const document = /^\/v1\/documents\/([^/]+)$/.exec(url.pathname);
		if (document) {
			const answer = this.options.document(decodeURIComponent(document[1]), response);
			if (!answer) return;
			const { status, body } = answer;
			response.statusCode = status;
			return response.end(
				JSON.stringify(status < 400 ? body : { error: { message: `HTTP ${status}` } }),
			);
		}
		if (url.pathname !== '/v1/reports/audit-log') {
			response.statusCode = 404;
			return response.end('{"error":{"message":"Not found"}}');
		}
		const list = this.listed(url.searchParams);
		const size = Math.min(Number(url.searchParams.get('limit') ?? 20), this.options.pageSize);
		const start = Number(url.searchParams.get('cursor') ?? 0);
		const end = Number.isFinite(this.options.pageSize) ? start + size : list.length;
		const more = end < list.length;
		return response.end(
			JSON.stringify({
				data: list.slice(start, end),
				has_more: more,
				next_cursor: more ? String(end) : null,
			}),
		);
	}

	async start(): Promise<this> {
		this.server = http.createServer((request, response) => this.answer(request, response));
		await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
		this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
		return this;
	}

	async stop(): Promise<void> {
		this.server?.closeAllConnections();
		await new Promise((resolve) => this.server?.close(resolve));
	}
}

let counter = 0;
/** An entry in the contract's shape, `at` ms since 1970 (ISO UTC text), with a fresh id. */
export function contractEntry(at: number, event = 'document.completed', fields: IDataObject = {}) {
	counter++;
	return {
		id: `aud_${counter}`,
		event,
		actor: { type: 'system', email: null },
		document_id: `doc_${counter}`,
		ip: null,
		details: {},
		created_at: new Date(at).toISOString(),
		...fields,
	} as IDataObject;
}
