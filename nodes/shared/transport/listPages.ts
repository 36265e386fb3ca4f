import type { IDataObject } from 'n8n-workflow';

import { ServiceBehaviourError, shownInput } from './errors';
import { headerValue, MAX_HEADER_CHARS } from './headers';

/**
 * The one reader of list answers (docs/dialects.md, "The reader's rules"). The whole answer is
 * evidence: the body at any depth and the headers, read by what a key names, not by where it
 * sits. From it come the records, the total, whether there is more, and every way to the next
 * page the answer shows, best first. Pure, so every shape is tested without a server
 * (listPages.test.ts); the loop that walks the pages safely is pageWalk.ts.
 */

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
	const fields: Array<[keyof ListPaging, string, boolean]> = [
		['recordsPath', 'Records Path', true],
		['nextTokenPath', 'Next Token Path', true],
		['totalPath', 'Total Path', true],
		['nextTokenParameter', 'Next Token Parameter', false],
		['offsetParameter', 'Offset Parameter', false],
		['limitParameter', 'Limit Parameter', false],
	];
	for (const [name, label, isPath] of fields) {
		const value = isPath ? text(name).replace(/^\$\./, '') : text(name);
		if (!value) continue;
		if (isPath && !PATH.test(value))
			throw new ListPagingInputError(
				label,
				`${shownInput(value)} is not a path; write keys joined by dots, like result.documents`,
			);
		if (!isPath && !PARAMETER.test(value))
			throw new ListPagingInputError(label, `${shownInput(value)} is not a query parameter name`);
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

function pick(source: unknown, path: string): unknown {
	let current: unknown = source;
	for (const key of path.split('.')) current = isObject(current) ? current[key] : undefined;
	return current;
}

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

/** How many levels below the top the reader looks for records and evidence. */
export const EVIDENCE_DEPTH = 3;
/** Keys read from an answer's body at most, across every level, so a huge envelope costs no more than a normal one. */
export const MAX_ENTRIES = 2_000;
/** Headers read as evidence at most (HTTP servers allow about a hundred). */
const MAX_HEADER_ENTRIES = 200;

const RECORD_KEYS = ['data', 'items', 'results', 'records', 'entries', 'value'];

/**
 * The records of a list answer: a bare array; else, level by level from the top, the array under
 * data/items/results/… or the one array of objects whatever its key. Several arrays of objects on
 * one level are ambiguous (unless all are empty: then the page is). Anything else is not a list
 * and fails with its top-level keys (never one item holding it all).
 */
export function extractRecords(body: unknown, paging: ListPaging = {}): IDataObject[] {
	if (paging.recordsPath) {
		const records = pick(body, paging.recordsPath);
		if (Array.isArray(records)) return records as IDataObject[];
		throw new ServiceBehaviourError(
			`The list answer has no array at the Records Path "${paging.recordsPath}" (top-level keys: ${describeKeys(body)})`,
			'Check List Paging > Records Path against an answer of the service.',
		);
	}
	if (Array.isArray(body)) return body as IDataObject[];
	let level = isObject(body) ? [body] : [];
	// Keys looked at in all, across every level: a huge or deep envelope costs no more than a normal one.
	let budget = MAX_ENTRIES;
	for (let depth = 0; depth <= EVIDENCE_DEPTH && level.length > 0; depth++) {
		for (const holder of level)
			for (const key of RECORD_KEYS)
				if (Object.hasOwn(holder, key) && Array.isArray(holder[key]))
					return holder[key] as IDataObject[];
		const values: unknown[] = [];
		for (const holder of level) {
			for (const key of Object.keys(holder)) {
				if (budget-- <= 0) break;
				values.push(holder[key]);
			}
		}
		const arrays = values.filter(isArrayOfObjects);
		if (arrays.length === 1 || (arrays.length > 1 && arrays.every((a) => a.length === 0)))
			return arrays[0];
		if (arrays.length > 1) break;
		level = values.filter(isObject);
	}
	throw new ServiceBehaviourError(
		`The service's answer is not a list the node can read: it holds no single array of records (top-level keys: ${describeKeys(body)})`,
		'Set List Paging to Custom and give the Records Path: where the records are in the answer (for example result.documents).',
	);
}

/** One key of the answer with its value and the key of the object holding it (`headers` for a header). */
interface Entry {
	key: string;
	/** The key lower-cased without separators: `total_count`, `totalCount` and `Total-Count` are one name. */
	name: string;
	value: unknown;
	parent: string;
}

const nameOf = (key: string) => key.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Every key of the answer outside its records, shallowest first: the body's objects down to
 * EVIDENCE_DEPTH, a `{rel: "next", href}` link among an array's objects as the key `next`, then
 * the headers (`X-Next-Page-Token` as `next_page_token`).
 */
function entriesOf(answer: PageAnswer, records?: unknown): Entry[] {
	const entries: Entry[] = [];
	const add = (key: string, value: unknown, parent: string) =>
		entries.push({ key, name: nameOf(key), value, parent });
	// MAX_ENTRIES bounds the keys read from the body in all, whatever its width or depth.
	let level: Array<[IDataObject, string]> = isObject(answer.body) ? [[answer.body, '']] : [];
	read: for (let depth = 0; depth <= EVIDENCE_DEPTH; depth++) {
		const next: Array<[IDataObject, string]> = [];
		for (const [holder, parent] of level) {
			for (const key of Object.keys(holder)) {
				if (entries.length >= MAX_ENTRIES) break read;
				const value = holder[key];
				if (value === records) continue;
				add(key, value, parent);
				if (isObject(value)) next.push([value, key]);
				for (const link of Array.isArray(value) ? value.slice(0, 20) : [])
					if (
						isObject(link) &&
						/\bnext\b/i.test(String(link.rel ?? link.relation ?? '').slice(0, 100))
					)
						add('next', link.href ?? link.url, key);
			}
		}
		level = next;
	}
	for (const [header, value] of Object.entries(answer.headers ?? {}).slice(0, MAX_HEADER_ENTRIES))
		add(
			header.toLowerCase().replace(/^x-/, '').replace(/-/g, '_'),
			Array.isArray(value) ? value[0] : value,
			'headers',
		);
	return entries;
}

/** A whole number of 0 or more, from a number or its digits (headers are text). */
function count(value: unknown): number | undefined {
	const number = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
	return typeof number === 'number' && Number.isSafeInteger(number) && number >= 0
		? number
		: undefined;
}

/** true or false, also as text (headers are text); anything else is no flag. */
const flag = (value: unknown) => [false, true][['false', 'true'].indexOf(String(value))];

const LINK = /^(https?:\/\/|\/|\?)/i;
const isLink = (value: unknown): value is string => typeof value === 'string' && LINK.test(value);

// What each key names, by its name without case or separators (docs/dialects.md lists them).
const TOTAL =
	/^(total|count|numfound|recordstotal|total(count|results|items|records|entries|elements|size|hits|rows))$/;
const MORE = /^(hasmore|hasnextpage|hasnext|more|moreresults|moreitems)$/;
const LAST = /^(islast|islastpage|last)$/;
const NEXT_LINK =
	/^(next|nexturl|nextlink|nextpage|nextpageurl|nexthref|nextrecordsurl|odatanextlink)$/;
const NEXT_PAGE = /^(next|nextpage|nextpagenumber)$/;
const CURRENT_PAGE = /^(page|currentpage|pagenumber|pagenum|pageno)$/;
const LAST_PAGE = /^(totalpages|lastpage|pagecount|numpages|pages)$/;
const OFFSET =
	/^(page|results?|records?|items?|rows?|list)?(offset|skip|start|startat|startindex|startposition|from|position|first(result|record|row|item)s?)$/;
const SIZE =
	/^(page|results?|records?|items?|rows?|list|max|per)?(limit|size|pagesize|perpage|take|top|rows|results|items|length)$/;
/** Keys holding a page token: next_cursor, nextPageToken, NextToken, next_marker, continuation, endCursor, … */
const TOKEN_KEY =
	/^(next[_-]?(page[_-]?)?(cursor|token|key|marker)|continuation([_-]?token)?|end[_-]?cursor)$/i;

/** Names under which services commonly read a page token, tried when the implied one is ignored. */
export const CONVENTIONAL_TOKEN_PARAMETERS = [
	'cursor',
	'page_token',
	'pageToken',
	'token',
	'continuation',
	'after',
] as const;

/** The query parameter a token's key implies: next_page_token → page_token, nextCursor → cursor, endCursor → after. */
export function tokenParameterFor(key: string): string {
	if (key === 'next') return 'cursor';
	if (key === 'after' || /^end[_-]?cursor$/i.test(key)) return 'after';
	const rest = key.replace(/^next[_-]?/i, '');
	if (!rest || rest === key) return key;
	return rest[0].toLowerCase() + rest.slice(1);
}

const tokenText = (value: unknown) =>
	(typeof value === 'string' && value !== '') ||
	(typeof value === 'number' && Number.isFinite(value))
		? String(value)
		: undefined;

/** A page token: under a key naming one, a bare `next` that is no link, or `after` among cursors. */
const isToken = ({ key, value, parent }: Entry) =>
	tokenText(value) !== undefined &&
	!isLink(value) &&
	(TOKEN_KEY.test(key) ||
		(key === 'next' && typeof value === 'string') ||
		(key === 'after' && /^cursors?$/.test(parent)));

/** The first value, shallowest first, of a key whose name matches, as `read` accepts it. */
function first<T>(
	entries: Entry[],
	pattern: RegExp,
	read: (value: unknown) => T | undefined,
): { key: string; value: T } | undefined {
	for (const entry of entries) {
		const value = pattern.test(entry.name) ? read(entry.value) : undefined;
		if (value !== undefined) return { key: entry.key, value };
	}
	return undefined;
}

/**
 * `Link: <https://…?page=2>; rel="next", <…>; rel="last"` → the rel="next" target. Read with
 * indexOf, one pass over at most MAX_HEADER_CHARS: a header of any content costs linear time.
 */
export function nextLinkFromHeader(link: string | undefined): string | undefined {
	const text = link?.slice(0, MAX_HEADER_CHARS) ?? '';
	let at = 0;
	for (;;) {
		const close = text.indexOf('>', at);
		if (close < 0) return undefined;
		// The target starts after the last `<` before its `>`: stray `<` in front are no part of it.
		const open = text.lastIndexOf('<', close);
		const following = text.indexOf('<', close + 1);
		const parameters = text.slice(close + 1, following < 0 ? undefined : following);
		const target = open >= at ? text.slice(open + 1, close).trim() : '';
		if (target && relationsOf(parameters).includes('next')) return target;
		if (following < 0) return undefined;
		at = following;
	}
}

/** The relation types of a link's `; rel="next last"` parameters, lower-cased. */
function relationsOf(parameters: string): string[] {
	for (const parameter of parameters.split(';')) {
		const equals = parameter.indexOf('=');
		if (equals < 0 || parameter.slice(0, equals).trim().toLowerCase() !== 'rel') continue;
		let value = parameter.slice(equals + 1).trim();
		if (value.endsWith(',')) value = value.slice(0, -1).trim();
		if (value.startsWith('"')) {
			const end = value.indexOf('"', 1);
			value = value.slice(1, end < 0 ? undefined : end);
		}
		return value.toLowerCase().split(/\s+/).filter(Boolean);
	}
	return [];
}

export interface PageAnswer {
	body: unknown;
	headers?: Record<string, unknown>;
	/** The answer's size as read from the network (readAnswer): list walks count it against their budget. */
	bytes?: number;
}

/**
 * A request for a page: the first (nothing set), a cursor under a query parameter, a page number,
 * an offset with the query parameters that carry it and the page size, or a link the service gave.
 */
export interface PageRequest {
	cursor?: string;
	/** The query parameter the cursor goes under (default `cursor`). */
	cursorParam?: string;
	page?: number;
	offset?: number;
	params?: Record<string, number>;
	url?: string;
	/** List searches: other names to try for the cursor when the service answers it with the same page. */
	alternatives?: string[];
}

/** The number of records the answer says the whole list holds, wherever it says so, if anywhere. */
export function statedTotal(
	answer: PageAnswer,
	paging: ListPaging = {},
	entries = entriesOf(answer),
): number | undefined {
	if (paging.totalPath) return count(pick(answer.body, paging.totalPath));
	return first(entries, TOTAL, count)?.value;
}

export interface PageEvidence {
	records: IDataObject[];
	total?: number;
	/** What the answer says about more records (has_more, hasNextPage, isLast, …), if anything. */
	more?: boolean;
	/** The ways to the next page, best first; none on the last page. */
	ways: PageRequest[];
	/** The answer showed no way: the ways are the next page number and offset, guessed. */
	guessed: boolean;
}

/**
 * Everything one answer says about its list. `sent` is the request that got it; `read` the
 * distinct records read so far, this page included (unknown to a list search, which reads one
 * page); `pageSize` the number asked for per page.
 */
export function readListPage(
	answer: PageAnswer,
	sent: PageRequest,
	{ pageSize, read, paging = {} }: { pageSize: number; read?: number; paging?: ListPaging },
	records = extractRecords(answer.body, paging),
): PageEvidence {
	const entries = entriesOf(answer, records);
	const total = statedTotal(answer, paging, entries);
	const last = first(entries, LAST, flag)?.value;
	const more = first(entries, MORE, flag)?.value ?? (last === undefined ? undefined : !last);
	const received = records.length;
	const evidence: PageEvidence = { records, total, more, ways: [], guessed: false };
	const offsetWay = (name: string, offset: number, sizeName = 'limit'): PageRequest => ({
		offset,
		params: { [name]: offset, [sizeName]: pageSize },
	});

	// The last page says so, or is empty without saying there is more (then its pointer is followed).
	if (more === false || (received === 0 && more !== true)) return evidence;
	const ways = evidence.ways;
	const cursorWays = (cursor: string | undefined, names: string[]) => {
		if (cursor !== undefined)
			for (const name of new Set(names)) ways.push({ cursor, cursorParam: name });
	};
	const offsetWays = (key: string, at: number, size?: { key: string; value: number }) => {
		const next = at + received;
		const goOn =
			total !== undefined ? next < total : more === true || received >= (size?.value ?? pageSize);
		if (goOn) ways.push(offsetWay(key, next, size?.key ?? paging.limitParameter));
	};

	// List Paging > Custom: the token at its path under its parameter, or the offset under its name.
	if (paging.nextTokenPath) {
		const key = paging.nextTokenPath.split('.').pop() as string;
		cursorWays(tokenText(pick(answer.body, paging.nextTokenPath)), [
			paging.nextTokenParameter ?? tokenParameterFor(key),
		]);
		return evidence;
	}
	if (paging.offsetParameter) {
		offsetWays(paging.offsetParameter, sent.offset ?? 0);
		return evidence;
	}

	const header = nextLinkFromHeader(headerValue(answer.headers, 'link'));
	if (header) ways.push({ url: header });
	const token = entries.find(isToken);
	if (token)
		cursorWays(tokenText(token.value), [
			tokenParameterFor(token.key),
			token.key,
			...CONVENTIONAL_TOKEN_PARAMETERS,
		]);
	const link = entries.find(
		(entry) =>
			isLink(entry.value) &&
			(NEXT_LINK.test(entry.name) || (/^(href|url)$/.test(entry.name) && entry.parent === 'next')),
	);
	if (link) ways.push({ url: link.value as string });

	// Page numbers: the next one stated, or the current one below the last.
	const nextPage = first(entries, NEXT_PAGE, count)?.value;
	const current = first(entries, CURRENT_PAGE, count)?.value;
	const lastPage = first(entries, LAST_PAGE, count)?.value;
	const numbered = nextPage !== undefined || (current !== undefined && lastPage !== undefined);
	if (nextPage !== undefined) ways.push({ page: nextPage });
	else if (numbered && (current as number) < (lastPage as number))
		ways.push({ page: (current as number) + 1 });

	// An offset stated with a page size or a total: the next one goes back under the same name,
	// and the page size under the answer's name for it.
	const offset = first(entries, OFFSET, count);
	const size = first(entries, SIZE, (value) => count(value) || undefined);
	const offsetStated = offset !== undefined && (size !== undefined || total !== undefined);
	if (offsetStated) offsetWays(offset.key, offset.value, size);
	if (ways.length > 0 || numbered || offsetStated) return evidence;

	// No way shown: the next page number (then the offset) while the answer says there is more, or
	// a stated total is not reached, or (with no total) the page came back full.
	if (
		more === true ||
		(total !== undefined && read !== undefined ? read < total : received >= pageSize)
	) {
		const at = read ?? (sent.offset ?? 0) + received;
		ways.push({ page: (sent.page ?? 1) + 1 }, offsetWay('offset', at, paging.limitParameter));
		evidence.guessed = more !== true;
	}
	return evidence;
}
