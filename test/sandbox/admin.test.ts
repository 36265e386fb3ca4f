/** The /__sandbox control routes, persistence with a data file, the clock, and the CLI. */
import { spawn } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import path from 'path';

import { DocumentSchema, TeamMemberListSchema } from '../../contract';
import { verifyDelivery } from '../../nodes/shared/deliveryLayouts';
import { DEMO_API_KEY, startSandbox } from '../../sandbox';
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

describe('admin routes', () => {
	const sandbox = useSandbox();
	const receiver = useReceivers();

	it('POST /__sandbox/accounts creates an isolated account with its own key', async () => {
		const response = await admin(sandbox()).post('/accounts');
		expect(response.status).toBe(201);
		expect(response.data).toEqual({
			account_id: expect.stringMatching(/^acct_/),
			api_key: expect.stringMatching(/^sk_sandbox_/),
		});
		const client = api(sandbox(), response.data.api_key);
		expect((await client.get('/documents')).data.data).toEqual([]);
		const owners = expectSchema(TeamMemberListSchema, (await client.get('/users')).data);
		expect(owners.data.map((user) => user.role)).toEqual(['owner']);
	});

	it('POST /__sandbox/accounts/{id}/keys makes a key with a role', async () => {
		const { account_id: accountId } = (await admin(sandbox()).post('/accounts')).data;
		const response = await admin(sandbox()).post(`/accounts/${accountId}/keys`, { role: 'viewer' });
		expect(response.status).toBe(201);
		expect(response.data.role).toBe('viewer');
		expectError(
			await api(sandbox(), response.data.api_key).post('/templates', { name: 'x' }),
			403,
			'forbidden',
		);
		expectError(
			await admin(sandbox()).post('/accounts/acct_missing/keys', { role: 'viewer' }),
			404,
			'not_found',
		);
		expectError(
			await admin(sandbox()).post(`/accounts/${accountId}/keys`, { role: 'owner' }),
			400,
			'validation_error',
			'role',
		);
	});

	it('GET/PUT /__sandbox/config reads and changes run-time switches, validating them', async () => {
		const client = admin(sandbox());
		const initial = await client.get('/config');
		expect(initial.data).toMatchObject({
			rateLimit: null,
			failureRate: 0,
			connectionResetRate: 0,
			faultSeed: null,
			failureStatuses: [500, 503],
		});
		const changed = await client.put('/config', {
			webhookRetry: { baseDelayMs: 5 },
			failureStatuses: [503],
		});
		expect(changed.status).toBe(200);
		expect(changed.data.webhookRetry).toMatchObject({
			baseDelayMs: 5,
			maxAttempts: 8,
			timeoutMs: 10_000,
		});
		expect(sandbox().config().failureStatuses).toEqual([503]);
		expectError(
			await client.put('/config', { failureRate: 2 }),
			400,
			'validation_error',
			'failureRate',
		);
		expectError(await client.put('/config', { nonsense: true }), 400, 'validation_error');
		expectError(
			await client.put('/config', '{nope', {
				headers: { 'Content-Type': 'application/json' },
				transformRequest: [(body) => body],
			}),
			400,
			'invalid_json',
		);
		await client.put('/config', {
			failureStatuses: [500, 503],
			webhookRetry: { baseDelayMs: 1000 },
		});
	});

	it('GET /__sandbox/stats counts requests per route and status', async () => {
		const client = api(sandbox(), sandbox().createAccount().apiKey);
		const before = (await admin(sandbox()).get('/stats')).data;
		await client.get('/documents');
		await client.get('/documents/doc_nope');
		await client.get('/nowhere');
		const after = (await admin(sandbox()).get('/stats')).data;
		expect(after.requests - before.requests).toBe(3);
		expect(after.routes['GET /v1/documents'] - (before.routes['GET /v1/documents'] ?? 0)).toBe(1);
		expect(
			after.routes['GET /v1/documents/:id'] - (before.routes['GET /v1/documents/:id'] ?? 0),
		).toBe(1);
		expect(after.statuses['404'] - (before.statuses['404'] ?? 0)).toBe(2);
	});

	it('POST /__sandbox/clock advances the business clock (expiry)', async () => {
		const client = api(sandbox(), sandbox().createAccount().apiKey);
		const document = expectSchema(
			DocumentSchema,
			(
				await client.post(
					'/documents',
					documentBody({ expires_at: new Date(Date.now() + 60_000).toISOString() }),
				)
			).data,
		);
		const before = Date.parse((await admin(sandbox()).get('/clock')).data.now);
		const advanced = await admin(sandbox()).post('/clock', { advance_seconds: 120 });
		expect(advanced.status).toBe(200);
		expect(Date.parse(advanced.data.now) - before).toBeGreaterThanOrEqual(120_000);
		expect((await client.get(`/documents/${document.id}`)).data.status).toBe('expired');
		expectError(
			await admin(sandbox()).post('/clock', { advance_seconds: -1 }),
			400,
			'validation_error',
			'advance_seconds',
		);
	});

	it('POST /__sandbox/signature signs a payload exactly like deliveries are signed', async () => {
		const secret = 's'.repeat(32);
		const response = await admin(sandbox()).post('/signature', {
			secret,
			body: '{"a":1}',
			timestamp: 1_763_805_600,
		});
		expect(response.status).toBe(200);
		expect(
			verifyDelivery({
				header: (name) => (name === 'x-signature' ? response.data.header : undefined),
				rawBody: '{"a":1}',
				secret,
				nowSeconds: 1_763_805_600,
				accepted: ['timestamped-header'],
			}),
		).toEqual({
			valid: true,
			layout: 'timestamped-header',
			timestamp: 1_763_805_600,
		});
	});

	it('appendAuditEntry (in process) logs an entry as given, listed by its time: a future one stays on top', async () => {
		const { accountId, apiKey } = sandbox().createAccount();
		const client = api(sandbox(), apiKey);
		const target = await receiver();
		await client.post('/webhooks', { url: target.url, events: ['*'] });
		const future = sandbox().appendAuditEntry(accountId, {
			event: 'document.created',
			created_at: '2099-01-01T00:00:00Z',
		});
		expect(future).toEqual({
			id: expect.stringMatching(/^evt_/),
			event: 'document.created',
			actor: { type: 'system', email: null },
			document_id: null,
			ip: null,
			details: {},
			created_at: '2099-01-01T00:00:00Z',
		});
		// Events logged after it are older: it stays the newest, in the store's view and the API's.
		sandbox().advanceClock(1);
		await client.post('/documents', documentBody());
		const past = sandbox().appendAuditEntry(accountId, {
			event: 'document.viewed',
			created_at: '2000-01-01T00:00:00.000Z',
			document_id: 'doc_elsewhere',
			details: { note: 'as given' },
		});
		const later = sandbox().appendAuditEntry(accountId, {
			event: 'custom.event',
			created_at: 'soon',
		});
		await client.post('/templates', { name: 'T' });
		const logged = sandbox().store.auditLogOf(apiKey);
		expect(logged.map((entry) => entry.event)).toEqual([
			'document.created',
			'template.created',
			'custom.event',
			'document.sent',
			'signature.requested',
			'document.created',
			'webhook.created',
			'document.viewed',
		]);
		expect(logged[0].id).toBe(future.id);
		expect(logged[2].id).toBe(later.id);
		expect(logged[logged.length - 1]).toEqual(past);
		const ids = logged.map((entry) => entry.id);
		const listed = (await client.get('/reports/audit-log', { params: { limit: 100 } })).data.data;
		expect(listed.map((entry: { id: string }) => entry.id)).toEqual(ids);
		// Pages walk the time order, each entry once; oldest first the reverse.
		const walked: string[] = [];
		let cursor: string | undefined;
		do {
			const page = (await client.get('/reports/audit-log', { params: { limit: 2, cursor } })).data;
			walked.push(...page.data.map((entry: { id: string }) => entry.id));
			cursor = page.next_cursor ?? undefined;
		} while (cursor);
		expect(walked).toEqual(ids);
		sandbox().configure({ dialect: 'audit-oldest-first' });
		try {
			const oldest = (await client.get('/reports/audit-log', { params: { limit: 100 } })).data.data;
			expect(oldest.map((entry: { id: string }) => entry.id)).toEqual([...ids].reverse());
		} finally {
			sandbox().configure({ dialect: 'default' });
		}
		// `from` alone has no upper end: the entry dated ahead is in every read from a time.
		const fromNow = (await client.get('/reports/audit-log', { params: { from: sandbox().now() } }))
			.data.data;
		expect(fromNow.map((entry: { id: string }) => entry.id)).toEqual([future.id]);
		// Text that is no time is in no range, and never delivered.
		const ranged = (
			await client.get('/reports/audit-log', { params: { from: '1999-01-01', limit: 100 } })
		).data.data;
		expect(ranged.map((entry: { id: string }) => entry.id)).not.toContain(later.id);
		await sandbox().flushDeliveries();
		expect(target.requests.map((request) => JSON.parse(request.rawBody.toString()).event)).toEqual([
			'document.created',
			'signature.requested',
			'document.sent',
		]);
		expect(() =>
			sandbox().appendAuditEntry('acct_missing', { event: 'x', created_at: 'y' }),
		).toThrow(/No such account/);
	});

	it('POST /__sandbox/accounts/{id}/audit-log appends an entry as given (201), validating the body', async () => {
		const { accountId, apiKey } = sandbox().createAccount();
		const response = await admin(sandbox()).post(`/accounts/${accountId}/audit-log`, {
			event: 'signature.requested',
			created_at: '2026-11-28T10:00:00.123',
			document_id: 'doc_ofanother',
			actor: { type: 'api_key', email: 'someone@example.com' },
			details: { signature_request_id: 'sr_x' },
		});
		expect(response.status).toBe(201);
		expect(response.data).toEqual({
			id: expect.stringMatching(/^evt_/),
			event: 'signature.requested',
			actor: { type: 'api_key', email: 'someone@example.com' },
			document_id: 'doc_ofanother',
			ip: null,
			details: { signature_request_id: 'sr_x' },
			created_at: '2026-11-28T10:00:00.123',
		});
		expect(sandbox().store.auditLogOf(apiKey)).toEqual([response.data]);
		expect((await api(sandbox(), apiKey).get('/reports/audit-log')).data.data).toEqual([
			response.data,
		]);
		expectError(
			await admin(sandbox()).post('/accounts/acct_missing/audit-log', {
				event: 'document.created',
				created_at: '2099-01-01T00:00:00Z',
			}),
			404,
			'not_found',
		);
		expectError(
			await admin(sandbox()).post(`/accounts/${accountId}/audit-log`, {
				event: 'document.created',
			}),
			400,
			'validation_error',
			'created_at',
		);
		expectError(
			await admin(sandbox()).post(`/accounts/${accountId}/audit-log`, {
				event: 'document.created',
				created_at: 'now',
				colour: 'red',
			}),
			400,
			'validation_error',
		);
		const listed = (await admin(sandbox()).get('')).data.endpoints;
		expect(listed).toContain(
			'POST /__sandbox/accounts/:accountId/audit-log {event, created_at, document_id?, actor?, ip?, details?}',
		);
	});

	it('unknown admin routes are 404, wrong methods 405', async () => {
		expectError(await admin(sandbox()).get('/nothing'), 404, 'not_found');
		expectError(await admin(sandbox()).delete('/stats'), 405, 'method_not_allowed');
	});
});

describe('reset', () => {
	it('POST /__sandbox/reset wipes data but keeps the demo key working', async () => {
		const sandbox = await startSandbox();
		try {
			const client = api(sandbox);
			expect((await client.post('/documents', documentBody())).status).toBe(201);
			const other = sandbox.createAccount();
			const response = await admin(sandbox).post('/reset');
			expect(response.data).toEqual({ api_key: DEMO_API_KEY });
			expect((await client.get('/documents')).data.data).toEqual([]);
			expect((await api(sandbox, other.apiKey).get('/documents')).status).toBe(401);
			expect(sandbox.stats().requests).toBe(2);
		} finally {
			await sandbox.close();
		}
	});
});

describe('persistence', () => {
	let directory: string;
	beforeEach(() => {
		directory = mkdtempSync(path.join(tmpdir(), 'sandbox-data-'));
	});
	afterEach(() => rmSync(directory, { recursive: true, force: true }));

	it('restores accounts, keys and records from the data file after a restart', async () => {
		const dataFile = path.join(directory, 'nested', 'data.json');
		const first = await startSandbox({ dataFile });
		const { apiKey } = first.createAccount();
		const client = api(first, apiKey);
		const document = expectSchema(
			DocumentSchema,
			(
				await client.post(
					'/documents',
					documentBody({ expires_at: new Date(Date.now() + 3_600_000).toISOString() }),
				)
			).data,
		);
		const demoTemplate = await api(first).post('/templates', { name: 'Demo template' });
		await first.close();
		expect(JSON.parse(readFileSync(dataFile, 'utf8')).version).toBe(1);

		const second = await startSandbox({ dataFile });
		try {
			const restored = await api(second, apiKey).get(`/documents/${document.id}`);
			expect(restored.status).toBe(200);
			expect(restored.data).toMatchObject({
				id: document.id,
				status: 'pending',
				signers: document.signers,
			});
			expect(
				(await api(second).get('/templates')).data.data.map(
					(template: { id: string }) => template.id,
				),
			).toEqual([demoTemplate.data.id]);
			// The signing links still work (their tokens were kept), and expiry still applies.
			expect(
				(await fetch(document.signers[0].signing_url.replace(first.origin, second.origin))).status,
			).toBe(200);
			second.advanceClock(3601);
			expect((await api(second, apiKey).get(`/documents/${document.id}`)).data.status).toBe(
				'expired',
			);
		} finally {
			await second.close();
		}
	});

	it('refuses a data file it does not understand', async () => {
		const dataFile = path.join(directory, 'bad.json');
		writeFileSync(dataFile, '{"version":99}');
		await expect(startSandbox({ dataFile })).rejects.toThrow(/version/);
	});
});

describe('options', () => {
	it('refuses to listen anywhere but 127.0.0.1', async () => {
		await expect(startSandbox({ host: '0.0.0.0' as '127.0.0.1' })).rejects.toThrow(/127\.0\.0\.1/);
	});

	it('publicOrigin is used in signing URLs', async () => {
		const sandbox = await startSandbox({ publicOrigin: 'http://sandbox.test:4010/' });
		try {
			const document = (await api(sandbox).post('/documents', documentBody())).data;
			expect(
				document.signing_url.startsWith(`http://sandbox.test:4010/sign/${document.id}?token=`),
			).toBe(true);
			expect(
				document.signers[0].signing_url.startsWith(`http://sandbox.test:4010/sign/${document.id}/`),
			).toBe(true);
		} finally {
			await sandbox.close();
		}
	});

	it('close() is idempotent and frees the port', async () => {
		const sandbox = await startSandbox();
		await Promise.all([sandbox.close(), sandbox.close()]);
		await expect(fetch(`${sandbox.baseUrl}/documents`)).rejects.toThrow();
	});
});

describe('cli', () => {
	it('prints the base URL and the demo key, serves, and stops cleanly on SIGTERM', async () => {
		const directory = mkdtempSync(path.join(tmpdir(), 'sandbox-cli-'));
		const dataFile = path.join(directory, 'data.json');
		const child = spawn(
			process.execPath,
			[
				require.resolve('ts-node/dist/bin.js'),
				'--transpile-only',
				'sandbox/cli.ts',
				'--port',
				'0',
				'--data-file',
				dataFile,
			],
			{
				cwd: path.resolve(__dirname, '../..'),
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		let output = '';
		child.stdout.on('data', (chunk) => (output += chunk));
		child.stderr.on('data', (chunk) => (output += chunk));
		const exited = new Promise<number | null>((resolve) =>
			child.on('exit', (code) => resolve(code)),
		);
		try {
			const baseUrl = await waitFor(
				() => /Base URL:\s+(\S+)/.exec(output)?.[1],
				`the CLI banner (output so far: ${output})`,
				60_000,
			);
			expect(output).toContain(`Demo API key:   ${DEMO_API_KEY}`);
			expect(output).toMatch(/Signing pages:\s+http:\/\/127\.0\.0\.1:\d+\/sign\//);
			const response = await fetch(`${baseUrl}/documents`, {
				method: 'POST',
				headers: { Authorization: `Bearer ${DEMO_API_KEY}`, 'Content-Type': 'application/json' },
				body: JSON.stringify(documentBody()),
			});
			expect(response.status).toBe(201);
			child.kill('SIGTERM');
			expect(await exited).toBe(0);
			// The data file was written on the way out.
			expect(JSON.parse(readFileSync(dataFile, 'utf8')).accounts[0].documents).toHaveLength(1);
		} finally {
			if (child.exitCode === null) child.kill('SIGKILL');
			rmSync(directory, { recursive: true, force: true });
		}
	}, 90_000);
});
