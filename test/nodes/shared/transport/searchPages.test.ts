/**
 * nodes/shared/transport/searchPages.ts: the editor's list searches, one page at a time, and the
 * page tokens that go to the editor and come back (checked again).
 */
import {
	pageToken,
	readPageToken,
	searchPage,
} from '../../../../nodes/shared/transport/searchPages';
import { origin, range, service } from '../../../helpers/listService';

describe('list-search page tokens', () => {
	test('carry a cursor, a page number or a path under the Base URL, never a whole URL', () => {
		expect(
			pageToken({ cursor: 'c2', cursorParam: 'cursor' }, origin, origin.urlOf('/documents')),
		).toBe('{"cursor":"c2"}');
		expect(
			pageToken({ cursor: 'c2', cursorParam: 'page_token' }, origin, origin.urlOf('/documents')),
		).toBe('{"cursor":"c2","param":"page_token"}');
		expect(readPageToken('{"cursor":"c2","param":"page_token"}', origin)).toEqual({
			cursor: 'c2',
			cursorParam: 'page_token',
		});
		expect(
			pageToken(
				{ offset: 50, params: { start: 50, size: 50 } },
				origin,
				origin.urlOf('/documents'),
			),
		).toBe('{"offset":50,"params":{"start":50,"size":50}}');
		expect(readPageToken('{"offset":50,"params":{"start":50,"size":50}}', origin)).toEqual({
			offset: 50,
			params: { start: 50, size: 50 },
		});
		expect(pageToken({ page: 3 }, origin, origin.urlOf('/documents'))).toBe('{"page":3}');
		expect(pageToken({ url: '/v1/documents?cursor=9' }, origin, origin.urlOf('/documents'))).toBe(
			'{"path":"/v1/documents?cursor=9"}',
		);
		expect(readPageToken('{"path":"/v1/documents?cursor=9"}', origin)).toEqual({
			url: 'https://api.example.com/v1/documents?cursor=9',
		});
	});

	test.each([
		['a whole URL', '{"url":"https://evil.example/x"}'],
		['the old kind/url form', '{"kind":"url","url":"https://evil.example/x"}'],
		['a protocol-relative path', '{"path":"//evil.example/x"}'],
		['a path outside the Base URL', '{"path":"/admin/users"}'],
		['a path that climbs out', '{"path":"/v1/../admin"}'],
		['not JSON', 'cursor=abc'],
		['extra keys', '{"cursor":"a","url":"https://evil.example"}'],
		['a parameter name that is no name', '{"cursor":"a","param":"x&admin=1"}'],
		['alternative names that are no names', '{"cursor":"a","alt":["page_token","x=1&y"]}'],
		['alternative names that are no list', '{"cursor":"a","alt":"page_token"}'],
		['offset params that are not numbers', '{"offset":5,"params":{"offset":"5; drop"}}'],
	])('a token with %s is refused', (_title, token) => {
		expect(() => readPageToken(token, origin)).toThrow('The list page token is not valid');
	});
});

describe('list-search pages (searchPage)', () => {
	/** Calls its token next_cursor but reads it as page_token. */
	const reader = () =>
		service((request) => {
			const start = request.cursorParam === 'page_token' ? Number(request.cursor) : 0;
			const end = Math.min(start + 10, 25);
			return {
				body: { data: range(start, end - start), next_cursor: end < 25 ? String(end) : null },
			};
		});

	test('a token answered with the same page is sent again under each other name; the one that works goes into the next token', async () => {
		const fake = reader();
		const first = await searchPage({ origin, pageSize: 10, fetchPage: fake.fetchPage });
		expect(first.records.map((r) => r.id)).toEqual(range(0, 10).map((r) => r.id));
		const second = await searchPage({
			origin,
			pageSize: 10,
			token: first.nextToken,
			fetchPage: fake.fetchPage,
		});
		expect(second.records.map((r) => r.id)).toEqual(range(10, 10).map((r) => r.id));
		// A token under `cursor` (the default) carries no name.
		expect(fake.requests.map((request) => request.cursorParam)).toEqual([
			undefined,
			undefined,
			'next_cursor',
			'page_token',
		]);
		expect(JSON.parse(second.nextToken!)).toEqual({
			cursor: '20',
			param: 'page_token',
			after: expect.any(String),
		});
		const third = await searchPage({
			origin,
			pageSize: 10,
			token: second.nextToken,
			fetchPage: fake.fetchPage,
		});
		expect(third.records.map((r) => r.id)).toEqual(range(20, 5).map((r) => r.id));
		expect(third.nextToken).toBeUndefined();
		expect(fake.requests).toHaveLength(5);
	});

	test('a service that ignores every name: the first page only, and an error saying so', async () => {
		const ignoring = service(() => ({ body: { data: range(0, 10), next_cursor: 'x' } }));
		const first = await searchPage({ origin, pageSize: 10, fetchPage: ignoring.fetchPage });
		await expect(
			searchPage({ origin, pageSize: 10, token: first.nextToken, fetchPage: ignoring.fetchPage }),
		).rejects.toThrow(/already sent/);
		expect(ignoring.requests.length).toBeLessThanOrEqual(2 + 7);
	});
});
