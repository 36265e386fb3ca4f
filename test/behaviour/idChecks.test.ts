/**
 * Ids are checked before any request: typed ids "." and ".." (and their encodings) are refused,
 * and ids and links that the service returns are checked like typed ids. Servers listen on
 * 127.0.0.1 only. Each test's first comment says what the code before the fix did (the test fails
 * on it).
 */

import { startCountingServer } from '../helpers/countingServer';
import { runDocumentSigning } from '../helpers/n8nWorkflow';
import {
	withCountingServer,
	useSecuritySuite,
	API_KEY,
	downloadDocument,
} from '../helpers/securityKit';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../helpers/instantWaits').n8nWorkflowWithInstantWaits(),
);

useSecuritySuite();

describe('ids "." and ".." are refused before any request (finding 5)', () => {
	const rl = (value: string) => ({ __rl: true, mode: 'id', value });
	const byId = '={{ $json.id }}';
	const cases: Array<[string, Record<string, unknown>, string]> = [
		[
			'Document › Get',
			{ resource: 'document', operation: 'get', documentId: rl(byId) },
			'Document',
		],
		[
			'Document › Delete',
			{ resource: 'document', operation: 'delete', documentId: rl(byId) },
			'Document',
		],
		[
			'Signing Request › Create',
			{ resource: 'signingRequest', operation: 'create', draftDocumentId: rl(byId) },
			'Document',
		],
		[
			'Signing Request › Get Status',
			{ resource: 'signingRequest', operation: 'getStatus', signingRequestId: byId },
			'Signing Request ID',
		],
		[
			'Signing Request › Remind',
			{ resource: 'signingRequest', operation: 'remind', signingRequestId: byId },
			'Signing Request ID',
		],
		[
			'Template › Update',
			{
				resource: 'template',
				operation: 'update',
				templateId: rl(byId),
				updateFields: { name: 'NDA' },
			},
			'Template',
		],
		[
			'Team Member › Update Role',
			{ resource: 'teamMember', operation: 'updateRole', teamMemberId: rl(byId), role: 'admin' },
			'Team Member',
		],
		[
			'Webhook › Delete',
			{ resource: 'webhook', operation: 'delete', webhookId: byId },
			'Webhook ID',
		],
		[
			'Webhook › Get Delivery (webhook)',
			{ resource: 'webhook', operation: 'getDelivery', webhookId: byId, deliveryId: 'dlv_1' },
			'Webhook ID',
		],
		[
			'Webhook › Get Delivery (delivery)',
			{ resource: 'webhook', operation: 'getDelivery', webhookId: 'wh_1', deliveryId: byId },
			'Delivery ID',
		],
		[
			'Webhook › Acknowledge Delivery (webhook)',
			{
				resource: 'webhook',
				operation: 'acknowledgeDelivery',
				webhookId: byId,
				deliveryId: 'dlv_1',
			},
			'Webhook ID',
		],
		[
			'Webhook › Acknowledge Delivery (delivery)',
			{
				resource: 'webhook',
				operation: 'acknowledgeDelivery',
				webhookId: 'wh_1',
				deliveryId: byId,
			},
			'Delivery ID',
		],
	];
	const table = cases.flatMap(([title, parameters, label]) =>
		['.', '..'].map((id) => [title, id, parameters, label] as const),
	);

	let server: Awaited<ReturnType<typeof startCountingServer>>;
	beforeAll(async () => {
		server = await startCountingServer((request) => ({
			status: request.method === 'DELETE' ? 204 : 200,
			body: { id: 1004, name: 'x.pdf' },
		}));
	});
	afterAll(async () => await server.close());
	beforeEach(() => {
		server.requests.length = 0;
	});

	// Old: `.`/`..` were encoded as themselves and normalised away (Get Document "." read the list; ".." another resource).
	test.each(table)(
		'%s with id "%s" → an error naming the parameter, nothing sent',
		async (_title, id, parameters, label) => {
			const result = await runDocumentSigning({
				parameters: parameters as never,
				items: [{ json: { id } }],
				credentials: { baseUrl: server.baseUrl, apiKey: API_KEY },
			});
			expect(result.error?.message).toBe(`${label}: "${id}" is not a valid ID`);
			expect(server.requests).toEqual([]);
		},
	);

	// Old: a JSON number from an expression was refused as "not a string" or sent as "[object]"-like text.
	test.each([
		[
			'Document › Get',
			{ resource: 'document', operation: 'get', documentId: rl(byId), simplify: false },
			'GET',
			'/v1/documents/1004',
		],
		[
			'Webhook › Delete',
			{ resource: 'webhook', operation: 'delete', webhookId: byId },
			'DELETE',
			'/v1/webhooks/1004',
		],
		[
			'Webhook › Get Delivery',
			{
				resource: 'webhook',
				operation: 'getDelivery',
				webhookId: byId,
				deliveryId: '={{ $json.id + 1 }}',
			},
			'GET',
			'/v1/webhooks/1004/deliveries/1005',
		],
	])('a numeric id works: %s', async (_title, parameters, method, path) => {
		const result = await runDocumentSigning({
			parameters: parameters as never,
			items: [{ json: { id: 1004 } }],
			credentials: { baseUrl: server.baseUrl, apiKey: API_KEY },
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(server.requests.map((request) => [request.method, request.url])).toEqual([
			[method, path],
		]);
	});
});

describe('ids and links from the service are checked like typed ids (finding 22.3)', () => {
	// Old: the record's id ".." was placed in the path and normalised away: GET /v1/file.
	test('a record id ".." from the service: refused, nothing requested with it', async () => {
		await withCountingServer(
			() => ({ status: 200, body: { id: '..', name: 'x.pdf', status: 'completed' } }),
			async (server) => {
				const result = await downloadDocument(server.baseUrl);
				expect(result.error?.message).toContain('cannot be used in a request path');
				expect(server.requests.map((request) => request.url)).toEqual(['/v1/documents/doc_1']);
			},
		);
	});

	// Old: only the origin was compared, so the key went to /admin/keys/export.
	test("a file link on the same origin but outside the Base URL's path: refused, nothing requested there", async () => {
		await withCountingServer(
			() => ({
				status: 200,
				body: {
					id: 'doc_1',
					name: 'x.pdf',
					status: 'completed',
					signed_file_url: '/admin/keys/export',
				},
			}),
			async (server) => {
				const result = await downloadDocument(server.baseUrl);
				expect(result.error?.message).toContain("outside the Base URL's path (/admin/keys/export)");
				expect(server.requests.map((request) => request.url)).toEqual(['/v1/documents/doc_1']);
			},
		);
	});
});
