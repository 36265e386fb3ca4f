/** Fixes from the security review: admin signature input, cursor binding, the overview page's token. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import path from 'path';

import { DocumentListSchema } from '../../contract';
import { startSandbox } from '../../sandbox';
import {
	admin,
	api,
	documentBody,
	expectError,
	expectSchema,
	useSandbox,
} from '../helpers/sandbox';
import { getPage } from '../helpers/signingPage';

const sandbox = useSandbox();

describe('POST /__sandbox/signature timestamp', () => {
	it.each([1e300, -1, 1.5, Number.MAX_SAFE_INTEGER + 2, '1700000000', null])(
		'timestamp %p is a 400 naming timestamp',
		async (timestamp) => {
			const response = await admin(sandbox()).post('/signature', {
				secret: 's',
				body: '{}',
				timestamp,
			});
			expectError(response, 400, 'validation_error', 'timestamp');
			expect(response.data.error.message).toMatch(
				/timestamp must be a (non-negative safe integer|number)/,
			);
		},
	);

	it('a valid timestamp still signs', async () => {
		const response = await admin(sandbox()).post('/signature', {
			secret: 's',
			body: '{}',
			timestamp: 1_700_000_000,
		});
		expect(response.status).toBe(200);
		expect(response.data.header).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
	});
});

describe('list cursors are bound to the account and the list', () => {
	async function accountWithDocuments(count: number) {
		const { apiKey } = sandbox().createAccount();
		const client = api(sandbox(), apiKey);
		for (let i = 0; i < count; i++)
			expect((await client.post('/documents', documentBody())).status).toBe(201);
		return client;
	}

	it("refuses another account's cursor with a 400 naming cursor", async () => {
		const a = await accountWithDocuments(3);
		const b = await accountWithDocuments(3);
		const page = expectSchema(
			DocumentListSchema,
			(await b.get('/documents', { params: { limit: 1 } })).data,
		);
		expect(page.next_cursor).not.toBeNull();
		expectError(
			await a.get('/documents', { params: { cursor: page.next_cursor } }),
			400,
			'validation_error',
			'cursor',
		);
		// B itself still continues with it.
		expect((await b.get('/documents', { params: { cursor: page.next_cursor } })).status).toBe(200);
	});

	it('refuses tampered and forged cursors', async () => {
		const client = await accountWithDocuments(3);
		const page = expectSchema(
			DocumentListSchema,
			(await client.get('/documents', { params: { limit: 1 } })).data,
		);
		const cursor = page.next_cursor as string;
		const [payload, mac] = cursor.split('.');
		const moved = Buffer.from(JSON.stringify({ k: 'documents', s: 999_999 })).toString('base64url');
		const forgedUnsigned = Buffer.from(JSON.stringify({ k: 'documents', s: 5 })).toString(
			'base64url',
		);
		for (const bad of [
			`${moved}.${mac}`,
			forgedUnsigned,
			// Another first character always changes the MAC's bytes (the last ones may only pad).
			`${payload}.${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`,
			`${payload}`,
			`${cursor}.x`,
			'not-a-cursor',
		]) {
			expectError(
				await client.get('/documents', { params: { cursor: bad } }),
				400,
				'validation_error',
				'cursor',
			);
		}
	});
});

describe("the document's signing_url (overview page) needs the document's token", () => {
	it('opens with the token in signing_url; 403 without it or with a wrong one', async () => {
		const document = (await api(sandbox()).post('/documents', documentBody())).data;
		const url = new URL(document.signing_url);
		expect(url.searchParams.get('token')).toMatch(/^[\w-]{20,}$/);
		const page = await getPage(document.signing_url);
		expect(page.status).toBe(200);
		expect(page.html).toContain(
			document.signers[0].signing_url.replace(url.origin, '').replace(/&/g, '&amp;'),
		);

		const bare = `${url.origin}${url.pathname}`;
		for (const bad of [
			bare,
			`${bare}?token=`,
			`${bare}?token=wrong`,
			`${bare}?token=${document.signers[0].signing_url.split('token=')[1]}`,
		]) {
			const refused = await getPage(bad);
			expect(refused.status).toBe(403);
			expect(refused.html).not.toContain('token=');
		}
	});

	it("one document's token does not open another document's overview", async () => {
		const first = (await api(sandbox()).post('/documents', documentBody())).data;
		const second = (await api(sandbox()).post('/documents', documentBody())).data;
		const token = new URL(first.signing_url).searchParams.get('token');
		expect((await getPage(`${sandbox().origin}/sign/${second.id}?token=${token}`)).status).toBe(
			403,
		);
	});
});

describe('data files', () => {
	const directory = mkdtempSync(path.join(tmpdir(), 'sandbox-security-'));
	afterAll(() => rmSync(directory, { recursive: true, force: true }));

	it('keep the overview token; a file from before it gets one; numeric ids continue after a restart', async () => {
		const dataFile = path.join(directory, 'data.json');
		const first = await startSandbox({ dataFile, dialect: 'numeric-ids' });
		const kept = (await api(first).post('/documents', documentBody())).data;
		const old = (await api(first).post('/documents', documentBody())).data;
		await first.close();

		// Make `old` look like it was saved before documents had a page token.
		const snapshot = JSON.parse(readFileSync(dataFile, 'utf8'));
		const row = snapshot.accounts
			.flatMap(
				(account: {
					documents: Array<{ record: { id: string; signing_url: string }; pageToken?: string }>;
				}) => account.documents,
			)
			.find((candidate: { record: { id: string } }) => candidate.record.id === String(old.id));
		delete row.pageToken;
		row.record.signing_url = row.record.signing_url.split('?')[0];
		writeFileSync(dataFile, JSON.stringify(snapshot));

		const second = await startSandbox({ dataFile, dialect: 'numeric-ids' });
		try {
			expect((await getPage(kept.signing_url.replace(first.origin, second.origin))).status).toBe(
				200,
			);
			const upgraded = (await api(second).get(`/documents/${old.id}`)).data;
			expect(upgraded.signing_url).toMatch(/\?token=[\w-]{20,}$/);
			expect(
				(await getPage(upgraded.signing_url.replace(first.origin, second.origin))).status,
			).toBe(200);
			const next = (await api(second).post('/documents', documentBody())).data;
			expect(next.id).toBeGreaterThan(old.signers[old.signers.length - 1].id);
		} finally {
			await second.close();
		}
	});
});
