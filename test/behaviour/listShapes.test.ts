import nock from 'nock';

import { DIALECT_NAMES, parseDialect } from '../../sandbox';
import { useSandbox } from '../helpers/sandbox';
import { loadOptionsContext, runDocumentSigning } from '../helpers/n8nWorkflow';
import { searchDocuments } from '../../nodes/DocumentSigning/listSearch';

/**
 * Get Many reads every list envelope and pagination style the contract says the node tolerates.
 * nock plays services the sandbox does not imitate; requests are n8n's own (routing engine).
 */

const ORIGIN = 'http://signing.test';
const credentials = { baseUrl: `${ORIGIN}/v1/`, apiKey: 'sk_test_shapes' };
const docs = (from: number, count: number) =>
	Array.from({ length: count }, (_, i) => ({
		id: `doc_${from + i}`,
		name: `d${from + i}.pdf`,
		extra: 'kept',
	}));
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
const ids = (result: Awaited<ReturnType<typeof getAll>>) =>
	result.items.map((item) => item.json.id);

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
afterEach(() => {
	const pending = nock.pendingMocks();
	nock.cleanAll();
	expect(pending).toEqual([]);
});

test('the contract envelope: data + next_cursor, until has_more is false', async () => {
	nock(ORIGIN)
		.get('/v1/documents')
		.query({ limit: 100 })
		.reply(200, { data: docs(0, 100), has_more: true, next_cursor: 'c2' })
		.get('/v1/documents')
		.query({ limit: 100, cursor: 'c2' })
		.reply(200, { data: docs(100, 100), has_more: true, next_cursor: 'c3' })
		.get('/v1/documents')
		.query({ limit: 100, cursor: 'c3' })
		.reply(200, { data: docs(200, 5), has_more: false, next_cursor: null });
	const result = await getAll();
	expect(result.error).toBeUndefined();
	expect(ids(result)).toEqual(docs(0, 205).map((doc) => doc.id));
	expect(result.items[0].json.extra).toBe('kept');
});

test('a bare array is paged by number while pages come back full', async () => {
	nock(ORIGIN)
		.get('/v1/documents')
		.query({ limit: 100 })
		.reply(200, docs(0, 100))
		.get('/v1/documents')
		.query({ limit: 100, page: 2 })
		.reply(200, docs(100, 3));
	expect(ids(await getAll())).toHaveLength(103);
});

test('records under items with a camelCase nextCursor', async () => {
	nock(ORIGIN)
		.get('/v1/documents')
		.query({ limit: 100 })
		.reply(200, { items: docs(0, 2), nextCursor: 'abc' })
		.get('/v1/documents')
		.query({ limit: 100, cursor: 'abc' })
		.reply(200, { items: docs(2, 1) });
	expect(ids(await getAll())).toEqual(['doc_0', 'doc_1', 'doc_2']);
});

test('records under results with a next URL', async () => {
	nock(ORIGIN)
		.get('/v1/documents')
		.query({ limit: 100 })
		.reply(200, { results: docs(0, 2), next: `${ORIGIN}/v1/documents?offset=2&limit=100` })
		.get('/v1/documents')
		.query({ offset: 2, limit: 100 })
		.reply(200, { results: docs(2, 2), next: null });
	expect(ids(await getAll())).toEqual(['doc_0', 'doc_1', 'doc_2', 'doc_3']);
});

test('page numbers in meta', async () => {
	nock(ORIGIN)
		.get('/v1/documents')
		.query({ limit: 100 })
		.reply(200, { data: docs(0, 1), meta: { current_page: 1, last_page: 2 } })
		.get('/v1/documents')
		.query({ limit: 100, page: 2 })
		.reply(200, { data: docs(1, 1), meta: { current_page: 2, last_page: 2 } });
	expect(ids(await getAll())).toEqual(['doc_0', 'doc_1']);
});

test('a Link header with rel="next"', async () => {
	nock(ORIGIN)
		.get('/v1/documents')
		.query({ limit: 100 })
		.reply(200, docs(0, 2), {
			Link: `<${ORIGIN}/v1/documents?page=2&per_page=100>; rel="next", <${ORIGIN}/v1/documents?page=2&per_page=100>; rel="last"`,
		})
		.get('/v1/documents')
		.query({ page: 2, per_page: 100 })
		.reply(200, docs(2, 1));
	expect(ids(await getAll())).toEqual(['doc_0', 'doc_1', 'doc_2']);
});

test('a limit spanning pages keeps one page size (so page numbers mean the same offsets) and returns exactly the limit', async () => {
	nock(ORIGIN)
		.get('/v1/documents')
		.query({ limit: 100 })
		.reply(200, { data: docs(0, 100), has_more: true, next_cursor: 'c2' })
		.get('/v1/documents')
		.query({ limit: 100, cursor: 'c2' })
		.reply(200, { data: docs(100, 100), has_more: true, next_cursor: 'c3' });
	const result = await getAll({ returnAll: false, limit: 130 });
	expect(ids(result)).toEqual(docs(0, 130).map((doc) => doc.id));
});

test('a service that repeats the same cursor stops with an error naming it, after two requests', async () => {
	nock(ORIGIN)
		.get('/v1/documents')
		.query({ limit: 100 })
		.reply(200, { data: docs(0, 1), next_cursor: 'same' })
		.get('/v1/documents')
		.query({ limit: 100, cursor: 'same' })
		.reply(200, { data: docs(1, 1), next_cursor: 'same' });
	const result = await getAll();
	expect(result.items).toEqual([]);
	expect(result.error?.message).toBe(
		'The service gave the next-page cursor it had already given; the list would never end',
	);
});

/** A service paging by offset that caps pages at `cap` and states its `total` (the issue's first failure). */
function offsetService(total: number, cap: number, names = { offset: 'offset', limit: 'limit' }) {
	const all = docs(0, total);
	const served: Array<Record<string, string>> = [];
	nock(ORIGIN)
		.persist()
		.get('/v1/documents')
		.query(true)
		.reply((uri) => {
			const query = Object.fromEntries(new URL(uri, ORIGIN).searchParams);
			served.push(query);
			const offset = Number(query[names.offset] ?? 0);
			const size = Math.min(Number(query[names.limit] ?? query.limit ?? 20), cap);
			return [
				200,
				{
					data: all.slice(offset, offset + size),
					[names.offset]: offset,
					[names.limit]: size,
					total,
				},
			];
		});
	return served;
}

describe('never silently short', () => {
	afterEach(() => nock.cleanAll());

	test('offset paging with a stated total and a page-size cap: Return All gives all 124, not the first 50', async () => {
		offsetService(124, 50);
		const result = await getAll();
		expect(result.error).toBeUndefined();
		expect(ids(result)).toEqual(docs(0, 124).map((doc) => doc.id));
	});

	test('the same service: Limit 60 gives 60, not 50', async () => {
		offsetService(124, 50);
		const result = await getAll({ returnAll: false, limit: 60 });
		expect(result.error).toBeUndefined();
		expect(ids(result)).toEqual(docs(0, 60).map((doc) => doc.id));
	});

	test('records under a resource-named key with a page token under `page_token`', async () => {
		const all = docs(0, 7);
		nock(ORIGIN)
			.get('/v1/documents')
			.query({ limit: 100 })
			.reply(200, { documents: all.slice(0, 4), next_page_token: 't4' })
			.get('/v1/documents')
			.query({ limit: 100, page_token: 't4' })
			.reply(200, { documents: all.slice(4), next_page_token: '' });
		const result = await getAll();
		expect(result.error).toBeUndefined();
		expect(ids(result)).toEqual(all.map((doc) => doc.id));
	});
});

describe('List Paging (Custom)', () => {
	const custom = (settings: Record<string, string>, extra: Record<string, unknown> = {}) =>
		getAll({ listPaging: 'custom', listPagingSettings: settings, ...extra });

	test('records path, next-token path and its parameter: a service nobody foresaw', async () => {
		nock(ORIGIN)
			.get('/v1/documents')
			.query({ limit: 100 })
			.reply(200, { result: { docs: docs(0, 2), tags: [{ t: 1 }] }, state: { resume: 'r2' } })
			.get('/v1/documents')
			.query({ limit: 100, from_token: 'r2' })
			.reply(200, { result: { docs: docs(2, 1), tags: [] }, state: {} });
		const result = await custom({
			recordsPath: 'result.docs',
			nextTokenPath: 'state.resume',
			nextTokenParameter: 'from_token',
		});
		expect(result.error).toBeUndefined();
		expect(ids(result)).toEqual(['doc_0', 'doc_1', 'doc_2']);
	});

	test('offset and limit parameter names with a total path', async () => {
		nock(ORIGIN)
			.get('/v1/documents')
			.query({ top: 100 })
			.reply(200, { rows: docs(0, 2), stats: { matching: 3 } })
			.get('/v1/documents')
			.query({ top: 100, skip: 2 })
			.reply(200, { rows: docs(2, 1), stats: { matching: 3 } });
		const result = await custom({
			offsetParameter: 'skip',
			limitParameter: 'top',
			totalPath: 'stats.matching',
		});
		expect(result.error).toBeUndefined();
		expect(ids(result)).toEqual(['doc_0', 'doc_1', 'doc_2']);
	});

	test("a records path that is not in the answer fails naming it and the answer's keys", async () => {
		nock(ORIGIN)
			.get('/v1/documents')
			.query({ limit: 100 })
			.reply(200, { data: docs(0, 1) });
		const result = await custom({ recordsPath: 'result.docs' });
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(
			'The list response has no array at the Records Path "result.docs" (top-level keys: data)',
		);
	});

	test('a setting that is not a path fails before any request, naming it', async () => {
		const result = await custom({ totalPath: 'meta total' });
		expect(result.error?.message).toMatch(/^List Paging > Total Path: "meta total" is not a path/);
	});

	test('Automatic (the default) ignores settings left from Custom', async () => {
		nock(ORIGIN)
			.get('/v1/documents')
			.query({ limit: 100 })
			.reply(200, { data: docs(0, 1) });
		const result = await getAll({
			listPaging: 'automatic',
			listPagingSettings: { recordsPath: 'nowhere' },
		});
		expect(ids(result)).toEqual(['doc_0']);
	});

	test('the list search beside a locator uses the List Paging shown with it', async () => {
		nock(ORIGIN)
			.get('/v1/documents')
			.query({ limit: 50 })
			.reply(200, {
				payload: { entries_v2: [{ id: 'doc_a', name: 'a.pdf' }] },
				resume: { at: 'p2' },
			})
			.get('/v1/documents')
			.query({ limit: 50, at: 'p2' })
			.reply(200, { payload: { entries_v2: [{ id: 'doc_b', name: 'b.pdf' }] }, resume: {} });
		const parameters = {
			resource: 'document',
			operation: 'get',
			listPaging: 'custom',
			listPagingSettings: { recordsPath: 'payload.entries_v2', nextTokenPath: 'resume.at' },
		};
		const context = loadOptionsContext(credentials, parameters);
		const first = await searchDocuments.call(context);
		expect(first.results.map((result) => result.value)).toEqual(['doc_a']);
		const second = await searchDocuments.call(context, undefined, first.paginationToken);
		expect(second.results.map((result) => result.value)).toEqual(['doc_b']);
		expect(second.paginationToken).toBeUndefined();
	});
});

describe("the credential's List Paging (node version 2 shows none on the node)", () => {
	const inCredential: Record<string, string> & typeof credentials = {
		...credentials,
		listPaging: 'custom',
		recordsPath: 'result.docs',
		nextTokenPath: 'state.resume',
		nextTokenParameter: 'from_token',
	};
	const foreignPages = () =>
		nock(ORIGIN)
			.get('/v1/documents')
			.query({ limit: 100 })
			.reply(200, { result: { docs: docs(0, 2), tags: [{ t: 1 }] }, state: { resume: 'r2' } })
			.get('/v1/documents')
			.query({ limit: 100, from_token: 'r2' })
			.reply(200, { result: { docs: docs(2, 1), tags: [] }, state: {} });
	const run = (
		typeVersion: number,
		parameters: Record<string, unknown> = {},
		fields = inCredential,
	) =>
		runDocumentSigning({
			parameters: {
				resource: 'document',
				operation: 'getAll',
				returnAll: true,
				simplify: false,
				...parameters,
			},
			credentials: fields,
			typeVersion,
		});

	test('a list operation reads the service as the credential says', async () => {
		foreignPages();
		const result = await run(2);
		expect(result.error).toBeUndefined();
		expect(ids(result)).toEqual(['doc_0', 'doc_1', 'doc_2']);
	});

	test("so does a node of version 1 left at Automatic; its own Custom wins over the credential's", async () => {
		foreignPages();
		expect(ids(await run(1))).toEqual(['doc_0', 'doc_1', 'doc_2']);
		nock(ORIGIN)
			.get('/v1/documents')
			.query({ limit: 100 })
			.reply(200, { rows: docs(0, 1) });
		const own = await run(1, { listPaging: 'custom', listPagingSettings: { recordsPath: 'rows' } });
		expect(own.error).toBeUndefined();
		expect(ids(own)).toEqual(['doc_0']);
	});

	test('the list search beside a locator reads it too', async () => {
		nock(ORIGIN)
			.get('/v1/documents')
			.query({ limit: 50 })
			.reply(200, { result: { docs: docs(0, 1) }, state: {} });
		const context = loadOptionsContext(inCredential, { resource: 'document', operation: 'get' }, 2);
		const page = await searchDocuments.call(context);
		expect(page.results.map((result) => result.value)).toEqual(['doc_0']);
	});

	test('a setting that is not a path fails before any request, naming the credential', async () => {
		const result = await run(2, {}, { ...inCredential, totalPath: 'meta total' });
		expect(result.items).toEqual([]);
		expect(result.error?.message).toMatch(
			/^The credential's List Paging > Total Path: "meta total" is not a path/,
		);
		expect(nock.pendingMocks()).toEqual([]);
	});

	test('Automatic in the credential ignores settings left from Custom', async () => {
		nock(ORIGIN)
			.get('/v1/documents')
			.query({ limit: 100 })
			.reply(200, { data: docs(0, 1) });
		const result = await run(2, {}, { ...inCredential, listPaging: 'automatic' });
		expect(ids(result)).toEqual(['doc_0']);
	});
});

test('an answer that is no list fails with its top-level keys, never one item holding the envelope', async () => {
	nock(ORIGIN)
		.get('/v1/documents')
		.query({ limit: 100 })
		.reply(200, { status: 'ok', documents: 'see /v2' });
	const result = await getAll();
	expect(result.items).toEqual([]);
	expect(result.error?.message).toBe(
		"The service's response is not a list the node can read: it holds no single array of records (top-level keys: status, documents)",
	);
});

test('filters go out as query parameters and Simplify keeps the main fields', async () => {
	nock(ORIGIN)
		.get('/v1/documents')
		.query({ limit: 5, status: 'completed', q: 'nda' })
		.reply(200, {
			data: [{ id: 'doc_1', name: 'nda.pdf', status: 'completed', internal: { a: 1 } }],
			has_more: false,
		});
	const result = await runDocumentSigning({
		parameters: {
			resource: 'document',
			operation: 'getAll',
			returnAll: false,
			limit: 5,
			filters: { status: 'completed', q: 'nda' },
		},
		credentials,
	});
	expect(result.items.map((item) => item.json)).toEqual([
		{ id: 'doc_1', name: 'nda.pdf', status: 'completed' },
	]);
});

test('one input item per list: every output item is paired with the item that asked', async () => {
	nock(ORIGIN)
		.get('/v1/templates')
		.query({ limit: 100, q: 'a' })
		.reply(200, { data: [{ id: 'tpl_a1' }, { id: 'tpl_a2' }] })
		.get('/v1/templates')
		.query({ limit: 100, q: 'b' })
		.reply(200, { data: [{ id: 'tpl_b1' }] });
	const result = await runDocumentSigning({
		parameters: {
			resource: 'template',
			operation: 'getAll',
			returnAll: true,
			filters: { q: '={{ $json.q }}' },
		},
		items: [{ json: { q: 'a' } }, { json: { q: 'b' } }],
		credentials,
	});
	expect(result.items.map((item) => [item.json.id, item.pairedItem])).toEqual([
		['tpl_a1', { item: 0 }],
		['tpl_a2', { item: 0 }],
		['tpl_b1', { item: 1 }],
	]);
});

/**
 * The same, against the sandbox in every dialect: 130 documents read whole and by Limit. Every
 * record comes back once, a Limit gives exactly that many distinct records in at most
 * ceil(limit / page size) + 2 requests, and a service that ignores paging is named, not looped on.
 */
describe.each(DIALECT_NAMES)('list shapes of the %s dialect', (dialectName) => {
	const dialect = parseDialect(dialectName);
	const sandbox = useSandbox({ port: 0, dialect: dialectName });
	let apiKey: string;
	const TOTAL = 130;
	const listRequests = () => sandbox().stats().routes['GET /v1/documents'] ?? 0;
	const read = (extra: Record<string, unknown>) =>
		runDocumentSigning({
			parameters: { resource: 'document', operation: 'getAll', simplify: false, ...extra },
			credentials: { baseUrl: sandbox().baseUrl, apiKey },
		});

	beforeAll(async () => {
		nock.enableNetConnect('127.0.0.1');
		apiKey = sandbox().createAccount().apiKey;
		for (let i = 0; i < TOTAL; i++) {
			const response = await fetch(`${sandbox().baseUrl}/documents`, {
				method: 'POST',
				headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
				body: JSON.stringify({ name: `d${i}.pdf`, draft: true }),
			});
			expect(response.status).toBe(201);
		}
	});
	afterAll(() => {
		nock.disableNetConnect();
	});

	test('Return All: every record once, or a clear error when the service ignores paging', async () => {
		const before = listRequests();
		const result = await read({ returnAll: true });
		if (dialect.paging === 'ignored') {
			expect(result.items).toEqual([]);
			expect(result.error?.message).toMatch(/already (sent|given)/);
			// The same page twice, then once more for each other name a page token may go under.
			expect(listRequests() - before).toBeLessThanOrEqual(
				2 + 6 /* the conventional token parameter names */,
			);
			return;
		}
		expect(result.error).toBeUndefined();
		const ids = result.items.map((item) => String(item.json.id));
		expect(ids).toHaveLength(TOTAL);
		expect(new Set(ids).size).toBe(TOTAL);
		expect(listRequests() - before).toBeLessThanOrEqual(
			Math.ceil(TOTAL / Math.min(100, dialect.maxPageSize)) + 2,
		);
	});

	test('Limit 60 gives 60 distinct records in at most ceil(60 / page size) + 2 requests', async () => {
		const before = listRequests();
		const result = await read({ returnAll: false, limit: 60 });
		const perPage = Math.min(60, dialect.maxPageSize);
		expect(listRequests() - before).toBeLessThanOrEqual(Math.ceil(60 / perPage) + 2);
		if (dialect.paging === 'ignored' && dialect.maxPageSize < 60) {
			expect(result.error?.message).toMatch(/already (sent|given)/);
			return;
		}
		expect(result.error).toBeUndefined();
		const ids = result.items.map((item) => String(item.json.id));
		expect(ids).toHaveLength(60);
		expect(new Set(ids).size).toBe(60);
	});
});
