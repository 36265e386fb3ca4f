/**
 * A DELETE whose answer was lost is retried once the service is asked: a 404 on the repeat means
 * the first one worked. Servers listen on 127.0.0.1 only. Each test's first comment says what the
 * code before the fix did (the test fails on it).
 */

import { type ServerAnswer } from '../helpers/countingServer';
import { runDocumentSigning } from '../helpers/n8nWorkflow';
import { withCountingServer, useSecuritySuite, API_KEY } from '../helpers/securityKit';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../helpers/instantWaits').n8nWorkflowWithInstantWaits(),
);

useSecuritySuite();

describe('DELETE after a lost answer (finding 6)', () => {
	const deleteDocument = (baseUrl: string) =>
		runDocumentSigning({
			parameters: {
				resource: 'document',
				operation: 'delete',
				documentId: { __rl: true, mode: 'id', value: 'doc_1' },
			},
			credentials: { baseUrl, apiKey: API_KEY },
		});
	const notFound = {
		status: 404,
		body: { error: { code: 'not_found', message: 'No such document' } },
	};

	// Old: any 404 after a retry counted as "deleted", even when the first attempt was a 503 (which deleted nothing).
	test('503 then 404 fails with the 404, not "deleted"', async () => {
		const answers: ServerAnswer[] = [
			{ status: 503, body: { error: { code: 'unavailable', message: 'down' } } },
			notFound,
		];
		await withCountingServer(
			() => answers.shift() ?? { status: 500 },
			async (server) => {
				const result = await deleteDocument(server.baseUrl);
				expect(result.items).toEqual([]);
				expect(result.error?.httpCode).toBe('404');
				expect(result.error?.message).toBe('No such document');
				expect(server.requests.map((request) => request.method)).toEqual(['DELETE', 'DELETE']);
			},
		);
	});

	test('connection reset after sending, then 404 on the retry → { id, deleted: true }', async () => {
		const answers: ServerAnswer[] = [{ reset: true }, notFound];
		await withCountingServer(
			() => answers.shift() ?? { status: 500 },
			async (server) => {
				const result = await deleteDocument(server.baseUrl);
				expect(result.error).toBeUndefined();
				expect(result.items.map((item) => item.json)).toEqual([{ id: 'doc_1', deleted: true }]);
				expect(server.requests.map((request) => request.method)).toEqual(['DELETE', 'DELETE']);
			},
		);
	});
});
