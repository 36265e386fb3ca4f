import type { IDataObject } from 'n8n-workflow';

/**
 * Reading list responses whatever their envelope, and finding the next page whatever the
 * pagination style. Pure functions, so every shape is tested without a server.
 */

const RECORD_KEYS = ['data', 'items', 'results', 'records'] as const;

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

/** The records of a list response: a bare array, or the array under data/items/results/records. */
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

export type NextPage =
	| { kind: 'cursor'; cursor: string }
	| { kind: 'url'; url: string }
	| { kind: 'page'; page: number };

export interface PageResponse {
	body: unknown;
	headers: Record<string, unknown>;
}

function headerValue(headers: Record<string, unknown>, name: string): string | undefined {
	for (const [key, value] of Object.entries(headers ?? {})) {
		if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(', ') : String(value);
	}
	return undefined;
}

/** `Link: <https://…?page=2>; rel="next", <…>; rel="last"` → the rel="next" target. */
export function nextLinkFromHeader(link: string | undefined): string | undefined {
	if (!link) return undefined;
	for (const part of link.split(',')) {
		const match = /<([^>]+)>\s*;(.*)/.exec(part.trim());
		if (match && /rel\s*=\s*"?next"?/i.test(match[2])) return match[1];
	}
	return undefined;
}

const CURSOR_PATHS = [
	['next_cursor'],
	['nextCursor'],
	['cursor', 'next'],
	['meta', 'next_cursor'],
	['meta', 'nextCursor'],
	['pagination', 'next_cursor'],
	['pagination', 'nextCursor'],
];
const NEXT_URL_PATHS = [['next'], ['links', 'next'], ['_links', 'next', 'href'], ['meta', 'next'], ['pagination', 'next']];
const CURRENT_PAGE_PATHS = [['page'], ['current_page'], ['meta', 'current_page'], ['meta', 'page'], ['pagination', 'page'], ['pagination', 'current_page']];
const LAST_PAGE_PATHS = [['total_pages'], ['last_page'], ['meta', 'last_page'], ['meta', 'total_pages'], ['pagination', 'total_pages'], ['pagination', 'last_page']];
const HAS_MORE_PATHS = [['has_more'], ['hasMore'], ['meta', 'has_more'], ['pagination', 'has_more']];

function firstDefined(body: unknown, paths: string[][]): unknown {
	for (const path of paths) {
		const value = pick(body, path);
		if (value !== undefined && value !== null && value !== '') return value;
	}
	return undefined;
}

/**
 * Where the next page is, or undefined on the last page.
 *
 * `requestedPage` is the page number sent (1 when none was), `received`/`pageSize` the count
 * returned and asked for: a bare array with no other hint is paged by number while pages come
 * back full.
 */
export function findNextPage(
	response: PageResponse,
	requestedPage: number,
	received: number,
	pageSize: number,
): NextPage | undefined {
	const { body } = response;
	const hasMore = firstDefined(body, HAS_MORE_PATHS);
	if (hasMore === false || received === 0) return undefined;

	const linked = nextLinkFromHeader(headerValue(response.headers, 'link'));
	if (linked) return { kind: 'url', url: linked };

	const cursor = firstDefined(body, CURSOR_PATHS);
	if (typeof cursor === 'string' || typeof cursor === 'number') return { kind: 'cursor', cursor: String(cursor) };

	const nextUrl = firstDefined(body, NEXT_URL_PATHS);
	if (typeof nextUrl === 'string' && /^https?:\/\//i.test(nextUrl)) return { kind: 'url', url: nextUrl };

	const current = Number(firstDefined(body, CURRENT_PAGE_PATHS));
	const last = Number(firstDefined(body, LAST_PAGE_PATHS));
	if (Number.isFinite(current) && Number.isFinite(last)) {
		return current < last ? { kind: 'page', page: current + 1 } : undefined;
	}

	// No hint but has_more, or no hint at all: ask for the next page number while pages come back full.
	if (hasMore === true || received >= pageSize) return { kind: 'page', page: requestedPage + 1 };
	return undefined;
}
