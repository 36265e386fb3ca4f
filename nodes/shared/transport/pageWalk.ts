import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { idText } from '../ids';
import { ServiceBehaviourError } from './errors';
import {
	extractRecords,
	findNextPage,
	statedTotal,
	type ListPaging,
	type NextPage,
	type PageAnswer,
} from './listPages';
import type { ServiceOrigin } from './service';

/**
 * The one loop that walks a list's pages, used by every list the package reads (Get Many, the
 * list searches, the trigger's webhook sweep). Whatever the service answers, it ends: each page
 * must bring records not seen before and a next-page pointer not seen before, links must stay on
 * the credential's origin, and there is an absolute cap on pages. No record is returned twice.
 */

/** Pages one call may read: 1,000,000 records at the largest page size. */
export const MAX_PAGES = 10_000;

/** Empty pages in a row that a service saying "there is more" is followed through (some filter after paging). */
export const MAX_EMPTY_PAGES = 3;

/** What to ask for next: the first page, a cursor, a page number, an offset, or a link the service gave. */
export interface PageRequest {
	cursor?: string;
	/** The query parameter the cursor goes under (default `cursor`). */
	cursorParam?: string;
	page?: number;
	/** Other names to try for the cursor when the service answers it with the same page (list searches). */
	alternatives?: string[];
	/** Offset paging: the offset asked for, and the query parameters that carry it and the page size. */
	offset?: number;
	params?: Record<string, number>;
	/** An absolute URL on the credential's origin (already checked). */
	url?: string;
}

/** The query parameters of a page request (besides the list's filters); not used for links, which carry their own. */
export function pageQuery(
	request: PageRequest,
	pageSize: number,
	paging: ListPaging = {},
): IDataObject {
	const query: IDataObject = { [paging.limitParameter ?? 'limit']: pageSize };
	if (request.cursor !== undefined) query[request.cursorParam ?? 'cursor'] = request.cursor;
	if (request.page !== undefined) query.page = request.page;
	Object.assign(query, request.params);
	return query;
}

export interface FetchedPage<T> {
	answer: PageAnswer;
	/** The URL that was requested, to resolve relative links against. */
	requestUrl: string;
	/** The page's records as output items, one per record in order (default: the records). */
	items?: T[];
}

export interface WalkOptions<T> {
	origin: ServiceOrigin;
	/** Records wanted; undefined for every record. */
	limit?: number;
	/** The user's List Paging override (empty: automatic). */
	paging?: ListPaging;
	/** Records asked for per page (the same on every page, so page numbers mean the same offsets). */
	pageSize: number;
	maxPages?: number;
	fetchPage(request: PageRequest): Promise<FetchedPage<T>>;
}

/** A record's identity: its id when it has one, otherwise its whole content. */
function recordKey(record: IDataObject): string {
	const id = idText(record?.id);
	return id !== undefined ? `id:${id}` : `json:${JSON.stringify(record)}`;
}

function describeNext(next: PageRequest): string {
	if (next.page !== undefined) return `page ${next.page}`;
	if (next.cursor !== undefined) return 'the next-page cursor';
	if (next.offset !== undefined) return `offset ${next.offset}`;
	return 'the next-page link';
}

function ignoredParameter(next: PageRequest): string {
	if (next.page !== undefined) return 'the `page` parameter';
	if (next.cursor !== undefined) return `the \`${next.cursorParam ?? 'cursor'}\` parameter`;
	if (next.params !== undefined) return `the \`${Object.keys(next.params)[0]}\` parameter`;
	return "the next link's query";
}

/**
 * Never silently short: when the service stated a total, a list that ended with fewer records
 * than it (or than the Limit, when that is smaller) is an error naming both numbers.
 */
function whole<T>(
	records: T[],
	total: number | undefined,
	limit: number | undefined,
	requests: number,
): T[] {
	if (total === undefined) return records;
	const expected = Math.min(total, limit ?? Number.POSITIVE_INFINITY);
	if (records.length >= expected) return records;
	throw new ServiceBehaviourError(
		`The service said the list holds ${total} records, but its pages ended after ${records.length}`,
		`Stopped after ${requests} requests${limit !== undefined ? ` (${limit} were asked for)` : ''}; no partial list is returned. If the service pages in a way the node did not recognise, set List Paging to Custom (next token, or offset and limit parameter names).`,
	);
}

/** The request for `next`, with a marker that is the same whenever the service repeats itself. */
export function requestFor(
	next: NextPage,
	origin: ServiceOrigin,
	requestUrl: string,
): { request: PageRequest; marker: string } {
	if (next.kind === 'cursor')
		return {
			request: { cursor: next.cursor, cursorParam: next.param },
			marker: `c:${next.cursor}`,
		};
	if (next.kind === 'page') return { request: { page: next.page }, marker: `p:${next.page}` };
	if (next.kind === 'offset')
		return { request: { offset: next.offset, params: next.params }, marker: `o:${next.offset}` };
	const url = origin.followable(next.url, requestUrl, 'a next-page link');
	return { request: { url }, marker: `u:${url}` };
}

export async function walkPages<T = IDataObject>({
	origin,
	limit,
	paging = {},
	pageSize,
	maxPages = MAX_PAGES,
	fetchPage,
}: WalkOptions<T>): Promise<T[]> {
	const records: T[] = [];
	const seenRecords = new Set<string>();
	const seenNext = new Set<string>();
	let request: PageRequest = {};
	let guessedRequest = false;
	let total: number | undefined;
	let emptyInARow = 0;
	/** Token parameter names still worth a try while the service answers a token with the same page. */
	let alternatives: string[] = [];
	const tried: string[] = [];
	/** The token parameter the service was seen to read; used from then on. */
	let confirmedParam: string | undefined;
	for (let pages = 1; ; pages++) {
		const { answer, requestUrl, items } = await fetchPage(request);
		const page = extractRecords(answer.body, paging);
		total = statedTotal(answer, paging) ?? total;
		let fresh = 0;
		page.forEach((record, index) => {
			const key = recordKey(record);
			if (seenRecords.has(key)) return;
			seenRecords.add(key);
			records.push(items ? items[index] : (record as T));
			fresh++;
		});
		if (limit !== undefined && records.length >= limit) return records.slice(0, limit);
		if (page.length > 0 && fresh === 0) {
			// A page number we guessed (no pointer from the service) that repeats: that was all there is.
			if (guessedRequest) return whole(records, total, limit, pages);
			if (request.cursor !== undefined && alternatives.length > 0 && pages < maxPages) {
				// The same page again for a token: the service may read it under another name.
				tried.push(request.cursorParam ?? 'cursor');
				request = { ...request, cursorParam: alternatives.shift() };
				continue;
			}
			if (request.cursor !== undefined && tried.length > 0) {
				tried.push(request.cursorParam ?? 'cursor');
				throw new ServiceBehaviourError(
					`The service answered the next-page cursor with records it had already sent, under each parameter name tried (${tried.map((name) => `\`${name}\``).join(', ')})`,
					`Stopped after ${pages} requests so that no record is returned twice (${records.length} distinct records were read). If the service reads its page token under another name, set List Paging to Custom and give the Next Token Parameter.`,
				);
			}
			throw new ServiceBehaviourError(
				`The service answered ${describeNext(request)} with records it had already sent; it seems to ignore ${ignoredParameter(request)}`,
				`Stopped after ${pages} requests so that no record is returned twice (${records.length} distinct records were read). Narrow the list with filters, or ask the service's support about paging.`,
			);
		}
		if (request.cursor !== undefined && fresh > 0) {
			confirmedParam = request.cursorParam;
			alternatives = [];
		}
		const next = findNextPage(answer, request.page ?? 1, page.length, pageSize, {
			offset: request.offset,
			read: records.length,
			paging,
		});
		if (!next) return whole(records, total, limit, pages);
		emptyInARow = page.length === 0 ? emptyInARow + 1 : 0;
		if (emptyInARow >= MAX_EMPTY_PAGES) {
			throw new ServiceBehaviourError(
				`The service answered ${emptyInARow} empty pages in a row while saying there are more records`,
				`Stopped after ${pages} requests (${records.length} distinct records were read); no partial list is returned.`,
			);
		}
		if (pages >= maxPages) {
			throw new ServiceBehaviourError(
				`The list has more than ${maxPages.toLocaleString('en-US')} pages; stopped there`,
				`${records.length} records were read. Use Limit or filters to read less at a time.`,
			);
		}
		const { request: nextRequest, marker } = requestFor(next, origin, requestUrl);
		if (seenNext.has(marker)) {
			throw new ServiceBehaviourError(
				`The service gave ${describeNext(nextRequest)} it had already given; the list would never end`,
				`Stopped after ${pages} requests (${records.length} distinct records were read).`,
			);
		}
		seenNext.add(marker);
		if (next.kind === 'cursor') {
			if (confirmedParam !== undefined) nextRequest.cursorParam = confirmedParam;
			else alternatives = [...next.alternatives];
			tried.length = 0;
		}
		request = nextRequest;
		guessedRequest = next.kind === 'page' && next.guessed === true;
	}
}

/**
 * Page tokens of the list searches (sent to the editor and back). They carry a cursor, a page
 * number, or a path under the Base URL — never a whole URL — and are checked again when they return.
 */
export function pageToken(
	next: NextPage,
	origin: ServiceOrigin,
	requestUrl: string,
	lastRecord?: IDataObject,
): string {
	const { request } = requestFor(next, origin, requestUrl);
	// The last record served, so the next page can tell when the service ignores paging.
	const after = lastRecord ? { after: shortHash(recordKey(lastRecord)) } : {};
	if (request.url) {
		const url = new URL(request.url);
		return JSON.stringify({ path: `${url.pathname}${url.search}`, ...after });
	}
	if (request.cursor !== undefined) {
		const param =
			request.cursorParam && request.cursorParam !== 'cursor' ? { param: request.cursorParam } : {};
		const alternatives =
			next.kind === 'cursor' && next.alternatives.length > 0 ? { alt: next.alternatives } : {};
		return JSON.stringify({ cursor: request.cursor, ...param, ...alternatives, ...after });
	}
	if (request.params !== undefined)
		return JSON.stringify({ offset: request.offset, params: request.params, ...after });
	return JSON.stringify({ page: request.page, ...after });
}

const PARAMETER_NAME = /^[A-Za-z0-9_\-.[\]]{1,100}$/;

const isName = (value: unknown) => typeof value === 'string' && PARAMETER_NAME.test(value);

/** A cursor, its parameter name and the names still to try, from a page token (only the keys pageToken writes). */
function cursorFromToken(
	token: Record<string, unknown>,
): Pick<PageRequest, 'cursor' | 'cursorParam' | 'alternatives'> | undefined {
	const { cursor, param, alt, ...other } = token;
	if (Object.keys(other).length > 0 || (param !== undefined && !isName(param))) return undefined;
	if (alt !== undefined && !(Array.isArray(alt) && alt.length <= 10 && alt.every(isName)))
		return undefined;
	return {
		cursor: cursor as string,
		...(param !== undefined ? { cursorParam: param as string } : {}),
		...(alt !== undefined ? { alternatives: alt as string[] } : {}),
	};
}

/** The offset and its query parameters from a page token, or undefined when they are not what pageToken makes. */
function offsetFromToken(
	offset: unknown,
	params: unknown,
): Pick<PageRequest, 'offset' | 'params'> | undefined {
	if (
		!Number.isSafeInteger(offset) ||
		(offset as number) < 1 ||
		typeof params !== 'object' ||
		params === null ||
		Array.isArray(params)
	)
		return undefined;
	const entries = Object.entries(params);
	const valid =
		entries.length >= 1 &&
		entries.length <= 2 &&
		entries.every(
			([name, value]) =>
				PARAMETER_NAME.test(name) && Number.isSafeInteger(value) && (value as number) >= 0,
		);
	return valid
		? { offset: offset as number, params: Object.fromEntries(entries) as Record<string, number> }
		: undefined;
}

function shortHash(text: string): string {
	return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

function repeats(records: IDataObject[], request: { after?: string }): boolean {
	return (
		request.after !== undefined &&
		records.some((record) => shortHash(recordKey(record)) === request.after)
	);
}

/** A page of a list search must not repeat the record the previous page ended with. */
export function checkNotRepeated(
	records: IDataObject[],
	request: PageRequest & { after?: string },
): void {
	if (repeats(records, request)) {
		throw new ServiceBehaviourError(
			`The service answered ${describeNext(request)} with records it had already sent; it seems to ignore ${ignoredParameter(request)}`,
			'The list shows the first page only. Search by name to find other records.',
		);
	}
}

/** A page token back from the editor, or an error when it is not one this package would make. */
export function readPageToken(
	token: string,
	origin: ServiceOrigin,
): PageRequest & { after?: string } {
	let parsed: unknown;
	try {
		parsed = JSON.parse(token);
	} catch {
		parsed = undefined;
	}
	const value = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<
		string,
		unknown
	>;
	const { after, ...rest } = value;
	const keys = Object.keys(rest);
	const seen = typeof after === 'string' && /^[0-9a-f]{16}$/.test(after) ? { after } : {};
	if (after === undefined || seen.after !== undefined) {
		const cursor = typeof rest.cursor === 'string' ? cursorFromToken(rest) : undefined;
		if (cursor) return { ...cursor, ...seen };
		const offset = keys.length === 2 ? offsetFromToken(rest.offset, rest.params) : undefined;
		if (offset) return { ...offset, ...seen };
		if (keys.length === 1 && Number.isSafeInteger(rest.page) && (rest.page as number) > 1)
			return { page: rest.page as number, ...seen };
		if (keys.length === 1 && typeof rest.path === 'string') {
			const url = origin.underBase(rest.path);
			if (url) return { url, ...seen };
		}
	}
	throw new ServiceBehaviourError(
		'The list page token is not valid',
		'Reload the list to start from its first page.',
	);
}

/**
 * One page of a list search (a page of the "From list" choices) and the token of the next. A token
 * the service answers with the page before is sent again under each other name it may read, as
 * in walkPages; a name that works is kept in the next token.
 */
export async function searchPage({
	origin,
	token,
	pageSize,
	paging = {},
	fetchPage,
}: {
	origin: ServiceOrigin;
	token?: string;
	pageSize: number;
	paging?: ListPaging;
	fetchPage(request: PageRequest): Promise<FetchedPage<unknown>>;
}): Promise<{ records: IDataObject[]; nextToken?: string }> {
	let request: PageRequest & { after?: string } = token ? readPageToken(token, origin) : {};
	for (;;) {
		const { answer, requestUrl } = await fetchPage(request);
		const records = extractRecords(answer.body, paging);
		const alternatives = request.alternatives ?? [];
		if (request.cursor !== undefined && alternatives.length > 0 && repeats(records, request)) {
			request = { ...request, cursorParam: alternatives[0], alternatives: alternatives.slice(1) };
			continue;
		}
		checkNotRepeated(records, request);
		let next = findNextPage(answer, request.page ?? 1, records.length, pageSize, {
			offset: request.offset,
			paging,
		});
		// The name this token was read under works: the next token goes back under it too.
		if (next?.kind === 'cursor' && request.cursor !== undefined)
			next = { ...next, param: request.cursorParam ?? next.param, alternatives: [] };
		return {
			records,
			nextToken: next
				? pageToken(next, origin, requestUrl, records[records.length - 1])
				: undefined,
		};
	}
}
