/** Input handling: validation errors naming the field, invalid JSON, 413, 404/405, garbage. */
import { randomBytes } from 'crypto';
import net from 'net';

import { DocumentSchema, ErrorBodySchema, LIMITS } from '../../contract';
import { api, documentBody, expectError, expectSchema, useSandbox } from '../helpers/sandbox';
import { uploadUntilAnswered } from '../helpers/upload';

const sandbox = useSandbox();

const signer = { email: 'ann@example.com', name: 'Ann' };

type Case = [
	description: string,
	method: 'post' | 'put' | 'get',
	path: string,
	body: unknown,
	field: string,
];

const cases: Case[] = [
	['name missing', 'post', '/documents', { signers: [signer] }, 'name'],
	['name without extension', 'post', '/documents', { name: 'contract', signers: [signer] }, 'name'],
	['name not a string', 'post', '/documents', { name: 42, signers: [signer] }, 'name'],
	['signers missing', 'post', '/documents', { name: 'a.pdf' }, 'signers'],
	['signers empty', 'post', '/documents', { name: 'a.pdf', signers: [] }, 'signers'],
	[
		'signers not an array',
		'post',
		'/documents',
		{ name: 'a.pdf', signers: 'ann@example.com' },
		'signers',
	],
	[
		'more than 50 signers',
		'post',
		'/documents',
		{
			name: 'a.pdf',
			signers: Array.from({ length: 51 }, (_, i) => ({
				email: `s${i}@example.com`,
				name: `S${i}`,
			})),
		},
		'signers',
	],
	[
		'signer e-mail invalid',
		'post',
		'/documents',
		{ name: 'a.pdf', signers: [signer, { email: 'not-an-email', name: 'X' }] },
		'signers[1].email',
	],
	[
		'signer name empty',
		'post',
		'/documents',
		{ name: 'a.pdf', signers: [{ email: 'a@example.com', name: '  ' }] },
		'signers[0].name',
	],
	[
		'duplicate signer e-mails',
		'post',
		'/documents',
		{ name: 'a.pdf', signers: [signer, { ...signer, email: 'ANN@example.com' }] },
		'signers[1].email',
	],
	[
		'signer order zero',
		'post',
		'/documents',
		{ name: 'a.pdf', signers: [{ ...signer, order: 0 }] },
		'signers[0].order',
	],
	[
		'signer order fractional',
		'post',
		'/documents',
		{ name: 'a.pdf', signers: [{ ...signer, order: 1.5 }] },
		'signers[0].order',
	],
	[
		'unknown authentication',
		'post',
		'/documents',
		{ name: 'a.pdf', signers: [{ ...signer, authentication: 'magic' }] },
		'signers[0].authentication',
	],
	[
		'sms_otp without phone',
		'post',
		'/documents',
		{ name: 'a.pdf', signers: [{ ...signer, authentication: 'sms_otp' }] },
		'signers[0].phone',
	],
	[
		'phone not E.164',
		'post',
		'/documents',
		{ name: 'a.pdf', signers: [{ ...signer, authentication: 'sms_otp', phone: '5550123' }] },
		'signers[0].phone',
	],
	[
		'expires_at not a timestamp',
		'post',
		'/documents',
		documentBody({ expires_at: 'tomorrow' }),
		'expires_at',
	],
	[
		'expires_at in the past',
		'post',
		'/documents',
		documentBody({ expires_at: '2001-01-01T00:00:00Z' }),
		'expires_at',
	],
	[
		'metadata value not a string',
		'post',
		'/documents',
		documentBody({ metadata: { a: 1 } }),
		'metadata.a',
	],
	[
		'metadata with 51 keys',
		'post',
		'/documents',
		documentBody({
			metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])),
		}),
		'metadata',
	],
	[
		'file content type',
		'post',
		'/documents',
		documentBody({ file: { content_type: 'text/plain', data: 'aGVsbG8=' } }),
		'file.content_type',
	],
	[
		'file data not base64',
		'post',
		'/documents',
		documentBody({ file: { content_type: 'application/pdf', data: 'not base64!' } }),
		'file.data',
	],
	['draft not a boolean', 'post', '/documents', documentBody({ draft: 'yes' }), 'draft'],
	['body is an array', 'post', '/documents', [documentBody()], 'body'],
	['body is a string', 'post', '/documents', '"contract.pdf"', 'body'],
	['document_id missing', 'post', '/signatures/request', {}, 'document_id'],
	[
		'signing request expires_at',
		'post',
		'/signatures/request',
		{ document_id: 'doc_x', expires_at: 5 },
		'expires_at',
	],
	['template name missing', 'post', '/templates', { description: 'x' }, 'name'],
	[
		'template document_name without extension',
		'post',
		'/templates',
		{ name: 'T', document_name: 'nda' },
		'document_name',
	],
	[
		'template duplicate roles',
		'post',
		'/templates',
		{ name: 'T', signer_roles: [{ role: 'Client' }, { role: 'client' }] },
		'signer_roles[1].role',
	],
	[
		'template role e-mail',
		'post',
		'/templates',
		{ name: 'T', signer_roles: [{ role: 'Client', email: 'nope' }] },
		'signer_roles[0].email',
	],
	['invite e-mail missing', 'post', '/users/invite', { name: 'X' }, 'email'],
	['invite as owner', 'post', '/users/invite', { email: 'x@example.com', role: 'owner' }, 'role'],
	['webhook url missing', 'post', '/webhooks', { events: ['*'] }, 'url'],
	[
		'webhook url not http(s)',
		'post',
		'/webhooks',
		{ url: 'ftp://example.com/x', events: ['*'] },
		'url',
	],
	[
		'webhook url javascript:',
		'post',
		'/webhooks',
		{ url: 'javascript:alert(1)', events: ['*'] },
		'url',
	],
	[
		'webhook events empty',
		'post',
		'/webhooks',
		{ url: 'https://example.com', events: [] },
		'events',
	],
	[
		'webhook unknown event',
		'post',
		'/webhooks',
		{ url: 'https://example.com', events: ['document.exploded'] },
		'events[0]',
	],
	[
		'webhook duplicate event',
		'post',
		'/webhooks',
		{ url: 'https://example.com', events: ['*', '*'] },
		'events[1]',
	],
	[
		'webhook secret too short',
		'post',
		'/webhooks',
		{ url: 'https://example.com', events: ['*'], secret: 'short' },
		'secret',
	],
	[
		'remind signer_ids not an array',
		'post',
		'/signatures/sr_x/remind',
		{ signer_ids: 'sgn_1' },
		'signer_ids',
	],
	['limit 0', 'get', '/documents?limit=0', undefined, 'limit'],
	['limit 101', 'get', '/documents?limit=101', undefined, 'limit'],
	['limit not a number', 'get', '/documents?limit=ten', undefined, 'limit'],
	['limit negative', 'get', '/templates?limit=-1', undefined, 'limit'],
	['limit given twice', 'get', '/users?limit=1&limit=2', undefined, 'limit'],
	['cursor from nowhere', 'get', '/documents?cursor=bm9wZQ', undefined, 'cursor'],
	['status filter unknown', 'get', '/documents?status=shredded', undefined, 'status'],
	[
		'created_after not a timestamp',
		'get',
		'/documents?created_after=yesterday',
		undefined,
		'created_after',
	],
	['users role filter', 'get', '/users?role=emperor', undefined, 'role'],
	['audit-log event filter', 'get', '/reports/audit-log?event=nope', undefined, 'event'],
	['usage from not a date', 'get', '/reports/usage?from=last-week', undefined, 'from'],
	['export format', 'get', '/reports/export?format=pdf', undefined, 'format'],
];

describe('validation errors name the field', () => {
	it.each(cases)('%s → 400 %s', async (_description, method, path, body, field) => {
		const client = api(sandbox());
		// The remind case needs a real request so the id check does not answer 404 first.
		let target = path;
		if (path.startsWith('/signatures/sr_x/')) {
			const document = expectSchema(
				DocumentSchema,
				(await client.post('/documents', documentBody())).data,
			);
			target = path.replace('sr_x', document.signature_request_id as string);
		}
		const response =
			method === 'get'
				? await client.get(target)
				: await client.request({
						method,
						url: target,
						data: typeof body === 'string' ? body : JSON.stringify(body),
						headers: { 'Content-Type': 'application/json' },
						transformRequest: [(raw) => raw],
					});
		expectError(response, 400, 'validation_error', field);
		expect(response.data.error.message).toMatch(
			new RegExp(`^${field.replace(/[[\].]/g, '\\$&')} `),
		);
	});

	it('lists every problem in details when there are several', async () => {
		const response = await api(sandbox()).post('/documents', {
			name: 'x',
			signers: [{ email: 'bad', name: '' }],
		});
		expectError(response, 400, 'validation_error', 'name');
		expect(response.data.error.details.map((detail: { field: string }) => detail.field)).toEqual([
			'name',
			'signers[0].email',
			'signers[0].name',
		]);
	});

	it('ignores unknown body fields and unknown query parameters', async () => {
		const client = api(sandbox());
		const response = await client.post(
			'/documents',
			documentBody({ colour: 'blue', signers: [{ ...signer, shoe_size: 44 }] }),
		);
		expect(response.status).toBe(201);
		expect(response.data).not.toHaveProperty('colour');
		expect(response.data.signers[0]).not.toHaveProperty('shoe_size');
		expect((await client.get('/documents?sort=asc&limit=')).status).toBe(200);
	});

	it('accepts an expires_at with an offset and stores it in UTC', async () => {
		const later = new Date(Date.now() + 2 * 86_400_000);
		const withOffset = `${later.toISOString().slice(0, 19)}+02:00`;
		const response = await api(sandbox()).post(
			'/documents',
			documentBody({ expires_at: withOffset }),
		);
		expect(response.status).toBe(201);
		expect(response.data.expires_at).toBe(new Date(Date.parse(withOffset)).toISOString());
	});
});

describe('malformed requests', () => {
	it.each([
		['truncated JSON', '{"name":"a.pdf",'],
		['not JSON at all', 'name=a.pdf'],
		['single quotes', "{'name':'a.pdf'}"],
		['trailing comma', '{"name":"a.pdf",}'],
		['binary', randomBytes(64)],
	])('invalid JSON (%s) → 400 invalid_json', async (_name, data) => {
		const response = await api(sandbox()).post('/documents', data, {
			headers: { 'Content-Type': 'application/json' },
			transformRequest: [(body) => body], // send the bytes as they are
		});
		expectError(response, 400, 'invalid_json');
	});

	/** Uploads `total` bytes to POST /documents until the sandbox answers (see uploadUntilAnswered). */
	async function uploadDocumentUntilAnswered(
		total: number,
		declareLength: boolean,
	): Promise<{ status: number; body: unknown; sent: number }> {
		const headers = {
			Authorization: `Bearer ${sandbox().apiKey}`,
			'Content-Type': 'application/json',
		};
		const answer = await uploadUntilAnswered(`${sandbox().baseUrl}/documents`, headers, total, {
			declareLength,
		});
		return { status: answer.status, body: JSON.parse(answer.text), sent: answer.sent };
	}

	it('a body declared over 15 MiB → 413 payload_too_large before it is read, and the server keeps answering', async () => {
		const total = LIMITS.maxBodyBytes + 5 * 1024 * 1024;
		const answer = await uploadDocumentUntilAnswered(total, true);
		expect(answer.status).toBe(413);
		expect(expectSchema(ErrorBodySchema, answer.body).error.code).toBe('payload_too_large');
		expect((await api(sandbox()).get('/documents')).status).toBe(200);
	});

	it('a streamed body (no Content-Length) → 413 once it passes 15 MiB', async () => {
		const answer = await uploadDocumentUntilAnswered(LIMITS.maxBodyBytes + 5 * 1024 * 1024, false);
		expect(answer.status).toBe(413);
		expect(expectSchema(ErrorBodySchema, answer.body).error.code).toBe('payload_too_large');
		// The answer came only after the limit was passed, not earlier.
		expect(answer.sent).toBeGreaterThan(LIMITS.maxBodyBytes);
		expect((await api(sandbox()).get('/documents')).status).toBe(200);
	});

	it('a file of more than 10 MiB decoded → 400 on file.data', async () => {
		const data = Buffer.alloc(LIMITS.maxFileBytes + 3).toString('base64');
		const response = await api(sandbox()).post(
			'/documents',
			documentBody({ file: { content_type: 'application/pdf', data } }),
		);
		expectError(response, 400, 'validation_error', 'file.data');
	});

	it.each([
		['get', '/nothing-here'],
		['get', '/documents/doc_x/pages'],
		['post', '/documents/doc_x/send'],
		['get', '/reports'],
	])('unknown route %s %s → 404', async (method, path) => {
		expectError(await api(sandbox()).request({ method, url: path }), 404, 'not_found');
	});

	it.each([
		['put', '/documents', 'POST, GET'],
		['patch', '/documents/doc_x', 'GET, DELETE'],
		['get', '/users/invite', 'POST'],
		['delete', '/templates', 'GET, POST'],
		['post', '/reports/usage', 'GET'],
		['get', '/signatures/sr_x/remind', 'POST'],
	])('wrong method %s %s → 405 with Allow', async (method, path, allow) => {
		const response = await api(sandbox()).request({ method, url: path });
		expectError(response, 405, 'method_not_allowed');
		expect(response.headers.allow).toBe(allow);
	});

	it('an unknown id → 404', async () => {
		const client = api(sandbox());
		expectError(await client.get('/documents/doc_0000'), 404, 'not_found');
		expectError(await client.get('/documents/%E0%A4%A'), 404, 'not_found');
	});
});

describe('garbage never crashes the server', () => {
	function rawRequest(port: number, payload: Buffer | string): Promise<string> {
		return new Promise((resolve) => {
			const socket = net.connect(port, '127.0.0.1');
			const chunks: Buffer[] = [];
			socket.on('data', (chunk) => chunks.push(chunk));
			socket.on('error', () => resolve(Buffer.concat(chunks).toString('latin1')));
			socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
			socket.setTimeout(5000, () => socket.destroy());
			socket.end(payload);
		});
	}

	it('survives random bytes, broken HTTP and hostile bodies on every route', async () => {
		const port = Number(new URL(sandbox().origin).port);
		const rawPayloads: Array<Buffer | string> = [
			randomBytes(2048),
			'GET\r\n\r\n',
			'GET /v1/documents HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n',
			'POST /v1/documents HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n',
			`GET /${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
			'GET http://evil.example/v1/documents HTTP/1.1\r\nHost: x\r\n\r\n',
			'GET //v1/documents HTTP/1.1\r\nHost: x\r\n\r\n',
			'GET /v1/documents?limit=%ZZ&q=%00 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer x\r\n\r\n',
		];
		for (const payload of rawPayloads) await rawRequest(port, payload);

		const client = api(sandbox());
		const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
		const deepObject = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
		const hostileBodies: unknown[] = [
			deep,
			deepObject,
			'null',
			'true',
			'123',
			'"string"',
			'{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}',
			JSON.stringify({
				name: 'a.pdf',
				signers: [{ email: 'a@example.com', name: 'A', __proto__: { order: 5 } }],
			}),
			JSON.stringify({ name: { $gt: '' }, signers: { length: 1e9 }, metadata: [] }),
			JSON.stringify({
				name: '\u0000\uFFFF.pdf',
				signers: [{ email: 'a@example.com', name: '\uD800' }],
			}),
			JSON.stringify({
				document_id: ['x'],
				signer_ids: [null],
				events: [{}],
				url: 1e308,
				role: ['admin'],
			}),
			'\uFEFF{"name":"bom.pdf","signers":[{"email":"a@example.com","name":"A"}]}',
		];
		const paths: Array<[string, string]> = [
			['post', '/documents'],
			['post', '/signatures/request'],
			['post', '/signatures/sr_x/remind'],
			['post', '/templates'],
			['put', '/templates/tpl_x'],
			['post', '/users/invite'],
			['put', '/users/usr_x/role'],
			['post', '/webhooks'],
		];
		for (const [method, url] of paths) {
			for (const data of hostileBodies) {
				const response = await client.request({
					method,
					url,
					data,
					headers: { 'Content-Type': 'application/json' },
					transformRequest: [(body) => body],
				});
				expect(response.status).toBeGreaterThanOrEqual(200);
				expect(response.status).toBeLessThan(500);
			}
		}
		const queries = [
			'?limit=1e3',
			'?cursor=%00%00',
			'?created_before=9999-99-99',
			'?from=2020-13-45&to=x',
			'?q=' + 'x'.repeat(5000),
			'?status[]=pending',
		];
		for (const path of [
			'/documents',
			'/reports/audit-log',
			'/reports/usage',
			'/reports/export',
			'/users',
			'/templates',
			'/webhooks',
		]) {
			for (const query of queries) {
				const response = await client.get(path + query);
				expect(response.status).toBeLessThan(500);
			}
		}

		// Still healthy, and nothing was answered with an unexpected 500.
		expect((await client.get('/documents')).status).toBe(200);
		expect(sandbox().stats().internalErrors).toBe(0);
	});
});
