/** Cursor pagination: every id once, newest first, limits, filters, stability under inserts. */
import type { AxiosInstance, AxiosResponse } from 'axios';

import {
	AuditLogListSchema,
	DocumentListSchema,
	type AuditLogEntry,
	type DocumentRecord,
	type ListPage,
} from '../../contract';
import { MAX_PAGE_SIZE } from '../../nodes/shared/vocabulary';
import { DEFAULT_PAGE_SIZE } from '../../sandbox/pagination';
import { api, documentBody, expectError, expectSchema, useSandbox } from '../helpers/sandbox';

const sandbox = useSandbox();

async function walk(
	client: AxiosInstance,
	params: Record<string, string | number>,
	onPage?: (page: number) => Promise<void>,
) {
	const ids: string[] = [];
	const sizes: number[] = [];
	let cursor: string | null = null;
	for (let page = 0; page < 100; page++) {
		const response: AxiosResponse = await client.get('/documents', {
			params: { ...params, ...(cursor ? { cursor } : {}) },
		});
		expect(response.status).toBe(200);
		const body: ListPage<DocumentRecord> = expectSchema(DocumentListSchema, response.data);
		ids.push(...body.data.map((document) => document.id));
		sizes.push(body.data.length);
		await onPage?.(page);
		if (!body.has_more) return { ids, sizes };
		cursor = body.next_cursor;
	}
	throw new Error('pagination did not end');
}

describe('pagination', () => {
	const account = {
		client: undefined as unknown as AxiosInstance,
		created: [] as DocumentRecord[],
	};

	beforeAll(async () => {
		const { apiKey } = sandbox().createAccount();
		account.client = api(sandbox(), apiKey);
		for (let i = 0; i < 45; i++) {
			const body =
				i % 3 === 0
					? { name: `draft-${i}.pdf`, draft: true }
					: documentBody({ name: `Contract-${i}.pdf` });
			const response = await account.client.post('/documents', body);
			expect(response.status).toBe(201);
			account.created.push(response.data);
		}
	});

	it('walks 45 documents in pages of 20: every id exactly once, newest first', async () => {
		const { ids, sizes } = await walk(account.client, { limit: 20 });
		expect(sizes).toEqual([20, 20, 5]);
		expect(ids).toEqual(account.created.map((document) => document.id).reverse());
	});

	it(`uses ${DEFAULT_PAGE_SIZE} as the default page size and allows up to ${MAX_PAGE_SIZE}`, async () => {
		const first = expectSchema(DocumentListSchema, (await account.client.get('/documents')).data);
		expect(first.data).toHaveLength(DEFAULT_PAGE_SIZE);
		expect(first.has_more).toBe(true);
		const all = expectSchema(
			DocumentListSchema,
			(await account.client.get('/documents', { params: { limit: MAX_PAGE_SIZE } })).data,
		);
		expect(all.data).toHaveLength(45);
		expect(all).toMatchObject({ has_more: false, next_cursor: null });
	});

	it('a page that ends exactly at the last record says has_more: false', async () => {
		const { sizes } = await walk(account.client, { limit: 15 });
		expect(sizes).toEqual([15, 15, 15]);
	});

	it.each([0, 101, -1, 1.5])('limit=%p is a 400 naming limit', async (limit) => {
		expectError(
			await account.client.get('/documents', { params: { limit } }),
			400,
			'validation_error',
			'limit',
		);
	});

	it('filters by status and q, across pages', async () => {
		const drafts = await walk(account.client, { status: 'draft', limit: 4 });
		expect(drafts.ids).toEqual(
			account.created
				.filter((document) => document.status === 'draft')
				.map((document) => document.id)
				.reverse(),
		);
		expect(drafts.ids).toHaveLength(15);

		const named = await walk(account.client, { q: 'CONTRACT-1', limit: 3 });
		const expected = account.created.filter((document) =>
			document.name.toLowerCase().includes('contract-1'),
		);
		expect(named.ids).toEqual(expected.map((document) => document.id).reverse());
		expect(named.ids.length).toBeGreaterThan(3);
	});

	it('filters by created_after / created_before', async () => {
		const { client } = account;
		const middle = account.created[20];
		const after = await walk(client, { created_after: middle.created_at, limit: 100 });
		expect(after.ids).toContain(account.created[44].id);
		expect(after.ids).not.toContain(account.created[0].id);
		const before = await walk(client, { created_before: '2000-01-01T00:00:00Z' });
		expect(before.ids).toEqual([]);
	});

	it('stays stable while documents are created between pages', async () => {
		const { apiKey } = sandbox().createAccount();
		const client = api(sandbox(), apiKey);
		const original: string[] = [];
		for (let i = 0; i < 25; i++)
			original.push((await client.post('/documents', documentBody())).data.id);

		const { ids } = await walk(client, { limit: 10 }, async () => {
			// Two new documents arrive after every page is read.
			await client.post('/documents', documentBody());
			await client.post('/documents', documentBody());
		});
		// The walk sees exactly the records that existed when it started, each once.
		expect(ids).toEqual([...original].reverse());
	});

	it('stays stable while documents on earlier pages are deleted', async () => {
		const { apiKey } = sandbox().createAccount();
		const client = api(sandbox(), apiKey);
		const original: string[] = [];
		for (let i = 0; i < 12; i++)
			original.push((await client.post('/documents', documentBody())).data.id);
		const newestFirst = [...original].reverse();

		const { ids } = await walk(client, { limit: 5 }, async (page) => {
			if (page === 0) await client.delete(`/documents/${newestFirst[0]}`);
		});
		expect(ids).toEqual(newestFirst);
	});

	it("refuses another list's cursor", async () => {
		const page = expectSchema(
			AuditLogListSchema,
			(await account.client.get('/reports/audit-log', { params: { limit: 1 } })).data,
		);
		expect(page.next_cursor).not.toBeNull();
		expectError(
			await account.client.get('/documents', { params: { cursor: page.next_cursor } }),
			400,
			'validation_error',
			'cursor',
		);
	});

	it('pages the audit log like every list', async () => {
		const seen: string[] = [];
		let cursor: string | null = null;
		do {
			const response: AxiosResponse = await account.client.get('/reports/audit-log', {
				params: { limit: 7, ...(cursor ? { cursor } : {}) },
			});
			const page: ListPage<AuditLogEntry> = expectSchema(AuditLogListSchema, response.data);
			seen.push(...page.data.map((entry) => entry.id));
			cursor = page.next_cursor;
		} while (cursor);
		// 45 created + 30 sent documents with two more events each (requested, sent).
		expect(seen).toHaveLength(45 + 30 * 2);
		expect(new Set(seen).size).toBe(seen.length);
	});
});
