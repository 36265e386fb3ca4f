import nock from 'nock';

import { startCountingServer, type ServerAnswer } from '../helpers/countingServer';
import { useInstantWaits } from '../helpers/instantWaits';
import { runDocumentSigning } from '../helpers/n8nWorkflow';

/**
 * API errors become NodeApiError with the service's message and HTTP code; what can be retried
 * without a duplicate is retried. Error bodies and failure modes the sandbox does not produce
 * are played by nock.
 */

const ORIGIN = 'http://signing.test';
const API_KEY = 'sk_live_secret_value_12345';
const credentials = { baseUrl: `${ORIGIN}/v1`, apiKey: API_KEY };
const getDocument = (id = 'doc_1', extra: Record<string, unknown> = {}) =>
	runDocumentSigning({
		parameters: {
			resource: 'document',
			operation: 'get',
			documentId: { __rl: true, mode: 'id', value: id },
			simplify: false,
		},
		credentials,
		...extra,
	});
const createDocument = (extra: Record<string, unknown> = {}) =>
	runDocumentSigning({
		parameters: {
			resource: 'document',
			operation: 'create',
			name: 'nda.pdf',
			signers: { signer: [{ email: 'ada@example.com', name: 'Ada' }] },
		},
		credentials,
		...extra,
	});

/** Attempts the retry policy makes for a 5xx to a read (the first try included). */
const MAX_ATTEMPTS = 7;

// The policy's shape is what is under test, not its seconds: its waits pass at once.
jest.mock('n8n-workflow', () =>
	jest.requireActual('../helpers/instantWaits').n8nWorkflowWithInstantWaits(),
);
useInstantWaits();
beforeAll(() => {
	nock.disableNetConnect();
	nock.enableNetConnect('127.0.0.1');
});
afterAll(() => nock.enableNetConnect());
afterEach(() => {
	const pending = nock.pendingMocks();
	nock.cleanAll();
	expect(pending).toEqual([]);
});

describe('error bodies', () => {
	test.each([
		[
			'the contract body',
			{
				error: {
					code: 'validation_error',
					message: 'signers[0].email must be an e-mail address',
					field: 'signers[0].email',
				},
			},
			'signers[0].email must be an e-mail address',
		],
		['a top-level message', { message: 'Name is required' }, 'Name is required'],
		['an error string', { error: 'Bad thing' }, 'Bad thing'],
		[
			'an errors list',
			{ errors: [{ detail: 'First problem' }, { detail: 'Second' }] },
			'First problem',
		],
		['plain text', 'Service says no', 'Service says no'],
	])('%s → NodeApiError with the service message and HTTP code', async (_title, body, message) => {
		nock(ORIGIN)
			.post('/v1/documents')
			.reply(422, body as never);
		const result = await createDocument();
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.message).toBe(message);
		expect(result.error?.httpCode).toBe('422');
	});

	test('the field the service names is in the description', async () => {
		nock(ORIGIN)
			.post('/v1/documents')
			.reply(400, {
				error: { code: 'validation_error', message: 'Invalid', field: 'signers[0].email' },
			});
		const result = await createDocument();
		expect(result.error?.description).toContain('field: signers[0].email');
		expect(result.error?.description).toContain('code: validation_error');
	});

	test('401 says to check the API key, and never shows it', async () => {
		nock(ORIGIN)
			.get('/v1/documents/doc_1')
			.reply(401, { error: { code: 'unauthorized', message: 'Invalid API key' } });
		const result = await getDocument();
		expect(result.error?.message).toBe('Invalid API key');
		expect(result.error?.httpCode).toBe('401');
		expect(result.error?.description).toContain('Check the API key');
		expect(JSON.stringify(result.run.data)).not.toContain(API_KEY);
		expect(
			`${result.error?.message} ${result.error?.description} ${result.error?.stack}`,
		).not.toContain(API_KEY);
	});

	test('an empty error body still gives a clear message', async () => {
		nock(ORIGIN).get('/v1/documents/doc_1').reply(404, '');
		const result = await getDocument();
		expect(result.error?.message).toBe('The service answered HTTP 404');
		expect(result.error?.httpCode).toBe('404');
	});
});

describe('retries', () => {
	test('a read is retried after 503s and connection resets', async () => {
		const answers: ServerAnswer[] = [
			{ status: 503, body: { error: { code: 'unavailable', message: 'down' } } },
			{ reset: true },
			{ status: 200, body: { id: 'doc_1', status: 'pending' } },
		];
		const server = await startCountingServer(() => answers.shift() ?? { status: 500 });
		try {
			const result = await getDocument('doc_1', {
				credentials: { baseUrl: server.baseUrl, apiKey: API_KEY },
			});
			expect(result.error).toBeUndefined();
			expect(result.items[0].json).toEqual({ id: 'doc_1', status: 'pending' });
			expect(server.requests).toHaveLength(3);
		} finally {
			await server.close();
		}
	});

	test('a create is retried with the same Idempotency-Key', async () => {
		const answers: ServerAnswer[] = [
			{ status: 500, body: { error: { code: 'internal_error', message: 'oops' } } },
			{ reset: true },
			{ status: 201, body: { id: 'doc_9' } },
		];
		const server = await startCountingServer(() => answers.shift() ?? { status: 500 });
		try {
			const result = await createDocument({
				credentials: { baseUrl: server.baseUrl, apiKey: API_KEY },
			});
			expect(result.items[0].json.id).toBe('doc_9');
			const keys = server.requests.map((request) => request.headers['idempotency-key']);
			expect(keys).toHaveLength(3);
			expect(keys[0]).toMatch(/^n8n-[0-9a-f]{40}$/);
			expect(new Set(keys).size).toBe(1);
		} finally {
			await server.close();
		}
	});

	test('different items and different executions get different keys', async () => {
		const keys: string[] = [];
		nock(ORIGIN)
			.post('/v1/documents')
			.times(4)
			.reply(function () {
				keys.push(String(this.req.headers['idempotency-key']));
				return [201, { id: `doc_${keys.length}` }];
			});
		await createDocument({ items: [{ json: {} }, { json: {} }], executionId: 'exec-1' });
		await createDocument({ items: [{ json: {} }, { json: {} }], executionId: 'exec-2' });
		expect(new Set(keys).size).toBe(4);
	});

	test('429 waits for Retry-After, then succeeds', async () => {
		nock(ORIGIN)
			.get('/v1/documents/doc_1')
			.reply(429, { error: { code: 'rate_limited', message: 'Slow down' } }, { 'Retry-After': '0' })
			.get('/v1/documents/doc_1')
			.reply(200, { id: 'doc_1' });
		const result = await getDocument();
		expect(result.items[0].json).toEqual({ id: 'doc_1' });
	});

	test('client errors are not retried', async () => {
		nock(ORIGIN)
			.get('/v1/documents/doc_1')
			.once()
			.reply(404, { error: { code: 'not_found', message: 'No such document' } });
		const result = await getDocument();
		expect(result.error?.message).toBe('No such document');
		expect(result.error?.httpCode).toBe('404');
	});

	test('a 5xx that persists fails after the policy’s attempts, with the service message', async () => {
		nock(ORIGIN)
			.get('/v1/documents/doc_1')
			.times(MAX_ATTEMPTS)
			.reply(502, { message: 'Bad gateway' });
		const result = await getDocument();
		expect(result.error?.message).toBe('Bad gateway');
		expect(result.error?.httpCode).toBe('502');
	});

	test('a delete whose answer was lost counts as done when the retry finds nothing', async () => {
		const answers: ServerAnswer[] = [
			{ reset: true },
			{ status: 404, body: { error: { code: 'not_found', message: 'No such document' } } },
		];
		const server = await startCountingServer(() => answers.shift() ?? { status: 500 });
		try {
			const result = await runDocumentSigning({
				parameters: {
					resource: 'document',
					operation: 'delete',
					documentId: { __rl: true, mode: 'id', value: 'doc_1' },
				},
				credentials: { baseUrl: server.baseUrl, apiKey: API_KEY },
			});
			expect(result.error).toBeUndefined();
			expect(result.items[0].json).toEqual({ id: 'doc_1', deleted: true });
			expect(server.requests.map((request) => request.method)).toEqual(['DELETE', 'DELETE']);
		} finally {
			await server.close();
		}
	});

	test('a delete that finds nothing at the first try is an error', async () => {
		nock(ORIGIN)
			.delete('/v1/documents/doc_1')
			.reply(404, { error: { code: 'not_found', message: 'No such document' } });
		const result = await runDocumentSigning({
			parameters: {
				resource: 'document',
				operation: 'delete',
				documentId: { __rl: true, mode: 'id', value: 'doc_1' },
			},
			credentials,
		});
		expect(result.error?.httpCode).toBe('404');
	});

	test('an unreachable service gives a clear error quickly', async () => {
		const result = await runDocumentSigning({
			parameters: {
				resource: 'document',
				operation: 'get',
				documentId: { __rl: true, mode: 'id', value: 'doc_1' },
			},
			credentials: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: API_KEY },
		});
		expect(result.error?.message).toBe('Could not reach the Document Signing service');
		expect(result.error?.description).toContain('ECONNREFUSED');
		expect(result.error?.description).toContain('Base URL');
	});
});

describe('continue on fail', () => {
	test('failed items become error items paired with their input; the others go on', async () => {
		nock(ORIGIN)
			.get('/v1/documents/doc_ok')
			.reply(200, { id: 'doc_ok' })
			.get('/v1/documents/doc_gone')
			.reply(404, { error: { code: 'not_found', message: 'No such document' } });
		const result = await runDocumentSigning({
			parameters: {
				resource: 'document',
				operation: 'get',
				documentId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
				simplify: false,
			},
			items: [{ json: { id: 'doc_gone' } }, { json: { id: 'doc_ok' } }],
			continueOnFail: true,
			credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(2);
		expect(result.items[0]).toMatchObject({
			json: { error: 'No such document' },
			pairedItem: { item: 0 },
		});
		expect(result.items[1]).toMatchObject({ json: { id: 'doc_ok' }, pairedItem: { item: 1 } });
	});
});
