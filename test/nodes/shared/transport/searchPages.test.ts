/**
 * nodes/shared/transport/searchPages.ts through apiRequestPage, as the editor's list searches call
 * it: one page at a time, and the page tokens that go to the editor and come back (checked again).
 * The request helper answers as n8n's does, the body a stream.
 */
import { Readable } from 'stream';

import type { IDataObject, IHttpRequestOptions, ILoadOptionsFunctions } from 'n8n-workflow';

import { apiRequestPage } from '../../../../nodes/shared/transport';
import { range } from '../../../helpers/listService';

const BASE_URL = 'https://api.example.com/v1';

/** A context whose service answers each request's query (and URL) with `body`. */
function serving(body: (qs: IDataObject, url: string) => unknown) {
	const requests: Array<{ qs: IDataObject; url: string }> = [];
	const context = {
		getNode: () => ({ name: 'Document Signing' }),
		getCredentials: async () => ({ baseUrl: BASE_URL, apiKey: 'k' }),
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
				const qs = { ...options.qs };
				requests.push({ qs, url: options.url });
				const text = JSON.stringify(body(qs, options.url));
				return { statusCode: 200, headers: {}, statusMessage: '', body: Readable.from([text]) };
			},
		},
	} as unknown as ILoadOptionsFunctions;
	const page = (token?: string) => apiRequestPage(context, '/documents', {}, token);
	return { requests, page };
}

/** The request a token comes back as, when the list is searched from it. */
async function requestOf(token: string) {
	const { requests, page } = serving(() => ({ data: [] }));
	await page(token);
	return requests[0];
}

describe('list-search page tokens', () => {
	test('carry a cursor, a page number, an offset or a path under the Base URL, never a whole URL', async () => {
		const tokenAfter = async (body: IDataObject) =>
			(await serving(() => ({ data: range(0, 50), ...body })).page()).nextToken;
		expect(await tokenAfter({ next_cursor: 'c2' })).toMatch(/^\{"cursor":"c2"/);
		expect(await tokenAfter({ next_page_token: 'c2' })).toMatch(
			/^\{"cursor":"c2","param":"page_token"/,
		);
		expect(await tokenAfter({ next: `${BASE_URL}/documents?cursor=9` })).toMatch(
			/^\{"path":"\/v1\/documents\?cursor=9"/,
		);
		expect(await tokenAfter({ page: 2, total_pages: 3 })).toMatch(/^\{"page":3/);

		expect((await requestOf('{"cursor":"c2","param":"page_token"}')).qs).toMatchObject({
			page_token: 'c2',
		});
		expect((await requestOf('{"offset":50,"params":{"start":50,"size":50}}')).qs).toMatchObject({
			start: 50,
			size: 50,
		});
		expect((await requestOf('{"page":3}')).qs).toMatchObject({ page: 3 });
		expect((await requestOf('{"path":"/v1/documents?cursor=9"}')).url).toBe(
			`${BASE_URL}/documents?cursor=9`,
		);
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
	])('a token with %s is refused, and nothing is requested', async (_title, token) => {
		const { requests, page } = serving(() => ({ data: [] }));
		await expect(page(token)).rejects.toThrow('The list page token is not valid');
		expect(requests).toHaveLength(0);
	});
});

describe('list-search pages', () => {
	/** The cursor parameter a request sent, if any. */
	const cursorParam = ({ qs }: { qs: IDataObject }) =>
		Object.keys(qs).find((name) => name !== 'limit');

	test('a token answered with the same page is sent again under each other name; the one that works goes into the next token', async () => {
		// Calls its token next_cursor but reads it as page_token.
		const { requests, page } = serving((qs) => {
			const start = qs.page_token !== undefined ? Number(qs.page_token) : 0;
			const end = Math.min(start + 10, 25);
			return { data: range(start, end - start), next_cursor: end < 25 ? String(end) : null };
		});
		const first = await page();
		expect(first.records.map((r) => r.id)).toEqual(range(0, 10).map((r) => r.id));
		const second = await page(first.nextToken);
		expect(second.records.map((r) => r.id)).toEqual(range(10, 10).map((r) => r.id));
		expect(requests.map(cursorParam)).toEqual([undefined, 'cursor', 'next_cursor', 'page_token']);
		expect(JSON.parse(second.nextToken!)).toEqual({
			cursor: '20',
			param: 'page_token',
			after: expect.any(String),
		});
		const third = await page(second.nextToken);
		expect(third.records.map((r) => r.id)).toEqual(range(20, 5).map((r) => r.id));
		expect(third.nextToken).toBeUndefined();
		expect(requests).toHaveLength(5);
	});

	test('a service that ignores every name: the first page only, and an error saying so', async () => {
		const { requests, page } = serving(() => ({ data: range(0, 10), next_cursor: 'x' }));
		const first = await page();
		const failure = await page(first.nextToken).catch((error: Error) => error);
		expect((failure as Error).message).toMatch(
			/^The service answered the next-page cursor with records it had already sent, under each parameter name tried \(`cursor`, `next_cursor`, `page_token`.*\); set List Paging to Custom/,
		);
		expect(failure).toMatchObject({ description: expect.stringMatching(/Search by name/) });
		expect(requests.length).toBeLessThanOrEqual(2 + 7);
	});
});
