/**
 * Dialects (docs/api-contract.md, "Dialects"): each axis value's wire shape, with a real HTTP
 * client against startSandbox.
 */
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import { spawn } from 'child_process';
import http from 'http';
import path from 'path';

import { AuditLogListSchema, LIMITS } from '../../contract';
import { verifyDelivery } from '../../nodes/shared/deliveryLayouts';
import { DEMO_API_KEY, startSandbox, type Sandbox } from '../../sandbox';
import {
	DEFAULT_DIALECT,
	DIALECT_NAMES,
	DIALECT_PRESETS,
	LIST_ENVELOPES,
	parseDialect,
	type Dialect,
	type ListEnvelope,
} from '../../sandbox/dialects';
import {
	admin,
	api,
	documentBody,
	expectError,
	expectSchema,
	useReceivers,
	useSandbox,
	waitFor,
} from '../helpers/sandbox';
import { uploadUntilAnswered } from '../helpers/upload';

/** useSandbox passes every start option on, the dialect included. */
const fileSandbox = useSandbox({ dialect: 'numeric-ids+items-links', rateLimit: null });

const sandboxes: Sandbox[] = [];
const receiver = useReceivers();
afterAll(async () => {
	await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
});

async function start(
	dialect: string | Partial<Dialect>,
	options: Parameters<typeof startSandbox>[0] = {},
): Promise<Sandbox> {
	const sandbox = await startSandbox({
		dialect,
		onError: (error) => console.error(error),
		...options,
	});
	sandboxes.push(sandbox);
	return sandbox;
}

/** A new account with `count` documents (every third a draft); returns its client and ids newest first. */
async function accountWith(
	sandbox: Sandbox,
	count: number,
): Promise<{ client: AxiosInstance; ids: unknown[]; apiKey: string }> {
	const { apiKey } = sandbox.createAccount();
	const client = api(sandbox, apiKey);
	const ids: unknown[] = [];
	for (let i = 0; i < count; i++) {
		const body =
			i % 3 === 0
				? { name: `draft-${i}.pdf`, draft: true }
				: documentBody({ name: `Contract-${i}.pdf` });
		const response = await client.post('/documents', body);
		expect(response.status).toBe(201);
		ids.push(response.data.id);
	}
	return { client, ids: ids.reverse(), apiKey };
}

/** The contract's X-Signature t=…,v1=… alone. */
const verifyContract = (
	headers: http.IncomingHttpHeaders,
	rawBody: Buffer,
	secret: string,
	nowSeconds: number,
) =>
	verifyDelivery({
		header: (name) => (name === 'x-signature' ? (headers[name] as string | undefined) : undefined),
		rawBody,
		secret,
		nowSeconds,
		accepted: ['timestamped-header'],
	});

/** GET of an absolute next URL with the same key. */
function follow(client: AxiosInstance, url: string): Promise<AxiosResponse> {
	return client.get(url, { baseURL: undefined });
}

/** The records' key of each list in the dialects that name it after the resource. */
const RECORDS_KEYS: Record<string, string> = {
	'/documents': 'documents',
	'/templates': 'templates',
	'/users': 'users',
	'/webhooks': 'webhooks',
	'/reports/audit-log': 'audit_log',
};
/** Where each dialect reads the next position when it is no link. */
const TOKEN_PARAMETERS: Partial<Record<ListEnvelope, string>> = {
	'offset-total': 'offset',
	'start-size': 'start',
	'named-token': 'page_token',
	'nested-continuation': 'continuation',
	'token-elsewhere': 'page_token',
	'nested-paging': 'page_token',
	'header-cursor': 'page_token',
};

interface Walked {
	ids: unknown[];
	sizes: number[];
	/** The next link / cursor / page of each page (null on the last). */
	nexts: Array<string | number | null>;
}

/**
 * Walks a list to the end the way a client of `envelope` would, checking the shape of every page.
 * Stops after `maxPages` (for the ignores-paging dialect, which never ends).
 */
async function walk(
	envelope: ListEnvelope,
	client: AxiosInstance,
	path: string,
	params: Record<string, string | number>,
	maxPages = 50,
): Promise<Walked> {
	const walked: Walked = { ids: [], sizes: [], nexts: [] };
	let response = await client.get(path, { params });
	for (let page = 1; page <= maxPages; page++) {
		expect(response.status).toBe(200);
		const body = response.data;
		let records: Array<{ id: unknown }>;
		let next: string | number | null;
		switch (envelope) {
			case 'cursor':
				expect(Object.keys(body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
				expect(body.has_more).toBe(body.next_cursor !== null);
				records = body.data;
				next = body.next_cursor;
				break;
			case 'link-header': {
				expect(Array.isArray(body)).toBe(true);
				records = body;
				const link = response.headers.link as string | undefined;
				if (link === undefined) next = null;
				else {
					const match = /^<([^>]+)>; rel="next"$/.exec(link);
					expect(match).not.toBeNull();
					next = match![1];
				}
				break;
			}
			case 'results-next':
				expect(Object.keys(body).sort()).toEqual(['next', 'results']);
				records = body.results;
				next = body.next;
				break;
			case 'next-url':
				expect(Object.keys(body).sort()).toEqual(['data', 'has_more', 'next_url']);
				expect(body.has_more).toBe(body.next_url !== null);
				records = body.data;
				next = body.next_url;
				break;
			case 'items-links':
				expect(Object.keys(body).sort()).toEqual(['items', 'links']);
				expect(Object.keys(body.links)).toEqual(['next']);
				records = body.items;
				next = body.links.next;
				break;
			case 'meta-cursor':
				expect(Object.keys(body).sort()).toEqual(['data', 'meta']);
				expect(Object.keys(body.meta)).toEqual(['next_cursor']);
				records = body.data;
				next = body.meta.next_cursor;
				break;
			case 'page-numbers':
				expect(Object.keys(body).sort()).toEqual([
					'data',
					'page',
					'per_page',
					'total',
					'total_pages',
				]);
				records = body.data;
				next = body.page < body.total_pages ? body.page + 1 : null;
				break;
			case 'offset-total':
				expect(Object.keys(body).sort()).toEqual(['data', 'limit', 'offset', 'total']);
				records = body.data;
				next = body.offset + records.length < body.total ? body.offset + records.length : null;
				break;
			case 'start-size':
				expect(Object.keys(body).sort()).toEqual(['hits', 'meta']);
				expect(Object.keys(body.meta).sort()).toEqual(['size', 'start', 'total_count']);
				records = body.hits;
				next =
					body.meta.start + records.length < body.meta.total_count
						? body.meta.start + records.length
						: null;
				break;
			case 'named-token': {
				const [key, ...rest] = Object.keys(body).filter((name) => name !== 'next_page_token');
				expect(rest).toEqual([]);
				expect(key).toBe(RECORDS_KEYS[path]);
				records = body[key];
				next = body.next_page_token ?? null;
				break;
			}
			case 'nested-continuation':
				expect(Object.keys(body).sort()).toEqual(['continuation', 'result']);
				expect(Object.keys(body.result)).toEqual([RECORDS_KEYS[path]]);
				records = body.result[RECORDS_KEYS[path]];
				next = body.continuation;
				break;
			case 'token-elsewhere':
				expect(Object.keys(body).sort()).toEqual(['data', 'next_cursor']);
				records = body.data;
				next = body.next_cursor;
				break;
			case 'nested-paging':
				expect(Object.keys(body).sort()).toEqual(['paging_state', 'result']);
				expect(Object.keys(body.result)).toEqual([RECORDS_KEYS[path]]);
				expect(body.paging_state.summary.total_count).toEqual(expect.any(Number));
				records = body.result[RECORDS_KEYS[path]];
				next = body.paging_state.cursor_state.next_page_token;
				break;
			case 'header-cursor':
				expect(Object.keys(body)).toEqual([RECORDS_KEYS[path]]);
				expect(response.headers['x-total-count']).toMatch(/^\d+$/);
				records = body[RECORDS_KEYS[path]];
				next = (response.headers['x-next-page-token'] as string | undefined) ?? null;
				break;
		}
		walked.ids.push(...records.map((record) => record.id));
		walked.sizes.push(records.length);
		walked.nexts.push(next);
		if (next === null || page === maxPages) return walked;
		if (typeof next === 'string' && /^https?:/.test(next)) {
			response = await follow(client, next);
		} else if (envelope === 'page-numbers') {
			response = await client.get(path, { params: { ...params, page: next } });
		} else if (TOKEN_PARAMETERS[envelope]) {
			response = await client.get(path, {
				params: { ...params, [TOKEN_PARAMETERS[envelope]!]: next },
			});
		} else {
			response = await client.get(path, { params: { ...params, cursor: next } });
		}
	}
	return walked;
}

const ENVELOPES: ListEnvelope[] = [...LIST_ENVELOPES];
/** The envelopes whose next page is a link. */
const LINKED_ENVELOPES: ListEnvelope[] = ['link-header', 'results-next', 'next-url', 'items-links'];

// ---------------------------------------------------------------------------------------------

describe('parseDialect and presets', () => {
	it('names exactly the documented presets, and each parses to a complete dialect', () => {
		expect([...DIALECT_NAMES].sort()).toEqual(
			[
				'default',
				'numeric-ids',
				'link-header',
				'results-next',
				'next-url',
				'items-links',
				'meta-cursor',
				'page-numbers',
				'offset-total',
				'start-size',
				'named-token',
				'nested-continuation',
				'token-elsewhere',
				'nested-paging',
				'header-cursor',
				'ignores-paging',
				'page-cap',
				'server-secret',
				'account-secret',
				'no-delivery-endpoints',
				'delivery-own-times',
				'unsigned',
				'sig-standard-webhooks',
				'sig-hub-sha256',
				'sig-base64',
				'sig-timestamp-header',
				'sig-unsigned-timestamp',
				'error-message',
				'error-errors',
				'error-text',
				'error-html',
				'delete-200',
				'ignores-webhook-filters',
				'webhook-url-events',
				'unlisted-template-fields',
				'audit-oldest-first',
				'audit-renamed',
				'audit-bare',
				'audit-zoneless',
				'audit-ignores-from',
				'foreign-documents-forbidden',
				'minimal',
			].sort(),
		);
		for (const name of DIALECT_NAMES) {
			const dialect = parseDialect(name);
			expect(Object.keys(dialect).sort()).toEqual(Object.keys(DEFAULT_DIALECT).sort());
			expect(dialect).toEqual({ ...DEFAULT_DIALECT, ...DIALECT_PRESETS[name] });
		}
		expect(parseDialect(undefined)).toEqual(DEFAULT_DIALECT);
		expect(parseDialect('default')).toEqual(DEFAULT_DIALECT);
		expect(parseDialect('page-cap').maxPageSize).toBe(25);
		expect(parseDialect('minimal')).toEqual({
			...DEFAULT_DIALECT,
			deliveryEndpoints: false,
			deliverySignature: 'none',
			errorBody: 'message',
			deleteAnswer: 200,
			webhookFilters: 'ignored',
		});
	});

	it('composes with + left to right over the default', () => {
		expect(parseDialect('numeric-ids+items-links')).toEqual({
			...DEFAULT_DIALECT,
			ids: 'numeric',
			listEnvelope: 'items-links',
		});
		expect(parseDialect('error-text+error-html').errorBody).toBe('html');
		expect(parseDialect('error-html+error-text').errorBody).toBe('text');
		expect(parseDialect('minimal+error-errors')).toEqual({
			...parseDialect('minimal'),
			errorBody: 'errors',
		});
		expect(parseDialect('error-errors+minimal').errorBody).toBe('message');
		expect(parseDialect(' numeric-ids + page-cap ')).toEqual({
			...DEFAULT_DIALECT,
			ids: 'numeric',
			maxPageSize: 25,
		});
		expect(parseDialect({ maxPageSize: 10, ids: 'numeric' })).toEqual({
			...DEFAULT_DIALECT,
			maxPageSize: 10,
			ids: 'numeric',
		});
		expect(parseDialect('{"listEnvelope":"link-header"}')).toEqual({
			...DEFAULT_DIALECT,
			listEnvelope: 'link-header',
		});
		expect(parseDialect('audit-oldest-first+audit-renamed+named-token')).toEqual({
			...DEFAULT_DIALECT,
			auditOrder: 'oldest-first',
			auditFields: 'renamed',
			listEnvelope: 'named-token',
		});
	});

	it('refuses unknown names and invalid axes with the valid ones listed', () => {
		expect(() => parseDialect('numeric-ids+bogus')).toThrow(
			/Unknown dialect "bogus"; valid dialects: default, numeric-ids, .*minimal/,
		);
		expect(() => parseDialect('numeric-ids+')).toThrow(/Unknown dialect ""/);
		expect(() => parseDialect({ ids: 'uuid' } as never)).toThrow(/Invalid dialect: ids/);
		expect(() => parseDialect({ colour: 'red' } as never)).toThrow(/Invalid dialect/);
		expect(() => parseDialect({ maxPageSize: 0 })).toThrow(/maxPageSize/);
		expect(() => parseDialect({ auditOrder: 'random' } as never)).toThrow(/auditOrder/);
		expect(() => parseDialect({ auditFields: 'camel' } as never)).toThrow(/auditFields/);
		expect(() => parseDialect({ auditTimes: 'local' } as never)).toThrow(/auditTimes/);
		expect(() => parseDialect({ auditFrom: 'sometimes' } as never)).toThrow(/auditFrom/);
		expect(() => parseDialect({ foreignDocuments: 'hidden' } as never)).toThrow(/foreignDocuments/);
		expect(() => parseDialect('{nope')).toThrow(/not valid JSON/);
	});
});

describe('choosing the dialect', () => {
	it('useSandbox({ dialect }) starts the sandbox in that dialect', async () => {
		expect(fileSandbox().config().dialectSpec).toBe('numeric-ids+items-links');
		const document = (await api(fileSandbox()).post('/documents', documentBody())).data;
		expect(typeof document.id).toBe('number');
		expect((await api(fileSandbox()).get('/documents')).data.items[0].id).toBe(document.id);
	});

	it('startSandbox({dialect}), sandbox.config(), configure(), reset() keeps it', async () => {
		const sandbox = await start('numeric-ids+items-links');
		expect(sandbox.config()).toMatchObject({
			dialectSpec: 'numeric-ids+items-links',
			dialect: { ...DEFAULT_DIALECT, ids: 'numeric', listEnvelope: 'items-links' },
		});
		expect(sandbox.configure({ dialect: { errorBody: 'text' } })).toMatchObject({
			dialectSpec: '{"errorBody":"text"}',
			dialect: { ...DEFAULT_DIALECT, errorBody: 'text' },
		});
		expect(() => sandbox.configure({ dialect: 'bogus' })).toThrow(
			/Unknown dialect "bogus"; valid dialects/,
		);
		sandbox.configure({ dialect: 'link-header' });
		sandbox.configure({ failureRate: 0 });
		sandbox.reset();
		expect(sandbox.config()).toMatchObject({
			dialectSpec: 'link-header',
			dialect: { listEnvelope: 'link-header' },
		});
		await expect(startSandbox({ dialect: 'nope' })).rejects.toThrow(/Unknown dialect "nope"/);
	});

	it('GET/PUT /__sandbox/config show and switch it (spec string or object); admin errors keep the admin format', async () => {
		const sandbox = await start('error-html');
		const control = admin(sandbox);
		expect((await control.get('/config')).data).toMatchObject({
			dialectSpec: 'error-html',
			dialect: { errorBody: 'html' },
		});
		const put = await control.put('/config', { dialect: 'page-numbers+delete-200' });
		expect(put.status).toBe(200);
		expect(put.data).toMatchObject({
			dialectSpec: 'page-numbers+delete-200',
			dialect: { listEnvelope: 'page-numbers', deleteAnswer: 200, errorBody: 'contract' },
		});
		expect((await control.put('/config', { dialect: { ids: 'numeric' } })).data).toMatchObject({
			dialectSpec: '{"ids":"numeric"}',
			dialect: { ids: 'numeric' },
		});
		expect((await control.get('/config')).data.dialect.ids).toBe('numeric');

		await control.put('/config', { dialect: 'error-text' });
		const bad = await control.put('/config', { dialect: 'bogus' });
		expectError(bad, 400, 'validation_error', 'dialect');
		expect(bad.data.error.message).toMatch(/valid dialects: default, numeric-ids/);
		expectError(
			await control.put('/config', { dialect: { ids: 'uuid' } }),
			400,
			'validation_error',
		);
		expect((await control.get('/config')).data.dialectSpec).toBe('error-text');
	});
});

// ---------------------------------------------------------------------------------------------

describe('listEnvelope', () => {
	describe.each(ENVELOPES)('%s', (envelope) => {
		let sandbox: Sandbox;
		let account: { client: AxiosInstance; ids: unknown[] };
		beforeAll(async () => {
			sandbox = await start({ listEnvelope: envelope });
			account = await accountWith(sandbox, 60);
		});

		it('walking every page with limit 25 returns every record exactly once, newest first', async () => {
			const { ids, sizes } = await walk(envelope, account.client, '/documents', { limit: 25 });
			expect(sizes).toEqual([25, 25, 10]);
			expect(ids).toEqual(account.ids);
		});

		it('keeps the filters across pages', async () => {
			const { ids } = await walk(envelope, account.client, '/documents', {
				status: 'draft',
				limit: 7,
			});
			const drafts = (
				await account.client.get('/documents', { params: { status: 'draft', limit: 100 } })
			).data;
			expect(ids).toHaveLength(20);
			const all = Array.isArray(drafts)
				? drafts
				: (drafts.data ??
					drafts.results ??
					drafts.items ??
					drafts.hits ??
					drafts.documents ??
					drafts.result.documents);
			expect(ids).toEqual(all.map((record: { id: unknown }) => record.id));
		});

		it('every list endpoint answers in the envelope', async () => {
			const { client } = account;
			expect((await client.post('/templates', { name: 'T' })).status).toBe(201);
			expect(
				(await client.post('/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['*'] })).status,
			).toBe(201);
			// 60 documents (20 drafts: created; 40 sent: created, requested, sent), the template, the
			// webhook, the owner; the audit log holds an entry for each of those events.
			const expected = {
				'/documents': 60,
				'/templates': 1,
				'/users': 1,
				'/webhooks': 1,
				'/reports/audit-log': 20 + 40 * 3 + 2,
			};
			for (const [path, count] of Object.entries(expected)) {
				const { ids } = await walk(envelope, client, path, { limit: 100 });
				expect({ path, records: ids.length }).toEqual({ path, records: count });
			}
		});

		if (LINKED_ENVELOPES.includes(envelope)) {
			it('next links are absolute URLs on the origin the client reached (or publicOrigin) with the same path, filters, cursor and limit', async () => {
				const { nexts } = await walk(
					envelope,
					account.client,
					'/documents',
					{ q: 'contract', limit: 10 },
					1,
				);
				const next = new URL(nexts[0] as string);
				expect(`${next.origin}${next.pathname}`).toBe(`${sandbox.origin}/v1/documents`);
				expect(next.searchParams.get('q')).toBe('contract');
				expect(next.searchParams.get('limit')).toBe('10');
				// Opaque, as the list issued it: a payload and its MAC.
				expect(next.searchParams.get('cursor')).toMatch(/^[\w-]+\.[\w-]+$/);

				sandbox.configure({ publicOrigin: 'http://sandbox.test:4010' });
				try {
					const { nexts: publicNexts } = await walk(
						envelope,
						account.client,
						'/documents',
						{ limit: 10 },
						1,
					);
					expect(publicNexts[0]).toMatch(/^http:\/\/sandbox\.test:4010\/v1\/documents\?/);
				} finally {
					sandbox.configure({ publicOrigin: null });
				}
			});
		}
	});

	it('page-numbers: page/per_page/total/total_pages; per_page is accepted for limit; a bad page is a 400', async () => {
		const sandbox = await start('page-numbers');
		const { client, ids } = await accountWith(sandbox, 60);
		const second = (await client.get('/documents', { params: { page: 2, limit: 25 } })).data;
		expect(second).toMatchObject({ page: 2, per_page: 25, total: 60, total_pages: 3 });
		expect(second.data.map((record: { id: unknown }) => record.id)).toEqual(ids.slice(25, 50));
		const perPage = (await client.get('/documents', { params: { page: 3, per_page: 20 } })).data;
		expect(perPage).toMatchObject({ page: 3, per_page: 20, total: 60, total_pages: 3 });
		expect(perPage.data.map((record: { id: unknown }) => record.id)).toEqual(ids.slice(40, 60));
		expect((await client.get('/documents', { params: { page: 9 } })).data).toMatchObject({
			data: [],
			page: 9,
			total: 60,
		});
		expectError(
			await client.get('/documents', { params: { page: 0 } }),
			400,
			'validation_error',
			'page',
		);
		expectError(
			await client.get('/documents', { params: { page: 'x' } }),
			400,
			'validation_error',
			'page',
		);
		expectError(
			await client.get('/documents', { params: { per_page: 101 } }),
			400,
			'validation_error',
			'per_page',
		);
	});
});

describe('the dialects of issue 24', () => {
	it('offset-total: offset paging capped at 50 that states its total (a client stopping at a short page is 74 short of 124)', async () => {
		const sandbox = await start('offset-total');
		const { client, ids } = await accountWith(sandbox, 124);
		const first = (await client.get('/documents', { params: { limit: 100 } })).data;
		expect(first).toMatchObject({ offset: 0, limit: 50, total: 124 });
		expect(first.data).toHaveLength(50);
		const third = (await client.get('/documents', { params: { limit: 100, offset: 100 } })).data;
		expect(third.data.map((record: { id: unknown }) => record.id)).toEqual(ids.slice(100));
		expectError(
			await client.get('/documents', { params: { offset: -1 } }),
			400,
			'validation_error',
			'offset',
		);
	});

	it("named-token: records under the resource's name; the token is read as page_token only (a `cursor` gets the first page again)", async () => {
		const sandbox = await start('named-token');
		const { client, ids } = await accountWith(sandbox, 12);
		const first = (await client.get('/documents', { params: { limit: 5 } })).data;
		expect(Object.keys(first).sort()).toEqual(['documents', 'next_page_token']);
		expect(
			(await client.get('/documents', { params: { limit: 5, cursor: first.next_page_token } }))
				.data,
		).toEqual(first);
		const second = (
			await client.get('/documents', { params: { limit: 5, page_token: first.next_page_token } })
		).data;
		expect(second.documents.map((record: { id: unknown }) => record.id)).toEqual(ids.slice(5, 10));
		expectError(
			await client.get('/documents', { params: { page_token: 'forged' } }),
			400,
			'validation_error',
			'page_token',
		);
	});
});

describe('paging: ignored', () => {
	it.each(ENVELOPES)(
		'%s: every request answers page one and still says there is more',
		async (envelope) => {
			const sandbox = await start({ paging: 'ignored', listEnvelope: envelope });
			const { client, ids } = await accountWith(sandbox, 30);
			const walked = await walk(envelope, client, '/documents', { limit: 10 }, 3);
			expect(walked.sizes).toEqual([10, 10, 10]);
			expect(walked.ids).toEqual([...ids.slice(0, 10), ...ids.slice(0, 10), ...ids.slice(0, 10)]);
			// The same next cursor / URL / page number every time: it never progresses.
			expect(walked.nexts[0]).not.toBeNull();
			expect(new Set(walked.nexts).size).toBe(1);
		},
	);

	it("the 'ignores-paging' preset; limit still applies", async () => {
		const sandbox = await start('ignores-paging');
		const { client, ids } = await accountWith(sandbox, 12);
		const first = (await client.get('/documents', { params: { limit: 5 } })).data;
		const again = (
			await client.get('/documents', { params: { limit: 5, cursor: first.next_cursor } })
		).data;
		expect(again).toEqual(first);
		expect(first.data.map((record: { id: unknown }) => record.id)).toEqual(ids.slice(0, 5));
		expect(first.has_more).toBe(true);
		// Ignored means not even looked at: a cursor that is not one is no 400.
		expect(
			(await client.get('/documents', { params: { limit: 5, cursor: 'not-a-cursor' } })).data,
		).toEqual(first);
		sandbox.configure({ dialect: 'ignores-paging+page-numbers' });
		const numbered = (await client.get('/documents', { params: { limit: 5, page: 0 } })).data;
		expect(numbered).toMatchObject({ page: 1, per_page: 5, total: 12, total_pages: 3 });
	});
});

describe('maxPageSize', () => {
	it.each(ENVELOPES)(
		"'page-cap' with %s: limit above 25 is served as 25 (no 400) and paging continues correctly",
		async (envelope) => {
			const sandbox = await start({ listEnvelope: envelope, maxPageSize: 25 });
			const { client, ids } = await accountWith(sandbox, 60);
			const { ids: walked, sizes } = await walk(envelope, client, '/documents', { limit: 100 });
			expect(sizes).toEqual([25, 25, 10]);
			expect(walked).toEqual(ids);
			const small = await walk(envelope, client, '/documents', { limit: 20 });
			expect(small.sizes).toEqual([20, 20, 20]);
			expectError(
				await client.get('/documents', { params: { limit: 101 } }),
				400,
				'validation_error',
				'limit',
			);
		},
	);

	it('the default page size (20) is under the cap and stays', async () => {
		const sandbox = await start({ maxPageSize: 10 });
		const { client } = await accountWith(sandbox, 25);
		expect((await client.get('/documents')).data.data).toHaveLength(10);
	});
});

// ---------------------------------------------------------------------------------------------

/** Every `id`, `…_id` and `…_ids` in `value` (outside metadata) is a number (or null). */
function expectNumericIds(value: unknown, path = '$'): number {
	let count = 0;
	if (Array.isArray(value)) {
		value.forEach((item, index) => (count += expectNumericIds(item, `${path}[${index}]`)));
		return count;
	}
	if (value === null || typeof value !== 'object') return 0;
	for (const [key, field] of Object.entries(value)) {
		if (key === 'metadata' || key === 'request_id') continue;
		if (key === 'id' || key.endsWith('_id')) {
			if (field !== null) {
				if (typeof field !== 'number')
					throw new Error(`${path}.${key} is ${JSON.stringify(field)}, not a number`);
				expect(Number.isSafeInteger(field)).toBe(true);
				count++;
			}
		} else if (key.endsWith('_ids') && Array.isArray(field)) {
			for (const item of field) expect(typeof item).toBe('number');
			count += field.length;
		} else {
			count += expectNumericIds(field, `${path}.${key}`);
		}
	}
	return count;
}

describe("ids: 'numeric'", () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await start('numeric-ids', {
			webhookRetry: { baseDelayMs: 20, maxAttempts: 2, timeoutMs: 5000 },
		});
	});

	it('records, nested references and paths use numbers; account isolation holds', async () => {
		const client = api(sandbox);
		const template = (
			await client.post('/templates', { name: 'NDA', signer_roles: [{ role: 'client' }] })
		).data;
		expect(typeof template.id).toBe('number');
		expect(template.id).toBeGreaterThan(1000);

		const document = await client.post('/documents', {
			template_id: template.id,
			name: 'nda.pdf',
			signers: [{ email: 'ann@example.com', name: 'Ann' }],
			metadata: { customer_id: '12345' },
		});
		expect(document.status).toBe(201);
		expect(expectNumericIds(document.data)).toBe(4); // id, template_id, signature_request_id, signer id
		expect(document.data.template_id).toBe(template.id);
		expect(document.data.metadata).toEqual({ customer_id: '12345' });
		expect(typeof document.data.signature_request_id).toBe('number');
		expect(document.data.signing_url).toContain(`/sign/${document.data.id}?token=`);

		const fetched = await client.get(`/documents/${document.data.id}`);
		expect(fetched.status).toBe(200);
		expect(fetched.data).toEqual(document.data);
		const request = (await client.get(`/signatures/${document.data.signature_request_id}`)).data;
		expect(request.document_id).toBe(document.data.id);
		expectNumericIds(request);

		const remind = await client.post(`/signatures/${document.data.signature_request_id}/remind`, {
			signer_ids: [document.data.signers[0].id],
		});
		expect(remind.status).toBe(200);
		expectNumericIds(remind.data);

		const draft = (await client.post('/documents', { name: 'draft.pdf', draft: true })).data;
		const sent = await client.post('/signatures/request', {
			document_id: draft.id,
			signers: [{ email: 'bob@example.com', name: 'Bob' }],
		});
		expect(sent.status).toBe(201);
		expect(sent.data.document_id).toBe(draft.id);

		// The ids are unique across kinds and sequential.
		const all = [
			template.id,
			document.data.id,
			document.data.signature_request_id,
			document.data.signers[0].id,
			draft.id,
		];
		expect(new Set(all).size).toBe(all.length);

		const other = api(sandbox, sandbox.createAccount().apiKey);
		expectError(await other.get(`/documents/${document.data.id}`), 404, 'not_found');
		expectError(
			await other.get(`/signatures/${document.data.signature_request_id}`),
			404,
			'not_found',
		);
		expectError(await other.delete(`/documents/${document.data.id}`), 404, 'not_found');
		// Errors keep their string request ids.
		const missing = await client.get('/documents/999999');
		expectError(missing, 404, 'not_found');
		expect(missing.data.error.request_id).toMatch(/^req_/);

		// Every id in each list: the two documents' 7 (ids, signers, signing requests, the template),
		// the template, the owner, and the audit log's 22 (8 entries, 7 document ids, 7 in details).
		const numericIds = { '/documents': 7, '/templates': 1, '/users': 1, '/reports/audit-log': 22 };
		for (const [path, count] of Object.entries(numericIds)) {
			const list = await client.get(path, { params: { limit: 100 } });
			expect(list.status).toBe(200);
			expect({ path, ids: expectNumericIds(list.data) }).toEqual({ path, ids: count });
			expect(list.data.next_cursor === null || typeof list.data.next_cursor === 'string').toBe(
				true,
			);
		}
		const audit = (
			await client.get('/reports/audit-log', {
				params: { document_id: String(document.data.id), limit: 100 },
			})
		).data.data;
		expect(audit.map((entry: { event: string }) => entry.event)).toEqual([
			'signature.reminded',
			'document.sent',
			'signature.requested',
			'document.created',
		]);
		for (const entry of audit) expect(entry.document_id).toBe(document.data.id);
		const templateEvent = (
			await client.get('/reports/audit-log', { params: { event: 'template.created' } })
		).data.data[0];
		expect(templateEvent.details.template_id).toBe(template.id);

		const exported = await client.get('/reports/export', { params: { format: 'json' } });
		expect(exported.status).toBe(200);
		expectNumericIds(exported.data);
		expect(exported.data.some((row: { id: unknown }) => row.id === document.data.id)).toBe(true);
	});

	it('delivery bodies, X-Delivery-Id and the delivery endpoints use numbers', async () => {
		const { apiKey } = sandbox.createAccount();
		const client = api(sandbox, apiKey);
		const target = await receiver();
		const webhook = (
			await client.post('/webhooks', { url: target.url, events: ['document.created'] })
		).data;
		expect(typeof webhook.id).toBe('number');
		const document = (await client.post('/documents', documentBody())).data;
		await sandbox.flushDeliveries();
		expect(target.requests).toHaveLength(1);
		const [request] = target.requests;
		const body = JSON.parse(request.rawBody.toString('utf8'));
		expect(expectNumericIds(body)).toBeGreaterThanOrEqual(5);
		expect(body.webhook_id).toBe(webhook.id);
		expect(body.data.document.id).toBe(document.id);
		expect(request.headers['x-delivery-id']).toBe(String(body.id));
		expect(
			verifyContract(
				request.headers,
				request.rawBody,
				webhook.secret,
				Math.floor(Date.now() / 1000),
			).valid,
		).toBe(true);

		const record = await client.get(`/webhooks/${webhook.id}/deliveries/${body.id}`);
		expect(record.status).toBe(200);
		expect(record.data).toMatchObject({ id: body.id, webhook_id: webhook.id });
		const acknowledged = await client.post(
			`/webhooks/${webhook.id}/deliveries/${body.id}/acknowledge`,
		);
		expect(acknowledged.status).toBe(200);
		expect(acknowledged.data).toMatchObject({ id: body.id, status: 'acknowledged' });
		const other = api(sandbox, sandbox.createAccount().apiKey);
		expectError(await other.get(`/webhooks/${webhook.id}/deliveries/${body.id}`), 404, 'not_found');
	});

	it('the signing pages take the decimal ids', async () => {
		const document = (await api(sandbox).post('/documents', documentBody())).data;
		expect((await fetch(document.signing_url)).status).toBe(200);
		expect((await fetch(document.signers[0].signing_url)).status).toBe(200);
		expect(
			sandbox.actAsSigner(String(document.id), String(document.signers[0].id), 'sign').signers[0]
				.status,
		).toBe('signed');
	});
});

// ---------------------------------------------------------------------------------------------

describe('webhook secrets and signatures', () => {
	const now = () => Math.floor(Date.now() / 1000);

	it("webhookSecret 'server': the client's secret is ignored; the issued whsec_… signs", async () => {
		const sandbox = await start('server-secret');
		const client = api(sandbox);
		const target = await receiver();
		const created = await client.post('/webhooks', {
			url: target.url,
			events: ['document.created'],
			secret: 'my-own-secret-0123456789-0123456789-abcdef',
		});
		expect(created.status).toBe(201);
		expect(created.data.secret).toMatch(/^whsec_[\w-]{40,}$/);
		await client.post('/documents', documentBody());
		await sandbox.flushDeliveries();
		const [request] = target.requests;
		const check = (secret: string) =>
			verifyContract(request.headers, request.rawBody, secret, now());
		expect(check(created.data.secret).valid).toBe(true);
		expect(check('my-own-secret-0123456789-0123456789-abcdef').valid).toBe(false);
		// Ignored altogether: a secret the contract would refuse is not even validated.
		const short = await client.post('/webhooks', {
			url: target.url,
			events: ['document.created'],
			secret: 'x',
		});
		expect(short.status).toBe(201);
		expect(short.data.secret).toMatch(/^whsec_/);
	});

	it("webhookSecret 'client' (default) signs with the client's secret", async () => {
		const sandbox = await start('default');
		const target = await receiver();
		const created = await api(sandbox).post('/webhooks', {
			url: target.url,
			events: ['document.created'],
			secret: 'my-own-secret-0123456789-0123456789-abcdef',
		});
		expect(created.data.secret).toBe('my-own-secret-0123456789-0123456789-abcdef');
		await api(sandbox).post('/documents', documentBody());
		await sandbox.flushDeliveries();
		expect(
			verifyContract(
				target.requests[0].headers,
				target.requests[0].rawBody,
				'my-own-secret-0123456789-0123456789-abcdef',
				now(),
			).valid,
		).toBe(true);
	});

	it("deliverySignature 'none': no X-Signature header, everything else as usual", async () => {
		const sandbox = await start('unsigned');
		const target = await receiver();
		await api(sandbox).post('/webhooks', { url: target.url, events: ['document.created'] });
		await api(sandbox).post('/documents', documentBody());
		await sandbox.flushDeliveries();
		expect(target.requests).toHaveLength(1);
		expect(target.requests[0].headers['x-signature']).toBeUndefined();
		expect(target.requests[0].headers['x-delivery-id']).toMatch(/^dlv_/);
		expect(target.requests[0].headers['x-event']).toBe('document.created');
	});
});

describe('deliverySignature: each layout a service may sign in', () => {
	const now = () => Math.floor(Date.now() / 1000);

	it.each([
		[
			'sig-standard-webhooks',
			'standard-webhooks',
			['webhook-id', 'webhook-timestamp', 'webhook-signature'],
		],
		[
			'sig-standard-webhooks+server-secret',
			'standard-webhooks',
			['webhook-id', 'webhook-timestamp', 'webhook-signature'],
		],
		['sig-hub-sha256', 'body-hmac', ['x-hub-signature-256']],
		['sig-base64', 'body-hmac', ['signature']],
		['sig-timestamp-header', 'body-hmac-timestamp', ['x-webhook-signature', 'x-webhook-timestamp']],
		['sig-unsigned-timestamp', 'body-hmac', ['x-signature', 'x-timestamp']],
	])(
		'%s: signed only in its own headers, verifying as %s with the webhook secret and no other',
		async (spec, layout, names) => {
			const sandbox = await start(spec);
			const target = await receiver();
			const webhook = (
				await api(sandbox).post('/webhooks', {
					url: target.url,
					events: ['document.created'],
					secret: 'my-own-secret-0123456789-0123456789-abcdef',
				})
			).data;
			await api(sandbox).post('/documents', documentBody());
			await sandbox.flushDeliveries();
			expect(target.requests).toHaveLength(1);
			const [request] = target.requests;
			const signatureHeaders = [
				'x-signature',
				'webhook-signature',
				'x-hub-signature-256',
				'x-webhook-signature',
				'signature',
				'webhook-id',
				'webhook-timestamp',
				'x-timestamp',
				'x-webhook-timestamp',
			];
			expect(signatureHeaders.filter((name) => request.headers[name] !== undefined).sort()).toEqual(
				[...names].sort(),
			);
			if (names.includes('webhook-id'))
				expect(request.headers['webhook-id']).toBe(request.headers['x-delivery-id']);
			const check = (secret: string) =>
				verifyDelivery({
					header: (name) => request.headers[name] as string | undefined,
					rawBody: request.rawBody,
					secret,
					nowSeconds: now(),
				});
			expect(check(webhook.secret)).toMatchObject({ valid: true, layout });
			expect(check('another-secret-0123456789-0123456789-abcdef')).toMatchObject({
				valid: false,
				reason: 'signature_mismatch',
			});
		},
	);
});

describe("webhookFields: 'url-events'", () => {
	it('POST /webhooks keeps only url and events (and signs with the secret): description, filters and unknown fields are dropped unseen', async () => {
		const sandbox = await start('webhook-url-events');
		const client = api(sandbox);
		const target = await receiver();
		const created = await client.post('/webhooks', {
			url: target.url,
			events: ['document.created'],
			description: 'n8n Send and Wait',
			document_id: 'doc_nosuch',
			expires_at: 'yesterday',
			colour: 'blue',
			secret: 's'.repeat(40),
		});
		expect(created.status).toBe(201);
		expect(created.data).toEqual({
			id: created.data.id,
			url: target.url,
			events: ['document.created'],
			description: null,
			active: true,
			created_at: expect.any(String),
			secret: 's'.repeat(40),
		});
		const [listed] = (await client.get('/webhooks')).data.data as Array<Record<string, unknown>>;
		expect(listed).toMatchObject({ id: created.data.id, description: null });
		await client.post('/documents', documentBody());
		await sandbox.flushDeliveries();
		expect(target.requests).toHaveLength(1);
	});
});

describe("webhookFilters: 'ignored'", () => {
	it("POST /webhooks ignores document_id and expires_at: no echo, every document's events, never removed; not even validated", async () => {
		const sandbox = await start('ignores-webhook-filters');
		const client = api(sandbox);
		const target = await receiver();
		const mine = (await client.post('/documents', documentBody({ draft: true }))).data;
		const expiresAt = new Date(Date.parse(sandbox.now()) + 60_000).toISOString();
		const created = await client.post('/webhooks', {
			url: target.url,
			events: ['document.created'],
			document_id: mine.id,
			expires_at: expiresAt,
		});
		expect(created.status).toBe(201);
		expect(created.data).not.toHaveProperty('document_id');
		expect(created.data).not.toHaveProperty('expires_at');
		await client.post('/documents', documentBody());
		await sandbox.flushDeliveries();
		expect(target.requests).toHaveLength(1);

		sandbox.advanceClock(120);
		const listed = (await client.get('/webhooks')).data.data as Array<{ id: string }>;
		expect(listed.map((webhook) => webhook.id)).toEqual([created.data.id]);
		await client.post('/documents', documentBody());
		await sandbox.flushDeliveries();
		expect(target.requests).toHaveLength(2);

		const unchecked = await client.post('/webhooks', {
			url: target.url,
			events: ['document.created'],
			document_id: 'doc_nosuch',
			expires_at: 'yesterday',
		});
		expect(unchecked.status).toBe(201);
	});

	it("the 'minimal' preset ignores them too", async () => {
		const sandbox = await start('minimal');
		const client = api(sandbox);
		const target = await receiver();
		const created = await client.post('/webhooks', {
			url: target.url,
			events: ['document.created'],
			document_id: 'doc_nosuch',
		});
		expect(created.status).toBe(201);
		expect(created.data).not.toHaveProperty('document_id');
	});
});

describe('deliveryEndpoints: false', () => {
	it('GET of a delivery and acknowledge are 404 not_found like an unknown route', async () => {
		const sandbox = await start('no-delivery-endpoints');
		const client = api(sandbox);
		const target = await receiver();
		const webhook = (
			await client.post('/webhooks', { url: target.url, events: ['document.created'] })
		).data;
		await client.post('/documents', documentBody());
		await sandbox.flushDeliveries();
		const deliveryId = target.requests[0].headers['x-delivery-id'] as string;
		const base = `/webhooks/${webhook.id}/deliveries/${deliveryId}`;
		for (const response of [
			await client.get(base),
			await client.post(`${base}/acknowledge`),
			await client.get(`${base}/acknowledge`),
		]) {
			expectError(response, 404, 'not_found');
			expect(response.data.error.message).toMatch(/^No route/);
		}
		// With the endpoints, GET …/acknowledge is a 405.
		sandbox.configure({ dialect: 'default' });
		expect((await client.get(`${base}/acknowledge`)).status).toBe(405);
		expect((await client.get(base)).status).toBe(200);
	});
});

// ---------------------------------------------------------------------------------------------

describe('errorBody', () => {
	/** A body over the limit, uploaded until the 413 arrives, as an axios-like response. */
	async function tooLarge(sandbox: Sandbox): Promise<AxiosResponse> {
		const headers = {
			Authorization: `Bearer ${sandbox.apiKey}`,
			'Content-Type': 'application/json',
		};
		const answer = await uploadUntilAnswered(
			`${sandbox.baseUrl}/documents`,
			headers,
			LIMITS.maxBodyBytes + 5 * 1024 * 1024,
		);
		const json = /^application\/json/.test(answer.headers['content-type'] ?? '');
		return {
			status: answer.status,
			headers: answer.headers,
			data: json ? JSON.parse(answer.text) : answer.text,
		} as AxiosResponse;
	}

	/** Error answers of several kinds: 400, 401, 404 (route and record), 405, 413, 429. */
	async function errors(sandbox: Sandbox): Promise<Record<string, AxiosResponse>> {
		const client = api(sandbox);
		const noKey = api(sandbox, null);
		const raw = axios.create({
			baseURL: sandbox.origin,
			validateStatus: () => true,
			httpAgent: new http.Agent({ keepAlive: false }),
		});
		const out: Record<string, AxiosResponse> = {
			validation: await client.post('/documents', { name: '' }),
			unauthorized: await noKey.get('/documents'),
			route: await client.get('/nothing-here'),
			record: await client.get('/documents/doc_missing'),
			method: await client.put('/documents'),
			tooLarge: await tooLarge(sandbox),
			outside: await raw.get('/elsewhere'),
		};
		sandbox.configure({ rateLimit: { requestsPerSecond: 0.001, burst: 1 } });
		await client.get('/users');
		out.rateLimited = await client.get('/users');
		sandbox.configure({ rateLimit: null });
		return out;
	}

	const expectedStatus: Record<string, number> = {
		validation: 400,
		unauthorized: 401,
		route: 404,
		record: 404,
		method: 405,
		tooLarge: 413,
		outside: 404,
		rateLimited: 429,
	};

	function statusesAndHeaders(all: Record<string, AxiosResponse>) {
		for (const [kind, response] of Object.entries(all))
			expect([kind, response.status]).toEqual([kind, expectedStatus[kind]]);
		expect(all.rateLimited.headers['retry-after']).toMatch(/^\d+$/);
		expect(all.unauthorized.headers['www-authenticate']).toBe('Bearer');
		expect(all.method.headers.allow).toContain('GET');
	}

	it("'contract' (default): {error:{code,message,field,request_id}}", async () => {
		const all = await errors(await start('default'));
		statusesAndHeaders(all);
		for (const response of Object.values(all))
			expect(Object.keys(response.data)).toEqual(['error']);
		expect(all.validation.data.error).toMatchObject({ code: 'validation_error', field: 'name' });
	});

	it("'message': {message, code}", async () => {
		const all = await errors(await start('error-message'));
		statusesAndHeaders(all);
		for (const response of Object.values(all)) {
			expect(response.headers['content-type']).toMatch(/^application\/json/);
			expect(Object.keys(response.data).sort()).toEqual(['code', 'message']);
			expect(typeof response.data.message).toBe('string');
		}
		expect(all.validation.data.code).toBe('validation_error');
		expect(all.rateLimited.data.code).toBe('rate_limited');
		expect(all.unauthorized.data).toEqual({
			code: 'unauthorized',
			message: 'Missing API key: send Authorization: Bearer <key>',
		});
	});

	it("'errors': {errors: [{code, message, field}]}", async () => {
		const all = await errors(await start('error-errors'));
		statusesAndHeaders(all);
		for (const response of Object.values(all)) {
			expect(response.headers['content-type']).toMatch(/^application\/json/);
			expect(Object.keys(response.data)).toEqual(['errors']);
			expect(response.data.errors).toHaveLength(1);
			expect(Object.keys(response.data.errors[0]).sort()).toEqual(['code', 'field', 'message']);
		}
		expect(all.validation.data.errors[0]).toMatchObject({
			code: 'validation_error',
			field: 'name',
		});
		expect(all.route.data.errors[0]).toMatchObject({ code: 'not_found', field: null });
	});

	it("'text': text/plain with the message", async () => {
		const all = await errors(await start('error-text'));
		statusesAndHeaders(all);
		for (const response of Object.values(all)) {
			expect(response.headers['content-type']).toMatch(/^text\/plain/);
			expect(typeof response.data).toBe('string');
		}
		expect(all.unauthorized.data.trim()).toBe('Missing API key: send Authorization: Bearer <key>');
		expect(all.rateLimited.data).toMatch(/Too many requests/);
		expect(all.record.data).toMatch(/No such document/);
	});

	it("'html': a reverse proxy's page with the status line and the message", async () => {
		const all = await errors(await start('error-html'));
		statusesAndHeaders(all);
		for (const [kind, response] of Object.entries(all)) {
			expect(response.headers['content-type']).toMatch(/^text\/html/);
			expect(response.data).toMatch(/^<!DOCTYPE html>/);
			expect(response.data).toContain(
				`<title>${expectedStatus[kind]} ${http.STATUS_CODES[expectedStatus[kind]]}</title>`,
			);
			expect(response.data).toContain('<center>nginx</center>');
		}
		expect(all.rateLimited.data).toContain('<h1>429 Too Many Requests</h1>');
		expect(all.unauthorized.data).toContain(
			'Missing API key: send Authorization: Bearer &lt;key&gt;',
		);
	});

	it('admin routes keep their own JSON format in every dialect', async () => {
		const sandbox = await start('error-text');
		expectError(
			await admin(sandbox).put('/config', { failureRate: 7 }),
			400,
			'validation_error',
			'failureRate',
		);
		expectError(await admin(sandbox).get('/nothing'), 404, 'not_found');
	});
});

describe('deleteAnswer', () => {
	it('200: DELETE answers { id, deleted: true } (numbers with numeric ids)', async () => {
		const sandbox = await start('delete-200');
		const client = api(sandbox);
		const document = (await client.post('/documents', documentBody())).data;
		const deleted = await client.delete(`/documents/${document.id}`);
		expect(deleted.status).toBe(200);
		expect(deleted.data).toEqual({ id: document.id, deleted: true });
		expectError(await client.get(`/documents/${document.id}`), 404, 'not_found');
		const webhook = (
			await client.post('/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['*'] })
		).data;
		expect((await client.delete(`/webhooks/${webhook.id}`)).data).toEqual({
			id: webhook.id,
			deleted: true,
		});
		expectError(await client.delete(`/webhooks/${webhook.id}`), 404, 'not_found');

		sandbox.configure({ dialect: 'numeric-ids+delete-200' });
		const numeric = (await client.post('/documents', documentBody())).data;
		expect((await client.delete(`/documents/${numeric.id}`)).data).toEqual({
			id: numeric.id,
			deleted: true,
		});
		expect(typeof numeric.id).toBe('number');
	});

	it('204 (default): no body', async () => {
		const sandbox = await start('default');
		const document = (await api(sandbox).post('/documents', documentBody())).data;
		const deleted = await api(sandbox).delete(`/documents/${document.id}`);
		expect(deleted.status).toBe(204);
		expect(deleted.data).toBe('');
	});
});

// ---------------------------------------------------------------------------------------------

/** The records of one list answer in any envelope. */
function recordsOf(body: Record<string, unknown> | unknown[]): Array<Record<string, unknown>> {
	if (Array.isArray(body)) return body as Array<Record<string, unknown>>;
	const result = body.result as Record<string, unknown> | undefined;
	return (body.data ??
		body.results ??
		body.items ??
		body.hits ??
		body.audit_log ??
		result?.audit_log) as Array<Record<string, unknown>>;
}

/** When the entries of one document were logged (a millisecond or two apart). */
const timesOf = (entries: Array<{ document_id: string | null; created_at: string }>, id: unknown) =>
	entries.filter((entry) => entry.document_id === id).map((entry) => entry.created_at);

/**
 * A new account whose audit log spans `count` minutes: a sent document each minute (created,
 * requested, sent: three entries, a millisecond or so apart) and a template (document_id null) at the end.
 */
async function auditedAccount(
	sandbox: Sandbox,
	count: number,
): Promise<{ client: AxiosInstance; apiKey: string; documentIds: unknown[] }> {
	const { apiKey } = sandbox.createAccount();
	const client = api(sandbox, apiKey);
	const documentIds: unknown[] = [];
	for (let i = 0; i < count; i++) {
		sandbox.advanceClock(60);
		const response = await client.post('/documents', documentBody({ name: `Audit-${i}.pdf` }));
		expect(response.status).toBe(201);
		documentIds.push(response.data.id);
	}
	sandbox.advanceClock(60);
	expect((await client.post('/templates', { name: 'T' })).status).toBe(201);
	return { client, apiKey, documentIds };
}

describe('auditOrder', () => {
	let sandbox: Sandbox;
	let account: { client: AxiosInstance; apiKey: string; documentIds: unknown[] };
	/** The account's entries as the store keeps them: newest first, the contract's fields. */
	const newestFirst = () => sandbox.store.auditLogOf(account.apiKey);
	beforeAll(async () => {
		sandbox = await start('audit-oldest-first');
		account = await auditedAccount(sandbox, 6);
	});

	describe.each(ENVELOPES)('%s', (envelope) => {
		it("'oldest-first': every page with limit 2 walks the log oldest first, each entry once", async () => {
			sandbox.configure({ dialect: { listEnvelope: envelope, auditOrder: 'oldest-first' } });
			const entries = newestFirst();
			expect(entries).toHaveLength(6 * 3 + 1);
			const { ids, sizes } = await walk(envelope, account.client, '/reports/audit-log', {
				limit: 2,
			});
			expect(ids).toEqual(entries.map((entry) => entry.id).reverse());
			expect(sizes).toEqual([...Array<number>(9).fill(2), 1]);
		});

		it("'oldest-first': from/to (and event) still filter on every page", async () => {
			sandbox.configure({ dialect: { listEnvelope: envelope, auditOrder: 'oldest-first' } });
			const entries = newestFirst();
			// From the second document's first entry to the fourth's last, both ends inclusive.
			const from = timesOf(entries, account.documentIds[1]).sort()[0];
			const to = timesOf(entries, account.documentIds[3]).sort().reverse()[0];
			const inRange = entries
				.filter((entry) => entry.created_at >= from && entry.created_at <= to)
				.reverse();
			expect(inRange).toHaveLength(9);
			const walked = await walk(envelope, account.client, '/reports/audit-log', {
				from,
				to,
				limit: 2,
			});
			expect(walked.ids).toEqual(inRange.map((entry) => entry.id));
			expect(walked.sizes).toEqual([2, 2, 2, 2, 1]);
			const created = await walk(envelope, account.client, '/reports/audit-log', {
				from,
				to,
				event: 'document.created',
				limit: 2,
			});
			expect(created.ids).toEqual(
				inRange.filter((entry) => entry.event === 'document.created').map((entry) => entry.id),
			);
		});

		it("'newest-first' (default): the same walk is newest first, as the contract says", async () => {
			sandbox.configure({ dialect: { listEnvelope: envelope } });
			expect(sandbox.config().dialect.auditOrder).toBe('newest-first');
			const { ids } = await walk(envelope, account.client, '/reports/audit-log', { limit: 2 });
			expect(ids).toEqual(newestFirst().map((entry) => entry.id));
		});
	});

	it("'oldest-first': times never fall; entries logged while paging join the end; other lists stay newest first", async () => {
		sandbox.configure({ dialect: 'audit-oldest-first' });
		const { client, apiKey, documentIds } = await auditedAccount(sandbox, 3);
		const first = (await client.get('/reports/audit-log', { params: { limit: 4 } })).data;
		const times = first.data.map((entry: { created_at: string }) => entry.created_at);
		expect(times).toEqual([...times].sort());
		sandbox.advanceClock(60);
		expect((await client.post('/templates', { name: 'Later' })).status).toBe(201);
		const rest = await walk('cursor', client, '/reports/audit-log', {
			limit: 4,
			cursor: first.next_cursor,
		});
		const newest = sandbox.store.auditLogOf(apiKey);
		expect([...first.data.map((entry: { id: unknown }) => entry.id), ...rest.ids]).toEqual(
			newest.map((entry) => entry.id).reverse(),
		);
		expect(rest.ids[rest.ids.length - 1]).toBe(newest[0].id);
		expect(newest[0].event).toBe('template.created');
		const documents = (await client.get('/documents')).data.data;
		expect(documents.map((document: { id: unknown }) => document.id)).toEqual(
			[...documentIds].reverse(),
		);
	});

	it('a cursor is read only in the order it was issued in (400 on cursor otherwise)', async () => {
		sandbox.configure({ dialect: 'audit-oldest-first' });
		const oldest = (await account.client.get('/reports/audit-log', { params: { limit: 2 } })).data;
		sandbox.configure({ dialect: 'default' });
		const newest = (await account.client.get('/reports/audit-log', { params: { limit: 2 } })).data;
		expectError(
			await account.client.get('/reports/audit-log', {
				params: { limit: 2, cursor: oldest.next_cursor },
			}),
			400,
			'validation_error',
			'cursor',
		);
		sandbox.configure({ dialect: 'audit-oldest-first' });
		expectError(
			await account.client.get('/reports/audit-log', {
				params: { limit: 2, cursor: newest.next_cursor },
			}),
			400,
			'validation_error',
			'cursor',
		);
		sandbox.configure({ dialect: 'audit-oldest-first+named-token' });
		expectError(
			await account.client.get('/reports/audit-log', {
				params: { limit: 2, page_token: newest.next_cursor },
			}),
			400,
			'validation_error',
			'page_token',
		);
	});
});

describe('auditFields', () => {
	let sandbox: Sandbox;
	let account: { client: AxiosInstance; apiKey: string; documentIds: unknown[] };
	/** The store's entries (newest first) under the renamed names. */
	const renamed = () =>
		sandbox.store.auditLogOf(account.apiKey).map((entry) => ({
			id: entry.id,
			type: entry.event,
			occurred_at: entry.created_at,
			documentId: entry.document_id,
			actor: entry.actor,
			ip: entry.ip,
			details: entry.details,
		}));
	beforeAll(async () => {
		sandbox = await start('audit-renamed');
		account = await auditedAccount(sandbox, 4);
	});

	it("'renamed': { id, type, occurred_at, documentId, actor, ip, details } (documentId null when none)", async () => {
		sandbox.configure({ dialect: 'audit-renamed' });
		const page = (await account.client.get('/reports/audit-log', { params: { limit: 100 } })).data;
		expect(Object.keys(page).sort()).toEqual(['data', 'has_more', 'next_cursor']);
		expect(page.data).toEqual(renamed());
		for (const entry of page.data) {
			expect(Object.keys(entry).sort()).toEqual(
				['actor', 'details', 'documentId', 'id', 'ip', 'occurred_at', 'type'].sort(),
			);
			expect(new Date(entry.occurred_at).toISOString()).toBe(entry.occurred_at);
		}
		expect(page.data[0]).toMatchObject({ type: 'template.created', documentId: null });
		expect(page.data[1]).toMatchObject({ documentId: account.documentIds[3] });
	});

	it("'renamed': the query keeps its names (event, document_id, from, to), across pages", async () => {
		sandbox.configure({ dialect: 'audit-renamed' });
		const all = renamed();
		const documentId = account.documentIds[1] as string;
		const byDocument = await walk('cursor', account.client, '/reports/audit-log', {
			document_id: documentId,
			limit: 2,
		});
		expect(byDocument.ids).toEqual(
			all.filter((entry) => entry.documentId === documentId).map((entry) => entry.id),
		);
		expect(byDocument.sizes).toEqual([2, 1]);
		const sent = (
			await account.client.get('/reports/audit-log', {
				params: { event: 'document.sent', limit: 100 },
			})
		).data.data;
		expect(sent).toHaveLength(4);
		expect(sent.every((entry: { type: string }) => entry.type === 'document.sent')).toBe(true);
		const entries = sandbox.store.auditLogOf(account.apiKey);
		const from = timesOf(entries, account.documentIds[1]).sort()[0];
		const to = timesOf(entries, account.documentIds[2]).sort().reverse()[0];
		const ranged = await walk('cursor', account.client, '/reports/audit-log', {
			from,
			to,
			limit: 2,
		});
		expect(ranged.ids).toEqual(
			all
				.filter((entry) => entry.occurred_at >= from && entry.occurred_at <= to)
				.map((entry) => entry.id),
		);
		expect(ranged.ids).toHaveLength(6);
		// The renamed names are no filters: `type` is an unknown parameter, let through unread.
		const typed = (
			await account.client.get('/reports/audit-log', {
				params: { type: 'document.sent', limit: 100 },
			})
		).data.data;
		expect(typed).toHaveLength(all.length);
	});

	it.each(ENVELOPES)(
		"'renamed' with %s, oldest first: the renamed entries in that envelope",
		async (envelope) => {
			sandbox.configure({
				dialect: { listEnvelope: envelope, auditFields: 'renamed', auditOrder: 'oldest-first' },
			});
			const expected = renamed().reverse();
			const { ids } = await walk(envelope, account.client, '/reports/audit-log', { limit: 3 });
			expect(ids).toEqual(expected.map((entry) => entry.id));
			const first = await account.client.get('/reports/audit-log', { params: { limit: 100 } });
			expect(recordsOf(first.data)).toEqual(expected);
		},
	);

	it("'renamed' with numeric ids: documentId is a number like every other id", async () => {
		sandbox.configure({ dialect: 'numeric-ids+audit-renamed' });
		const { apiKey } = sandbox.createAccount();
		const document = (await api(sandbox, apiKey).post('/documents', documentBody())).data;
		expect(typeof document.id).toBe('number');
		const entries = (await api(sandbox, apiKey).get('/reports/audit-log')).data.data;
		expect(entries).toHaveLength(3);
		for (const entry of entries) {
			expect(entry.documentId).toBe(document.id);
			expect(typeof entry.id).toBe('number');
		}
		const filtered = (
			await api(sandbox, apiKey).get('/reports/audit-log', {
				params: { document_id: document.id, event: 'document.created' },
			})
		).data.data;
		expect(filtered).toHaveLength(1);
		expect(filtered[0]).toMatchObject({ type: 'document.created', documentId: document.id });
	});

	it("'contract' (default): the contract's entries; the audit trail and the usage report keep the contract's names in both", async () => {
		sandbox.configure({ dialect: 'default' });
		expect(sandbox.config().dialect.auditFields).toBe('contract');
		const page = (await account.client.get('/reports/audit-log', { params: { limit: 100 } })).data;
		expect(expectSchema(AuditLogListSchema, page).data).toEqual(
			sandbox.store.auditLogOf(account.apiKey),
		);
		const documentId = account.documentIds[0];
		const trail = async () =>
			(
				await account.client.get(`/documents/${documentId}/audit-trail`, {
					params: { format: 'json' },
				})
			).data;
		const contractTrail = await trail();
		expect(contractTrail.events[0]).toHaveProperty('event', 'document.created');
		const times = page.data.map((entry: { created_at: string }) => entry.created_at);
		const usage = async () =>
			(
				await account.client.get('/reports/usage', {
					params: { from: times[times.length - 1], to: times[0] },
				})
			).data;
		const contractUsage = await usage();
		expect(contractUsage.documents_created).toBe(4);
		sandbox.configure({ dialect: 'audit-renamed' });
		expect(await trail()).toEqual(contractTrail);
		expect(await usage()).toEqual(contractUsage);
	});
});

/** An entry's time in any of the audit dialects' field names. */
const timeOf = (entry: Record<string, unknown>) =>
	(entry.created_at ?? entry.occurred_at ?? entry.at) as string;

describe('auditTimes', () => {
	let sandbox: Sandbox;
	let account: { client: AxiosInstance; apiKey: string; documentIds: unknown[] };
	beforeAll(async () => {
		sandbox = await start('audit-zoneless');
		account = await auditedAccount(sandbox, 4);
	});

	it("'zoneless': every entry's time is its UTC time without a zone, in every field layout", async () => {
		const stored = sandbox.store.auditLogOf(account.apiKey);
		for (const spec of [
			'audit-zoneless',
			'audit-zoneless+audit-renamed',
			'audit-zoneless+audit-bare',
		]) {
			sandbox.configure({ dialect: spec });
			const entries = recordsOf(
				(await account.client.get('/reports/audit-log', { params: { limit: 100 } })).data,
			);
			expect(entries.map((entry) => entry.id)).toEqual(stored.map((entry) => entry.id));
			expect(entries.map(timeOf)).toEqual(stored.map((entry) => entry.created_at.slice(0, -1)));
			for (const time of entries.map(timeOf))
				expect(time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
		}
	});

	it("'zoneless': a zone-less from/to is read as UTC (whatever the process's zone); a zoned one still works", async () => {
		sandbox.configure({ dialect: 'audit-zoneless' });
		const entries = sandbox.store.auditLogOf(account.apiKey);
		const from = timesOf(entries, account.documentIds[1]).sort()[0];
		const to = timesOf(entries, account.documentIds[2]).sort().reverse()[0];
		const expected = entries
			.filter((entry) => entry.created_at >= from && entry.created_at <= to)
			.map((entry) => entry.id);
		expect(expected).toHaveLength(6);
		const read = async (params: Record<string, string>) =>
			(
				await account.client.get('/reports/audit-log', { params: { ...params, limit: 100 } })
			).data.data.map((entry: { id: string }) => entry.id);
		// The bounds as the dialect writes times: inclusive at both ends, read as UTC.
		expect(await read({ from: from.slice(0, -1), to: to.slice(0, -1) })).toEqual(expected);
		expect(await read({ from, to })).toEqual(expected);
		// One millisecond past the last entry's time leaves it out.
		const justAfter = new Date(Date.parse(to) + 1).toISOString().slice(0, -1);
		expect(await read({ from: justAfter })).toEqual(
			entries.filter((entry) => entry.created_at > to).map((entry) => entry.id),
		);
	});

	it("'zoneless' in a sandbox whose own zone is Asia/Tokyo: times and from/to are still UTC", async () => {
		// Jest's process.env is a copy, so the zone is the CLI's: a zone-less time read as local
		// there would be 9 hours early.
		const child = spawn(
			process.execPath,
			[
				require.resolve('ts-node/dist/bin.js'),
				'--transpile-only',
				'sandbox/cli.ts',
				'--port',
				'0',
				'--dialect',
				'audit-zoneless',
			],
			{
				cwd: path.resolve(__dirname, '../..'),
				env: { ...process.env, TZ: 'Asia/Tokyo' },
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		let output = '';
		child.stdout.on('data', (chunk) => (output += chunk));
		child.stderr.on('data', (chunk) => (output += chunk));
		try {
			const baseUrl = await waitFor(
				() => /Base URL:\s+(\S+)/.exec(output)?.[1],
				`the CLI banner (output so far: ${output})`,
				60_000,
			);
			const client = axios.create({
				baseURL: baseUrl,
				headers: { Authorization: `Bearer ${DEMO_API_KEY}` },
				validateStatus: () => true,
			});
			const before = new Date().toISOString().slice(0, -1);
			expect((await client.post('/documents', documentBody())).status).toBe(201);
			const entries = (await client.get('/reports/audit-log')).data.data;
			expect(entries).toHaveLength(3);
			for (const entry of entries) {
				expect(entry.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
				// UTC: within seconds of this process's UTC clock, not 9 hours off.
				expect(Math.abs(Date.parse(`${entry.created_at}Z`) - Date.now())).toBeLessThan(60_000);
			}
			const newest = entries[0].created_at as string;
			const read = async (params: Record<string, string>) =>
				(await client.get('/reports/audit-log', { params })).data.data.length;
			expect(await read({ from: before })).toBe(3);
			expect(await read({ from: newest })).toBeGreaterThanOrEqual(1);
			expect(await read({ to: before })).toBe(0);
			const justAfter = new Date(Date.parse(`${newest}Z`) + 1).toISOString().slice(0, -1);
			expect(await read({ from: justAfter })).toBe(0);
		} finally {
			child.kill('SIGKILL');
		}
	}, 90_000);

	it("'iso' (default): times keep their zone, and a zone-less from is a 400 naming it", async () => {
		sandbox.configure({ dialect: 'default' });
		expect(sandbox.config().dialect.auditTimes).toBe('iso');
		const page = (await account.client.get('/reports/audit-log', { params: { limit: 100 } })).data;
		expect(expectSchema(AuditLogListSchema, page).data).toEqual(
			sandbox.store.auditLogOf(account.apiKey),
		);
		expectError(
			await account.client.get('/reports/audit-log', {
				params: { from: '2026-11-28T10:00:00.123' },
			}),
			400,
			'validation_error',
			'from',
		);
	});
});

describe("auditFields: 'bare'", () => {
	let sandbox: Sandbox;
	let account: { client: AxiosInstance; apiKey: string; documentIds: unknown[] };
	beforeAll(async () => {
		sandbox = await start('audit-bare');
		account = await auditedAccount(sandbox, 3);
	});

	it('entries are { id, action, at, target } and nothing else (target null when none)', async () => {
		sandbox.configure({ dialect: 'audit-bare' });
		const page = (await account.client.get('/reports/audit-log', { params: { limit: 100 } })).data;
		expect(page.data).toEqual(
			sandbox.store.auditLogOf(account.apiKey).map((entry) => ({
				id: entry.id,
				action: entry.event,
				at: entry.created_at,
				target: entry.document_id,
			})),
		);
		expect(page.data[0]).toMatchObject({ action: 'template.created', target: null });
		expect(page.data[1]).toMatchObject({ action: 'document.sent', target: account.documentIds[2] });
	});

	it('the query keeps its names (event, document_id, from, to), oldest first too', async () => {
		sandbox.configure({ dialect: 'audit-bare+audit-oldest-first' });
		const entries = sandbox.store.auditLogOf(account.apiKey).reverse();
		const documentId = account.documentIds[1] as string;
		const byDocument = await walk('cursor', account.client, '/reports/audit-log', {
			document_id: documentId,
			event: 'document.sent',
		});
		expect(byDocument.ids).toEqual(
			entries
				.filter((entry) => entry.document_id === documentId && entry.event === 'document.sent')
				.map((entry) => entry.id),
		);
		const from = timesOf(entries, documentId).sort()[0];
		const ranged = await walk('cursor', account.client, '/reports/audit-log', { from, limit: 2 });
		expect(ranged.ids).toEqual(
			entries.filter((entry) => entry.created_at >= from).map((entry) => entry.id),
		);
	});

	it('with numeric ids, target is a number like every other id', async () => {
		sandbox.configure({ dialect: 'numeric-ids+audit-bare' });
		const { apiKey } = sandbox.createAccount();
		const document = (await api(sandbox, apiKey).post('/documents', documentBody())).data;
		const entries = (await api(sandbox, apiKey).get('/reports/audit-log')).data.data;
		expect(entries).toHaveLength(3);
		for (const entry of entries) {
			expect(Object.keys(entry).sort()).toEqual(['action', 'at', 'id', 'target']);
			expect(entry.target).toBe(document.id);
			expect(typeof entry.id).toBe('number');
		}
	});
});

describe('auditFrom', () => {
	let sandbox: Sandbox;
	let account: { client: AxiosInstance; apiKey: string; documentIds: unknown[] };
	beforeAll(async () => {
		sandbox = await start('audit-ignores-from');
		account = await auditedAccount(sandbox, 3);
	});

	it("'ignored': from and to change nothing (not even a bad one is refused); the other filters still apply", async () => {
		sandbox.configure({ dialect: 'audit-ignores-from' });
		const entries = sandbox.store.auditLogOf(account.apiKey);
		const newest = entries[0].created_at;
		for (const envelope of ['cursor', 'offset-total'] as const) {
			sandbox.configure({ dialect: { auditFrom: 'ignored', listEnvelope: envelope } });
			const ranges: Array<Record<string, string>> = [
				{ from: newest },
				{ to: entries[entries.length - 1].created_at },
				{ from: '2099-01-01', to: '2099-12-31' },
				{ from: 'yesterday' },
			];
			for (const params of ranges) {
				const walked = await walk(envelope, account.client, '/reports/audit-log', {
					...params,
					limit: 4,
				});
				expect(walked.ids).toEqual(entries.map((entry) => entry.id));
			}
		}
		sandbox.configure({ dialect: 'audit-ignores-from' });
		const sent = (
			await account.client.get('/reports/audit-log', {
				params: { from: newest, event: 'document.sent' },
			})
		).data.data;
		expect(sent).toHaveLength(3);
	});

	it("'honoured' (default): from and to filter, and a bad one is a 400 naming it", async () => {
		sandbox.configure({ dialect: 'default' });
		const entries = sandbox.store.auditLogOf(account.apiKey);
		const page = (
			await account.client.get('/reports/audit-log', {
				params: { from: entries[0].created_at },
			})
		).data.data;
		expect(page.map((entry: { id: string }) => entry.id)).toEqual(
			entries.filter((entry) => entry.created_at === entries[0].created_at).map((e) => e.id),
		);
		expectError(
			await account.client.get('/reports/audit-log', { params: { from: 'yesterday' } }),
			400,
			'validation_error',
			'from',
		);
	});
});

describe('foreignDocuments', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await start('foreign-documents-forbidden');
	});

	it("'forbidden': another account's document is a 403 (read, file, audit trail, delete, as a reference); an unknown one stays 404", async () => {
		sandbox.configure({ dialect: 'foreign-documents-forbidden' });
		const owner = api(sandbox, sandbox.createAccount().apiKey);
		const other = api(sandbox, sandbox.createAccount().apiKey);
		const document = (await owner.post('/documents', documentBody())).data;
		expectError(await other.get(`/documents/${document.id}`), 403, 'forbidden');
		expectError(await other.get(`/documents/${document.id}/file`), 403, 'forbidden');
		expectError(await other.get(`/documents/${document.id}/audit-trail`), 403, 'forbidden');
		expectError(await other.delete(`/documents/${document.id}`), 403, 'forbidden');
		expectError(
			await other.post('/webhooks', {
				url: 'https://example.com/hook',
				events: ['*'],
				document_id: document.id,
			}),
			403,
			'forbidden',
			'document_id',
		);
		expectError(await other.get('/documents/doc_unknown000'), 404, 'not_found');
		// The owner still reads it, and nothing was removed.
		expect((await owner.get(`/documents/${document.id}`)).data.id).toBe(document.id);
	});

	it("'not-found' (default): another account's document is a 404, as the contract says", async () => {
		sandbox.configure({ dialect: 'default' });
		expect(sandbox.config().dialect.foreignDocuments).toBe('not-found');
		const owner = api(sandbox, sandbox.createAccount().apiKey);
		const other = api(sandbox, sandbox.createAccount().apiKey);
		const document = (await owner.post('/documents', documentBody())).data;
		expectError(await other.get(`/documents/${document.id}`), 404, 'not_found');
	});
});

describe('every preset keeps the rest of the service working', () => {
	it.each(DIALECT_NAMES)(
		'%s: create, fetch, list, sign, deliver, delete, validate, idempotency',
		async (name) => {
			const sandbox = await start(name, {
				webhookRetry: { baseDelayMs: 20, maxAttempts: 2, timeoutMs: 5000 },
			});
			const client = api(sandbox);
			const target = await receiver();
			expect(
				(await client.post('/webhooks', { url: target.url, events: ['document.completed'] }))
					.status,
			).toBe(201);
			const headers = { 'Idempotency-Key': `k-${name}` };
			const created = await client.post('/documents', documentBody(), { headers });
			expect(created.status).toBe(201);
			const replay = await client.post('/documents', documentBody(), { headers });
			expect(replay.data).toEqual(created.data);
			expect(replay.headers['idempotent-replayed']).toBe('true');
			const document = created.data;
			expect((await client.get(`/documents/${document.id}`)).data.id).toBe(document.id);
			const list = (await client.get('/documents')).data;
			expect(JSON.stringify(list)).toContain(JSON.stringify(document.id));
			expect((await client.post('/documents', { name: 'x.pdf', signers: 'nope' })).status).toBe(
				400,
			);

			for (const signer of document.signers)
				sandbox.actAsSigner(String(document.id), String(signer.id), 'sign');
			expect((await client.get(`/documents/${document.id}`)).data.status).toBe('completed');
			await waitFor(() => target.requests.length === 1 || undefined, 'the completed delivery');
			const deleted = await client.delete(`/documents/${document.id}`);
			expect(deleted.status).toBe(parseDialect(name).deleteAnswer);
		},
	);
});
