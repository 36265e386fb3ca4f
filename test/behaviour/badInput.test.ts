import { badInputCases, createDocument } from '../helpers/badInputCases';
import { startCountingServer } from '../helpers/countingServer';
import { runDocumentSigning } from '../helpers/n8nWorkflow';

/**
 * Bad input is refused with a NodeOperationError that names the parameter, and nothing is sent.
 * Each case runs through n8n's real routing engine against a server that counts requests.
 */

const cases = badInputCases;

describe('bad input is refused before any request', () => {
	let server: Awaited<ReturnType<typeof startCountingServer>>;
	beforeAll(async () => {
		server = await startCountingServer(() => ({ status: 201, body: { id: 'x' } }));
	});
	afterAll(async () => await server.close());
	beforeEach(() => server.requests.splice(0));

	test('the table covers at least 15 kinds of bad input', () => {
		expect(cases.length).toBeGreaterThanOrEqual(15);
	});

	test.each(cases)('$title', async ({ parameters, items, message }) => {
		const result = await runDocumentSigning({
			parameters,
			items,
			credentials: { baseUrl: server.baseUrl, apiKey: 'sk_test_bad_input' },
		});
		// n8n's routing engine re-wraps a failed item's error as NodeApiError (keeping message and
		// description); its HTTP code stays 'none' because no HTTP exchange took place.
		expect(result.error?.httpCode).toBe('none');
		if (typeof message === 'string') expect(result.error?.message).toBe(message);
		else expect(result.error?.message).toMatch(message);
		expect(server.requests).toHaveLength(0);
	});

	test('n8n itself refuses a required parameter left empty, before the node runs', async () => {
		const result = await runDocumentSigning({
			parameters: {
				resource: 'webhook',
				operation: 'create',
				url: 'https://example.com/hook',
				events: [],
			},
			credentials: { baseUrl: server.baseUrl, apiKey: 'sk_test_bad_input' },
		});
		expect(result.error?.message).toContain('Parameter "Events" is required');
		expect(server.requests).toHaveLength(0);
	});

	test('with continue-on-fail, only the bad item fails and it stays paired with its input', async () => {
		const items = [
			{ json: { email: 'a@example.com' } },
			{ json: { email: 'broken' } },
			{ json: { email: 'c@example.com' } },
		];
		const result = await runDocumentSigning({
			parameters: createDocument({
				signers: { signer: [{ email: '={{ $json.email }}', name: 'Signer' }] },
			}),
			items,
			continueOnFail: true,
			credentials: { baseUrl: server.baseUrl, apiKey: 'sk_test_bad_input' },
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(3);
		expect(result.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		expect(result.items[1].json.error).toBe(
			'Signers › Signer 1 › Email: "broken" is not a valid email address',
		);
		expect(result.items[1].error?.name).toBe('NodeOperationError');
		expect(result.items[0].json.id).toBe('x');
		expect(
			server.requests.map((request) => JSON.parse(request.body).signers[0].email).sort(),
		).toEqual(['a@example.com', 'c@example.com']);
	});
});
