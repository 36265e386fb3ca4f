/**
 * List searches (the editor's searchable lists) read a page token the editor hands back: a crafted
 * token never sends a request, or the key, anywhere but the Base URL's own path; links in results
 * are passed on only if they are http(s) on the credential's origin; n8n's domain restriction of
 * the credential applies to these direct requests too. Servers listen on 127.0.0.1 only. Each
 * test's first comment says what the code before the fix did (the test fails on it).
 */
import nock from 'nock';
import type { INode } from 'n8n-workflow';

import { searchDocuments } from '../../nodes/DocumentSigning/listSearch';
import { ServiceOrigin } from '../../nodes/shared/transport';
import { allowedDomainsFor, readCredentials } from '../../nodes/shared/transport/service';
import { loadOptionsContext } from '../helpers/n8nWorkflow';
import {
	EVIL,
	trap,
	withCountingServer,
	useSecuritySuite,
	API_KEY,
	ORIGIN,
	expectNoKey,
} from '../helpers/securityKit';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../helpers/instantWaits').n8nWorkflowWithInstantWaits(),
);

useSecuritySuite({ offline: true });

describe('crafted list-search page tokens (finding 1)', () => {
	const docs = (from: number, count: number) =>
		Array.from({ length: count }, (_, i) => ({ id: `doc_${from + i}`, name: `d${from + i}.pdf` }));
	let serverBase = '';

	// Old: a token {"kind":"url","url":…} was requested as is, with the API key, wherever it pointed.
	test.each([
		['an absolute URL on another origin', JSON.stringify({ url: `${EVIL}/steal` })],
		['a protocol-relative path', JSON.stringify({ path: '//evil.test/x' })],
		['a path outside the Base URL path', JSON.stringify({ path: '/other-prefix/x' })],
		['a path that climbs out of the Base URL path', JSON.stringify({ path: '/v1/../admin/keys' })],
		['a path that only starts like the Base URL path', JSON.stringify({ path: '/v1evil/x' })],
		['a path that climbs out with encoded dots', JSON.stringify({ path: '/v1/%2e%2e/admin' })],
		['a backslash path (read as protocol-relative)', JSON.stringify({ path: '/\\evil.test/x' })],
		['a path with a tab before a second slash', JSON.stringify({ path: '/\t/evil.test/x' })],
		['the legacy url token', JSON.stringify({ kind: 'url', url: EVIL })],
		['a path with a second key', JSON.stringify({ path: '/v1/documents', url: `${EVIL}/steal` })],
		['not JSON', 'http://evil.test/steal'],
	])('%s is refused with a clear error and nothing is sent anywhere', async (_title, token) => {
		const evil = trap();
		await withCountingServer(
			() => ({ status: 200, body: { data: docs(0, 1) } }),
			async (server) => {
				const context = loadOptionsContext({ baseUrl: server.baseUrl, apiKey: API_KEY });
				const failure = await searchDocuments.call(context, undefined, token).then(
					() => undefined,
					(error: Error & { description?: string }) => error,
				);
				expect(failure?.message).toBe('The list page token is not valid');
				expect(failure?.description).toMatch(/Reload the list/);
				expectNoKey(failure);
				expect(server.requests).toEqual([]);
			},
		);
		expect(evil.isDone()).toBe(false);
		expect(nock.pendingMocks().some((mock) => mock.includes('evil.test'))).toBe(true);
	});

	// Old: tokens were whatever the first page gave (a whole URL included); these must keep working.
	test('genuine tokens from a first page still work: cursor, page number and a same-origin next link', async () => {
		let style: 'cursor' | 'page' | 'link' = 'cursor';
		await withCountingServer(
			(request) => {
				const url = new URL(request.url, 'http://127.0.0.1');
				if (style === 'cursor') {
					return url.searchParams.get('cursor') === 'c2'
						? { status: 200, body: { data: docs(50, 2), has_more: false } }
						: { status: 200, body: { data: docs(0, 50), has_more: true, next_cursor: 'c2' } };
				}
				if (style === 'page') {
					const page = Number(url.searchParams.get('page') ?? 1);
					return {
						status: 200,
						body: { data: docs((page - 1) * 50, page === 3 ? 1 : 50), page, total_pages: 3 },
					};
				}
				if (url.searchParams.get('after') === 'doc_49')
					return { status: 200, body: { data: docs(50, 1) } };
				return {
					status: 200,
					body: { data: docs(0, 50) },
					headers: { link: `<${serverBase}/documents?after=doc_49&limit=50>; rel="next"` },
				};
			},
			async (server) => {
				serverBase = server.baseUrl;
				const context = () => loadOptionsContext({ baseUrl: server.baseUrl, apiKey: API_KEY });

				const first = await searchDocuments.call(context(), undefined);
				// `alt`: the other names the token may be read under, tried if the service repeats the page.
				expect(JSON.parse(first.paginationToken!)).toEqual({
					cursor: 'c2',
					alt: expect.arrayContaining(['page_token']),
					after: expect.stringMatching(/^[0-9a-f]{16}$/),
				});
				const second = await searchDocuments.call(context(), undefined, first.paginationToken);
				expect(second.results.map((result) => result.value)).toEqual(['doc_50', 'doc_51']);
				expect(second.paginationToken).toBeUndefined();

				style = 'page';
				const p1 = await searchDocuments.call(context(), undefined);
				expect(JSON.parse(p1.paginationToken!)).toEqual({ page: 2, after: expect.any(String) });
				const p2 = await searchDocuments.call(context(), undefined, p1.paginationToken);
				expect(JSON.parse(p2.paginationToken!)).toEqual({ page: 3, after: expect.any(String) });
				expect(
					(await searchDocuments.call(context(), undefined, p2.paginationToken)).results.map(
						(result) => result.value,
					),
				).toEqual(['doc_100']);

				style = 'link';
				const l1 = await searchDocuments.call(context(), undefined);
				// The token holds a path under the Base URL, never a whole URL.
				expect(JSON.parse(l1.paginationToken!)).toEqual({
					path: '/v1/documents?after=doc_49&limit=50',
					after: expect.any(String),
				});
				const l2 = await searchDocuments.call(context(), undefined, l1.paginationToken);
				expect(l2.results.map((result) => result.value)).toEqual(['doc_50']);
				expect(server.requests.at(-1)?.url).toBe('/v1/documents?after=doc_49&limit=50');
				expect(
					server.requests.every((request) => request.headers.authorization === `Bearer ${API_KEY}`),
				).toBe(true);
			},
		);
	});

	// Old: direct requests carried no allowedDomains, so n8n's credential restriction never applied to them.
	test("n8n's domain restriction: direct requests carry allowedDomains with the Base URL's own host", () => {
		const node = { name: 'Document Signing' } as INode;
		const restricted = readCredentials({
			baseUrl: 'https://API.Signing.test:8443/v1',
			apiKey: API_KEY,
			allowedHttpRequestDomains: 'domains',
			allowedDomains: 'example.org',
		});
		const origin = new ServiceOrigin(restricted.baseUrl, node);
		const allowed = allowedDomainsFor(restricted, origin);
		expect(allowed).toBe('api.signing.test, example.org');

		const onlyOwn = readCredentials({
			baseUrl: 'https://api.signing.test/v1',
			apiKey: API_KEY,
			allowedHttpRequestDomains: 'domains',
			allowedDomains: '  ',
		});
		expect(allowedDomainsFor(onlyOwn, new ServiceOrigin(onlyOwn.baseUrl, node))).toBe(
			'api.signing.test',
		);
		const unrestricted = readCredentials({
			baseUrl: 'https://api.signing.test/v1',
			apiKey: API_KEY,
			allowedHttpRequestDomains: 'all',
		});
		expect(
			allowedDomainsFor(unrestricted, new ServiceOrigin(unrestricted.baseUrl, node)),
		).toBeUndefined();
	});

	test('a restricted credential still reaches its own Base URL through n8n (its own host is allowed)', async () => {
		await withCountingServer(
			() => ({ status: 200, body: { data: docs(0, 1) } }),
			async (server) => {
				const credentials = {
					baseUrl: server.baseUrl,
					apiKey: API_KEY,
					allowedHttpRequestDomains: 'domains',
					allowedDomains: 'example.org',
				};
				const result = await searchDocuments.call(loadOptionsContext(credentials), undefined);
				expect(result.results.map((entry) => entry.value)).toEqual(['doc_0']);
				expect(server.requests).toHaveLength(1);
			},
		);
	});
});

describe("list searches pass only http(s) links on the credential's origin (finding 22.9)", () => {
	// Old: signing_url went to the editor as the service gave it.
	test('javascript:, data:, foreign and credential-bearing links are dropped; an own https link is kept', async () => {
		nock(ORIGIN)
			.get('/v1/documents')
			.query(true)
			.reply(200, {
				data: [
					{ id: 'doc_1', name: 'a.pdf', signing_url: 'javascript:alert(document.cookie)' },
					{ id: 'doc_2', name: 'b.pdf', signing_url: 'data:text/html,<script>alert(1)</script>' },
					{ id: 'doc_3', name: 'c.pdf', signing_url: `${EVIL}/sign/doc_3` },
					{ id: 'doc_4', name: 'd.pdf', signing_url: 'http://user:pw@signing.test/sign/doc_4' },
					{ id: 'doc_5', name: 'e.pdf', signing_url: `${ORIGIN}/sign/doc_5?token=t` },
				],
			});
		const result = await searchDocuments.call(
			loadOptionsContext({ baseUrl: `${ORIGIN}/v1`, apiKey: API_KEY }),
		);
		expect(result.results.map((entry) => entry.url)).toEqual([
			undefined,
			undefined,
			undefined,
			undefined,
			`${ORIGIN}/sign/doc_5?token=t`,
		]);
	});
});
