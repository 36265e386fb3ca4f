/**
 * Template Fields, Signers by Role and Template Field Values (defined in
 * nodes/DocumentSigning/resources/document/templateFields.ts, read and checked by templateValues.ts)
 * in Document › Create and Send and Wait for Signature, through n8n-core's real engine. The field lists are loaded the way the
 * editor loads them (resourceMapping/index.ts) from a sandbox template, so what the editor shows
 * is what the node checks. Bad input stops the item before any request (a counting server proves
 * none is sent), naming the field as the editor labels it.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import {
	getTemplateFields,
	getTemplateRoles,
} from '../../../../../nodes/DocumentSigning/resourceMapping';
import { startCountingServer } from '../../../../helpers/countingServer';
import { loadOptionsContext, runDocumentSigning } from '../../../../helpers/n8nWorkflow';
import { readPdf } from '../../../../helpers/pdfText';
import { api, useSandbox } from '../../../../helpers/sandbox';
import { SALES_CONTRACT } from '../../../../helpers/templates';
import { WaitingHost } from '../../../../helpers/waitingExecutions';

const sandbox = useSandbox({ port: 0, host: '127.0.0.1' });
let counting: Awaited<ReturnType<typeof startCountingServer>>;
beforeAll(async () => {
	counting = await startCountingServer(() => ({ status: 201, body: { id: 'doc_1' } }));
});
afterAll(async () => await counting.close());
beforeEach(() => counting.requests.splice(0));

/** A deal as a CRM sends it: every value as text, the date as a timestamp. */
const DEAL = {
	company: 'Acme Corp',
	amount: '12000',
	starts: '2026-01-15T00:00:00.000Z',
	plan: 'Pro',
	renews: 'true',
	contact: { email: 'jane@acme.example', name: 'Jane Doe' },
};

interface Setup {
	credentials: { baseUrl: string; apiKey: string };
	template: IDataObject;
	/** Template Fields and Signers by Role as the editor lists them for the template. */
	fieldSchema: IDataObject[];
	roleSchema: IDataObject[];
}

let setup: Setup;
beforeAll(async () => {
	const { apiKey } = sandbox().createAccount();
	const credentials = { baseUrl: sandbox().baseUrl, apiKey };
	const template = (await api(sandbox(), apiKey).post('/templates', SALES_CONTRACT)).data;
	const context = loadOptionsContext(credentials, chosen(template.id));
	setup = {
		credentials,
		template,
		fieldSchema: (await getTemplateFields.call(context)).fields as unknown as IDataObject[],
		roleSchema: (await getTemplateRoles.call(context)).fields as unknown as IDataObject[],
	};
});

function chosen(templateId: unknown, extra: IDataObject = {}): INodeParameters {
	return {
		resource: 'document',
		operation: 'create',
		additionalFields: {
			template_id: {
				__rl: true,
				mode: 'list',
				value: templateId,
				cachedResultName: 'Sales contract',
			},
			...extra,
		} as INodeParameters,
	};
}

/** A resource mapper's value as n8n stores it. */
const mapper = (schema: IDataObject[], value: IDataObject | null, mappingMode = 'defineBelow') => ({
	mappingMode,
	value,
	matchingColumns: [],
	schema,
	attemptToConvertTypes: false,
	convertFieldsToString: false,
});

const MAPPED = {
	customer_name: '={{ $json.company }}',
	price: '={{ $json.amount }}',
	start_date: '={{ $json.starts }}',
	plan: '={{ $json.plan }}',
	auto_renew: '={{ $json.renews }}',
};
const CLIENT = {
	'Client|email': '={{ $json.contact.email }}',
	'Client|name': '={{ $json.contact.name }}',
};

/** Document › Create from the Sales contract with Template Fields and Signers by Role mapped. */
function createFromTemplate({
	fields = MAPPED as IDataObject,
	roles = CLIENT as IDataObject,
	templateId = setup.template.id as unknown,
	extra = {},
	additional = {},
}: {
	fields?: IDataObject | null;
	roles?: IDataObject | null;
	templateId?: unknown;
	extra?: IDataObject;
	additional?: IDataObject;
} = {}): INodeParameters {
	return {
		...chosen(templateId, additional),
		templateFields: mapper(setup.fieldSchema, fields),
		templateSigners: mapper(setup.roleSchema, roles),
		...extra,
	} as INodeParameters;
}

async function refusal(
	parameters: INodeParameters,
	items: INodeExecutionData[] = [{ json: DEAL }],
) {
	const result = await runDocumentSigning({
		parameters,
		items,
		credentials: { baseUrl: counting.baseUrl, apiKey: 'sk_test_template' },
	});
	expect(counting.requests).toHaveLength(0);
	return result.error?.message;
}

async function created(
	parameters: INodeParameters,
	items: INodeExecutionData[] = [{ json: DEAL }],
) {
	const result = await runDocumentSigning({ parameters, items, credentials: setup.credentials });
	expect(result.error?.message).toBeUndefined();
	return result.items.map((item) => item.json);
}

describe('Document › Create from a template', () => {
	it("sends the mapped values converted to each field's type and the signers by role; the document's PDF shows them", async () => {
		const [document] = await created(
			createFromTemplate({
				extra: { signers: { signer: [{ email: 'cc@acme.example', name: 'Carl Counsel' }] } },
			}),
		);
		expect(document.fields).toEqual([
			{ key: 'customer_name', label: 'Customer name', type: 'text', value: 'Acme Corp' },
			{ key: 'price', label: 'Price', type: 'number', value: 12000 },
			{ key: 'start_date', label: 'Start date', type: 'date', value: '2026-01-15' },
			{ key: 'plan', label: 'Plan', type: 'choice', value: 'Pro' },
			{ key: 'auto_renew', label: 'Renews automatically', type: 'checkbox', value: true },
			{ key: 'deal_id', label: 'Deal ID', type: 'text', value: null },
			{ key: 'client_title', label: 'Job title', type: 'text', value: null },
		]);
		expect(
			(document.signers as IDataObject[]).map(({ email, role, order }) => [email, role, order]),
		).toEqual([
			['jane@acme.example', 'Client', 1],
			['cc@acme.example', null, null],
			['sam@ourco.example', 'Company', 2],
		]);
		const pdf = await readPdf((await sandbox().documentFile(String(document.id), 'original')).data);
		for (const line of [
			'Customer name: Acme Corp',
			'Price: 12000',
			'Start date: 2026-01-15',
			'Plan: Pro',
		])
			expect(pdf.text).toContain(line);
	});

	it('Map Automatically takes the input fields named like each field’s key or label', async () => {
		const [document] = await created(
			createFromTemplate({
				fields: null,
				extra: {
					templateFields: mapper(setup.fieldSchema, null, 'autoMapInputData'),
				},
			}),
			[
				{
					json: {
						customer_name: 'Globex',
						Price: 990,
						'Start date': '2026-03-01',
						unrelated: 'ignored',
						contact: DEAL.contact,
					},
				},
			],
		);
		expect((document.fields as IDataObject[]).map((field) => field.value)).toEqual([
			'Globex',
			990,
			'2026-03-01',
			'Basic',
			null,
			null,
			null,
		]);
	});

	it('a role the template pre-fills can be given someone else', async () => {
		const [document] = await created(
			createFromTemplate({
				roles: {
					...CLIENT,
					'Company|email': 'pat@ourco.example',
					'Company|name': 'Pat Partner',
				},
			}),
		);
		expect((document.signers as IDataObject[]).map(({ email, role }) => [email, role])).toEqual([
			['jane@acme.example', 'Client'],
			['pat@ourco.example', 'Company'],
		]);
	});

	it('refuses each bad item alone (Continue On Fail), naming the field, and sends only the good one', async () => {
		const result = await runDocumentSigning({
			parameters: createFromTemplate(),
			items: [{ json: DEAL }, { json: { ...DEAL, amount: 'twelve thousand' } }],
			credentials: setup.credentials,
			continueOnFail: true,
		});
		expect(
			result.items.map((item) => [item.json.error ?? item.json.status, item.pairedItem]),
		).toEqual([
			['pending', { item: 0 }],
			['Template Fields › Price: "twelve thousand" is not a number', { item: 1 }],
		]);
	});

	it.each([
		[
			'a required field whose expression finds nothing',
			{ fields: { ...MAPPED, start_date: '={{ $json.start_on }}' } },
			'Template Fields › Start date: the template needs a value for this field',
		],
		[
			'a number that is not one',
			{ fields: { ...MAPPED, price: '={{ "12,000" }}' } },
			'Template Fields › Price: "12,000" is not a number',
		],
		[
			'a date that is not one',
			{ fields: { ...MAPPED, start_date: '={{ "15/01/2026" }}' } },
			'Template Fields › Start date: "15/01/2026" is not a date: use YYYY-MM-DD, e.g. 2026-01-15',
		],
		[
			'a choice that is not offered',
			{ fields: { ...MAPPED, plan: '={{ "Enterprise" }}' } },
			'Template Fields › Plan: "Enterprise" is not one of: Basic, Pro',
		],
		[
			'a checkbox that is neither true nor false',
			{ fields: { ...MAPPED, auto_renew: '={{ "yes" }}' } },
			'Template Fields › Renews automatically: "yes" is not true or false',
		],
		[
			'a key the template does not have',
			{ additional: { fieldValues: { field: [{ key: 'colour', value: 'blue' }] } } },
			'Additional Fields › Template Field Values › Field 1 (colour): the template has no field "colour"',
		],
		[
			'a key given under Template Fields and as a key/value pair',
			{ additional: { fieldValues: { field: [{ key: 'price', value: '1' }] } } },
			'Additional Fields › Template Field Values › Field 1 (price): "price" is already filled under Template Fields',
		],
		[
			'a role’s email that is not one',
			{ roles: { ...CLIENT, 'Client|email': '={{ "jane-at-acme" }}' } },
			'Signers by Role › Client Email: "jane-at-acme" is not a valid email address',
		],
		[
			'a role given a name but no email',
			{ roles: { 'Client|email': '={{ $json.nobody }}', 'Client|name': 'Jane' } },
			'Signers by Role › Client Email: must not be empty',
		],
		[
			'no signer at all for a role the template leaves open',
			{ roles: { 'Client|email': '={{ $json.nobody }}', 'Client|name': '={{ $json.nobody }}' } },
			"Signers by Role: the template's role Client needs a signer",
		],
		[
			'a pre-filled role given an email but no name',
			{ roles: { ...CLIENT, 'Company|email': 'pat@ourco.example' } },
			'Signers by Role › Company Name: must not be empty',
		],
		[
			'one person for two roles',
			{
				roles: {
					...CLIENT,
					'Company|email': '={{ $json.contact.email }}',
					'Company|name': 'Jane',
				},
			},
			'Signers by Role › Company Email: jane@acme.example already signs as Client',
		],
		[
			'a signer who also signs by role',
			{ extra: { signers: { signer: [{ email: 'JANE@acme.example', name: 'Jane' }] } } },
			'Signers › Signer 1 › Email: JANE@acme.example already signs as Client under Signers by Role',
		],
	])('%s stops the item before any request', async (_title, options, message) => {
		expect(await refusal(createFromTemplate(options as never))).toBe(message);
	});

	it('Template Field Values without a template stop the item', async () => {
		expect(
			await refusal({
				resource: 'document',
				operation: 'create',
				name: 'a.pdf',
				signers: { signer: [DEAL.contact] },
				additionalFields: { fieldValues: { field: [{ key: 'price', value: '1' }] } },
			}),
		).toBe(
			'Additional Fields › Template Field Values: a template has fields: choose the Template first',
		);
	});

	it('a required field with no value at all is refused by n8n itself before the workflow runs', async () => {
		const withoutPrice: IDataObject = { ...MAPPED };
		delete withoutPrice.price;
		const result = await runDocumentSigning({
			parameters: createFromTemplate({ fields: withoutPrice }),
			items: [{ json: DEAL }],
			credentials: { baseUrl: counting.baseUrl, apiKey: 'sk_test_template' },
		});
		expect(counting.requests).toHaveLength(0);
		expect(result.error?.message).toBe(
			'The \'Document Signing\' node has issues:\n- Field "price" is required',
		);
	});

	it('with the Template given by an expression, values go as given and the service’s 422 names the field', async () => {
		const result = await runDocumentSigning({
			parameters: createFromTemplate({ templateId: '={{ $json.template }}' }),
			items: [{ json: { ...DEAL, template: setup.template.id } }],
			credentials: setup.credentials,
		});
		expect(result.error?.httpCode).toBe('422');
		expect(result.error?.message).toContain('fields.price (Price) must be a number');
	});
});

describe('a service whose templates list no fields', () => {
	it('takes Template Field Values by key, sent as given; Signers fill the roles in order', async () => {
		sandbox().configure({ dialect: 'unlisted-template-fields' });
		try {
			const [document] = await created({
				...chosen(setup.template.id, {
					fieldValues: {
						field: [
							{ key: 'customer_name', value: '={{ $json.company }}' },
							{ key: 'price', value: '={{ Number($json.amount) }}' },
							{ key: 'start_date', value: '2026-01-15' },
						],
					},
				}),
				// What the editor stores when it lists no fields and no roles.
				templateFields: mapper([], null),
				signers: { signer: [DEAL.contact] },
			} as INodeParameters);
			expect((document.fields as IDataObject[]).slice(0, 3).map((field) => field.value)).toEqual([
				'Acme Corp',
				12000,
				'2026-01-15',
			]);
			expect((document.signers as IDataObject[]).map(({ email, role }) => [email, role])).toEqual([
				['jane@acme.example', 'Client'],
				['sam@ourco.example', 'Company'],
			]);
		} finally {
			sandbox().configure({ dialect: 'default' });
		}
	});
});

describe('Send and Wait for Signature from a template', () => {
	it('creates the document with the mapped values and the signers by role, then waits', async () => {
		const host = new WaitingHost(setup.credentials);
		await host.start();
		try {
			const execution = await host.run({
				parameters: { ...createFromTemplate(), operation: 'sendAndWait' },
				items: [{ json: DEAL }],
			});
			expect(execution.error).toBeUndefined();
			expect(execution.status).toBe('waiting');
			const [document] = sandbox()
				.store.documentsOf(setup.credentials.apiKey)
				.filter((entry) => entry.id === execution.items[0].json.id);
			expect(document.status).toBe('pending');
			expect(document.fields.map((field) => field.value).slice(0, 3)).toEqual([
				'Acme Corp',
				12000,
				'2026-01-15',
			]);
			expect(document.signers.map(({ email, role }) => [email, role])).toEqual([
				['jane@acme.example', 'Client'],
				['sam@ourco.example', 'Company'],
			]);
		} finally {
			await host.close();
		}
	});

	it('a missing required field stops it before any request', async () => {
		const host = new WaitingHost({ baseUrl: counting.baseUrl, apiKey: 'sk_test_template' });
		await host.start();
		try {
			const execution = await host.run({
				parameters: {
					...createFromTemplate({ fields: { ...MAPPED, customer_name: '={{ $json.nobody }}' } }),
					operation: 'sendAndWait',
				},
				items: [{ json: DEAL }],
			});
			expect(execution.error?.message).toBe(
				'Template Fields › Customer name: the template needs a value for this field',
			);
			expect(counting.requests).toHaveLength(0);
		} finally {
			await host.close();
		}
	});
});

/** A value as n8n's "let the model define this" button writes it: the field's label as the key. */
const byModel = (key: string, type = 'string') =>
	`={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('${key}', \`\`, '${type}') }}`;

describe('as an AI Agent tool', () => {
	const parameters = () =>
		createFromTemplate({
			fields: {
				customer_name: byModel('Customer_name'),
				price: byModel('Price', 'number'),
				start_date: byModel('Start_date'),
				plan: byModel('Plan'),
			},
			roles: { 'Client|email': byModel('Client_Email'), 'Client|name': byModel('Client_Name') },
		});

	it('fills each field from the model’s arguments ($fromAI)', async () => {
		const result = await runDocumentSigning({
			parameters: parameters(),
			items: [
				{
					json: {
						Customer_name: 'Initech',
						Price: 4500,
						Start_date: '2026-02-01',
						Plan: 'Pro',
						Client_Email: 'peter@initech.example',
						Client_Name: 'Peter Gibbons',
					},
				},
			],
			credentials: setup.credentials,
			asTool: true,
			settings: { executionOrder: 'v1' },
		});
		expect(result.error).toBeUndefined();
		const [document] = result.items.map((item) => item.json);
		expect((document.fields as IDataObject[]).slice(0, 4).map((field) => field.value)).toEqual([
			'Initech',
			4500,
			'2026-02-01',
			'Pro',
		]);
		expect((document.signers as IDataObject[])[0]).toMatchObject({
			email: 'peter@initech.example',
			role: 'Client',
		});
	});

	it('answers a call missing required fields with every one of them, and sends nothing', async () => {
		const result = await runDocumentSigning({
			parameters: parameters(),
			items: [
				{ json: { Plan: 'Pro', Client_Email: 'peter@initech.example', Client_Name: 'Peter' } },
			],
			credentials: { baseUrl: counting.baseUrl, apiKey: 'sk_test_template' },
			asTool: true,
			settings: { executionOrder: 'v1' },
		});
		expect(counting.requests).toHaveLength(0);
		expect(result.items.map((item) => item.json)).toEqual([
			{
				error: 'Template Fields › Customer name: the template needs a value for this field',
				hint: 'Also without a value: Price, Start date.',
			},
		]);
	});
});
