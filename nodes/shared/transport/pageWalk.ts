import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { idText } from '../ids';
import { ServiceBehaviourError } from './errors';
import { extractRecords, findNextPage, type NextPage, type PageAnswer } from './listPages';
import type { ServiceOrigin } from './service';

/**
 * The one loop that walks a list's pages, used by every list the package reads (Get Many, the
 * list searches, the trigger's webhook sweep). Whatever the service answers, it ends: each page
 * must bring records not seen before and a next-page pointer not seen before, links must stay on
 * the credential's origin, and there is an absolute cap on pages. No record is returned twice.
 */

/** Pages one call may read: 1,000,000 records at the largest page size. */
export const MAX_PAGES = 10_000;

/** What to ask for next: the first page, a cursor, a page number, or a link the service gave. */
export interface PageRequest {
	cursor?: string;
	page?: number;
	/** An absolute URL on the credential's origin (already checked). */
	url?: string;
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
	return 'the next-page link';
}

function ignoredParameter(next: PageRequest): string {
	if (next.page !== undefined) return 'the `page` parameter';
	if (next.cursor !== undefined) return 'the `cursor` parameter';
	return "the next link's query";
}

/** The request for `next`, with a marker that is the same whenever the service repeats itself. */
export function requestFor(next: NextPage, origin: ServiceOrigin, requestUrl: string): { request: PageRequest; marker: string } {
	if (next.kind === 'cursor') return { request: { cursor: next.cursor }, marker: `c:${next.cursor}` };
	if (next.kind === 'page') return { request: { page: next.page }, marker: `p:${next.page}` };
	const url = origin.followable(next.url, requestUrl, 'a next-page link');
	return { request: { url }, marker: `u:${url}` };
}

export async function walkPages<T = IDataObject>({ origin, limit, pageSize, maxPages = MAX_PAGES, fetchPage }: WalkOptions<T>): Promise<T[]> {
	const records: T[] = [];
	const seenRecords = new Set<string>();
	const seenNext = new Set<string>();
	let request: PageRequest = {};
	let guessedRequest = false;
	for (let pages = 1; ; pages++) {
		const { answer, requestUrl, items } = await fetchPage(request);
		const page = extractRecords(answer.body);
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
			// A page number we guessed (no hint from the service) that repeats: that was all there is.
			if (guessedRequest) return records;
			throw new ServiceBehaviourError(
				`The service answered ${describeNext(request)} with records it had already sent; it seems to ignore ${ignoredParameter(request)}`,
				`Stopped after ${pages} requests so that no record is returned twice (${records.length} distinct records were read). Narrow the list with filters, or ask the service's support about paging.`,
			);
		}
		const next = findNextPage(answer, request.page ?? 1, page.length, pageSize);
		if (!next) return records;
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
		request = nextRequest;
		guessedRequest = next.kind === 'page' && next.guessed === true;
	}
}

/**
 * Page tokens of the list searches (sent to the editor and back). They carry a cursor, a page
 * number, or a path under the Base URL — never a whole URL — and are checked again when they return.
 */
export function pageToken(next: NextPage, origin: ServiceOrigin, requestUrl: string, lastRecord?: IDataObject): string {
	const { request } = requestFor(next, origin, requestUrl);
	// The last record served, so the next page can tell when the service ignores paging.
	const after = lastRecord ? { after: shortHash(recordKey(lastRecord)) } : {};
	if (request.url) {
		const url = new URL(request.url);
		return JSON.stringify({ path: `${url.pathname}${url.search}`, ...after });
	}
	return JSON.stringify({ ...(request.cursor !== undefined ? { cursor: request.cursor } : { page: request.page }), ...after });
}

function shortHash(text: string): string {
	return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** A page of a list search must not repeat the record the previous page ended with. */
export function checkNotRepeated(records: IDataObject[], request: PageRequest & { after?: string }): void {
	if (request.after === undefined) return;
	if (records.some((record) => shortHash(recordKey(record)) === request.after)) {
		throw new ServiceBehaviourError(
			`The service answered ${describeNext(request)} with records it had already sent; it seems to ignore ${ignoredParameter(request)}`,
			'The list shows the first page only. Search by name to find other records.',
		);
	}
}

/** A page token back from the editor, or an error when it is not one this package would make. */
export function readPageToken(token: string, origin: ServiceOrigin): PageRequest & { after?: string } {
	let parsed: unknown;
	try {
		parsed = JSON.parse(token);
	} catch {
		parsed = undefined;
	}
	const value = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
	const { after, ...rest } = value;
	const keys = Object.keys(rest);
	const seen = typeof after === 'string' && /^[0-9a-f]{16}$/.test(after) ? { after } : {};
	if (after === undefined || seen.after !== undefined) {
		if (keys.length === 1 && typeof rest.cursor === 'string') return { cursor: rest.cursor, ...seen };
		if (keys.length === 1 && Number.isSafeInteger(rest.page) && (rest.page as number) > 1) return { page: rest.page as number, ...seen };
		if (keys.length === 1 && typeof rest.path === 'string') {
			const url = origin.underBase(rest.path);
			if (url) return { url, ...seen };
		}
	}
	throw new ServiceBehaviourError('The list page token is not valid', 'Reload the list to start from its first page.');
}
