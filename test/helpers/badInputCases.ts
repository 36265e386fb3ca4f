import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

/**
 * Kinds of bad input the Document Signing node must refuse before sending anything, with the
 * message it must give. Shared by the routing-engine test (test/behaviour/badInput.test.ts) and the
 * real-n8n reliability suite (reliability/). `items` are the node's input items (default: one
 * empty item); `message` is the whole error message, or a pattern.
 */

export const signer = (overrides: Record<string, unknown> = {}) => ({
	email: 'ada@example.com',
	name: 'Ada Lovelace',
	...overrides,
});
export const createDocument = (overrides: INodeParameters = {}): INodeParameters => ({
	resource: 'document',
	operation: 'create',
	name: 'contract.pdf',
	signers: { signer: [signer()] },
	...overrides,
});
export const pdf = (
	bytes = Buffer.from('%PDF-1.7 test'),
	mimeType = 'application/pdf',
): INodeExecutionData => ({
	json: {},
	binary: { data: { data: bytes.toString('base64'), mimeType, fileName: 'contract.pdf' } },
});

/**
 * Document › Create from a fixed template whose Template Fields list (as the editor stored it)
 * holds a required number and a required date; `value` maps them.
 */
export const fromTemplate = (value: Record<string, string>): INodeParameters => ({
	resource: 'document',
	operation: 'create',
	signers: { signer: [signer()] },
	additionalFields: { template_id: { __rl: true, mode: 'id', value: 'tpl_2b7x0d' } },
	templateFields: {
		mappingMode: 'defineBelow',
		value: { price: '={{ 12000 }}', start_date: '2026-01-15', ...value },
		matchingColumns: [],
		schema: [
			{
				id: 'price',
				displayName: 'Price',
				required: true,
				defaultMatch: false,
				display: true,
				type: 'number',
			},
			{
				id: 'start_date',
				displayName: 'Start date',
				required: true,
				defaultMatch: false,
				display: true,
				type: 'dateTime',
			},
		],
		attemptToConvertTypes: false,
		convertFieldsToString: false,
	},
});

export interface BadInputCase {
	title: string;
	parameters: INodeParameters;
	items?: INodeExecutionData[];
	message: string | RegExp;
}

export const badInputCases: BadInputCase[] = [
	{
		title: 'empty document name',
		parameters: createDocument({ name: '  ' }),
		message: 'Document Name: must not be empty',
	},
	{
		title: 'document name without extension',
		parameters: createDocument({ name: 'contract' }),
		message:
			'Document Name: "contract" has no file extension: add one, e.g. "contract.pdf", or switch on Attach File to take the attached file\'s',
	},
	{
		title: 'no signers',
		parameters: createDocument({ signers: {} }),
		message: 'Signers: add at least one signer',
	},
	{
		title: 'invalid signer email',
		parameters: createDocument({ signers: { signer: [signer(), signer({ email: 'bob@' })] } }),
		message: 'Signers › Signer 2 › Email: "bob@" is not a valid email address',
	},
	{
		title: 'signer name that resolves to nothing',
		parameters: createDocument({
			signers: { signer: [signer({ name: '={{ $json.contactName }}' })] },
		}),
		items: [{ json: { contactName: '' } }],
		message: 'Signers › Signer 1 › Name: must not be empty',
	},
	{
		title: 'same signer twice',
		parameters: createDocument({
			signers: { signer: [signer(), signer({ email: 'ADA@example.com' })] },
		}),
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
		parameters: createDocument({
			name: 'contract.docx',
			attachFile: true,
			binaryPropertyName: 'data',
		}),
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
		message:
			'Additional Fields › Metadata (JSON): the value of "deal" must be text, a number or true/false',
	},
	{
		title: 'phone number not in international format',
		parameters: createDocument({
			signers: { signer: [signer({ authentication: 'sms_otp', phone: '0612345678' })] },
		}),
		message:
			'Signers › Signer 1 › Phone: "0612345678" is not an international number such as +15551234567',
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
		parameters: {
			resource: 'document',
			operation: 'get',
			documentId: { __rl: true, mode: 'id', value: '={{ $json.documentId }}' },
		},
		items: [{ json: {} }],
		message: 'Document: must not be empty',
	},
	{
		title: 'document ID with a slash',
		parameters: {
			resource: 'document',
			operation: 'delete',
			documentId: { __rl: true, mode: 'id', value: '={{ "../users" }}' },
		},
		message: 'Document: "../users" is not a valid ID',
	},
	{
		title: 'signing request without an ID',
		parameters: {
			resource: 'signingRequest',
			operation: 'remind',
			signingRequestId: '={{ $json.requestId }}',
		},
		items: [{ json: { requestId: ' ' } }],
		message: 'Signing Request ID: must not be empty',
	},
	{
		title: 'invite with an invalid email',
		parameters: {
			resource: 'teamMember',
			operation: 'invite',
			email: 'not-an-email',
			role: 'member',
		},
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
		parameters: {
			resource: 'template',
			operation: 'update',
			templateId: { __rl: true, mode: 'id', value: 'tpl_1' },
			updateFields: {},
		},
		message: 'Update Fields: add at least one field to change',
	},
	{
		title: 'webhook URL that is not a URL',
		parameters: {
			resource: 'webhook',
			operation: 'create',
			url: 'example.com/hook',
			events: ['document.completed'],
		},
		message: 'URL: "example.com/hook" is not a valid URL',
	},
	{
		title: 'delivery to acknowledge without its ID (an expression that found nothing)',
		parameters: {
			resource: 'webhook',
			operation: 'acknowledgeDelivery',
			webhookId: 'wh_1',
			deliveryId: '={{ $json.deliveryId }}',
		},
		message: 'Delivery ID: must not be empty',
	},
	{
		title: 'delivery ID that is a path',
		parameters: {
			resource: 'webhook',
			operation: 'getDelivery',
			webhookId: 'wh_1',
			deliveryId: '../../users',
		},
		message: 'Delivery ID: "../../users" is not a valid ID',
	},
	{
		title: 'report period that ends before it starts',
		parameters: {
			resource: 'report',
			operation: 'usage',
			from: '2026-11-10T00:00:00',
			to: '2026-11-01T00:00:00',
		},
		message: 'From: must not be after To',
	},
	{
		title: 'list limit below 1 (an expression: the field itself refuses it)',
		parameters: {
			resource: 'document',
			operation: 'getAll',
			returnAll: false,
			limit: '={{ 0 }}',
		},
		message: 'Limit: must be a whole number of 1 or more, not 0',
	},
	{
		title: 'template field that needs a number, given text',
		parameters: fromTemplate({ price: '={{ "twelve thousand" }}' }),
		message: 'Template Fields › Price: "twelve thousand" is not a number',
	},
	{
		title: 'required template field whose expression finds nothing',
		parameters: fromTemplate({ start_date: '={{ $json.start_date }}' }),
		message: 'Template Fields › Start date: the template needs a value for this field',
	},
];
