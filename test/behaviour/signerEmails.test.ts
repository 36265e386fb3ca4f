/**
 * A signer's email is checked without backtracking: one long address from the input item never
 * holds n8n. Servers listen on 127.0.0.1 only. Each test's first comment says what the code before
 * the fix did (the test fails on it).
 */
import type { INodeParameters } from 'n8n-workflow';

import { startCountingServer } from '../helpers/countingServer';
import { runDocumentSigning } from '../helpers/n8nWorkflow';

const API_KEY = 'sk_test_round_four';

/** Document › Create with one signer whose email comes from the input item. */
const createWithSignerEmail = {
	resource: 'document',
	operation: 'create',
	name: 'contract.pdf',
	signers: { signer: [{ email: '={{ $json.email }}', name: 'Ann' }] },
} satisfies INodeParameters;

describe('one long signer email never holds n8n (finding 37.1)', () => {
	/** Create with `email` as its one signer's, against a server answering 201: the error, or none. */
	async function createWith(email: string) {
		const server = await startCountingServer(() => ({ status: 201, body: { id: 'doc_1' } }));
		try {
			const { error } = await runDocumentSigning({
				parameters: createWithSignerEmail,
				items: [{ json: { email } }],
				credentials: { baseUrl: server.baseUrl, apiKey: API_KEY },
			});
			return { error: error?.message, sent: server.requests.length };
		} finally {
			await server.close();
		}
	}

	// Old: the pattern backtracked on a domain of dots: 7.9 s for this value.
	test('a 64,000-dot domain is no address, and checking it does not backtrack', async () => {
		const started = performance.now();
		for (const email of [`a@${'.'.repeat(64_000)}@`, `a@${'b.'.repeat(50_000)}cc`])
			expect(await createWith(email)).toEqual({
				error: expect.stringMatching(
					/^Signers › Signer 1 › Email: .* is not a valid email address$/,
				),
				sent: 0,
			});
		expect(performance.now() - started).toBeLessThan(2_000);
	});

	test.each([
		['ann@example.com', true],
		['ann.lee+deals@mail.example.co.uk', true],
		['ann@example', false],
		['ann@example.c', false],
		['ann@@example.com', false],
		['ann@exa..mple.com', false],
		['@example.com', false],
		['ann lee@example.com', false],
		[`${'a'.repeat(65)}@example.com`, false],
		[`ann@${'a'.repeat(250)}.com`, false],
	])('%s is an address: %s', async (email, valid) => {
		expect(await createWith(email)).toEqual(
			valid
				? { error: undefined, sent: 1 }
				: {
						error: expect.stringMatching(
							/^Signers › Signer 1 › Email: .* is not a valid email address$/,
						),
						sent: 0,
					},
		);
	});

	// Old: 3.15 s for a 40,000-character email through the node, and the error repeated it whole.
	test('Create with a 100,000-character email from the input item fails as fast as a short bad one, naming the field, with a short message and nothing sent', async () => {
		const server = await startCountingServer(() => ({ status: 201, body: { id: 'doc_1' } }));
		try {
			const run = async (email: string) => {
				const started = performance.now();
				const result = await runDocumentSigning({
					parameters: createWithSignerEmail,
					items: [{ json: { email } }],
					credentials: { baseUrl: server.baseUrl, apiKey: API_KEY },
				});
				return { result, ms: performance.now() - started };
			};
			const ordinary = await run('not-an-email');
			const long = await run(`a@${'.'.repeat(100_000)}@`);
			expect(long.result.error?.message).toMatch(
				/^Signers › Signer 1 › Email: "a@\.{78}…" \(100003 characters\) is not a valid email address$/,
			);
			expect(long.result.error!.message.length).toBeLessThan(200);
			expect(ordinary.result.error?.message).toBe(
				'Signers › Signer 1 › Email: "not-an-email" is not a valid email address',
			);
			// Far from the seconds a backtracking check takes: the long value costs about what the short one does.
			expect(long.ms).toBeLessThan(ordinary.ms * 5 + 500);
			expect(server.requests).toHaveLength(0);
		} finally {
			await server.close();
		}
	});
});
