import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { startCountingServer } from '../helpers/countingServer';
import { runDocumentSigning } from '../helpers/n8nWorkflow';

/**
 * Bad input is refused with a NodeOperationError that names the parameter, and nothing is sent.
 * Each case runs through n8n's real routing engine against a server that counts requests.
 */

const signer = (overrides: Record<string, unknown> = {}) => ({ email: 'ada@example.com', name: 'Ada Lovelace', ...overrides });
const createDocument = (overrides: INodeParameters = {}): INodeParameters => ({
	resource: 'document',
	operation: 'create',
	name: 'contract.pdf',
	signers: { signer: [signer()] },
	...overrides,
});
const pdf = (bytes = Buffer.from('%PDF-1.7 test'), mimeType = 'application/pdf'): INodeExecutionData => ({
	json: {},
	binary: { data: { data: bytes.toString('base64'), mimeType, fileName: 'contract.pdf' } },
});

interface Case {
	title: string;
	parameters: INodeParameters;
	items?: INodeExecutionData[];
	message: string | RegExp;
}

const cases: Case[] = [
	{ title: 'empty document name', parameters: createDocument({ name: '  ' }), message: 'Document Name: must not be empty' },
	{ title: 'document name without extension', parameters: createDocument({ name: 'contract' }), message: 'Document Name: "contract" has no file extension' },
	{ title: 'no signers', parameters: createDocument({ signers: {} }), message: 'Signers: add at least one signer' },
	{
		title: 'invalid signer email',
		parameters: createDocument({ signers: { signer: [signer(), signer({ email: 'bob@' })] } }),
		message: 'Signers › Signer 2 › Email: "bob@" is not a valid email address',
	},
	{
		title: 'signer name that resolves to nothing',
		parameters: createDocument({ signers: { signer: [signer({ name: '={{ $json.contactName }}' })] } }),
		items: [{ json: { contactName: '' } }],
		message: 'Signers › Signer 1 › Name: must not be empty',
	},
	{
		title: 'same signer twice',
		parameters: createDocument({ signers: { signer: [signer(), signer({ email: 'ADA@example.com' })] } }),
		message: 'Signers › Signer 2 › Email: ADA@example.com is listed more than once',
	},
	{
		title: 'SMS code without a phone number',
		parameters: createDocument({ signers: { signer: [signer({ authentication: 'sms_otp' })] } }),
		message: 'Signers › Signer 1 › Phone: must not be empty',
	},
	{
		title: 'missing binary property',
		parameters: createDocument({ attachFile: true, binaryPropertyName: 'contract' }),
		items: [pdf()],
		message: 'Input Binary Field: the input item has no binary field "contract"',
	},
	{
		title: 'unsupported file type',
		parameters: createDocument({ attachFile: true, binaryPropertyName: 'data' }),
		items: [pdf(Buffer.from('hello'), 'text/plain')],
		message: 'Input Binary Field: files of type "text/plain" are not accepted',
	},
	{
		title: 'file over 10 MB',
		parameters: createDocument({ attachFile: true, binaryPropertyName: 'data' }),
		items: [pdf(Buffer.alloc(10 * 1024 * 1024 + 1, 1))],
		message: 'Input Binary Field: the file is 10.0 MB; the limit is 10 MB',
	},
	{
		title: 'extension not matching the file',
		parameters: createDocument({ name: 'contract.docx', attachFile: true, binaryPropertyName: 'data' }),
		items: [pdf()],
		message: 'Document Name: the extension ".docx" does not match the attached PDF file',
	},
	{
		title: 'malformed extra body JSON',
		parameters: createDocument({ additionalFields: { extraBodyFields: '{"a": 1,' } }),
		message: /^Extra Body Fields \(JSON\): is not valid JSON/,
	},
	{
		title: 'metadata that is not an object',
		parameters: createDocument({ additionalFields: { metadata: '[1, 2]' } }),
		message: 'Additional Fields › Metadata (JSON): must be a JSON object',
	},
	{
		title: 'metadata with a nested value',
		parameters: createDocument({ additionalFields: { metadata: '{"deal": {"id": 1}}' } }),
		message: 'Additional Fields › Metadata (JSON): the value of "deal" must be text, a number or true/false',
	},
	{
		title: 'phone number not in international format',
		parameters: createDocument({ signers: { signer: [signer({ authentication: 'sms_otp', phone: '0612345678' })] } }),
		message: 'Signers › Signer 1 › Phone: "0612345678" is not an international number such as +15551234567',
	},
	{
		title: 'expiry in the past',
		parameters: createDocument({ additionalFields: { expires_at: '2001-01-01T00:00:00' } }),
		message: 'Additional Fields › Expires At: must be in the future',
	},
	{
		title: 'expiry that is not a date',
		parameters: createDocument({ additionalFields: { expires_at: 'next tuesday-ish' } }),
		message: 'Additional Fields › Expires At: "next tuesday-ish" is not a valid date',
	},
	{
		title: 'document ID that resolves to nothing',
		parameters: { resource: 'document', operation: 'get', documentId: { __rl: true, mode: 'id', value: '={{ $json.documentId }}' } },
		items: [{ json: {} }],
		message: 'Document: must not be empty',
	},
	{
		title: 'document ID with a slash',
		parameters: { resource: 'document', operation: 'delete', documentId: { __rl: true, mode: 'id', value: '={{ "../users" }}' } },
		message: 'Document: "../users" is not a valid ID',
	},
	{
		title: 'signing request without an ID',
		parameters: { resource: 'signingRequest', operation: 'remind', signingRequestId: '={{ $json.requestId }}' },
		items: [{ json: { requestId: ' ' } }],
		message: 'Signing Request ID: must not be empty',
	},
	{
		title: 'invite with an invalid email',
		parameters: { resource: 'teamMember', operation: 'invite', email: 'not-an-email', role: 'member' },
		message: 'Email: "not-an-email" is not a valid email address',
	},
	{
		title: 'custom role that resolves to nothing',
		parameters: {
			resource: 'teamMember',
			operation: 'updateRole',
			teamMemberId: { __rl: true, mode: 'id', value: 'usr_1' },
			role: '__custom',
			customRole: '={{ $json.role }}',
		},
		items: [{ json: { role: '' } }],
		message: 'Role Name: must not be empty',
	},
	{
		title: 'template update with nothing to change',
		parameters: { resource: 'template', operation: 'update', templateId: { __rl: true, mode: 'id', value: 'tpl_1' }, updateFields: {} },
		message: 'Update Fields: add at least one field to change',
	},
	{
		title: 'webhook URL that is not a URL',
		parameters: { resource: 'webhook', operation: 'create', url: 'example.com/hook', events: ['document.completed'] },
		message: 'URL: "example.com/hook" is not a valid URL',
	},
	{
		title: 'report period that ends before it starts',
		parameters: { resource: 'report', operation: 'usage', from: '2026-11-10T00:00:00', to: '2026-11-01T00:00:00' },
		message: 'From: must not be after To',
	},
];

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
		const result = await runDocumentSigning({ parameters, items, credentials: { baseUrl: server.baseUrl, apiKey: 'sk_test_bad_input' } });
		expect(result.error).toBeDefined();
		// n8n's routing engine re-wraps a failed item's error as NodeApiError (keeping message and
		// description); its HTTP code stays 'none' because no HTTP exchange took place.
		expect(result.error?.httpCode).toBe('none');
		if (typeof message === 'string') expect(result.error?.message).toBe(message);
		else expect(result.error?.message).toMatch(message);
		expect(server.requests).toHaveLength(0);
	});

	test("n8n itself refuses a required parameter left empty, before the node runs", async () => {
		const result = await runDocumentSigning({
			parameters: { resource: 'webhook', operation: 'create', url: 'https://example.com/hook', events: [] },
			credentials: { baseUrl: server.baseUrl, apiKey: 'sk_test_bad_input' },
		});
		expect(result.error?.message).toContain('Parameter "Events" is required');
		expect(server.requests).toHaveLength(0);
	});

	test('with continue-on-fail, only the bad item fails and it stays paired with its input', async () => {
		const items = [{ json: { email: 'a@example.com' } }, { json: { email: 'broken' } }, { json: { email: 'c@example.com' } }];
		const result = await runDocumentSigning({
			parameters: createDocument({ signers: { signer: [{ email: '={{ $json.email }}', name: 'Signer' }] } }),
			items,
			continueOnFail: true,
			credentials: { baseUrl: server.baseUrl, apiKey: 'sk_test_bad_input' },
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(3);
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(result.items[1].json.error).toBe('Signers › Signer 1 › Email: "broken" is not a valid email address');
		expect(result.items[1].error?.name).toBe('NodeOperationError');
		expect(result.items[0].json.id).toBe('x');
		expect(server.requests.map((request) => JSON.parse(request.body).signers[0].email).sort()).toEqual(['a@example.com', 'c@example.com']);
	});
});
