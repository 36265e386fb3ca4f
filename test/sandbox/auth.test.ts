/** API keys (401), account isolation (404, never listed) and roles (403). */
import axios from 'axios';

import {
	AuditLogListSchema,
	DocumentListSchema,
	DocumentSchema,
	TemplateSchema,
	WebhookWithSecretSchema,
} from '../../contract';
import { api, documentBody, expectError, expectSchema, useSandbox } from '../helpers/sandbox';

const sandbox = useSandbox();

describe('authentication', () => {
	const unauthenticated: Array<[string, Record<string, string>]> = [
		['no Authorization header', {}],
		['an unknown key', { Authorization: 'Bearer sk_sandbox_nope' }],
		['an empty bearer', { Authorization: 'Bearer ' }],
		['another scheme', { Authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` }],
		[
			'the key without the Bearer scheme',
			{ Authorization: 'sk_sandbox_demo_00000000000000000000000000000000' },
		],
		[
			'a key with a typo',
			{ Authorization: 'Bearer sk_sandbox_demo_00000000000000000000000000000001' },
		],
	];

	it.each(unauthenticated)('answers 401 unauthorized for %s', async (_name, headers) => {
		const response = await axios.get(`${sandbox().baseUrl}/documents`, {
			headers,
			validateStatus: () => true,
		});
		expectError(response, 401, 'unauthorized');
		expect(response.headers['www-authenticate']).toBe('Bearer');
	});

	it('answers 401 on every endpoint, before validating the body', async () => {
		const client = api(sandbox(), null);
		const calls = [
			client.post('/documents', {}),
			client.get('/documents/doc_x'),
			client.delete('/documents/doc_x'),
			client.post('/signatures/request', {}),
			client.get('/signatures/sr_x'),
			client.post('/signatures/sr_x/remind'),
			client.get('/templates'),
			client.put('/templates/tpl_x', {}),
			client.get('/users'),
			client.post('/users/invite', {}),
			client.put('/users/usr_x/role', {}),
			client.get('/webhooks'),
			client.delete('/webhooks/wh_x'),
			client.get('/reports/usage'),
			client.get('/reports/audit-log'),
			client.get('/reports/export'),
		];
		for (const response of await Promise.all(calls)) expectError(response, 401, 'unauthorized');
	});

	it('accepts the scheme case-insensitively', async () => {
		const response = await axios.get(`${sandbox().baseUrl}/documents`, {
			headers: { Authorization: `bearer ${sandbox().apiKey}` },
			validateStatus: () => true,
		});
		expect(response.status).toBe(200);
	});
});

describe('account isolation', () => {
	it("another account's records are 404 and never listed", async () => {
		const a = api(sandbox(), sandbox().createAccount().apiKey);
		const keyB = sandbox().createAccount().apiKey;
		const b = api(sandbox(), keyB);

		const document = expectSchema(
			DocumentSchema,
			(await a.post('/documents', documentBody())).data,
		);
		const template = expectSchema(
			TemplateSchema,
			(await a.post('/templates', { name: 'A only' })).data,
		);
		const webhook = expectSchema(
			WebhookWithSecretSchema,
			(await a.post('/webhooks', { url: 'http://127.0.0.1:9/a', events: ['*'] })).data,
		);
		const users = (await a.get('/users')).data.data as Array<{ id: string }>;

		expectError(await b.get(`/documents/${document.id}`), 404, 'not_found');
		expectError(await b.delete(`/documents/${document.id}`), 404, 'not_found');
		expectError(await b.get(`/signatures/${document.signature_request_id}`), 404, 'not_found');
		expectError(
			await b.post(`/signatures/${document.signature_request_id}/remind`),
			404,
			'not_found',
		);
		expectError(
			await b.post('/signatures/request', { document_id: document.id }),
			404,
			'not_found',
			'document_id',
		);
		expectError(await b.put(`/templates/${template.id}`, { name: 'stolen' }), 404, 'not_found');
		expectError(
			await b.post('/documents', documentBody({ template_id: template.id })),
			404,
			'not_found',
			'template_id',
		);
		expectError(await b.put(`/users/${users[0].id}/role`, { role: 'viewer' }), 404, 'not_found');
		expectError(await b.delete(`/webhooks/${webhook.id}`), 404, 'not_found');

		const lists = await Promise.all(
			['/documents', '/templates', '/webhooks', '/reports/audit-log', '/users'].map((path) =>
				b.get(path),
			),
		);
		const seen = JSON.stringify(lists.map((response) => response.data));
		for (const id of [
			document.id,
			template.id,
			webhook.id,
			users[0].id,
			document.signature_request_id as string,
		]) {
			expect(seen).not.toContain(id);
		}
		expect(expectSchema(DocumentListSchema, lists[0].data).data).toEqual([]);
		expect(
			expectSchema(
				AuditLogListSchema,
				(await b.get('/reports/audit-log', { params: { document_id: document.id } })).data,
			).data,
		).toEqual([]);
		expect(sandbox().store.documentsOf(keyB)).toEqual([]);

		// Nothing B tried changed A's data.
		expect((await a.get(`/documents/${document.id}`)).data.status).toBe('pending');
		expect((await a.get('/webhooks')).data.data).toHaveLength(1);
	});
});

describe('roles', () => {
	it('viewers only read; members write content but not the team or webhooks; admins do all', async () => {
		const { accountId, apiKey } = sandbox().createAccount();
		const owner = api(sandbox(), apiKey);
		const viewer = api(sandbox(), sandbox().createApiKey(accountId, 'viewer').apiKey);
		const member = api(sandbox(), sandbox().createApiKey(accountId, 'member').apiKey);
		const adminKey = api(sandbox(), sandbox().createApiKey(accountId, 'admin').apiKey);
		const document = expectSchema(
			DocumentSchema,
			(await owner.post('/documents', documentBody())).data,
		);

		expect((await viewer.get('/documents')).status).toBe(200);
		expect((await viewer.get(`/documents/${document.id}`)).status).toBe(200);
		expectError(await viewer.post('/documents', documentBody()), 403, 'forbidden');
		expectError(await viewer.delete(`/documents/${document.id}`), 403, 'forbidden');
		expectError(await viewer.post('/templates', { name: 'x' }), 403, 'forbidden');

		expect((await member.post('/documents', documentBody())).status).toBe(201);
		expect((await member.post('/templates', { name: 'x' })).status).toBe(201);
		expectError(await member.post('/users/invite', { email: 'z@example.com' }), 403, 'forbidden');
		expectError(
			await member.post('/webhooks', { url: 'http://127.0.0.1:9/', events: ['*'] }),
			403,
			'forbidden',
		);

		expect((await adminKey.post('/users/invite', { email: 'z@example.com' })).status).toBe(201);
		expect(
			(await adminKey.post('/webhooks', { url: 'http://127.0.0.1:9/', events: ['*'] })).status,
		).toBe(201);
	});

	it('a role change applies to the key at once', async () => {
		const { accountId, apiKey } = sandbox().createAccount();
		const owner = api(sandbox(), apiKey);
		const key = sandbox().createApiKey(accountId, 'member');
		const member = api(sandbox(), key.apiKey);
		expect((await member.post('/documents', documentBody())).status).toBe(201);
		expect((await owner.put(`/users/${key.userId}/role`, { role: 'viewer' })).status).toBe(200);
		expectError(await member.post('/documents', documentBody()), 403, 'forbidden');
	});
});
