import nock from 'nock';

import { useInstantWaits } from '../helpers/instantWaits';
import { runDocumentSigning } from '../helpers/n8nWorkflow';

/**
 * A bad-server table: what a real service, a proxy in front of it or an unlucky network may
 * answer, and what the node must do — through n8n's routing engine. Every row ends: with the
 * records (each once), or with an error that says what the service did. Nothing is sent anywhere
 * but the credential's origin, and every loop is bounded.
 */

const ORIGIN = 'http://signing.test';
const OTHER = 'http://elsewhere.test';
const API_KEY = 'sk_live_bad_server_table_0000000000';
const credentials = { baseUrl: `${ORIGIN}/v1`, apiKey: API_KEY };
const docs = (from: number, count: number) =>
	Array.from({ length: count }, (_, i) => ({ id: `doc_${from + i}`, name: `d${from + i}.pdf` }));

const getAll = (extra: Record<string, unknown> = {}) =>
	runDocumentSigning({
		parameters: {
			resource: 'document',
			operation: 'getAll',
			returnAll: true,
			simplify: false,
			...extra,
		},
		credentials,
	});
const getDocument = () =>
	runDocumentSigning({
		parameters: {
			resource: 'document',
			operation: 'get',
			documentId: { __rl: true, mode: 'id', value: 'doc_1' },
			simplify: false,
		},
		credentials,
	});
const createDocument = () =>
	runDocumentSigning({
		parameters: {
			resource: 'document',
			operation: 'create',
			name: 'nda.pdf',
			signers: { signer: [{ email: 'ada@example.com', name: 'Ada' }] },
		},
		credentials,
	});

/** Attempts the retry policy makes for a 5xx to a read (the first try included). */
const MAX_ATTEMPTS = 7;

// The policy's backoffs and 429 waits pass without their real seconds.
jest.mock('n8n-workflow', () =>
	jest.requireActual('../helpers/instantWaits').n8nWorkflowWithInstantWaits(),
);
useInstantWaits();
beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
afterEach(() => nock.cleanAll());

/** Counts requests to the service (and fails the row if anything reaches another origin). */
function service() {
	const elsewhere = nock(OTHER).get(/.*/).reply(200, []).post(/.*/).reply(200, {});
	return {
		scope: nock(ORIGIN),
		nothingSentElsewhere: () => expect(elsewhere.isDone()).toBe(false),
	};
}

function expectNoKey(result: Awaited<ReturnType<typeof getAll>>) {
	expect(
		`${result.error?.message} ${result.error?.description} ${JSON.stringify(result.items)}`,
	).not.toContain(API_KEY);
}

describe('paging', () => {
	test('1. {data, has_more, next_url} whose page parameter is ignored: 2 requests, an error, no duplicates', async () => {
		const { scope } = service();
		scope
			.get('/v1/documents')
			.query(true)
			.times(2)
			.reply(200, { data: docs(0, 50), has_more: true, next_url: `${ORIGIN}/v1/documents?page=2` });
		const result = await getAll();
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(
			"The service answered the next-page link with records it had already sent; it seems to ignore the next link's query (50 distinct records read); set List Paging to Custom in the credential to say how it pages",
		);
		expect(scope.isDone()).toBe(true);
	});

	test('2. the same service with Limit 60: an error rather than 10 silent duplicates', async () => {
		const { scope } = service();
		scope
			.get('/v1/documents')
			.query(true)
			.times(2)
			.reply(200, { data: docs(0, 50), has_more: true, next_url: `${ORIGIN}/v1/documents?page=2` });
		const result = await getAll({ returnAll: false, limit: 60 });
		expect(result.error?.message).toMatch(/already sent/);
	});

	test('3. has_more: true with no pointer, page and offset ignored: stops after the guessed page 2 and offset 100, naming List Paging', async () => {
		const { scope } = service();
		scope
			.get('/v1/documents')
			.query(true)
			.times(3)
			.reply(200, { data: docs(0, 100), has_more: true });
		expect((await getAll()).error?.message).toBe(
			'The service answered page 2, then offset 100 with records it had already sent (100 distinct records read); set List Paging to Custom in the credential to say how it pages',
		);
		expect(scope.isDone()).toBe(true);
	});

	test('4. the same next link forever, with new records each time: stops at the repeat', async () => {
		const { scope } = service();
		scope
			.get('/v1/documents')
			.query(true)
			.reply(200, { items: docs(0, 2), links: { next: `${ORIGIN}/v1/documents?after=x` } });
		scope
			.get('/v1/documents')
			.query(true)
			.reply(200, { items: docs(2, 2), links: { next: `${ORIGIN}/v1/documents?after=x` } });
		expect((await getAll()).error?.message).toBe(
			'The service gave the next-page link it had already given; the list would never end',
		);
	});

	test('5. total_pages far beyond what the service serves (empty pages): the list ends at the first empty page', async () => {
		const { scope } = service();
		scope
			.get('/v1/documents')
			.query({ limit: 100 })
			.reply(200, { data: docs(0, 3), page: 1, total_pages: 1_000_000 });
		scope
			.get('/v1/documents')
			.query({ limit: 100, page: 2 })
			.reply(200, { data: [], page: 2, total_pages: 1_000_000 });
		const result = await getAll();
		expect(result.items).toHaveLength(3);
	});
});

describe('the API key stays on its origin', () => {
	test('6. a Link header to another host: error naming it, nothing sent there', async () => {
		const { scope, nothingSentElsewhere } = service();
		scope
			.get('/v1/documents')
			.query(true)
			.reply(200, docs(0, 100), { Link: `<${OTHER}/v1/documents?cursor=2>; rel="next"` });
		const result = await getAll();
		expect(result.error?.message).toBe(
			`The service gave a next-page link on another origin (${OTHER}); it was not followed`,
		);
		nothingSentElsewhere();
		expectNoKey(result);
	});

	test('7. a body next URL that downgrades https to http on the same host', async () => {
		nock('https://signing.test')
			.get('/v1/documents')
			.query(true)
			.reply(200, { results: docs(0, 2), next: 'http://signing.test/v1/documents?cursor=2' });
		const result = await runDocumentSigning({
			parameters: { resource: 'document', operation: 'getAll', returnAll: true },
			credentials: { baseUrl: 'https://signing.test/v1', apiKey: API_KEY },
		});
		expect(result.error?.message).toBe(
			'The service gave a next-page link on another origin (http://signing.test); it was not followed',
		);
	});

	test('8. a 307 redirect to another host is not followed', async () => {
		const { scope, nothingSentElsewhere } = service();
		scope.get('/v1/documents/doc_1').reply(307, '', { Location: `${OTHER}/v1/documents/doc_1` });
		const result = await getDocument();
		expect(result.error?.message).toBe(
			`The service answered with a redirect (HTTP 307) to ${OTHER}/v1/documents/doc_1; it was not followed`,
		);
		nothingSentElsewhere();
	});

	test('9. a same-origin 302 is not followed either (a redirect usually means a wrong Base URL)', async () => {
		const { scope } = service();
		scope.get('/v1/documents/doc_1').reply(302, '', { Location: `${ORIGIN}/v2/documents/doc_1` });
		const result = await getDocument();
		expect(result.error?.httpCode).toBe('302');
		expect(result.error?.description).toContain('Check the Base URL');
	});
});

describe('answers that are not what they claim', () => {
	test('10. truncated JSON with 200', async () => {
		service()
			.scope.get('/v1/documents/doc_1')
			.reply(200, '{"id":"doc_1","name":"nd', { 'Content-Type': 'application/json' });
		const result = await getDocument();
		expect(result.error?.message).toBe(
			'The service answered HTTP 200 with a body that is not valid JSON',
		);
	});

	test('11. an HTML page answered with 200 (a login page or captive portal)', async () => {
		service()
			.scope.get('/v1/documents/doc_1')
			.reply(
				200,
				'<!DOCTYPE html><html><head><title>Sign in</title></head><body>Please sign in</body></html>',
				{ 'Content-Type': 'text/html' },
			);
		expect((await getDocument()).error?.message).toBe(
			'The service answered HTTP 200 with a web page instead of an API response',
		);
	});

	test("12. a proxy's HTML 502 page: retried, then shown with its title and text", async () => {
		const page =
			'<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>';
		service()
			.scope.get('/v1/documents/doc_1')
			.times(MAX_ATTEMPTS)
			.reply(502, page, { 'Content-Type': 'text/html' });
		const result = await getDocument();
		expect(result.error?.message).toBe(
			'The service answered HTTP 502 with a web page ("502 Bad Gateway") instead of an API response',
		);
		expect(result.error?.httpCode).toBe('502');
		expect(result.error?.description).toContain('nginx');
	});

	test('13. an errors list of plain strings', async () => {
		service()
			.scope.post('/v1/documents')
			.reply(422, { errors: ['name is taken', 'signers is empty'] });
		const result = await createDocument();
		expect(result.error?.message).toBe('name is taken');
		expect(result.error?.description).toContain('1 more problem');
	});

	test('14. plain text error', async () => {
		service()
			.scope.get('/v1/documents/doc_1')
			.reply(404, 'Not Found', { 'Content-Type': 'text/plain' });
		const result = await getDocument();
		expect([result.error?.message, result.error?.httpCode]).toEqual(['Not Found', '404']);
	});

	test('15. a bare array where one record was expected is passed on as it is', async () => {
		service()
			.scope.get('/v1/documents/doc_1')
			.reply(200, [{ id: 'doc_1' }]);
		const result = await getDocument();
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json)).toEqual([[{ id: 'doc_1' }]]);
	});
});

describe('rate limits and outages', () => {
	test('16. Retry-After negative: waits a second, then succeeds', async () => {
		const { scope } = service();
		scope.get('/v1/documents/doc_1').reply(429, { message: 'slow down' }, { 'Retry-After': '-5' });
		scope.get('/v1/documents/doc_1').reply(200, { id: 'doc_1' });
		const result = await getDocument();
		expect(result.error).toBeUndefined();
		expect(scope.isDone()).toBe(true);
	});

	test('17. Retry-After huge: fails at once, saying so, without waiting', async () => {
		service()
			.scope.get('/v1/documents/doc_1')
			.reply(429, { message: 'come back tomorrow' }, { 'Retry-After': '86400' });
		const result = await getDocument();
		expect(result.error?.httpCode).toBe('429');
		expect(result.error?.description).toContain(
			'asked to wait 86400 s, more than the 120 s this node waits',
		);
	});

	test('18. Retry-After as a date in the past: retried promptly', async () => {
		const { scope } = service();
		scope
			.get('/v1/documents/doc_1')
			.reply(429, {}, { 'Retry-After': 'Wed, 21 Oct 2015 07:28:00 GMT' });
		scope.get('/v1/documents/doc_1').reply(200, { id: 'doc_1' });
		expect((await getDocument()).error).toBeUndefined();
	});

	test(`19. a storm of 5xx: exactly ${MAX_ATTEMPTS} attempts, then the service's message`, async () => {
		const { scope } = service();
		scope
			.get('/v1/documents/doc_1')
			.times(MAX_ATTEMPTS)
			.reply(503, { error: { code: 'unavailable', message: 'Down for maintenance' } });
		const result = await getDocument();
		expect([result.error?.message, result.error?.httpCode]).toEqual([
			'Down for maintenance',
			'503',
		]);
		expect(scope.isDone()).toBe(true);
	});

	test('20. a 5xx to a POST is retried only because it carries an Idempotency-Key (the same one every time)', async () => {
		const keys: string[] = [];
		const { scope } = service();
		scope
			.post('/v1/documents')
			.times(2)
			.reply(function () {
				keys.push(String(this.req.headers['idempotency-key']));
				return keys.length === 1
					? [503, { message: 'busy' }]
					: [201, { id: 'doc_1', name: 'nda.pdf' }];
			});
		const result = await createDocument();
		expect(result.error).toBeUndefined();
		expect(new Set(keys).size).toBe(1);
	});
});
