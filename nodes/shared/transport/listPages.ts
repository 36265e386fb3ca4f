import type { IDataObject } from 'n8n-workflow';

import { headerValue } from './headers';

/**
 * Reading list answers whatever their envelope, and finding the next page whatever the paging
 * style. Pure functions, so every shape is tested without a server (listPages.test.ts); the loop
 * that walks the pages safely is pageWalk.ts.
 */

const RECORD_KEYS = ['data', 'items', 'results', 'records', 'entries', 'value'] as const;

function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pick(source: unknown, path: string[]): unknown {
	let current: unknown = source;
	for (const key of path) {
		if (!isObject(current)) return undefined;
		current = current[key];
	}
	return current;
}

/** The records of a list answer: a bare array, or the array under data/items/results/records/…. */
export function extractRecords(body: unknown): IDataObject[] {
	if (Array.isArray(body)) return body as IDataObject[];
	if (isObject(body)) {
		for (const key of RECORD_KEYS) {
			if (Array.isArray(body[key])) return body[key] as IDataObject[];
		}
		// A single object where a list was expected: keep it rather than lose it.
		return Object.keys(body).length ? [body] : [];
	}
	return [];
}

/** Where the next page is. `guessed`: the service gave no hint; the next page number is a guess. */
export type NextPage =
	| { kind: 'cursor'; cursor: string }
	| { kind: 'url'; url: string }
	| { kind: 'page'; page: number; guessed?: boolean };

export interface PageAnswer {
	body: unknown;
	headers?: Record<string, unknown>;
}

/** `Link: <https://…?page=2>; rel="next", <…>; rel="last"` → the rel="next" target. */
export function nextLinkFromHeader(link: string | undefined): string | undefined {
	if (!link) return undefined;
	for (const part of link.split(/,(?=\s*<)/)) {
		const match = /<([^>]+)>\s*;(.*)/.exec(part.trim());
		const rel = /rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(match?.[2] ?? '');
		const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
		if (match && relations.includes('next')) return match[1];
	}
	return undefined;
}

const CURSOR_PATHS = [
	['next_cursor'],
	['nextCursor'],
	['next_page_token'],
	['nextPageToken'],
	['cursor', 'next'],
	['meta', 'next_cursor'],
	['meta', 'nextCursor'],
	['meta', 'cursor', 'next'],
	['pagination', 'next_cursor'],
	['pagination', 'nextCursor'],
	['paging', 'next_cursor'],
];
const NEXT_URL_PATHS = [
	['next'],
	['next_url'],
	['nextUrl'],
	['next_page_url'],
	['links', 'next'],
	['links', 'next', 'href'],
	['_links', 'next', 'href'],
	['_links', 'next'],
	['meta', 'next'],
	['meta', 'next_url'],
	['pagination', 'next'],
	['pagination', 'next_url'],
	['paging', 'next'],
	['@odata.nextLink'],
];
const CURRENT_PAGE_PATHS = [['page'], ['current_page'], ['meta', 'current_page'], ['meta', 'page'], ['pagination', 'page'], ['pagination', 'current_page']];
const LAST_PAGE_PATHS = [['total_pages'], ['last_page'], ['meta', 'last_page'], ['meta', 'total_pages'], ['pagination', 'total_pages'], ['pagination', 'last_page']];
const HAS_MORE_PATHS = [['has_more'], ['hasMore'], ['meta', 'has_more'], ['pagination', 'has_more'], ['paging', 'has_more']];

function firstDefined(body: unknown, paths: string[][], accept: (value: unknown) => boolean = () => true): unknown {
	for (const path of paths) {
		const value = pick(body, path);
		if (value !== undefined && value !== null && value !== '' && accept(value)) return value;
	}
	return undefined;
}

const isText = (value: unknown) => typeof value === 'string';

/**
 * Where the next page is, or undefined on the last page.
 *
 * `requestedPage` is the page number sent (1 when none was), `received` the number of records in
 * this answer and `pageSize` the number a full page holds: a list with no hint at all is paged by
 * number while pages come back full.
 */
export function findNextPage(answer: PageAnswer, requestedPage: number, received: number, pageSize: number): NextPage | undefined {
	const { body } = answer;
	const hasMore = firstDefined(body, HAS_MORE_PATHS);
	if (hasMore === false || received === 0) return undefined;

	const linked = nextLinkFromHeader(headerValue(answer.headers, 'link'));
	if (linked) return { kind: 'url', url: linked };

	const cursor = firstDefined(body, CURSOR_PATHS, (value) => typeof value === 'string' || typeof value === 'number');
	if (cursor !== undefined) return { kind: 'cursor', cursor: String(cursor) };

	const next = firstDefined(body, NEXT_URL_PATHS, isText);
	if (typeof next === 'string') {
		// `next` is a link in most APIs and a bare cursor in a few.
		return /^(https?:\/\/|\/|\?)/i.test(next) ? { kind: 'url', url: next } : { kind: 'cursor', cursor: next };
	}

	const current = Number(firstDefined(body, CURRENT_PAGE_PATHS));
	const last = Number(firstDefined(body, LAST_PAGE_PATHS));
	if (Number.isFinite(current) && Number.isFinite(last)) {
		return current < last ? { kind: 'page', page: current + 1 } : undefined;
	}

	if (hasMore === true) return { kind: 'page', page: requestedPage + 1 };
	// No hint at all: ask for the next page number while pages come back full.
	if (received >= pageSize) return { kind: 'page', page: requestedPage + 1, guessed: true };
	return undefined;
}
