/**
 * nodes/shared/transport/listPages.ts, pure: the records of every list envelope, and the next page
 * of every paging style, without a server. (The same shapes through n8n's routing engine are in
 * test/node/listShapes.test.ts.)
 */
import { extractRecords, findNextPage, nextLinkFromHeader } from '../../nodes/shared/transport/listPages';

const records = [{ id: 'a' }, { id: 'b' }];

describe('extractRecords', () => {
	test('a bare array is the records', () => {
		expect(extractRecords(records)).toBe(records);
	});

	test.each(['data', 'items', 'results', 'records', 'entries', 'value'])('the array under "%s"', (key) => {
		expect(extractRecords({ [key]: records, has_more: false })).toBe(records);
	});

	test('the first of the known keys wins', () => {
		expect(extractRecords({ items: [{ id: 'i' }], data: records })).toBe(records);
	});

	test('a single object where a list was expected is kept, an empty one gives nothing', () => {
		expect(extractRecords({ id: 'x' })).toEqual([{ id: 'x' }]);
		expect(extractRecords({})).toEqual([]);
	});

	test.each([null, undefined, 'text', 42, true])('%p gives no records', (body) => {
		expect(extractRecords(body)).toEqual([]);
	});
});

describe('nextLinkFromHeader', () => {
	test('the rel="next" target of a Link header', () => {
		expect(nextLinkFromHeader('<https://api.test/v1/documents?page=2>; rel="next", <https://api.test/v1/documents?page=9>; rel="last"')).toBe(
			'https://api.test/v1/documents?page=2',
		);
	});

	test('rel next after other links, unquoted, or among several relation types', () => {
		expect(nextLinkFromHeader('<https://a.test/?p=1>; rel="prev", <https://a.test/?p=3>; rel=next')).toBe('https://a.test/?p=3');
		expect(nextLinkFromHeader('<https://a.test/?p=3>; rel="last next"')).toBe('https://a.test/?p=3');
	});

	test('a URL holding a comma is not split', () => {
		expect(nextLinkFromHeader('<https://a.test/?ids=1,2>; rel="next"')).toBe('https://a.test/?ids=1,2');
	});

	test.each([undefined, '', '<https://a.test/?p=1>; rel="prev"', 'garbage'])('%p has no next link', (link) => {
		expect(nextLinkFromHeader(link)).toBeUndefined();
	});
});

describe('findNextPage', () => {
	const next = (body: unknown, { requestedPage = 1, received = 2, pageSize = 2, headers }: { requestedPage?: number; received?: number; pageSize?: number; headers?: Record<string, unknown> } = {}) =>
		findNextPage({ body, headers }, requestedPage, received, pageSize);

	test('has_more false is the last page, whatever else the answer says', () => {
		expect(next({ data: records, has_more: false, next_cursor: 'c2', next_url: 'https://a.test/?p=2' })).toBeUndefined();
		expect(next({ data: records, meta: { has_more: false } }, { received: 2, pageSize: 2 })).toBeUndefined();
	});

	test('an empty page is the last', () => {
		expect(next({ data: [], next_cursor: 'c2' }, { received: 0 })).toBeUndefined();
	});

	test('a Link header rel="next"', () => {
		expect(next(records, { headers: { Link: '<https://a.test/v1/documents?page=2>; rel="next"' } })).toEqual({ kind: 'url', url: 'https://a.test/v1/documents?page=2' });
	});

	test.each([
		[{ next_cursor: 'c2' }],
		[{ nextCursor: 'c2' }],
		[{ next_page_token: 'c2' }],
		[{ nextPageToken: 'c2' }],
		[{ cursor: { next: 'c2' } }],
		[{ meta: { next_cursor: 'c2' } }],
		[{ meta: { nextCursor: 'c2' } }],
		[{ meta: { cursor: { next: 'c2' } } }],
		[{ pagination: { next_cursor: 'c2' } }],
		[{ pagination: { nextCursor: 'c2' } }],
		[{ paging: { next_cursor: 'c2' } }],
	])('a cursor: %j', (hint) => {
		expect(next({ data: records, ...hint })).toEqual({ kind: 'cursor', cursor: 'c2' });
	});

	test('a numeric cursor is read as text; empty or null cursors are no cursor', () => {
		expect(next({ data: records, next_cursor: 17 })).toEqual({ kind: 'cursor', cursor: '17' });
		expect(next({ data: records, next_cursor: '', has_more: true })).toEqual({ kind: 'page', page: 2 });
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
		expect(next({ value: records, ...hint })).toEqual({ kind: 'url', url: 'https://a.test/v1/documents?page=2' });
	});

	test('a relative next link (a path or a query) is a URL', () => {
		expect(next({ data: records, next: '/v1/documents?page=2' })).toEqual({ kind: 'url', url: '/v1/documents?page=2' });
		expect(next({ data: records, next: '?page=2' })).toEqual({ kind: 'url', url: '?page=2' });
	});

	test('a bare `next` that is not a link is a cursor', () => {
		expect(next({ data: records, next: 'eyJvZmZzZXQiOjJ9' })).toEqual({ kind: 'cursor', cursor: 'eyJvZmZzZXQiOjJ9' });
	});

	test('a cursor is preferred to a next URL, a Link header to both', () => {
		expect(next({ data: records, next_cursor: 'c2', next_url: 'https://a.test/?p=2' })).toEqual({ kind: 'cursor', cursor: 'c2' });
		expect(next({ data: records, next_cursor: 'c2' }, { headers: { link: '<https://a.test/?p=9>; rel="next"' } })).toEqual({ kind: 'url', url: 'https://a.test/?p=9' });
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
		expect(next({ data: records, has_more: true }, { requestedPage: 4, received: 1 })).toEqual({ kind: 'page', page: 5 });
		expect(next({ data: records, hasMore: true }, { received: 1 })).toEqual({ kind: 'page', page: 2 });
	});

	test('no hint at all: the next page number while pages come back full, marked as a guess', () => {
		expect(next(records, { requestedPage: 2, received: 2, pageSize: 2 })).toEqual({ kind: 'page', page: 3, guessed: true });
		expect(next(records, { received: 1, pageSize: 2 })).toBeUndefined();
	});
});

test('a Link header relation is a list of tokens: "next" among them counts, "nextpage" does not', () => {
	expect(nextLinkFromHeader('<https://a.example/p2>; rel="prefetch next"')).toBe('https://a.example/p2');
	expect(nextLinkFromHeader('<https://a.example/p2>; rel=next')).toBe('https://a.example/p2');
	expect(nextLinkFromHeader('<https://a.example/p2>; rel="nextpage"')).toBeUndefined();
	expect(nextLinkFromHeader('<https://a.example/p1>; rel="prev", <https://a.example/p3>; rel="next"')).toBe('https://a.example/p3');
});
