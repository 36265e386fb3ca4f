/**
 * Pagination shared by every list endpoint (docs/api-contract.md, "Lists and pagination" and
 * "Dialects").
 *
 * Lists are newest first. The cursor encodes the creation sequence number of the last record
 * served, and the next page continues strictly below it. Records created meanwhile get higher
 * numbers, so they never shift later pages (an offset would repeat or skip records). A list ordered
 * by time (the audit log: its rows carry `at`) is ordered by time, then sequence number, and its
 * cursor holds both. A list served oldest first (the audit log in the `auditOrder: 'oldest-first'`
 * dialect) continues strictly above it; its cursors are its own (one of the other order is a 400).
 *
 * A cursor is bound to its list and to the account it was issued to: it carries a MAC (keyed by
 * a secret of this sandbox) over the account, the list and the position, so a cursor from another
 * list or account, or one not issued here, is a 400 naming `cursor`.
 *
 * The dialect decides the envelope (`{data, has_more, next_cursor}` by default; a Link header,
 * next URLs, page numbers, …), whether paging parameters are honoured, and a page-size cap.
 */
import { createHmac, timingSafeEqual } from 'crypto';

import type { ListPage } from '../contract';
import { MAX_PAGE_SIZE } from '../nodes/shared/vocabulary';
import type { ApiContext } from './context';
import type { ListEnvelope, ListOrder } from './dialects';
import { ApiError, type Reply } from './http';
import type { Row } from './store';

/** The contract's default page size (docs/api-contract.md). */
export const DEFAULT_PAGE_SIZE = 20;

interface CursorPayload {
	/** The list the cursor belongs to, so a documents cursor is refused by the templates list. */
	k: string;
	/** Sequence number of the last record on the previous page. */
	s: number;
	/** Its time (ms), in a list ordered by time. */
	t?: number;
}

/** A list's row; `at` (ms) orders a list by time first (the audit log), then by `seq`. */
export type ListRow<T> = Row<T> & { at?: number };

/** Where a row stands in its list. */
export interface Position {
	at: number;
	seq: number;
}

const positionOf = (row: { seq: number; at?: number }): Position => ({
	at: row.at ?? 0,
	seq: row.seq,
});
const compare = (a: Position, b: Position) => a.at - b.at || a.seq - b.seq;

/** Who a cursor is for: the sandbox's cursor secret and the account it is issued to. */
export interface CursorScope {
	secret: Buffer;
	accountId: string;
}

function mac(scope: CursorScope, payload: string): Buffer {
	return createHmac('sha256', scope.secret)
		.update(`${scope.accountId}\n${payload}`)
		.digest()
		.subarray(0, 16);
}

export function encodeCursor(scope: CursorScope, kind: string, position: Position): string {
	const cursor: CursorPayload = { k: kind, s: position.seq };
	if (position.at !== 0) cursor.t = position.at;
	const payload = Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
	return `${payload}.${mac(scope, payload).toString('base64url')}`;
}

function decodeCursor(
	scope: CursorScope,
	kind: string,
	cursor: string,
	field = 'cursor',
): Position {
	try {
		const [payload, signature, extra] = cursor.split('.');
		// As text: base64 decoding ignores the last character's spare bits (see files.ts).
		const given = Buffer.from(signature ?? '', 'utf8');
		const expected = Buffer.from(mac(scope, payload).toString('base64url'), 'utf8');
		if (
			extra === undefined &&
			given.length === expected.length &&
			timingSafeEqual(given, expected)
		) {
			const decoded = JSON.parse(
				Buffer.from(payload, 'base64url').toString('utf8'),
			) as Partial<CursorPayload>;
			if (
				decoded &&
				decoded.k === kind &&
				Number.isSafeInteger(decoded.s) &&
				(decoded.s as number) >= 0 &&
				(decoded.t === undefined || Number.isFinite(decoded.t))
			) {
				return { seq: decoded.s as number, at: decoded.t ?? 0 };
			}
		}
	} catch {
		// fall through to the error below
	}
	throw new ApiError(
		400,
		'validation_error',
		`${field} is not a cursor returned by this list`,
		field,
	);
}

/** Rows by position (time, then creation) in `order`: newest first (the contract) or oldest first. */
function ordered<T>(rows: Iterable<ListRow<T>>, order: ListOrder): Array<ListRow<T>> {
	const sign = order === 'oldest-first' ? 1 : -1;
	return [...rows].sort((a, b) => sign * compare(positionOf(a), positionOf(b)));
}

/** The cursor kind of a list in `order`, so a cursor is read only in the order it was issued in. */
const cursorKind = (kind: string, order: ListOrder) =>
	order === 'oldest-first' ? `${kind}:oldest-first` : kind;

/** One page in the contract's shape: `{ data, has_more, next_cursor }`. */
export function paginate<T>(
	scope: CursorScope,
	kind: string,
	rows: Iterable<ListRow<T>>,
	query: { limit?: number; cursor?: string },
	filter: (record: T) => boolean = () => true,
	cursorField = 'cursor',
	order: ListOrder = 'newest-first',
): ListPage<T> {
	const limit = query.limit ?? DEFAULT_PAGE_SIZE;
	const oldestFirst = order === 'oldest-first';
	const after =
		query.cursor === undefined
			? undefined
			: decodeCursor(scope, cursorKind(kind, order), query.cursor, cursorField);

	const candidates = ordered(rows, order).filter((row) => {
		if (after === undefined) return true;
		const step = compare(positionOf(row), after);
		return oldestFirst ? step > 0 : step < 0;
	});
	const page: Array<ListRow<T>> = [];
	let hasMore = false;
	for (const row of candidates) {
		if (!filter(row.record)) continue;
		if (page.length === limit) {
			hasMore = true;
			break;
		}
		page.push(row);
	}
	return {
		data: page.map((row) => structuredClone(row.record)),
		has_more: hasMore,
		next_cursor: hasMore
			? encodeCursor(scope, cursorKind(kind, order), positionOf(page[page.length - 1]))
			: null,
	};
}

const PAGE_NUMBER = /^[1-9]\d{0,8}$/;

function single(value: string | string[] | undefined): string | undefined {
	return Array.isArray(value) ? value[value.length - 1] : value;
}

/** `page` / `per_page` / `offset` / … of the dialects that read them (the schemas let unknown parameters through). */
function pageParam(ctx: ApiContext, name: string, max: number, min = 1): number | undefined {
	const raw = single(ctx.query[name]);
	if (raw === undefined) return undefined;
	const value = PAGE_NUMBER.test(raw) || raw === '0' ? Number(raw) : NaN;
	if (!(value >= min && value <= max)) {
		throw new ApiError(
			400,
			'validation_error',
			`${name} must be an integer from ${min} to ${max}`,
			name,
		);
	}
	return value;
}

/** Where each token dialect reads its token, and how it names its records. */
const TOKEN_PARAMETER: Partial<Record<ListEnvelope, string>> = {
	'named-token': 'page_token',
	'nested-continuation': 'continuation',
	'token-elsewhere': 'page_token',
	'nested-paging': 'page_token',
	'header-cursor': 'page_token',
};
const recordsKey = (kind: string) => kind.replace(/-/g, '_');

/** The absolute URL of this list with `changes` applied to the query (other filters kept). */
function listUrl(ctx: ApiContext, changes: Record<string, string>): string {
	const params = new URLSearchParams();
	for (const [key, value] of Object.entries(ctx.query)) {
		if (
			key in changes ||
			key === 'cursor' ||
			key === 'page' ||
			key === 'per_page' ||
			key === 'limit'
		)
			continue;
		for (const item of Array.isArray(value) ? value : [value]) params.append(key, item);
	}
	for (const [key, value] of Object.entries(changes)) params.set(key, value);
	return `${ctx.services.signingOrigin()}${ctx.pathname}?${params.toString()}`;
}

/**
 * A list answer in the caller's dialect. `query` is the validated `limit`/`cursor`; `filter`
 * selects records (the filters in the query); `order` is the order records are listed and paged
 * in (newest first unless a dialect says otherwise), by time where rows carry `at`, else by creation.
 */
export function listReply<T>(
	ctx: ApiContext,
	kind: string,
	rows: Iterable<ListRow<T>>,
	query: { limit?: number; cursor?: string },
	filter: (record: T) => boolean = () => true,
	order: ListOrder = 'newest-first',
): Reply {
	const { dialect } = ctx;
	const scope: CursorScope = { secret: ctx.services.store.cursorSecret, accountId: ctx.account.id };
	const ignorePaging = dialect.paging === 'ignored';

	if (dialect.listEnvelope === 'page-numbers') {
		const perPage = Math.min(
			pageParam(ctx, 'per_page', MAX_PAGE_SIZE) ?? query.limit ?? DEFAULT_PAGE_SIZE,
			dialect.maxPageSize,
		);
		// A service that ignores paging never looks at `page`, so a bad one is no 400 either.
		const page = ignorePaging ? 1 : (pageParam(ctx, 'page', 1_000_000_000) ?? 1);
		const matches = ordered(rows, order).filter((row) => filter(row.record));
		const total = matches.length;
		return {
			status: 200,
			body: {
				data: matches
					.slice((page - 1) * perPage, page * perPage)
					.map((row) => structuredClone(row.record)),
				page,
				per_page: perPage,
				total,
				total_pages: Math.ceil(total / perPage),
			},
		};
	}

	if (dialect.listEnvelope === 'offset-total' || dialect.listEnvelope === 'start-size') {
		const starts = dialect.listEnvelope === 'offset-total';
		const size = Math.min(
			(starts ? undefined : pageParam(ctx, 'size', MAX_PAGE_SIZE)) ??
				query.limit ??
				DEFAULT_PAGE_SIZE,
			dialect.maxPageSize,
		);
		const offsetName = starts ? 'offset' : 'start';
		const offset = ignorePaging ? 0 : (pageParam(ctx, offsetName, 1_000_000_000, 0) ?? 0);
		const matches = ordered(rows, order).filter((row) => filter(row.record));
		const records = matches.slice(offset, offset + size).map((row) => structuredClone(row.record));
		const body = starts
			? { data: records, offset, limit: size, total: matches.length }
			: { hits: records, meta: { start: offset, size, total_count: matches.length } };
		return { status: 200, body };
	}

	const limit = Math.min(query.limit ?? DEFAULT_PAGE_SIZE, dialect.maxPageSize);
	const tokenParameter = TOKEN_PARAMETER[dialect.listEnvelope];
	// Token dialects read their token under their own name only; a `cursor` is not looked at.
	const cursor = ignorePaging
		? undefined
		: tokenParameter
			? single(ctx.query[tokenParameter])
			: query.cursor;
	const all = [...rows];
	const result = paginate(scope, kind, all, { limit, cursor }, filter, tokenParameter, order);
	const total = () => all.filter((row) => filter(row.record)).length;
	const next =
		result.next_cursor === null
			? null
			: listUrl(ctx, { limit: String(limit), cursor: result.next_cursor });
	switch (dialect.listEnvelope) {
		case 'link-header':
			return {
				status: 200,
				body: result.data,
				headers: next === null ? {} : { Link: `<${next}>; rel="next"` },
			};
		case 'results-next':
			return { status: 200, body: { results: result.data, next } };
		case 'next-url':
			return {
				status: 200,
				body: { data: result.data, has_more: result.has_more, next_url: next },
			};
		case 'items-links':
			return { status: 200, body: { items: result.data, links: { next } } };
		case 'meta-cursor':
			return {
				status: 200,
				body: { data: result.data, meta: { next_cursor: result.next_cursor } },
			};
		case 'named-token':
			return {
				status: 200,
				body: {
					[recordsKey(kind)]: result.data,
					...(result.next_cursor === null ? {} : { next_page_token: result.next_cursor }),
				},
			};
		case 'nested-continuation':
			return {
				status: 200,
				body: { result: { [recordsKey(kind)]: result.data }, continuation: result.next_cursor },
			};
		case 'token-elsewhere':
			return { status: 200, body: { data: result.data, next_cursor: result.next_cursor } };
		case 'nested-paging':
			return {
				status: 200,
				body: {
					result: { [recordsKey(kind)]: result.data },
					paging_state: {
						summary: { total_count: total() },
						cursor_state: { next_page_token: result.next_cursor },
					},
				},
			};
		case 'header-cursor':
			return {
				status: 200,
				body: { [recordsKey(kind)]: result.data },
				headers: {
					'X-Total-Count': String(total()),
					...(result.next_cursor === null ? {} : { 'X-Next-Page-Token': result.next_cursor }),
				},
			};
		default:
			return { status: 200, body: result };
	}
}
