import type { IDataObject } from 'n8n-workflow';

import { idText } from '../ids';
import { LIST_WALK_BUDGET } from '../vocabulary';
import { ServiceBehaviourError } from './errors';
import { readListPage } from './listPages';
import {
	extractRecords,
	type ListPaging,
	type PageResponse,
	type PageRequest,
} from './listRecords';
import type { ServiceOrigin } from './service';

/**
 * The one loop that walks a list's pages, used by every list the package reads (Get Many, the
 * list searches, the webhook sweeps). Whatever the service answers, it ends: each page must bring
 * records not seen before (a page that repeats the one before is answered by the next way to the
 * next page the response showed, or it is an error), a pointer is never followed twice, links stay
 * on the credential's origin, and the walk keeps within its budget. No record is returned twice,
 * and no list is returned short.
 */

/** Pages one walk may read (LIST_WALK_BUDGET). */
export const MAX_PAGES = LIST_WALK_BUDGET.pages;

/** Empty pages in a row that a service saying "there is more" is followed through (some filter after paging). */
export const MAX_EMPTY_PAGES = 3;

/** A walk's bounds (vocabulary.ts): pages, records, bytes read and milliseconds. */
export type WalkBudget = Readonly<
	Record<'pages' | 'records' | 'bytes' | 'ms', number> & { name: string }
>;

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
	response: PageResponse;
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
	budget?: WalkBudget;
	/** Where the walk begins (default: the first page); a sweep goes on where the last one stopped. */
	start?: PageRequest;
	/** Ends the walk at the first record it accepts, which is then the last one returned. */
	stopAt?: (record: T) => boolean;
	fetchPage(request: PageRequest): Promise<FetchedPage<T>>;
}

/** What a walk within its budget read; `next` is set when the budget ran out before the list did. */
export interface WalkResult<T> {
	records: T[];
	next?: PageRequest;
}

/** A record's identity: its id when it has one, otherwise its whole content. */
export function recordKey(record: IDataObject): string {
	const id = idText(record?.id);
	return id !== undefined ? `id:${id}` : `json:${JSON.stringify(record)}`;
}

/**
 * How a request is named in messages, the parameter it depends on, the place it points at (the
 * same whatever name a cursor goes under) and its way of reading on (a cursor under a name, page
 * numbers, an offset under its names, links).
 */
export function about({ cursor, cursorParam = 'cursor', page, offset, params, url }: PageRequest) {
	const parameter = (what: string, name: string, at: string, way: string) => {
		return { what, needs: `the \`${name}\` parameter`, at, way };
	};
	if (cursor !== undefined)
		return parameter('the next-page cursor', cursorParam, `c:${cursor}`, `c:${cursorParam}`);
	if (page !== undefined) return parameter(`page ${page}`, 'page', `p:${page}`, 'p');
	const names = Object.keys(params ?? {});
	if (params) return parameter(`offset ${offset}`, names[0], `o:${offset}`, `o:${names.join()}`);
	return { what: 'the next-page link', needs: "the next link's query", at: `u:${url}`, way: 'u' };
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
	if (total === undefined || records.length >= Math.min(total, limit ?? Infinity)) return records;
	throw new ServiceBehaviourError(
		`The service said the list holds ${total} records, but its pages ended after ${records.length}`,
		`Stopped after ${requests} requests${limit !== undefined ? ` (${limit} were asked for)` : ''}; no partial list is returned. If the service pages in a way the node did not recognise, set List Paging to Custom (next token, or offset and limit parameter names).`,
	);
}

/** Every way the last response showed brought back the page before: an error naming each and List Paging. */
function repeated(
	tried: PageRequest[],
	read: number,
	total: number | undefined,
	guessed: boolean,
): ServiceBehaviourError {
	const names = tried.map((request) => `\`${request.cursorParam ?? 'cursor'}\``);
	const what =
		tried.length === 1
			? `${about(tried[0]).what} with records it had already sent; it seems to ignore ${about(tried[0]).needs}`
			: tried.every((request) => request.cursor !== undefined)
				? `the next-page cursor with records it had already sent, under each parameter name tried (${names.join(', ')})`
				: `${tried.map((request) => about(request).what).join(', then ')} with records it had already sent`;
	const said =
		total !== undefined && read < total
			? `The service said the list holds ${total} records, but its pages ended after ${read}: it answered ${what}`
			: `The service answered ${what} (${read} distinct records read)`;
	return new ServiceBehaviourError(
		`${said}; set List Paging to Custom to say how it pages`,
		`Stopped after that so that no record is returned twice; no partial list is returned.${guessed ? ' Its responses showed no way to the next page, so the next page number and offset were guessed.' : ''} List Paging > Custom takes the next token's path and parameter, or the offset and limit parameter names. Or narrow the list with filters.`,
	);
}

const MB = 1024 * 1024;

/** The part of the budget a walk has spent before another request, if any, naming it. */
function spent(budget: WalkBudget, pages: number, records: number, bytes: number, ms: number) {
	const over: Array<[boolean, string]> = [
		[pages >= budget.pages, `more than ${budget.pages.toLocaleString('en-US')} pages`],
		[records >= budget.records, `more than ${budget.records.toLocaleString('en-US')} records`],
		[bytes >= budget.bytes, `pages of more than ${Math.round(budget.bytes / MB)} MB`],
		[ms >= budget.ms, `pages that take more than ${Math.round(budget.ms / 1000)} seconds to read`],
	];
	const part = over.find(([reached]) => reached);
	return part
		? new ServiceBehaviourError(
				`The list has ${part[1]}; stopped there (the ${budget.name} budget, ${records} records read)`,
				`No partial list is returned: each list is read within a budget of pages, records, bytes and time, so a faulty or hostile service cannot exhaust n8n. Use Limit or filters to read less at a time.`,
			)
		: undefined;
}

/** Every record of the list (or up to `limit`, or up to `stopAt`); a spent budget is an error. */
export async function walkPages<T = IDataObject>(options: WalkOptions<T>): Promise<T[]> {
	return (await walk(options, false)).records;
}

/**
 * The same walk, but a spent budget ends it with the records read so far and the request that
 * would have come next (`next`), to go on from there later: for the package's own sweeps, where
 * a long list is "cannot tell yet", never a failure.
 */
export async function walkPagesWithin<T = IDataObject>(
	options: WalkOptions<T>,
): Promise<WalkResult<T>> {
	return await walk(options, true);
}

async function walk<T>(
	{
		origin,
		limit,
		paging = {},
		pageSize,
		budget = LIST_WALK_BUDGET,
		start = {},
		stopAt,
		fetchPage,
	}: WalkOptions<T>,
	partial: boolean,
): Promise<WalkResult<T>> {
	const records: T[] = [];
	const seenRecords = new Set<string>();
	const givenPointers = new Set<string>();
	const started = Date.now();
	let bytes = 0;
	let total: number | undefined;
	let emptyInARow = 0;
	let request: PageRequest = start;
	/** Within the budget, or (partial) the records so far and where to go on. */
	const within = (pages: number, upcoming: PageRequest): WalkResult<T> | undefined => {
		const error = spent(budget, pages, records.length, bytes, Date.now() - started);
		if (!error) return undefined;
		if (partial) return { records, next: upcoming };
		throw error;
	};
	/** The other ways to the next page the last response showed, and the URL its links are relative to. */
	let fallbacks: PageRequest[] = [];
	let base = '';
	/** Links are followed on the credential's origin only (relative ones against their response's URL). */
	const follow = (way: PageRequest) =>
		way.url ? { url: origin.followable(way.url, base, 'a next-page link') } : way;
	let guessed = false;
	/** Ways answered with the page before, for the error. */
	const tried: PageRequest[] = [];
	/** The way that last brought new records: tried first from then on. */
	let working: string | undefined;
	for (let pages = 1; ; pages++) {
		const { response, requestUrl, items } = await fetchPage(request);
		bytes += response.bytes ?? Buffer.byteLength(JSON.stringify(response.body) ?? '');
		const page = extractRecords(response.body, paging);
		let fresh = 0;
		for (const [index, record] of page.entries()) {
			const key = recordKey(record);
			if (seenRecords.has(key)) continue;
			seenRecords.add(key);
			const item = items ? items[index] : (record as T);
			records.push(item);
			fresh++;
			if (stopAt?.(item)) return { records };
		}
		if (limit !== undefined && records.length >= limit) return { records: records.slice(0, limit) };
		const evidence = readListPage(
			response,
			request,
			{ pageSize, read: records.length, paging },
			page,
		);
		total = evidence.total ?? total;
		if (page.length > 0 && fresh === 0) {
			tried.push(request);
			const next = fallbacks.shift();
			if (!next) throw repeated(tried, records.length, total, guessed);
			const stopped = within(pages, follow(next));
			if (stopped) return stopped;
			request = follow(next);
			continue;
		}
		tried.length = 0;
		if (pages > 1) working = about(request).way;
		const ways = evidence.ways;
		if (ways.length === 0) return { records: whole(records, total, limit, pages) };
		emptyInARow = page.length === 0 ? emptyInARow + 1 : 0;
		if (emptyInARow >= MAX_EMPTY_PAGES) {
			throw new ServiceBehaviourError(
				`The service answered ${emptyInARow} empty pages in a row while saying there are more records`,
				`Stopped after ${pages} requests (${records.length} distinct records were read); no partial list is returned.`,
			);
		}
		// The way that brought records last goes first.
		const first = (way: PageRequest) => Number(about(way).way === working);
		const [upcoming, ...others] = [...ways].sort((a, b) => first(b) - first(a));
		base = requestUrl;
		const stopped = within(pages, follow(upcoming));
		if (stopped) return stopped;
		fallbacks = others;
		request = follow(upcoming);
		if (givenPointers.has(about(request).at)) {
			throw new ServiceBehaviourError(
				`The service gave ${about(request).what} it had already given; the list would never end`,
				`Stopped after ${pages} requests (${records.length} distinct records were read).`,
			);
		}
		givenPointers.add(about(request).at);
		guessed = evidence.guessed;
	}
}
