import type { IDataObject } from 'n8n-workflow';

import { ServiceBehaviourError } from './errors';
import { headerValue } from './headers';

/**
 * Reading list answers whatever their envelope, and finding the next page whatever the paging
 * style. Pure functions, so every shape is tested without a server (listPages.test.ts); the loop
 * that walks the pages safely is pageWalk.ts.
 */

const RECORD_KEYS = ['data', 'items', 'results', 'records', 'entries', 'value'] as const;

/**
 * The user's "List Paging" override (every field optional; a field left empty is found
 * automatically). Paths are dot-separated keys in the answer's body (`result.documents`).
 */
export interface ListPaging {
	recordsPath?: string;
	nextTokenPath?: string;
	nextTokenParameter?: string;
	offsetParameter?: string;
	limitParameter?: string;
	totalPath?: string;
}

/** A List Paging setting that cannot be used; `setting` is its name as the editor shows it. */
export class ListPagingInputError extends Error {
	constructor(
		readonly setting: string,
		problem: string,
	) {
		super(`List Paging > ${setting}: ${problem}`);
	}
}

const PATH = /^[^.\s]+(\.[^.\s]+)*$/;
const PARAMETER = /^[A-Za-z0-9_\-.[\]]{1,100}$/;

/**
 * The override as the node's fields hold it, checked before any request: paths are keys joined
 * by dots (a leading `$.` is allowed), parameters are query-parameter names.
 */
export function readListPaging(raw: unknown): ListPaging {
	if (typeof raw !== 'object' || raw === null) return {};
	const settings = raw as Record<string, unknown>;
	const paging: ListPaging = {};
	const text = (name: keyof ListPaging) =>
		typeof settings[name] === 'string' ? (settings[name] as string).trim() : '';
	const paths: Array<[keyof ListPaging, string]> = [
		['recordsPath', 'Records Path'],
		['nextTokenPath', 'Next Token Path'],
		['totalPath', 'Total Path'],
	];
	for (const [name, label] of paths) {
		const value = text(name).replace(/^\$\./, '');
		if (!value) continue;
		if (!PATH.test(value))
			throw new ListPagingInputError(
				label,
				`"${value}" is not a path; write keys joined by dots, like result.documents`,
			);
		paging[name] = value;
	}
	const parameters: Array<[keyof ListPaging, string]> = [
		['nextTokenParameter', 'Next Token Parameter'],
		['offsetParameter', 'Offset Parameter'],
		['limitParameter', 'Limit Parameter'],
	];
	for (const [name, label] of parameters) {
		const value = text(name);
		if (!value) continue;
		if (!PARAMETER.test(value))
			throw new ListPagingInputError(label, `"${value}" is not a query parameter name`);
		paging[name] = value;
	}
	if (paging.nextTokenParameter && !paging.nextTokenPath) {
		throw new ListPagingInputError(
			'Next Token Path',
			'must be set when Next Token Parameter is (where the answer holds the token)',
		);
	}
	return paging;
}

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

const pathOf = (path: string) => path.split('.');

const isArrayOfObjects = (value: unknown): value is IDataObject[] =>
	Array.isArray(value) && value.every(isObject);

/** The top-level keys of an answer, for error messages (a few, each cut short). */
export function describeKeys(body: unknown): string {
	if (Array.isArray(body)) return 'none (an array of non-records)';
	if (!isObject(body))
		return body === undefined || body === null || body === ''
			? 'none (an empty answer)'
			: `none (${typeof body})`;
	const keys = Object.keys(body);
	if (keys.length === 0) return 'none (an empty object)';
	const shown = keys.slice(0, 20).map((key) => (key.length > 40 ? `${key.slice(0, 40)}…` : key));
	return `${shown.join(', ')}${keys.length > 20 ? `, and ${keys.length - 20} more` : ''}`;
}

/** The one array of records among `candidates`; several empty ones are no records either way. */
function single(candidates: IDataObject[][]): IDataObject[] | undefined {
	if (candidates.length === 1) return candidates[0];
	if (candidates.length > 1 && candidates.every((candidate) => candidate.length === 0)) return [];
	return undefined;
}

/**
 * The records of a list answer: a bare array; the array under data/items/results/…; or else the
 * one array of objects in the answer, at its top level or one level down, whatever its key.
 * Anything else is not a list and fails with its top-level keys (never one item holding it all).
 */
export function extractRecords(body: unknown, paging: ListPaging = {}): IDataObject[] {
	if (paging.recordsPath) {
		const records = pick(body, pathOf(paging.recordsPath));
		if (Array.isArray(records)) return records as IDataObject[];
		throw new ServiceBehaviourError(
			`The list answer has no array at the Records Path "${paging.recordsPath}" (top-level keys: ${describeKeys(body)})`,
			'Check List Paging > Records Path against an answer of the service.',
		);
	}
	if (Array.isArray(body)) return body as IDataObject[];
	if (isObject(body)) {
		for (const key of RECORD_KEYS) {
			if (Array.isArray(body[key])) return body[key] as IDataObject[];
		}
		const values = Object.values(body);
		const top = single(values.filter(isArrayOfObjects));
		if (top) return top;
		if (!values.some(isArrayOfObjects)) {
			const nested = single(
				values.filter(isObject).flatMap((value) => Object.values(value).filter(isArrayOfObjects)),
			);
			if (nested) return nested;
		}
	}
	throw new ServiceBehaviourError(
		`The service's answer is not a list the node can read: it holds no single array of records (top-level keys: ${describeKeys(body)})`,
		'Set List Paging to Custom and give the Records Path: where the records are in the answer (for example result.documents).',
	);
}

const CONTAINERS = [
	[],
	['meta'],
	['pagination'],
	['paging'],
	['page_info'],
	['pageInfo'],
	['page'],
	['response_metadata'],
];
const TOTAL_KEYS = [
	'total',
	'total_count',
	'totalCount',
	'count',
	'total_results',
	'totalResults',
	'total_items',
	'totalItems',
	'total_records',
	'totalRecords',
	'total_entries',
	'totalEntries',
	'total_elements',
	'totalElements',
	'total_size',
	'totalSize',
	'recordsTotal',
];

function count(value: unknown): number | undefined {
	const number = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
	return typeof number === 'number' && Number.isSafeInteger(number) && number >= 0
		? number
		: undefined;
}

/** The number of records the answer says the whole list holds (a total in any common spelling), if any. */
export function statedTotal(answer: PageAnswer, paging: ListPaging = {}): number | undefined {
	if (paging.totalPath) return count(pick(answer.body, pathOf(paging.totalPath)));
	for (const container of CONTAINERS) {
		for (const key of TOTAL_KEYS) {
			const total = count(pick(answer.body, [...container, key]));
			if (total !== undefined) return total;
		}
	}
	return (
		count(headerValue(answer.headers, 'x-total-count')) ??
		count(headerValue(answer.headers, 'x-total'))
	);
}

/**
 * Where the next page is. A cursor goes back under `param`; when the service answers it with the
 * same page again, `alternatives` are the other names worth one try each. An offset goes back as
 * `params` (the offset and page size under the names the service used). `guessed`: the service
 * gave no pointer; the next page number is a guess.
 */
export type NextPage =
	| { kind: 'cursor'; cursor: string; param: string; alternatives: string[] }
	| { kind: 'url'; url: string }
	| { kind: 'page'; page: number; guessed?: boolean }
	| { kind: 'offset'; offset: number; params: Record<string, number> };

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

/** Names under which services commonly read a page token, tried when the first guess is ignored. */
export const CONVENTIONAL_TOKEN_PARAMETERS = [
	'cursor',
	'page_token',
	'pageToken',
	'token',
	'continuation',
	'after',
] as const;

/** Keys holding a page token: next_cursor, nextPageToken, NextToken, next_marker, continuation, endCursor, … */
const TOKEN_KEY =
	/^(next[_-]?(page[_-]?)?(cursor|token|key|marker)|continuation([_-]?token)?|end[_-]?cursor)$/i;
const TOKEN_CONTAINERS = [
	...CONTAINERS,
	['cursor'],
	['cursors'],
	['paging', 'cursors'],
	['meta', 'cursor'],
	['links'],
	['_links'],
];

/** The query parameter a token's own key implies: next_page_token → page_token, nextCursor → cursor, continuation → continuation. */
export function tokenParameterFor(key: string, container: string[] = []): string {
	const last = container[container.length - 1];
	if ((last === 'cursor' && key === 'next') || key === 'next') return 'cursor';
	if (last === 'cursors' && key === 'after') return 'after';
	if (/^end[_-]?cursor$/i.test(key)) return 'after';
	const rest = key.replace(/^next[_-]?/i, '');
	if (!rest || rest === key) return key;
	return rest[0].toLowerCase() + rest.slice(1);
}

function cursorAt(key: string, container: string[], value: unknown): NextPage | undefined {
	if (
		!(
			(typeof value === 'string' && value !== '') ||
			(typeof value === 'number' && Number.isFinite(value))
		)
	)
		return undefined;
	const param = tokenParameterFor(key, container);
	const alternatives = [key, ...CONVENTIONAL_TOKEN_PARAMETERS].filter(
		(name, index, all) => name !== param && all.indexOf(name) === index,
	);
	return { kind: 'cursor', cursor: String(value), param, alternatives };
}

/** A page token under any key that names one (top level or in meta/pagination/cursor/…). */
function findToken(body: unknown): NextPage | undefined {
	for (const container of TOKEN_CONTAINERS) {
		const holder = pick(body, container);
		if (!isObject(holder)) continue;
		for (const [key, value] of Object.entries(holder)) {
			const named =
				TOKEN_KEY.test(key) ||
				(key === 'next' && ['cursor', 'meta.cursor'].includes(container.join('.'))) ||
				(key === 'after' && container[container.length - 1] === 'cursors');
			if (!named || (typeof value === 'string' && LINK.test(value))) continue;
			const cursor = cursorAt(key, container, value);
			if (cursor) return cursor;
		}
	}
	return undefined;
}

const LINK = /^(https?:\/\/|\/|\?)/i;

const NEXT_URL_PATHS = [
	['next'],
	['next_url'],
	['nextUrl'],
	['next_page_url'],
	['nextLink'],
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
const CURRENT_PAGE_PATHS = [
	['page'],
	['current_page'],
	['meta', 'current_page'],
	['meta', 'page'],
	['pagination', 'page'],
	['pagination', 'current_page'],
];
const LAST_PAGE_PATHS = [
	['total_pages'],
	['last_page'],
	['meta', 'last_page'],
	['meta', 'total_pages'],
	['pagination', 'total_pages'],
	['pagination', 'last_page'],
];
const HAS_MORE_PATHS = [
	['has_more'],
	['hasMore'],
	['meta', 'has_more'],
	['meta', 'hasMore'],
	['pagination', 'has_more'],
	['pagination', 'hasMore'],
	['paging', 'has_more'],
	['page_info', 'has_next_page'],
	['pageInfo', 'hasNextPage'],
];
const OFFSET_KEYS = ['offset', 'skip', 'start', 'startIndex', 'start_index', 'from'];
const LIMIT_KEYS = [
	'limit',
	'size',
	'page_size',
	'pageSize',
	'per_page',
	'perPage',
	'take',
	'max_results',
	'maxResults',
	'rows',
];

function firstDefined(
	body: unknown,
	paths: string[][],
	accept: (value: unknown) => boolean = () => true,
): unknown {
	for (const path of paths) {
		const value = pick(body, path);
		if (value !== undefined && value !== null && value !== '' && accept(value)) return value;
	}
	return undefined;
}

const isText = (value: unknown) => typeof value === 'string';

/** An offset echoed back with a page size or a total: its key, its value and the page size's key. */
function echoedOffset(
	body: unknown,
	hasTotal: boolean,
): { offsetKey: string; offset: number; limitKey?: string; limit?: number } | undefined {
	for (const container of CONTAINERS) {
		const holder = pick(body, container);
		if (!isObject(holder)) continue;
		const offsetKey = OFFSET_KEYS.find((key) => count(holder[key]) !== undefined);
		if (!offsetKey) continue;
		const limitKey = LIMIT_KEYS.find((key) => count(holder[key]) !== undefined);
		if (!limitKey && !hasTotal) continue;
		return {
			offsetKey,
			offset: count(holder[offsetKey]) as number,
			limitKey,
			limit: limitKey ? count(holder[limitKey]) : undefined,
		};
	}
	return undefined;
}

/** What the walk knows beyond this answer. */
export interface PagingState {
	/** The offset this page was asked for at (offset paging), 0 for the first page. */
	offset?: number;
	/** Distinct records read so far, this page included. */
	read?: number;
	paging?: ListPaging;
}

/**
 * Where the next page is, or undefined on the last page.
 *
 * `requestedPage` is the page number sent (1 when none was), `received` the number of records in
 * this answer and `pageSize` the number a full page holds: a list with no hint at all is paged by
 * number while pages come back full, or while a stated total says there is more.
 */
export function findNextPage(
	answer: PageAnswer,
	requestedPage: number,
	received: number,
	pageSize: number,
	state: PagingState = {},
): NextPage | undefined {
	const { body } = answer;
	const paging = state.paging ?? {};
	const total = statedTotal(answer, paging);
	const moreByTotal = total !== undefined && (state.read ?? received) < total;

	if (paging.nextTokenPath) {
		const path = pathOf(paging.nextTokenPath);
		const token =
			received === 0
				? undefined
				: cursorAt(path[path.length - 1], path.slice(0, -1), pick(body, path));
		if (!token || token.kind !== 'cursor') return undefined;
		return { ...token, param: paging.nextTokenParameter ?? token.param, alternatives: [] };
	}
	if (paging.offsetParameter) {
		if (received === 0) return undefined;
		const offset = (state.offset ?? 0) + received;
		const more =
			total !== undefined
				? offset < total
				: firstDefined(body, HAS_MORE_PATHS) === true || received >= pageSize;
		return more
			? {
					kind: 'offset',
					offset,
					params: {
						[paging.offsetParameter]: offset,
						[paging.limitParameter ?? 'limit']: pageSize,
					},
				}
			: undefined;
	}

	const hasMore = firstDefined(body, HAS_MORE_PATHS);
	// An empty page is the end, unless the service says there is more (then its pointer is followed).
	if (hasMore === false || (received === 0 && hasMore !== true)) return undefined;

	const linked = nextLinkFromHeader(headerValue(answer.headers, 'link'));
	if (linked) return { kind: 'url', url: linked };

	const token = findToken(body);
	if (token) return token;

	const next = firstDefined(body, NEXT_URL_PATHS, isText);
	if (typeof next === 'string') {
		// `next` is a link in most APIs and a bare cursor in a few.
		return LINK.test(next) ? { kind: 'url', url: next } : cursorAt('next', [], next);
	}

	const current = Number(firstDefined(body, CURRENT_PAGE_PATHS));
	const last = Number(firstDefined(body, LAST_PAGE_PATHS));
	if (Number.isFinite(current) && Number.isFinite(last)) {
		return current < last ? { kind: 'page', page: current + 1 } : undefined;
	}

	const echoed = echoedOffset(body, total !== undefined);
	if (echoed) {
		const offset = echoed.offset + received;
		const more =
			total !== undefined
				? offset < total
				: hasMore === true || received >= (echoed.limit || pageSize);
		if (!more) return undefined;
		return {
			kind: 'offset',
			offset,
			params: {
				[echoed.offsetKey]: offset,
				[paging.limitParameter ?? echoed.limitKey ?? 'limit']: pageSize,
			},
		};
	}

	if (hasMore === true) return { kind: 'page', page: requestedPage + 1 };
	// No pointer: ask for the next page number while pages come back full or the total says there is more.
	if (received >= pageSize || moreByTotal)
		return { kind: 'page', page: requestedPage + 1, guessed: true };
	return undefined;
}
