/**
 * Template fields and roles (docs/api-contract.md, "Template fields"): templates defined with
 * fields, documents filled from them by key and signed by role, the 422 answers naming each value
 * the template refuses, the values in the document's PDF, and the dialect whose templates list no
 * fields. Every answer is checked against the contract's schemas and the OpenAPI document.
 */
import {
	DocumentSchema,
	ErrorBodySchema,
	TemplateListSchema,
	TemplateSchema,
} from '../../contract';
import { expectResponseMatchesOpenApi } from '../helpers/openapi';
import { readPdf } from '../helpers/pdfText';
import { api, expectError, expectSchema, useSandbox } from '../helpers/sandbox';
import { SALES_CONTRACT } from '../helpers/templates';

const sandbox = useSandbox();

function freshClient() {
	const { apiKey } = sandbox().createAccount();
	return { client: api(sandbox(), apiKey), apiKey };
}

async function salesContract(client: ReturnType<typeof api>) {
	const response = await client.post('/templates', SALES_CONTRACT);
	expect(response.status).toBe(201);
	return expectSchema(TemplateSchema, response.data);
}

const VALUES = { customer_name: 'Acme Corp', price: 12000, start_date: '2026-01-15' };
const CLIENT = { email: 'jane@acme.example', name: 'Jane Doe' };

describe('templates with fields', () => {
	it('POST /templates keeps each field with its defaults filled in and its role as the template spells it', async () => {
		const { client } = freshClient();
		const response = await client.post('/templates', SALES_CONTRACT);
		expect(response.status).toBe(201);
		expectResponseMatchesOpenApi(response);
		const template = expectSchema(TemplateSchema, response.data);
		expect(template.fields).toEqual([
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
				default: null,
				role: null,
				options: null,
			},
			{
				key: 'start_date',
				label: 'Start date',
				type: 'date',
				required: true,
				default: null,
				role: null,
				options: null,
			},
			{
				key: 'plan',
				label: 'Plan',
				type: 'choice',
				required: true,
				default: 'Basic',
				role: null,
				options: ['Basic', 'Pro'],
			},
			{
				key: 'auto_renew',
				label: 'Renews automatically',
				type: 'checkbox',
				required: false,
				default: null,
				role: null,
				options: null,
			},
			{
				key: 'deal_id',
				label: 'Deal ID',
				type: 'text',
				required: false,
				default: null,
				role: null,
				options: null,
			},
			{
				key: 'client_title',
				label: 'Job title',
				type: 'text',
				required: true,
				default: null,
				role: 'Client',
				options: null,
			},
		]);
		const listed = await client.get('/templates');
		expect(expectSchema(TemplateListSchema, listed.data).data[0].fields).toEqual(template.fields);
	});

	it('a field without a label is labelled with its key; a template without fields has none', async () => {
		const { client } = freshClient();
		const response = await client.post('/templates', {
			name: 'Plain',
			fields: [{ key: 'deal_id' }],
		});
		expect(expectSchema(TemplateSchema, response.data).fields[0]).toMatchObject({
			key: 'deal_id',
			label: 'deal_id',
			type: 'text',
		});
		const plain = await client.post('/templates', { name: 'No fields' });
		expect(expectSchema(TemplateSchema, plain.data).fields).toEqual([]);
	});

	it.each([
		['a key that is not a key', [{ key: 'customer name' }], 'fields[0].key'],
		['a key listed twice (in any case)', [{ key: 'price' }, { key: 'Price' }], 'fields[1].key'],
		['an unknown type', [{ key: 'price', type: 'currency' }], 'fields[0].type'],
		['a choice without choices', [{ key: 'plan', type: 'choice' }], 'fields[0].options'],
		['choices on a text field', [{ key: 'plan', options: ['A'] }], 'fields[0].options'],
		[
			'a choice listed twice',
			[{ key: 'plan', type: 'choice', options: ['A', 'A'] }],
			'fields[0].options[1]',
		],
		[
			'a default of the wrong type',
			[{ key: 'price', type: 'number', default: '12' }],
			'fields[0].default',
		],
		[
			'a default that is no date',
			[{ key: 'start', type: 'date', default: '2026-02-30' }],
			'fields[0].default',
		],
		['a role the template does not have', [{ key: 'title', role: 'Witness' }], 'fields[0].role'],
	])('POST /templates with %s is a 400 naming it', async (_title, fields, field) => {
		const { client } = freshClient();
		const response = await client.post('/templates', {
			name: 'Bad',
			signer_roles: [{ role: 'Client' }],
			fields,
		});
		expectError(response, 400, 'validation_error', field);
	});

	it('PUT /templates/{id} replaces the fields whole; renaming a role a field names is a 400 on that field', async () => {
		const { client } = freshClient();
		const template = await salesContract(client);
		const replaced = await client.put(`/templates/${template.id}`, {
			fields: [{ key: 'deal_id', label: 'Deal' }],
		});
		expect(replaced.status).toBe(200);
		expectResponseMatchesOpenApi(replaced);
		expect(expectSchema(TemplateSchema, replaced.data).fields.map((field) => field.key)).toEqual([
			'deal_id',
		]);

		const again = await salesContract(client);
		const renamed = await client.put(`/templates/${again.id}`, {
			signer_roles: [{ role: 'Customer' }, { role: 'Company' }],
		});
		expectError(renamed, 400, 'validation_error', 'fields[6].role');
		expect(renamed.data.error.message).toBe(
			'fields[6].role names "Client", which is not one of the template\'s signer_roles',
		);
		// Refused as a whole: nothing changed.
		const [stored] = (await client.get('/templates')).data.data.filter(
			(entry: { id: string }) => entry.id === again.id,
		);
		expect(stored.signer_roles.map((role: { role: string }) => role.role)).toEqual([
			'Client',
			'Company',
		]);
	});
});

describe('a document from a template with fields', () => {
	it('takes the values by key, the defaults for the rest, and the signers by role; its PDF shows them', async () => {
		const { client } = freshClient();
		const template = await salesContract(client);
		const response = await client.post('/documents', {
			template_id: template.id,
			fields: { ...VALUES, auto_renew: true },
			signers: [{ ...CLIENT, role: 'client' }],
		});
		expect(response.status).toBe(201);
		expectResponseMatchesOpenApi(response);
		const document = expectSchema(DocumentSchema, response.data);
		expect(document.fields).toEqual([
			{ key: 'customer_name', label: 'Customer name', type: 'text', value: 'Acme Corp' },
			{ key: 'price', label: 'Price', type: 'number', value: 12000 },
			{ key: 'start_date', label: 'Start date', type: 'date', value: '2026-01-15' },
			{ key: 'plan', label: 'Plan', type: 'choice', value: 'Basic' },
			{ key: 'auto_renew', label: 'Renews automatically', type: 'checkbox', value: true },
			{ key: 'deal_id', label: 'Deal ID', type: 'text', value: null },
			{ key: 'client_title', label: 'Job title', type: 'text', value: null },
		]);
		expect(document.signers.map(({ email, role, order }) => ({ email, role, order }))).toEqual([
			{ email: 'jane@acme.example', role: 'Client', order: 1 },
			{ email: 'sam@ourco.example', role: 'Company', order: 2 },
		]);

		const pdf = await readPdf((await sandbox().documentFile(document.id, 'original')).data);
		for (const line of [
			'Customer name: Acme Corp',
			'Price: 12000',
			'Start date: 2026-01-15',
			'Plan: Basic',
			'Renews automatically: Yes',
			'Deal ID: -',
			'Job title: -',
			'Client: Jane Doe <jane@acme.example> (order 1)',
			'Company: Sam Seller <sam@ourco.example> (order 2)',
		])
			expect(pdf.text).toContain(line);
	});

	it('a signer naming a pre-filled role signs instead of its person; unnamed signers fill the open roles in order', async () => {
		const { client } = freshClient();
		const template = expectSchema(
			TemplateSchema,
			(
				await client.post('/templates', {
					name: 'Three roles',
					document_name: 'deed.pdf',
					signer_roles: [
						{ role: 'Buyer' },
						{ role: 'Seller' },
						{ role: 'Notary', email: 'nora@notary.example', name: 'Nora Notary' },
					],
				})
			).data,
		);
		const response = await client.post('/documents', {
			template_id: template.id,
			signers: [
				{ email: 'nick@notary.example', name: 'Nick Notary', role: 'NOTARY' },
				{ email: 'sue@seller.example', name: 'Sue Seller', role: 'Seller' },
				{ email: 'bo@buyer.example', name: 'Bo Buyer' },
				{ email: 'extra@example.com', name: 'Extra Witness' },
			],
		});
		expect(response.status).toBe(201);
		const document = expectSchema(DocumentSchema, response.data);
		expect(document.signers.map(({ email, role, order }) => [email, role, order])).toEqual([
			['nick@notary.example', 'Notary', 3],
			['sue@seller.example', 'Seller', 2],
			['bo@buyer.example', 'Buyer', 1],
			['extra@example.com', null, null],
		]);
		expect(document.fields).toEqual([]);
	});

	it('refuses what the template does not know, wrong types and missing required values: 422 naming each, nothing created', async () => {
		const { client, apiKey } = freshClient();
		const template = await salesContract(client);
		const response = await client.post('/documents', {
			template_id: template.id,
			fields: {
				customer_name: 42,
				price: '12000',
				start_date: '15/01/2026',
				plan: 'Enterprise',
				auto_renew: 'yes',
				colour: 'blue',
			},
			signers: [
				{ ...CLIENT, role: 'Witness' },
				{ email: 'x@example.com', name: 'X', role: 'Client' },
				{ email: 'y@example.com', name: 'Y', role: 'client' },
			],
		});
		expectError(response, 422, 'template_mismatch', 'fields.customer_name');
		expectResponseMatchesOpenApi(response);
		const body = expectSchema(ErrorBodySchema, response.data);
		expect(body.error.message).toBe('fields.customer_name (Customer name) must be text');
		expect(body.error.details).toEqual([
			{
				field: 'fields.customer_name',
				message: 'fields.customer_name (Customer name) must be text',
			},
			{ field: 'fields.price', message: 'fields.price (Price) must be a number' },
			{
				field: 'fields.start_date',
				message: 'fields.start_date (Start date) must be a date written YYYY-MM-DD',
			},
			{ field: 'fields.plan', message: 'fields.plan (Plan) must be one of: Basic, Pro' },
			{
				field: 'fields.auto_renew',
				message: 'fields.auto_renew (Renews automatically) must be true or false',
			},
			{
				field: 'fields.colour',
				message: 'fields.colour is not a field of the template "Sales contract"',
			},
			{
				field: 'signers[0].role',
				message:
					'signers[0].role names "Witness", which is not a role of the template "Sales contract" (roles: Client, Company)',
			},
			{ field: 'signers[2].role', message: 'signers[2].role names "client" a second time' },
		]);
		expect(sandbox().store.documentsOf(apiKey)).toEqual([]);
	});

	it('a required value left out (or null) is a 422 naming the field; one a role fills at signing, or with a default, is not required', async () => {
		const { client } = freshClient();
		const template = await salesContract(client);
		const response = await client.post('/documents', {
			template_id: template.id,
			fields: { customer_name: 'Acme Corp', price: null },
			signers: [CLIENT],
		});
		expectError(response, 422, 'template_mismatch', 'fields.price');
		expect(response.data.error.details).toEqual([
			{ field: 'fields.price', message: 'fields.price (Price) is required' },
			{ field: 'fields.start_date', message: 'fields.start_date (Start date) is required' },
		]);
	});

	it('fields or a role without a template are a 422; a value that is no scalar is a 400', async () => {
		const { client } = freshClient();
		expectError(
			await client.post('/documents', {
				name: 'a.pdf',
				signers: [CLIENT],
				fields: { customer_name: 'Acme' },
			}),
			422,
			'template_mismatch',
			'fields',
		);
		expectError(
			await client.post('/documents', { name: 'a.pdf', signers: [{ ...CLIENT, role: 'Client' }] }),
			422,
			'template_mismatch',
			'signers[0].role',
		);
		expectError(
			await client.post('/documents', {
				name: 'a.pdf',
				signers: [CLIENT],
				fields: { customer_name: { first: 'Acme' } },
			}),
			400,
			'validation_error',
			'fields.customer_name',
		);
	});

	it('an unknown template is still a 404 first, and a draft is checked like any document', async () => {
		const { client } = freshClient();
		expectError(
			await client.post('/documents', { template_id: 'tpl_missing', fields: { x: 1 } }),
			404,
			'not_found',
			'template_id',
		);
		const template = await salesContract(client);
		expectError(
			await client.post('/documents', { template_id: template.id, draft: true }),
			422,
			'template_mismatch',
			'fields.customer_name',
		);
	});

	it('a signing request that replaces a draft’s signers ignores their roles', async () => {
		const { client } = freshClient();
		const template = await salesContract(client);
		const draft = await client.post('/documents', {
			template_id: template.id,
			fields: VALUES,
			draft: true,
		});
		expect(draft.status).toBe(201);
		const sent = await client.post('/signatures/request', {
			document_id: draft.data.id,
			signers: [{ ...CLIENT, role: 'Anything' }],
		});
		expect(sent.status).toBe(201);
		const document = expectSchema(
			DocumentSchema,
			(await client.get(`/documents/${draft.data.id}`)).data,
		);
		expect(document.signers.map(({ email, role }) => [email, role])).toEqual([
			['jane@acme.example', null],
		]);
		expect(document.fields.map((field) => field.value)).toEqual([
			'Acme Corp',
			12000,
			'2026-01-15',
			'Basic',
			null,
			null,
			null,
		]);
	});
});

describe('dialects', () => {
	it('unlisted-template-fields: template answers carry no fields, yet documents are still filled and checked', async () => {
		const { client } = freshClient();
		sandbox().configure({ dialect: 'unlisted-template-fields' });
		try {
			const created = await client.post('/templates', SALES_CONTRACT);
			expect(created.status).toBe(201);
			expect(created.data).not.toHaveProperty('fields');
			expect(created.data.signer_roles).toHaveLength(2);
			const listed = await client.get('/templates');
			expect(listed.data.data[0]).not.toHaveProperty('fields');
			const updated = await client.put(`/templates/${created.data.id}`, { name: 'Renamed' });
			expect(updated.data).not.toHaveProperty('fields');

			expectError(
				await client.post('/documents', { template_id: created.data.id, signers: [CLIENT] }),
				422,
				'template_mismatch',
				'fields.customer_name',
			);
			const document = await client.post('/documents', {
				template_id: created.data.id,
				fields: VALUES,
				signers: [CLIENT],
			});
			expect(document.status).toBe(201);
			expect(expectSchema(DocumentSchema, document.data).fields[0].value).toBe('Acme Corp');
		} finally {
			sandbox().configure({ dialect: 'default' });
		}
	});

	it('numeric-ids: the client’s own field keys and values are never taken for ids', async () => {
		const { client } = freshClient();
		sandbox().configure({ dialect: 'numeric-ids' });
		try {
			const template = await client.post('/templates', {
				name: 'Deal',
				document_name: 'deal.pdf',
				fields: [{ key: 'deal_id', label: 'Deal', default: '1001' }],
			});
			expect(typeof template.data.id).toBe('number');
			expect(template.data.fields[0].default).toBe('1001');
			const document = await client.post('/documents', {
				template_id: template.data.id,
				fields: { deal_id: '2002' },
				signers: [CLIENT],
			});
			expect(document.status).toBe(201);
			expect(document.data.template_id).toBe(template.data.id);
			expect(document.data.fields).toEqual([
				{ key: 'deal_id', label: 'Deal', type: 'text', value: '2002' },
			]);
		} finally {
			sandbox().configure({ dialect: 'default' });
		}
	});
});
