/**
 * Every request and every wait ends within its bound, whatever the service does. Servers listen on
 * 127.0.0.1 only. Each test's first comment says what the code before the fix did (the test fails
 * on it).
 */
import { randomUUID } from 'crypto';
import type { INode } from 'n8n-workflow';

import { searchDocuments } from '../../nodes/DocumentSigning/listSearch';
import { sendWithRetries, TIME_LIMITS } from '../../nodes/shared/transport/retry';
import { loadOptionsContext, runDocumentSigning } from '../helpers/n8nWorkflow';
import {
	withCountingServer,
	withRawServer,
	useSecuritySuite,
	API_KEY,
} from '../helpers/securityKit';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../helpers/instantWaits').n8nWorkflowWithInstantWaits(),
);

useSecuritySuite();

describe('every request and every wait ends within its bound (finding 22.5)', () => {
	const saved = { ...TIME_LIMITS };
	afterEach(() => {
		Object.assign(TIME_LIMITS, saved);
	});

	// Old: no timeout unless one was given; a service that never answers held the item forever.
	test('a service that accepts and never answers: the item fails as timed out within the bound', async () => {
		Object.assign(TIME_LIMITS, { attemptMs: 300 });
		await withRawServer(
			() => undefined,
			async (baseUrl) => {
				const started = Date.now();
				const result = await runDocumentSigning({
					parameters: {
						resource: 'document',
						operation: 'get',
						documentId: { __rl: true, mode: 'id', value: 'doc_1' },
					},
					credentials: { baseUrl, apiKey: API_KEY },
				});
				expect(result.error?.message).toBe('Could not reach the Document Signing service');
				expect(result.error?.description).toContain('ETIMEDOUT');
				// Unbounded, it would never end: any end well inside the test's own bound is the bound's.
				expect(Date.now() - started).toBeLessThan(60_000);
			},
		);
	}, 90_000);

	// Old: a request queued for a slot waited for it without any bound.
	test("a request waiting for a slot while all of its key's slots hang gives up at the request's bound", async () => {
		const gateKey = `hang-${randomUUID()}`;
		const node = { name: 'Document Signing' } as INode;
		const releases: Array<() => void> = [];
		// All 8 of the key's slots (the policy's requests in flight per credential).
		const hanging = Array.from({ length: 8 }, () =>
			sendWithRetries(
				{ node, gateKey, idempotent: true },
				() => new Promise<void>((resolve) => releases.push(resolve)),
			).catch(() => undefined),
		);
		const started = Date.now();
		// A bound of 0.5 s, as a list search sets its own (a slot's wait runs on a real timer).
		await expect(
			sendWithRetries({ node, gateKey, idempotent: true, maxTotalWaitMs: 500 }, async () => 'sent'),
		).rejects.toThrow(/No request slot for this credential came free within 0.5 s/);
		expect(Date.now() - started).toBeLessThan(60_000);
		for (const release of releases) release();
		await Promise.all(hanging);
	}, 90_000);

	// Old: a list search (no cancel signal in n8n) kept retrying 429s for up to 5 minutes.
	test('a list search under endless 429s ends within its own bound', async () => {
		Object.assign(TIME_LIMITS, { listSearchMs: 800 });
		await withCountingServer(
			() => ({
				status: 429,
				body: { error: { message: 'slow down' } },
				headers: { 'retry-after': '0.2' },
			}),
			async (server) => {
				const started = Date.now();
				await expect(
					searchDocuments.call(loadOptionsContext({ baseUrl: server.baseUrl, apiKey: API_KEY })),
				).rejects.toThrow();
				// Far below the 5 minutes a workflow's request may wait: the list search's own bound ended it.
				expect(Date.now() - started).toBeLessThan(60_000);
			},
		);
	}, 90_000);
});
