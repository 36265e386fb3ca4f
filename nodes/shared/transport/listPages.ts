import { headerValue } from './text';
import {
	extractRecords,
	isObject,
	levelsOf,
	MAX_ENTRIES,
	pick,
	type ListPaging,
	type PageRequest,
	type PageResponse,
} from './listRecords';

// The one reader of a list page (docs/dialects.md, "The reader's rules"): its total, whether there
// is more, the ways to the next page; pure: the loop is pageWalk.ts.

/** A key of the response; `name` without case or separators (`total_count` = `Total-Count`). */
interface Entry {
	key: string;
	name: string;
	value: unknown;
	parent: string;
}

/** Keys outside the records, shallowest first: the body's, a `{rel: "next", href}` as `next`, headers. */
function entriesOf(response: PageResponse, records: unknown): Entry[] {
	const entries: Entry[] = [];
	const add = (key: string, value: unknown, parent: string) =>
		entries.push({ key, name: key.toLowerCase().replace(/[^a-z0-9]/g, ''), value, parent });
	read: for (const { keys } of levelsOf(response.body))
		for (const [key, value, parent] of keys) {
			if (entries.length >= MAX_ENTRIES) break read;
			if (value === records) continue;
			add(key, value, parent);
			for (const link of Array.isArray(value) ? value.slice(0, 20) : [])
				if (
					isObject(link) &&
					/\bnext\b/i.test(String(link.rel ?? link.relation ?? '').slice(0, 100))
				)
					add('next', link.href ?? link.url, key);
		}
	for (const [header, value] of Object.entries(response.headers ?? {}).slice(0, 200))
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

const isLink = (value: unknown): value is string =>
	typeof value === 'string' && /^(https?:\/\/|\/|\?)/i.test(value);

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
const TOKEN_KEY =
	/^(next[_-]?(page[_-]?)?(cursor|token|key|marker)|continuation([_-]?token)?|end[_-]?cursor)$/i;

/** Names under which services commonly read a page token, tried when the implied one is ignored. */
const CONVENTIONAL_TOKEN_PARAMETERS = [
	'cursor',
	'page_token',
	'pageToken',
	'token',
	'continuation',
	'after',
] as const;

/** The query parameter a token's key implies: next_page_token → page_token, nextCursor → cursor, endCursor → after. */
function tokenParameterFor(key: string): string {
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

/** The shallowest value of a key whose name matches, as `read` accepts it. */
function first<T>(entries: Entry[], pattern: RegExp, read: (value: unknown) => T | undefined) {
	for (const entry of entries) {
		const value = pattern.test(entry.name) ? read(entry.value) : undefined;
		if (value !== undefined) return { key: entry.key, value };
	}
	return undefined;
}

/** One response's records, total, more, and ways to the next page, best first; `read`: walks only. */
export function readListPage(
	response: PageResponse,
	sent: PageRequest,
	{ pageSize, read, paging = {} }: { pageSize: number; read?: number; paging?: ListPaging },
	records = extractRecords(response.body, paging),
) {
	const entries = entriesOf(response, records);
	const total = paging.totalPath
		? count(pick(response.body, paging.totalPath))
		: first(entries, TOTAL, count)?.value;
	const last = first(entries, LAST, flag)?.value;
	const more = first(entries, MORE, flag)?.value ?? (last === undefined ? undefined : !last);
	const received = records.length;
	const ways: PageRequest[] = [];
	const evidence = { records, total, more, ways, guessed: false };
	const offsetWay = (name: string, offset: number, sizeName = 'limit'): PageRequest => ({
		offset,
		params: { [name]: offset, [sizeName]: pageSize },
	});

	// The last page says so, or is empty without saying there is more (then its pointer is followed).
	if (more === false || (received === 0 && more !== true)) return evidence;
	const offsetWays = (key: string, at: number, size?: { key: string; value: number }) => {
		const next = at + received;
		const goOn =
			total !== undefined ? next < total : more === true || received >= (size?.value ?? pageSize);
		if (goOn) ways.push(offsetWay(key, next, size?.key ?? paging.limitParameter));
	};

	// List Paging > Custom: the token at its path under its parameter, or the offset under its name.
	if (paging.nextTokenPath) {
		const cursor = tokenText(pick(response.body, paging.nextTokenPath));
		const key = paging.nextTokenPath.split('.').pop() as string;
		if (cursor !== undefined)
			ways.push({ cursor, cursorParam: paging.nextTokenParameter ?? tokenParameterFor(key) });
		return evidence;
	}
	if (paging.offsetParameter) {
		offsetWays(paging.offsetParameter, sent.offset ?? 0);
		return evidence;
	}

	const header = nextLinkFromHeader(headerValue(response.headers, 'link'));
	if (header) ways.push({ url: header });
	const token = entries.find(isToken);
	const names = token
		? [tokenParameterFor(token.key), token.key, ...CONVENTIONAL_TOKEN_PARAMETERS]
		: [];
	for (const name of new Set(names)) ways.push({ cursor: String(token?.value), cursorParam: name });
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

	// An offset stated with a page size or a total: the next goes back under the response's names.
	const offset = first(entries, OFFSET, count);
	const size = first(entries, SIZE, (value) => count(value) || undefined);
	const offsetStated = offset !== undefined && (size !== undefined || total !== undefined);
	if (offsetStated) offsetWays(offset.key, offset.value, size);
	if (ways.length > 0 || numbered || offsetStated) return evidence;

	// No way shown: the next page number (then the offset) while the response says there is more, or
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

/** `Link: <https://…?page=2>; rel="next", <…>; rel="last"` → the rel="next" target (linear: no backtracking past `<`). */
function nextLinkFromHeader(link: string | undefined): string | undefined {
	for (const [, target, parameters] of (link ?? '').matchAll(/<([^<>]*)>([^<]*)/g))
		if (target.trim() && relationsOf(parameters).includes('next')) return target.trim();
	return undefined;
}

/** The relation types of a link's first `; rel="next last"` parameter, lower-cased. */
function relationsOf(parameters: string): string[] {
	const rel = parameters.split(';').find((parameter) => /^\s*rel\s*=/i.test(parameter)) ?? '=';
	const value = rel.slice(rel.indexOf('=') + 1).replace(/,\s*$/, '');
	const quoted = /^\s*"([^"]*)/.exec(value)?.[1];
	return (quoted ?? value).toLowerCase().split(/\s+/).filter(Boolean);
}
