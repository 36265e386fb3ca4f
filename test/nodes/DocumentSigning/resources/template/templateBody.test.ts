/**
 * Template › Create and Update (nodes/DocumentSigning/resources/template/templateBody.ts) defining the
 * template's fields, through n8n's routing engine against the sandbox; bad definitions stop the
 * item before any request, naming the field's entry.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { startCountingServer } from '../../../../helpers/countingServer';
import { runDocumentSigning } from '../../../../helpers/n8nWorkflow';
import { useSandbox } from '../../../../helpers/sandbox';

const sandbox = useSandbox();
let counting: Awaited<ReturnType<typeof startCountingServer>>;
beforeAll(async () => {
	counting = await startCountingServer(() => ({ status: 201, body: { id: 'tpl_1' } }));
});
afterAll(async () => await counting.close());
beforeEach(() => counting.requests.splice(0));

const FIELDS = {
	field: [
		{ key: 'customer_name', label: 'Customer name', type: 'text', required: true },
		{ key: 'price', label: 'Price', type: 'number', required: true, default: '12000' },
		{ key: 'start_date', label: 'Start date', type: 'date', default: '2026-01-15' },
		{
			key: 'plan',
			label: 'Plan',
			type: 'choice',
			options: 'Basic, Pro ,Enterprise',
			default: 'Pro',
		},
		{ key: 'auto_renew', label: 'Renews automatically', type: 'checkbox', default: 'true' },
		{ key: 'client_title', label: 'Job title', role: 'client' },
	],
};

const createTemplate = (fields: IDataObject = FIELDS): INodeParameters => ({
	resource: 'template',
	operation: 'create',
	templateName: 'Sales contract',
	templateAdditionalFields: {
		document_name: 'sales-contract.pdf',
		signer_roles: { role: [{ role: 'Client' }] },
		fields: fields as INodeParameters,
	},
});

async function run(parameters: INodeParameters, baseUrl: string, apiKey: string) {
	return await runDocumentSigning({ parameters, credentials: { baseUrl, apiKey } });
}

test('Template › Create defines the fields: each converted to its type, choices split, the role as the template spells it', async () => {
	const { apiKey } = sandbox().createAccount();
	const result = await run(createTemplate(), sandbox().baseUrl, apiKey);
	expect(result.error?.message).toBeUndefined();
	const [stored] = sandbox().store.templatesOf(apiKey);
	expect(stored.fields).toEqual([
		{
			key: 'customer_name',
			label: 'Customer name',
			type: 'text',
			required: true,
			default: null,
			role: null,
			options: null,
		},
		{
			key: 'price',
			label: 'Price',
			type: 'number',
			required: true,
			default: 12000,
			role: null,
			options: null,
		},
		{
			key: 'start_date',
			label: 'Start date',
			type: 'date',
			required: false,
			default: '2026-01-15',
			role: null,
			options: null,
		},
		{
			key: 'plan',
			label: 'Plan',
			type: 'choice',
			required: false,
			default: 'Pro',
			role: null,
			options: ['Basic', 'Pro', 'Enterprise'],
		},
		{
			key: 'auto_renew',
			label: 'Renews automatically',
			type: 'checkbox',
			required: false,
			default: true,
			role: null,
			options: null,
		},
		{
			key: 'client_title',
			label: 'Job title',
			type: 'text',
			required: false,
			default: null,
			role: 'Client',
			options: null,
		},
	]);
	// Get Many, simplified, shows the fields.
	const listed = await run(
		{ resource: 'template', operation: 'getAll', returnAll: true },
		sandbox().baseUrl,
		apiKey,
	);
	expect((listed.items[0].json.fields as IDataObject[]).map((field) => field.key)).toEqual(
		FIELDS.field.map((field) => field.key),
	);
});

test('Template › Update replaces the fields', async () => {
	const { apiKey } = sandbox().createAccount();
	await run(createTemplate(), sandbox().baseUrl, apiKey);
	const [stored] = sandbox().store.templatesOf(apiKey);
	const result = await run(
		{
			resource: 'template',
			operation: 'update',
			templateId: { __rl: true, mode: 'id', value: stored.id },
			updateFields: { fields: { field: [{ key: 'deal_id', label: 'Deal' }] } },
		},
		sandbox().baseUrl,
		apiKey,
	);
	expect(result.error?.message).toBeUndefined();
	expect(result.items[0].json.fields).toEqual([
		{
			key: 'deal_id',
			label: 'Deal',
			type: 'text',
			required: false,
			default: null,
			role: null,
			options: null,
		},
	]);
});

const LABEL = 'Additional Fields › Fields › Field 1';
test.each([
	[
		{ key: 'customer name' },
		`${LABEL} › Key: "customer name" is not a key: start with a letter, then use letters, digits and _ (64 at most)`,
	],
	[{ key: '' }, `${LABEL} › Key: must not be empty`],
	[
		{ key: 'plan', type: 'choice', options: ' , ' },
		`${LABEL} › Choices: give the choices, separated by commas`,
	],
	[{ key: 'plan', type: 'choice', options: 'A, B, A' }, `${LABEL} › Choices: "A" is listed twice`],
	[
		{ key: 'plan', type: 'choice', options: 'A, B', default: 'C' },
		`${LABEL} › Default Value: "C" is not one of: A, B`,
	],
	[
		{ key: 'price', type: 'number', default: 'twelve' },
		`${LABEL} › Default Value: "twelve" is not a number`,
	],
	[
		{ key: 'start', type: 'date', default: '2026-02-30' },
		`${LABEL} › Default Value: "2026-02-30" is not a date: use YYYY-MM-DD, e.g. 2026-01-15`,
	],
	[
		{ key: 'title', role: 'Witness' },
		`${LABEL} › Filled By Role: "Witness" is not one of the Signer Roles (Client)`,
	],
])('a bad field definition stops the item before any request: %j', async (field, message) => {
	const result = await run(createTemplate({ field: [field] }), counting.baseUrl, 'sk_test_tpl');
	expect(counting.requests).toHaveLength(0);
	expect(result.error?.message).toBe(message);
});

test('a key given twice (in any case) stops the item', async () => {
	const result = await run(
		createTemplate({ field: [{ key: 'price' }, { key: 'Price' }] }),
		counting.baseUrl,
		'sk_test_tpl',
	);
	expect(counting.requests).toHaveLength(0);
	expect(result.error?.message).toBe(
		'Additional Fields › Fields › Field 2 › Key: "Price" is listed twice',
	);
});
