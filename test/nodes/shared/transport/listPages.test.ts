/**
 * nodes/shared/transport/listPages.ts's readListPage, pure: the records of every list envelope, and the next page
 * of every paging style, without a server. (The same shapes through n8n's routing engine are in
 * test/behaviour/listShapes.test.ts.)
 */
import { readListPage } from '../../../../nodes/shared/transport/listPages';
import type { ListPaging, PageResponse } from '../../../../nodes/shared/transport/listRecords';

const records = [{ id: 'a' }, { id: 'b' }];
/** Names services commonly read a page token under, tried when the implied one is ignored. */
const CONVENTIONAL_TOKEN_PARAMETERS = [
	'cursor',
	'page_token',
	'pageToken',
	'token',
	'continuation',
	'after',
];

/**
 * The first way to the next page the reader finds (readListPage), as the tables below state it: a
 * cursor with its parameter and the other names it is tried under, a link, a page number (marked
 * when guessed) or an offset with its parameters; undefined on the last page.
 */
function findNextPage(
	response: PageResponse,
	requestedPage: number,
	received: number,
	pageSize: number,
	state: { offset?: number; read?: number; paging?: ListPaging } = {},
) {
	const page = Array.from({ length: received }, (_, i) => ({ id: `r${i}` }));
	const evidence = readListPage(
		response,
		{ page: requestedPage, offset: state.offset },
		{ pageSize, read: state.read ?? received, paging: state.paging },
		page,
	);
	const [way, ...rest] = evidence.ways;
	if (!way) return undefined;
	if (way.cursor !== undefined)
		return {
			kind: 'cursor',
			cursor: way.cursor,
			param: way.cursorParam,
			alternatives: rest.filter((other) => other.cursor === way.cursor).map((o) => o.cursorParam),
		};
	if (way.url !== undefined) return { kind: 'url', url: way.url };
	if (way.params !== undefined) return { kind: 'offset', offset: way.offset, params: way.params };
	return { kind: 'page', page: way.page, ...(evidence.guessed ? { guessed: true } : {}) };
}

describe('findNextPage', () => {
	const next = (
		body: unknown,
		{
			requestedPage = 1,
			received = 2,
			pageSize = 2,
			headers,
		}: {
			requestedPage?: number;
			received?: number;
			pageSize?: number;
			headers?: Record<string, unknown>;
		} = {},
	) => findNextPage({ body, headers }, requestedPage, received, pageSize);

	test('has_more false is the last page, whatever else the answer says', () => {
		expect(
			next({ data: records, has_more: false, next_cursor: 'c2', next_url: 'https://a.test/?p=2' }),
		).toBeUndefined();
		expect(
			next({ data: records, meta: { has_more: false } }, { received: 2, pageSize: 2 }),
		).toBeUndefined();
	});

	test('an empty page is the last', () => {
		expect(next({ data: [], next_cursor: 'c2' }, { received: 0 })).toBeUndefined();
	});

	test('a Link header rel="next"', () => {
		expect(
			next(records, { headers: { Link: '<https://a.test/v1/documents?page=2>; rel="next"' } }),
		).toEqual({ kind: 'url', url: 'https://a.test/v1/documents?page=2' });
	});

	test.each([
		[{ next_cursor: 'c2' }, 'cursor'],
		[{ nextCursor: 'c2' }, 'cursor'],
		[{ next_page_token: 'c2' }, 'page_token'],
		[{ nextPageToken: 'c2' }, 'pageToken'],
		[{ NextToken: 'c2' }, 'token'],
		[{ next_marker: 'c2' }, 'marker'],
		[{ continuation: 'c2' }, 'continuation'],
		[{ continuationToken: 'c2' }, 'continuationToken'],
		[{ cursor: { next: 'c2' } }, 'cursor'],
		[{ meta: { next_cursor: 'c2' } }, 'cursor'],
		[{ meta: { nextCursor: 'c2' } }, 'cursor'],
		[{ meta: { cursor: { next: 'c2' } } }, 'cursor'],
		[{ pagination: { next_cursor: 'c2' } }, 'cursor'],
		[{ pagination: { nextCursor: 'c2' } }, 'cursor'],
		[{ paging: { next_cursor: 'c2' } }, 'cursor'],
		[{ paging: { cursors: { after: 'c2' } } }, 'after'],
		[{ pageInfo: { endCursor: 'c2', hasNextPage: true } }, 'after'],
		[{ response_metadata: { next_cursor: 'c2' } }, 'cursor'],
	])(
		'a token: %j goes back under %s, with the conventional names as alternatives',
		(hint, param) => {
			const found = next({ data: records, ...hint });
			expect(found).toMatchObject({ kind: 'cursor', cursor: 'c2', param });
			expect(found?.kind === 'cursor' && found.alternatives).toEqual(
				expect.arrayContaining(CONVENTIONAL_TOKEN_PARAMETERS.filter((name) => name !== param)),
			);
			expect(found?.kind === 'cursor' && found.alternatives).not.toContain(param);
		},
	);

	test('a Relay page that says there is no next page ends the list', () => {
		expect(
			next({ data: records, pageInfo: { endCursor: 'c2', hasNextPage: false } }),
		).toBeUndefined();
	});

	test('a numeric cursor is read as text; empty or null cursors are no cursor', () => {
		expect(next({ data: records, next_cursor: 17 })).toMatchObject({
			kind: 'cursor',
			cursor: '17',
		});
		expect(next({ data: records, next_cursor: '', has_more: true })).toEqual({
			kind: 'page',
			page: 2,
		});
		expect(next({ data: records, next_cursor: null }, { received: 1 })).toBeUndefined();
	});

	test.each([
		[{ next: 'https://a.test/v1/documents?page=2' }],
		[{ next_url: 'https://a.test/v1/documents?page=2' }],
		[{ nextUrl: 'https://a.test/v1/documents?page=2' }],
		[{ next_page_url: 'https://a.test/v1/documents?page=2' }],
		[{ links: { next: 'https://a.test/v1/documents?page=2' } }],
		[{ links: { next: { href: 'https://a.test/v1/documents?page=2' } } }],
		[{ _links: { next: { href: 'https://a.test/v1/documents?page=2' } } }],
		[{ meta: { next: 'https://a.test/v1/documents?page=2' } }],
		[{ pagination: { next_url: 'https://a.test/v1/documents?page=2' } }],
		[{ paging: { next: 'https://a.test/v1/documents?page=2' } }],
		[{ '@odata.nextLink': 'https://a.test/v1/documents?page=2' }],
	])('a next URL: %j', (hint) => {
		expect(next({ value: records, ...hint })).toEqual({
			kind: 'url',
			url: 'https://a.test/v1/documents?page=2',
		});
	});

	test('a relative next link (a path or a query) is a URL', () => {
		expect(next({ data: records, next: '/v1/documents?page=2' })).toEqual({
			kind: 'url',
			url: '/v1/documents?page=2',
		});
		expect(next({ data: records, next: '?page=2' })).toEqual({ kind: 'url', url: '?page=2' });
	});

	test('a bare `next` that is not a link is a cursor', () => {
		expect(next({ data: records, next: 'eyJvZmZzZXQiOjJ9' })).toMatchObject({
			kind: 'cursor',
			cursor: 'eyJvZmZzZXQiOjJ9',
			param: 'cursor',
		});
	});

	test('a cursor is preferred to a next URL, a Link header to both', () => {
		expect(
			next({ data: records, next_cursor: 'c2', next_url: 'https://a.test/?p=2' }),
		).toMatchObject({ kind: 'cursor', cursor: 'c2' });
		expect(
			next(
				{ data: records, next_cursor: 'c2' },
				{ headers: { link: '<https://a.test/?p=9>; rel="next"' } },
			),
		).toEqual({ kind: 'url', url: 'https://a.test/?p=9' });
	});

	test.each([
		[{ page: 1, total_pages: 3 }],
		[{ current_page: 1, last_page: 3 }],
		[{ meta: { current_page: 1, last_page: 3 } }],
		[{ meta: { page: 1, total_pages: 3 } }],
		[{ pagination: { page: 1, total_pages: 3 } }],
		[{ pagination: { current_page: 1, last_page: 3 } }],
	])('page numbers: %j', (hint) => {
		expect(next({ data: records, ...hint })).toEqual({ kind: 'page', page: 2 });
	});

	test('total_pages reached is the last page, even with full pages', () => {
		expect(next({ data: records, page: 3, total_pages: 3 })).toBeUndefined();
		expect(next({ data: records, page: '3', total_pages: '3' })).toBeUndefined();
	});

	test('has_more true with no other hint: the next page number', () => {
		expect(next({ data: records, has_more: true }, { requestedPage: 4, received: 1 })).toEqual({
			kind: 'page',
			page: 5,
		});
		expect(next({ data: records, hasMore: true }, { received: 1 })).toEqual({
			kind: 'page',
			page: 2,
		});
	});

	test('no hint at all: the next page number while pages come back full, marked as a guess', () => {
		expect(next(records, { requestedPage: 2, received: 2, pageSize: 2 })).toEqual({
			kind: 'page',
			page: 3,
			guessed: true,
		});
		expect(next(records, { received: 1, pageSize: 2 })).toBeUndefined();
	});
});

/** The total a response states (readListPage's `total`). */
const statedTotal = (response: PageResponse, paging?: ListPaging) =>
	readListPage(response, {}, { pageSize: 2, paging }, []).total;

describe('the stated total', () => {
	test.each([
		[{ total: 124 }],
		[{ total_count: 124 }],
		[{ totalCount: 124 }],
		[{ count: 124 }],
		[{ total_results: 124 }],
		[{ totalItems: 124 }],
		[{ totalElements: '124' }],
		[{ meta: { total: 124 } }],
		[{ pagination: { total_count: 124 } }],
		[{ page_info: { total: 124 } }],
		[{ pageInfo: { totalCount: 124 } }],
	])('%j says 124', (hint) => {
		expect(statedTotal({ body: { data: records, ...hint } })).toBe(124);
	});

	test('an X-Total-Count header; no total, or one that is no count, is undefined', () => {
		expect(statedTotal({ body: records, headers: { 'x-total-count': '124' } })).toBe(124);
		expect(statedTotal({ body: { data: records } })).toBeUndefined();
		expect(statedTotal({ body: { data: records, total: -1 } })).toBeUndefined();
		expect(statedTotal({ body: { data: records, total: 'many' } })).toBeUndefined();
	});

	test('the Total Path of List Paging wins', () => {
		expect(
			statedTotal({ body: { total: 5, stats: { all: 124 } } }, { totalPath: 'stats.all' }),
		).toBe(124);
	});
});

describe('findNextPage: offsets and totals', () => {
	const next = (body: unknown, received: number, pageSize: number, state = {}) =>
		findNextPage({ body }, 1, received, pageSize, state);

	test('offset and limit echoed back: the next offset under the same names', () => {
		expect(next({ data: records, offset: 0, limit: 2, total: 5 }, 2, 100)).toEqual({
			kind: 'offset',
			offset: 2,
			params: { offset: 2, limit: 100 },
		});
		expect(next({ data: records, skip: 4, take: 2 }, 2, 2)).toEqual({
			kind: 'offset',
			offset: 6,
			params: { skip: 6, take: 2 },
		});
		expect(next({ data: records, offset: 4, limit: 2, total: 6 }, 2, 100)).toBeUndefined();
	});

	test('start/size with a total, under meta', () => {
		expect(next({ data: records, meta: { start: 10, size: 2, total: 13 } }, 2, 100)).toEqual({
			kind: 'offset',
			offset: 12,
			params: { start: 12, size: 100 },
		});
	});

	test('a short page the total says is not the last: keep paging (a guessed page number when nothing else is known)', () => {
		expect(next({ data: records, total: 124 }, 2, 100, { read: 2 })).toEqual({
			kind: 'page',
			page: 2,
			guessed: true,
		});
		expect(next({ data: records, total: 2 }, 2, 100, { read: 2 })).toBeUndefined();
	});

	test('List Paging: a token at the Next Token Path under its parameter; the list ends where the path is empty', () => {
		const paging = { nextTokenPath: 'state.after_token', nextTokenParameter: 'from' };
		expect(next({ rows: records, state: { after_token: 'x' } }, 2, 2, { paging })).toEqual({
			kind: 'cursor',
			cursor: 'x',
			param: 'from',
			alternatives: [],
		});
		expect(
			next({ rows: records, state: { after_token: 'x' } }, 2, 2, {
				paging: { nextTokenPath: 'state.after_token' },
			}),
		).toMatchObject({ param: 'after_token' });
		expect(
			next({ rows: records, state: {}, next_cursor: 'ignored' }, 2, 2, { paging }),
		).toBeUndefined();
	});

	test('List Paging: offset parameter names, continuing while the total says there is more', () => {
		const paging = { offsetParameter: 'skip', limitParameter: 'top', totalPath: 'n' };
		expect(next({ rows: records, n: 5 }, 2, 100, { offset: 2, paging })).toEqual({
			kind: 'offset',
			offset: 4,
			params: { skip: 4, top: 100 },
		});
		expect(next({ rows: records, n: 4 }, 2, 100, { offset: 2, paging })).toBeUndefined();
	});
});

/** The rel="next" target of a Link header, as a full page with it reads it. */
const nextLinkFromHeader = (link?: string) =>
	readListPage({ body: [{ id: 1 }], headers: { link } }, {}, { pageSize: 1 }).ways.find(
		(way) => way.url,
	)?.url;

describe('nextLinkFromHeader', () => {
	test('the rel="next" target of a Link header', () => {
		expect(
			nextLinkFromHeader(
				'<https://api.test/v1/documents?page=2>; rel="next", <https://api.test/v1/documents?page=9>; rel="last"',
			),
		).toBe('https://api.test/v1/documents?page=2');
	});

	test('rel next after other links, unquoted, or among several relation types', () => {
		expect(
			nextLinkFromHeader('<https://a.test/?p=1>; rel="prev", <https://a.test/?p=3>; rel=next'),
		).toBe('https://a.test/?p=3');
		expect(nextLinkFromHeader('<https://a.test/?p=3>; rel="last next"')).toBe(
			'https://a.test/?p=3',
		);
	});

	test('a URL holding a comma is not split', () => {
		expect(nextLinkFromHeader('<https://a.test/?ids=1,2>; rel="next"')).toBe(
			'https://a.test/?ids=1,2',
		);
	});

	test.each([undefined, '', '<https://a.test/?p=1>; rel="prev"', 'garbage'])(
		'%p has no next link',
		(link) => {
			expect(nextLinkFromHeader(link)).toBeUndefined();
		},
	);
});

test('a Link header relation is a list of tokens: "next" among them counts, "nextpage" does not', () => {
	expect(nextLinkFromHeader('<https://a.example/p2>; rel="prefetch next"')).toBe(
		'https://a.example/p2',
	);
	expect(nextLinkFromHeader('<https://a.example/p2>; rel=next')).toBe('https://a.example/p2');
	expect(nextLinkFromHeader('<https://a.example/p2>; rel="nextpage"')).toBeUndefined();
	expect(
		nextLinkFromHeader('<https://a.example/p1>; rel="prev", <https://a.example/p3>; rel="next"'),
	).toBe('https://a.example/p3');
});
