/** Idempotency-Key on POST: replay, conflict, concurrent duplicates, 5xx not stored. */
import { randomUUID } from 'crypto';

import { DocumentSchema, SigningRequestSchema } from '../../contract';
import { api, documentBody, expectError, expectSchema, useSandbox } from '../helpers/sandbox';

const sandbox = useSandbox();

function fresh() {
	const { apiKey } = sandbox().createAccount();
	return { client: api(sandbox(), apiKey), apiKey };
}

describe('Idempotency-Key', () => {
	it('replays the first answer for the same key and body, creating nothing new', async () => {
		const { client, apiKey } = fresh();
		const key = randomUUID();
		const first = await client.post('/documents', documentBody(), {
			headers: { 'Idempotency-Key': key },
		});
		expect(first.status).toBe(201);
		expect(first.headers['idempotent-replayed']).toBeUndefined();

		// Same JSON value with other key order and spacing counts as the same body.
		const reordered = JSON.stringify(
			{ signers: documentBody().signers, name: 'contract.pdf' },
			null,
			2,
		);
		const second = await client.post('/documents', reordered, {
			headers: { 'Idempotency-Key': key, 'Content-Type': 'application/json' },
			transformRequest: [(body) => body],
		});
		expect(second.status).toBe(201);
		expect(second.headers['idempotent-replayed']).toBe('true');
		expect(second.data).toEqual(first.data);
		expectSchema(DocumentSchema, second.data);
		expect(sandbox().store.documentsOf(apiKey)).toHaveLength(1);
		expect(
			sandbox()
				.store.auditLogOf(apiKey)
				.filter((entry) => entry.event === 'document.created'),
		).toHaveLength(1);
	});

	it('the same key with a different body is 409 idempotency_conflict', async () => {
		const { client, apiKey } = fresh();
		const key = randomUUID();
		expect(
			(await client.post('/documents', documentBody(), { headers: { 'Idempotency-Key': key } }))
				.status,
		).toBe(201);
		const response = await client.post('/documents', documentBody({ name: 'other.pdf' }), {
			headers: { 'Idempotency-Key': key },
		});
		expectError(response, 409, 'idempotency_conflict', 'Idempotency-Key');
		expect(sandbox().store.documentsOf(apiKey)).toHaveLength(1);
	});

	it('the same key on another endpoint is a conflict too', async () => {
		const { client } = fresh();
		const key = randomUUID();
		expect(
			(await client.post('/templates', { name: 'T' }, { headers: { 'Idempotency-Key': key } }))
				.status,
		).toBe(201);
		expectError(
			await client.post('/webhooks', { name: 'T' }, { headers: { 'Idempotency-Key': key } }),
			409,
			'idempotency_conflict',
		);
	});

	it('keys are per account: another account with the same key gets its own record', async () => {
		const a = fresh();
		const b = fresh();
		const key = randomUUID();
		const first = await a.client.post('/documents', documentBody(), {
			headers: { 'Idempotency-Key': key },
		});
		const second = await b.client.post('/documents', documentBody(), {
			headers: { 'Idempotency-Key': key },
		});
		expect(second.status).toBe(201);
		expect(second.headers['idempotent-replayed']).toBeUndefined();
		expect(second.data.id).not.toBe(first.data.id);
	});

	it('concurrent identical requests create exactly one record', async () => {
		const { client, apiKey } = fresh();
		const key = randomUUID();
		const responses = await Promise.all(
			Array.from({ length: 12 }, () =>
				client.post('/documents', documentBody(), { headers: { 'Idempotency-Key': key } }),
			),
		);
		expect(responses.map((response) => response.status)).toEqual(Array(12).fill(201));
		expect(new Set(responses.map((response) => response.data.id)).size).toBe(1);
		expect(
			responses.filter((response) => response.headers['idempotent-replayed'] === 'true'),
		).toHaveLength(11);
		expect(sandbox().store.documentsOf(apiKey)).toHaveLength(1);
	});

	it('a 4xx answer is stored and replayed as well', async () => {
		const { client } = fresh();
		const key = randomUUID();
		const first = await client.post(
			'/documents',
			{ name: 'no-signers.pdf' },
			{ headers: { 'Idempotency-Key': key } },
		);
		expectError(first, 400, 'validation_error', 'signers');
		const second = await client.post(
			'/documents',
			{ name: 'no-signers.pdf' },
			{ headers: { 'Idempotency-Key': key } },
		);
		expect(second.headers['idempotent-replayed']).toBe('true');
		expect(second.data).toEqual(first.data);
	});

	it('actions are idempotent too: one reminder for two identical remind calls', async () => {
		const { client } = fresh();
		const document = expectSchema(
			DocumentSchema,
			(await client.post('/documents', documentBody())).data,
		);
		const key = randomUUID();
		const path = `/signatures/${document.signature_request_id}/remind`;
		await client.post(path, {}, { headers: { 'Idempotency-Key': key } });
		const again = await client.post(path, {}, { headers: { 'Idempotency-Key': key } });
		expect(expectSchema(SigningRequestSchema, again.data).reminders_sent).toBe(1);
		const current = expectSchema(
			SigningRequestSchema,
			(await client.get(`/signatures/${document.signature_request_id}`)).data,
		);
		expect(current.reminders_sent).toBe(1);
	});

	it('an injected 5xx is not stored: the retry with the same key really runs', async () => {
		const { client, apiKey } = fresh();
		const key = randomUUID();
		sandbox().configure({ failureRate: 1, failureStatuses: [503] });
		try {
			expectError(
				await client.post('/documents', documentBody(), { headers: { 'Idempotency-Key': key } }),
				503,
				'unavailable',
			);
		} finally {
			sandbox().configure({ failureRate: 0 });
		}
		expect(sandbox().store.documentsOf(apiKey)).toHaveLength(0);
		const retry = await client.post('/documents', documentBody(), {
			headers: { 'Idempotency-Key': key },
		});
		expect(retry.status).toBe(201);
		expect(retry.headers['idempotent-replayed']).toBeUndefined();
		expect(sandbox().store.documentsOf(apiKey)).toHaveLength(1);
	});

	it('refuses an empty or over-long key, and copes with a deeply nested body', async () => {
		const { client } = fresh();
		expectError(
			await client.post('/documents', documentBody(), {
				headers: { 'Idempotency-Key': 'k'.repeat(256) },
			}),
			400,
			'validation_error',
			'Idempotency-Key',
		);
		expectError(
			await client.post('/documents', documentBody(), { headers: { 'Idempotency-Key': '' } }),
			400,
			'validation_error',
			'Idempotency-Key',
		);

		const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
		const options = {
			headers: { 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' },
			transformRequest: [(body: unknown) => body],
		};
		const first = await client.post('/documents', deep, options);
		expect(first.status).toBe(400);
		const second = await client.post('/documents', deep, options);
		expect(second.headers['idempotent-replayed']).toBe('true');
		expect(sandbox().stats().internalErrors).toBe(0);
	});

	it('keys expire after 24 hours', async () => {
		const { client, apiKey } = fresh();
		const key = randomUUID();
		await client.post('/templates', { name: 'T' }, { headers: { 'Idempotency-Key': key } });
		sandbox().advanceClock(24 * 3600 + 1);
		const again = await client.post(
			'/templates',
			{ name: 'T' },
			{ headers: { 'Idempotency-Key': key } },
		);
		expect(again.status).toBe(201);
		expect(again.headers['idempotent-replayed']).toBeUndefined();
		expect(sandbox().store.templatesOf(apiKey)).toHaveLength(2);
	});
});
