import { sleep, type IDataObject } from 'n8n-workflow';

import { idText } from '../ids';
import { LIST_WALK_BUDGET, MAX_PAGE_SIZE } from '../vocabulary';
import { ServiceBehaviourError } from './errors';
import { readListPage } from './listPages';
import {
	extractRecords,
	listPagingFor,
	type ListPaging,
	type PageRequest,
	type PageResponse,
} from './listRecords';
import { apiRequest, serviceClient, type ApiContext } from './request';
import type { ServiceOrigin } from './service';

/**
 * The one page loop (Get Many, lookups, sweeps, polls, list searches). It ends whatever the service
 * answers: no record twice, no pointer twice, links on the credential's origin, within a budget.
 */

/** Records of one page read between turns of the event loop. */
const RECORDS_PER_TURN = 1_000;
/** Empty pages in a row followed while the service says there are more (some filter after paging). */
const MAX_EMPTY_PAGES = 3;

type WalkBudget = Readonly<Record<'pages' | 'records' | 'bytes' | 'ms', number> & { name: string }>;

/** A page request's query parameters besides the list's filters (a link carries its own). */
export function pageQuery(request: PageRequest, pageSize: number, paging: ListPaging = {}) {
	const query: IDataObject = { [paging.limitParameter ?? 'limit']: pageSize };
	if (request.cursor !== undefined) query[request.cursorParam ?? 'cursor'] = request.cursor;
	if (request.page !== undefined) query.page = request.page;
	return Object.assign(query, request.params);
}

export interface WalkOptions<T> {
	origin: ServiceOrigin;
	limit?: number;
	paging?: ListPaging;
	/** The same on every page, so page numbers mean the same offsets. */
	pageSize: number;
	budget?: WalkBudget;
	/** Where to begin; its `alternatives` are tried in turn if the service repeats a page. */
	start?: PageRequest;
	/** Ends the walk at the first record it accepts, the last one returned. */
	stopAt?: (record: T) => boolean;
	/** Which records to return (default all); a page with none kept counts toward time and bytes only. */
	keep?: (record: T) => boolean;
	/** A record's identity, for "no record twice" (default its id, recordKey). */
	keyOf?: (record: IDataObject) => string;
	/** A page that repeats by the caller's rule too (a list search sees only its own page). */
	repeats?: (page: IDataObject[]) => boolean;
	/** `requestUrl` resolves relative links; `items` are the page's records as output items. */
	fetchPage(
		request: PageRequest,
	): Promise<{ response: PageResponse; requestUrl: string; items?: T[] }>;
}

/** `next`: where to go on when the budget ran out before the list did. */
export interface WalkResult<T> {
	records: T[];
	next?: PageRequest;
}

export function recordKey(record: IDataObject): string {
	const id = idText(record?.id);
	return id !== undefined ? `id:${id}` : `json:${JSON.stringify(record)}`;
}

/** A request as messages name it, the parameter it needs, the place it points at, and its way. */
function about({ cursor, cursorParam = 'cursor', page, offset, params, url }: PageRequest) {
	const name = Object.keys(params ?? {});
	const [what, needs, at, way] =
		cursor !== undefined
			? ['the next-page cursor', cursorParam, `c:${cursor}`, `c:${cursorParam}`]
			: page !== undefined
				? [`page ${page}`, 'page', `p:${page}`, 'p']
				: params
					? [`offset ${offset}`, name[0], `o:${offset}`, `o:${name.join()}`]
					: ['the next-page link', '', `u:${url}`, 'u'];
	return { what, needs: needs ? `the \`${needs}\` parameter` : "the next link's query", at, way };
}

/** Every way the last response showed brought back the page before (`read`: walks only). */
function repeated(tried: PageRequest[], read?: number, total?: number, guessed = false) {
	const names = tried.map((request) => `\`${request.cursorParam ?? 'cursor'}\``);
	const what =
		tried.length === 1
			? `${about(tried[0]).what} with records it had already sent; it seems to ignore ${about(tried[0]).needs}`
			: tried.every((request) => request.cursor !== undefined)
				? `the next-page cursor with records it had already sent, under each parameter name tried (${names.join(', ')})`
				: `${tried.map((request) => about(request).what).join(', then ')} with records it had already sent`;
	const said =
		read === undefined
			? `The service answered ${what}`
			: total !== undefined && read < total
				? `The service said the list holds ${total} records, but its pages ended after ${read}: it answered ${what}`
				: `The service answered ${what} (${read} distinct records read)`;
	return new ServiceBehaviourError(
		`${said}; set List Paging to Custom in the credential to say how it pages`,
		read === undefined
			? 'The list shows the pages read before only. Search by name to find other records.'
			: `Stopped after that so that no record is returned twice; no partial list is returned.${guessed ? ' Its responses showed no way to the next page, so the next page number and offset were guessed.' : ''} List Paging > Custom takes the next token's path and parameter, or the offset and limit parameter names. Or narrow the list with filters.`,
	);
}

function spent(budget: WalkBudget, pages: number, records: number, bytes: number, ms: number) {
	const part =
		pages >= budget.pages
			? `more than ${budget.pages.toLocaleString('en-US')} pages`
			: records >= budget.records
				? `more than ${budget.records.toLocaleString('en-US')} records`
				: bytes >= budget.bytes
					? `pages of more than ${Math.round(budget.bytes / 1024 / 1024)} MB`
					: ms >= budget.ms
						? `pages that take more than ${Math.round(budget.ms / 1000)} seconds to read`
						: undefined;
	return part
		? new ServiceBehaviourError(
				`The list has ${part}; stopped there (the ${budget.name} budget, ${records} records read)`,
				`No partial list is returned: each list is read within a budget of pages, records, bytes and time, so a faulty or hostile service cannot exhaust n8n. Use Limit or filters to read less at a time.`,
			)
		: undefined;
}

/** Every record of the list (or up to `limit`, or up to `stopAt`); a spent budget is an error. */
export async function walkPages<T = IDataObject>(options: WalkOptions<T>): Promise<T[]> {
	return (await walk(options)).records;
}

/** Until the list's end; or a spent `budget` returns `next` (sweeps); or each `page` does (searches). */
export async function walk<T>(
	options: WalkOptions<T>,
	until: 'end' | 'budget' | 'page' = 'end',
): Promise<WalkResult<T>> {
	const { limit, paging = {}, pageSize, budget = LIST_WALK_BUDGET } = options;
	const records: T[] = [];
	const seen = new Set<string>();
	const given = new Set<string>();
	const started = Date.now();
	let bytes = 0;
	let total: number | undefined;
	let empty = 0;
	let request = options.start ?? {};
	let counted = 0;
	/** The other ways the last response (or the start) showed, its URL, and if they were guesses. */
	let fallbacks = (request.alternatives ?? []).map(
		(cursorParam): PageRequest => ({ ...request, cursorParam }),
	);
	let base = '';
	let guessed = false;
	const tried: PageRequest[] = [];
	/** The way that last brought new records (the start's too): tried first from then on. */
	let working: string | undefined;
	for (let pages = 1; ; pages++) {
		const { response, requestUrl, items } = await options.fetchPage(request);
		bytes += response.bytes ?? Buffer.byteLength(JSON.stringify(response.body) ?? '');
		const page = extractRecords(response.body, paging);
		const before = seen.size;
		const kept = records.length;
		// A page the caller's rule calls a repeat adds no record, so it counts as one below.
		for (const [index, record] of options.repeats?.(page) ? [] : page.entries()) {
			// A page of many records (a service that ignores `limit`) lets the event loop turn.
			if (index > 0 && index % RECORDS_PER_TURN === 0) await sleep(0);
			const key = (options.keyOf ?? recordKey)(record);
			if (seen.has(key)) continue;
			seen.add(key);
			const item = items ? items[index] : (record as T);
			if (!options.keep || options.keep(item)) records.push(item);
			if (options.stopAt?.(item)) return { records };
		}
		if (!options.keep || records.length > kept) counted++;
		if (limit !== undefined && records.length >= limit) return { records: records.slice(0, limit) };
		const read = until === 'page' ? undefined : seen.size;
		const evidence = readListPage(response, request, { pageSize, read, paging }, page);
		total = evidence.total ?? total;
		const repeat = page.length > 0 && seen.size === before;
		let next: PageRequest | undefined;
		if (repeat) {
			tried.push(request);
			next = fallbacks.shift();
			if (!next) throw repeated(tried, read, total, guessed);
		} else {
			tried.length = 0;
			if (pages > 1 || options.start) working = about(request).way;
			if (evidence.ways.length === 0) {
				if (read === undefined || total === undefined || read >= total) return { records };
				throw new ServiceBehaviourError(
					`The service said the list holds ${total} records, but its pages ended after ${seen.size}`,
					`Stopped after ${pages} requests${limit !== undefined ? ` (${limit} were asked for)` : ''}; no partial list is returned. If the service pages in a way the node did not recognise, set List Paging to Custom in the credential (next token, or offset and limit parameter names).`,
				);
			}
			empty = page.length === 0 ? empty + 1 : 0;
			if (empty >= MAX_EMPTY_PAGES)
				throw new ServiceBehaviourError(
					`The service answered ${empty} empty pages in a row while saying there are more records`,
					`Stopped after ${pages} requests (${seen.size} distinct records were read); no partial list is returned.`,
				);
			const first = (way: PageRequest) => Number(about(way).way === working);
			[next, ...fallbacks] = evidence.ways.sort((a, b) => first(b) - first(a));
			base = requestUrl;
		}
		request = next.url
			? { url: options.origin.followable(next.url, base, 'a next-page link') }
			: next;
		if (until === 'page' && !repeat) {
			// A cursor's other names go along with it until one has worked (then it is `working`).
			const others = about(request).way === working ? [] : fallbacks;
			const alternatives = others.flatMap(({ cursor, cursorParam }) =>
				cursor !== undefined && cursor === request.cursor ? [cursorParam as string] : [],
			);
			return { records, next: { ...request, alternatives } };
		}
		const error = spent(budget, counted, records.length, bytes, Date.now() - started);
		if (error && until === 'budget') return { records, next: request };
		if (error) throw error;
		if (repeat) continue;
		if (given.has(about(request).at))
			throw new ServiceBehaviourError(
				`The service gave ${about(request).what} it had already given; the list would never end`,
				`Stopped after ${pages} requests (${seen.size} distinct records were read).`,
			);
		given.add(about(request).at);
		guessed = evidence.guessed;
	}
}

/** A list the package reads itself, each page one apiRequest, by `own` List Paging or the credential's. */
export async function listOf(
	context: ApiContext,
	path: string,
	qs: IDataObject,
	pageSize: number,
	own?: ListPaging,
	maxTotalWaitMs?: number,
) {
	const client = await serviceClient(context);
	const paging = listPagingFor(own, client.decrypted, context.getNode());
	const fetchPage = async (request: PageRequest) => ({
		response: await apiRequest(context, 'GET', request.url ?? path, {
			client,
			qs: request.url ? undefined : { ...qs, ...pageQuery(request, pageSize, paging) },
			maxTotalWaitMs,
		}),
		requestUrl: request.url ?? client.origin.urlOf(path),
	});
	return { origin: client.origin, pageSize, paging, fetchPage };
}

export async function apiFindRecord(
	context: ApiContext,
	path: string,
	wanted: (record: IDataObject) => boolean,
): Promise<IDataObject | undefined> {
	const list = await listOf(context, path, {}, MAX_PAGE_SIZE);
	const last = (await walkPages({ ...list, stopAt: wanted })).at(-1);
	return last !== undefined && wanted(last) ? last : undefined;
}

/** The package's own sweeps (webhooks, the audit log): a spent budget is no failure but `next`. */
export async function apiSweepRecords(
	context: ApiContext,
	path: string,
	{
		qs = {},
		onResponse,
		...options
	}: Pick<WalkOptions<IDataObject>, 'start' | 'stopAt' | 'keep' | 'keyOf'> & {
		budget: WalkBudget;
		qs?: IDataObject;
		/** Sees each page's response (the audit log reads the service's clock from its `Date`). */
		onResponse?: (response: PageResponse) => void;
	},
): Promise<WalkResult<IDataObject>> {
	const list = await listOf(context, path, qs, MAX_PAGE_SIZE);
	const fetchPage: typeof list.fetchPage = async (request) => {
		const page = await list.fetchPage(request);
		onResponse?.(page.response);
		return page;
	};
	return await walk({ ...list, fetchPage, ...options }, 'budget');
}
