/**
 * The API key goes to the Base URL's origin and path only: never along a Link or body `next` to
 * another origin (another host, port or scheme), never along a redirect (none is followed), never
 * to a path that only a server's own reading of it takes out of the Base URL path. Servers listen
 * on 127.0.0.1 only. Each test's first comment says what the code before the fix did (the test
 * fails on it).
 */
import nock from 'nock';

import { searchDocuments } from '../../nodes/DocumentSigning/listSearch';
import { loadOptionsContext, runDocumentSigning } from '../helpers/n8nWorkflow';
import {
	EVIL,
	trap,
	withCountingServer,
	withRawServer,
	useSecuritySuite,
	API_KEY,
	ORIGIN,
	expectNoKey,
	downloadDocument,
} from '../helpers/securityKit';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../helpers/instantWaits').n8nWorkflowWithInstantWaits(),
);

useSecuritySuite({ offline: true });

describe('the key never follows cross-origin links or redirects (finding 2)', () => {
	const docs = (from: number, count: number) =>
		Array.from({ length: count }, (_, i) => ({ id: `doc_${from + i}` }));
	const getAll = (baseUrl = `${ORIGIN}/v1`) =>
		runDocumentSigning({
			parameters: { resource: 'document', operation: 'getAll', returnAll: true, simplify: false },
			credentials: { baseUrl, apiKey: API_KEY },
		});
	const getDocument = () =>
		runDocumentSigning({
			parameters: {
				resource: 'document',
				operation: 'get',
				documentId: { __rl: true, mode: 'id', value: 'doc_1' },
				simplify: false,
			},
			credentials: { baseUrl: `${ORIGIN}/v1`, apiKey: API_KEY },
		});

	// Old: Get Many followed any rel=next link, sending the API key to whatever host it named.
	test('a Link rel=next to another origin: the item fails naming that origin, which received nothing', async () => {
		const evil = trap();
		const own = nock(ORIGIN)
			.get('/v1/documents')
			.query(true)
			.reply(200, { data: docs(0, 100) }, { Link: `<${EVIL}/v1/documents?page=2>; rel="next"` });
		const result = await getAll();
		expect(own.isDone()).toBe(true);
		expect(result.items).toEqual([]);
		expect(result.error?.message).toContain('another origin (http://evil.test)');
		expect(result.error?.description).toMatch(/Nothing was sent to http:\/\/evil\.test/);
		expectNoKey(result.error);
		expect(JSON.stringify(result.run.data)).not.toContain(API_KEY);
		expect(evil.isDone()).toBe(false);
	});

	// Old: a body `next` URL was followed wherever it pointed.
	test('a body next URL to another origin: refused, nothing sent there', async () => {
		const evil = trap();
		nock(ORIGIN)
			.get('/v1/documents')
			.query(true)
			.reply(200, { data: docs(0, 3), next: `${EVIL}/v1/documents?cursor=x` });
		const result = await getAll();
		expect(result.error?.message).toContain('another origin (http://evil.test)');
		expectNoKey(result.error);
		expect(evil.isDone()).toBe(false);
	});

	// Old: only the host was compared (or nothing), so https → http on the same host sent the key in clear.
	test('an https → http downgrade on the same host is another origin: refused, nothing sent over http', async () => {
		const plain = trap(ORIGIN.replace('https:', 'http:'));
		nock('https://signing.test')
			.get('/v1/documents')
			.query(true)
			.reply(
				200,
				{ data: docs(0, 3) },
				{ Link: '<http://signing.test/v1/documents?page=2>; rel="next"' },
			);
		const result = await getAll('https://signing.test/v1');
		expect(result.error?.message).toContain('another origin (http://signing.test)');
		expectNoKey(result.error);
		expect(plain.isDone()).toBe(false);
	});

	test('a second counting server on another port is another origin too', async () => {
		await withCountingServer(
			() => ({ status: 200, body: { data: [{ id: 'stolen' }] } }),
			async (other) => {
				const otherOrigin = new URL(other.baseUrl).origin;
				await withCountingServer(
					() => ({
						status: 200,
						body: { data: docs(0, 2), next: `${other.baseUrl}/documents?cursor=2` },
					}),
					async (own) => {
						const result = await getAll(own.baseUrl);
						expect(result.error?.message).toContain(`another origin (${otherOrigin})`);
						expect(own.requests).toHaveLength(1);
						expect(other.requests).toEqual([]);
					},
				);
			},
		);
	});

	// Old: n8n's request helper followed redirects and carried the Authorization header along.
	test('a 307 redirect to another origin on Document › Get: error, nothing sent there', async () => {
		const evil = trap();
		nock(ORIGIN)
			.get('/v1/documents/doc_1')
			.reply(307, '', { Location: `${EVIL}/steal` });
		const result = await getDocument();
		expect(result.items).toEqual([]);
		expect(result.error?.message).toMatch(/redirect \(HTTP 307\).*it was not followed/);
		expect(result.error?.message).toContain('http://evil.test/steal');
		expectNoKey(result.error);
		expect(evil.isDone()).toBe(false);
	});

	// Old: same-origin redirects were followed (n8n's default).
	test('a same-origin 302 is refused too (redirects are never followed)', async () => {
		nock(ORIGIN)
			.get('/v1/documents/doc_1')
			.reply(302, '', { Location: `${ORIGIN}/v1/documents/doc_2` });
		const target = nock(ORIGIN).get('/v1/documents/doc_2').reply(200, { id: 'doc_2' });
		const result = await getDocument();
		expect(result.error?.message).toMatch(/redirect \(HTTP 302\)/);
		expect(result.error?.httpCode).toBe('302');
		expectNoKey(result.error);
		expect(target.isDone()).toBe(false);
	});
});

describe("a path that only a server's own reading takes out of the Base URL path is refused (finding 30.6)", () => {
	// Each is on the credential's origin and, as the URL parser reads it, under /v1; a server that
	// drops ";" parameters, decodes %2F or %5C, or decodes twice reads it as a path outside /v1.
	const AMBIGUOUS = [
		['"..;" (Tomcat, Spring, Jetty drop the parameter)', '/v1/..;/admin/keys'],
		['"..;" with a parameter value', '/v1/documents/..;x=1/..;x=2/admin/keys'],
		['encoded dots with a parameter', '/v1/%2e%2e;/admin/keys'],
		['"..%2F" (an encoded slash)', '/v1/documents/..%2F..%2Fadmin/keys'],
		['"..%2f" in lower case', '/v1/documents/..%2f..%2fadmin/keys'],
		['"..%5C" (an encoded backslash)', '/v1/documents/..%5C..%5Cadmin/keys'],
		['double-encoded dots', '/v1/documents/%252e%252e/%252e%252e/admin/keys'],
		['double-encoded slash', '/v1/documents/..%252F..%252Fadmin/keys'],
		['a backslash as written', '/v1/documents\\x.pdf'],
	];
	const record = (link: string) => ({
		id: 'doc_1',
		name: 'x.pdf',
		status: 'completed',
		signed_file_url: link,
	});

	// Old: only the parsed path was compared with "/v1/", so these were requested with the key.
	test.each(AMBIGUOUS)(
		'a file link with %s: refused, nothing requested with it',
		async (_title, link) => {
			await withCountingServer(
				() => ({ status: 200, body: record(link) }),
				async (server) => {
					const result = await downloadDocument(server.baseUrl);
					expect(result.error?.message).toMatch(
						/^The service gave a file link whose path has an encoded or parameterised dot segment, an encoded slash or a backslash \(.+\); it was not followed$/,
					);
					expect(result.error?.description).toMatch(/Nothing was requested\.$/);
					expectNoKey(result.error);
					expect(server.requests.map((request) => request.url)).toEqual(['/v1/documents/doc_1']);
				},
			);
		},
	);

	test.each(AMBIGUOUS)(
		'a next-page link with %s: the list fails, nothing requested with it',
		async (_title, link) => {
			await withCountingServer(
				() => ({
					status: 200,
					body: { data: Array.from({ length: 100 }, (_, i) => ({ id: `doc_${i}` })) },
					headers: { Link: `<${link}>; rel="next"` },
				}),
				async (server) => {
					const result = await runDocumentSigning({
						parameters: {
							resource: 'document',
							operation: 'getAll',
							returnAll: true,
							simplify: false,
						},
						credentials: { baseUrl: server.baseUrl, apiKey: API_KEY },
					});
					expect(result.items).toEqual([]);
					expect(result.error?.message).toMatch(
						/^The service gave a next-page link whose path has an encoded/,
					);
					expect(server.requests).toHaveLength(1);
				},
			);
		},
	);

	test.each(AMBIGUOUS)(
		'a list-search page token with %s: refused, nothing sent',
		async (_title, path) => {
			await withCountingServer(
				() => ({ status: 200, body: { data: [] } }),
				async (server) => {
					const context = loadOptionsContext({ baseUrl: server.baseUrl, apiKey: API_KEY });
					const failure = await searchDocuments
						.call(context, undefined, JSON.stringify({ path }))
						.then(
							() => undefined,
							(error: Error) => error,
						);
					expect(failure?.message).toBe('The list page token is not valid');
					expect(server.requests).toEqual([]);
				},
			);
		},
	);

	test('links with encoded characters, ";" parameters or dots inside a name are still followed', async () => {
		const pdf = Buffer.from('%PDF-1.7\n%%EOF\n');
		for (const link of [
			'/v1/files/Lease%20%C3%BC.pdf?sig=a%2Fb',
			'/v1/storage/doc_1;version=2/signed.pdf',
			'/v1/files/v1.2..final/a.pdf',
			'/v1/files/100%25/a.pdf',
		]) {
			const requested: string[] = [];
			await withRawServer(
				(req, res) => {
					requested.push(req.url ?? '');
					if (req.url === '/v1/documents/doc_1')
						res
							.writeHead(200, { 'content-type': 'application/json' })
							.end(JSON.stringify(record(link)));
					else res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
				},
				async (baseUrl) => expect((await downloadDocument(baseUrl)).error).toBeUndefined(),
			);
			expect(requested).toEqual(['/v1/documents/doc_1', link]);
		}
	});
});
