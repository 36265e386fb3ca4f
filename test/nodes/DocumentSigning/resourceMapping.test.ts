/**
 * What the editor lists under Template Fields and Signers by Role (nodes/DocumentSigning/
 * resourceMapping/index.ts), through n8n-core's real load-options context against the sandbox:
 * the chosen template's fields with labels, n8n types, required marks and choices; its roles; and
 * a notice, not an error, for a template chosen by nothing yet or a service that lists no fields.
 */
import type { INodeParameters } from 'n8n-workflow';

import {
	getTemplateFields,
	getTemplateRoles,
} from '../../../nodes/DocumentSigning/resourceMapping';
import { startCountingServer } from '../../helpers/countingServer';
import { loadOptionsContext } from '../../helpers/n8nWorkflow';
import { api, useSandbox } from '../../helpers/sandbox';
import { SALES_CONTRACT } from '../../helpers/templates';

const sandbox = useSandbox();

/** Document › Create with the template chosen from the list, as the editor sends it. */
const createWith = (templateId: unknown): INodeParameters => ({
	resource: 'document',
	operation: 'create',
	additionalFields: { template_id: { __rl: true, mode: 'list', value: templateId } as never },
});

async function account(template: object = SALES_CONTRACT) {
	const { apiKey } = sandbox().createAccount();
	const created = await api(sandbox(), apiKey).post('/templates', template);
	expect(created.status).toBe(201);
	return { credentials: { baseUrl: sandbox().baseUrl, apiKey }, template: created.data };
}

const common = { defaultMatch: false, canBeUsedToMatch: false, display: true };

describe('Template Fields', () => {
	it("lists the chosen template's fields: labels, n8n types, required marks, choices; a field a role fills is offered under Add field", async () => {
		const { credentials, template } = await account();
		const listed = await getTemplateFields.call(
			loadOptionsContext(credentials, createWith(template.id)),
		);
		expect(listed).toEqual({
			fields: [
				{
					...common,
					id: 'customer_name',
					displayName: 'Customer name',
					required: true,
					type: 'string',
				},
				{ ...common, id: 'price', displayName: 'Price', required: true, type: 'number' },
				{
					...common,
					id: 'start_date',
					displayName: 'Start date',
					required: true,
					type: 'dateTime',
				},
				{
					...common,
					id: 'plan',
					displayName: 'Plan',
					// It has a default, so no document has to give it.
					required: false,
					type: 'options',
					defaultValue: 'Basic',
					options: [
						{ name: 'Basic', value: 'Basic' },
						{ name: 'Pro', value: 'Pro' },
					],
				},
				{
					...common,
					id: 'auto_renew',
					displayName: 'Renews automatically',
					required: false,
					type: 'boolean',
				},
				{ ...common, id: 'deal_id', displayName: 'Deal ID', required: false, type: 'string' },
				{
					...common,
					id: 'client_title',
					displayName: 'Job title',
					required: false,
					type: 'string',
					removed: true,
				},
			],
		});
	});

	it('gives a notice while no template is chosen, or while it is an expression n8n could not resolve', async () => {
		const { credentials } = await account();
		for (const parameters of [
			{ resource: 'document', operation: 'create' },
			createWith(''),
			createWith('={{ $json.template_id }}'),
		]) {
			const listed = await getTemplateFields.call(loadOptionsContext(credentials, parameters));
			expect(listed).toEqual({
				fields: [],
				emptyFieldsNotice:
					'Choose a template under Additional Fields › Template to list its fields and roles here.',
			});
			// One notice is enough: Signers by Role lists nothing yet.
			await expect(
				getTemplateRoles.call(loadOptionsContext(credentials, parameters)),
			).resolves.toEqual({ fields: [] });
		}
	});

	it('at node version 2 the notice points to the Template above, where that version keeps it', async () => {
		const { credentials } = await account();
		const parameters = { resource: 'document', operation: 'create', documentFrom: 'template' };
		await expect(
			getTemplateFields.call(loadOptionsContext(credentials, parameters, 2)),
		).resolves.toEqual({
			fields: [],
			emptyFieldsNotice: 'Choose the Template above to list its fields and roles here.',
		});
	});

	it('a template without fields, and an unknown template, say so', async () => {
		const { credentials, template } = await account({ name: 'Plain', document_name: 'plain.pdf' });
		await expect(
			getTemplateFields.call(loadOptionsContext(credentials, createWith(template.id))),
		).resolves.toEqual({ fields: [], emptyFieldsNotice: 'This template has no fields.' });
		await expect(
			getTemplateFields.call(loadOptionsContext(credentials, createWith('tpl_missing'))),
		).rejects.toThrow('The service has no template "tpl_missing"');
	});

	it('finds the template on a later page of the list, with numeric ids', async () => {
		sandbox().configure({ dialect: 'numeric-ids+page-cap' });
		try {
			const { credentials, template } = await account();
			const client = api(sandbox(), credentials.apiKey);
			for (let index = 0; index < 30; index++)
				expect((await client.post('/templates', { name: `Other ${index}` })).status).toBe(201);
			expect(typeof template.id).toBe('number');
			const listed = await getTemplateFields.call(
				loadOptionsContext(credentials, createWith(String(template.id))),
			);
			expect(listed.fields.map((field) => field.id)).toEqual(
				SALES_CONTRACT.fields.map((field) => field.key),
			);
		} finally {
			sandbox().configure({ dialect: 'default' });
		}
	});

	it('a service whose templates list no fields gets a notice pointing to Template Field Values', async () => {
		sandbox().configure({ dialect: 'unlisted-template-fields' });
		try {
			const { credentials, template } = await account();
			const listed = await getTemplateFields.call(
				loadOptionsContext(credentials, createWith(template.id)),
			);
			expect(listed.fields).toEqual([]);
			expect(listed.emptyFieldsNotice).toContain('Additional Fields › Template Field Values');
		} finally {
			sandbox().configure({ dialect: 'default' });
		}
	});

	it('reads field definitions a service words differently', async () => {
		// Wordings the sandbox never uses, from a service of their own: a template list on 127.0.0.1.
		const server = await startCountingServer(() => ({
			status: 200,
			body: {
				data: [
					{
						id: 'tpl_worded',
						name: 'Worded differently',
						fields: [
							{ name: 'tier', title: 'Tier', type: 'select', choices: [{ value: 'A' }, 'B'] },
							{ key: 'signed_on', type: 'DateTime', required: true },
							{ key: 'notes', type: 'rich-text' },
							{ label: 'No key' },
						],
					},
				],
				has_more: false,
			},
		}));
		try {
			const listed = await getTemplateFields.call(
				loadOptionsContext(
					{ baseUrl: server.baseUrl, apiKey: 'sk_test_worded_differently' },
					createWith('tpl_worded'),
				),
			);
			expect(listed.fields).toEqual([
				{
					...common,
					id: 'tier',
					displayName: 'Tier',
					required: false,
					type: 'options',
					options: [
						{ name: 'A', value: 'A' },
						{ name: 'B', value: 'B' },
					],
				},
				expect.objectContaining({
					id: 'signed_on',
					displayName: 'signed_on',
					type: 'dateTime',
					required: true,
				}),
				expect.objectContaining({ id: 'notes', type: 'string' }),
				// A field without a key has no row.
			]);
		} finally {
			await server.close();
		}
	});
});

describe('Signers by Role', () => {
	it('lists each role by name with an email and a name, in signing order; a pre-filled role is offered under Add field', async () => {
		const { credentials, template } = await account();
		const listed = await getTemplateRoles.call(
			loadOptionsContext(credentials, createWith(template.id)),
		);
		expect(listed).toEqual({
			fields: [
				{
					...common,
					id: 'Client|email',
					displayName: 'Client Email',
					required: false,
					type: 'string',
				},
				{
					...common,
					id: 'Client|name',
					displayName: 'Client Name',
					required: false,
					type: 'string',
				},
				{
					...common,
					id: 'Company|email',
					displayName: 'Company Email',
					required: false,
					type: 'string',
					removed: true,
				},
				{
					...common,
					id: 'Company|name',
					displayName: 'Company Name',
					required: false,
					type: 'string',
					removed: true,
				},
			],
		});
	});

	it('a template without roles says to use Signers', async () => {
		const { credentials, template } = await account({ name: 'Plain', document_name: 'plain.pdf' });
		await expect(
			getTemplateRoles.call(loadOptionsContext(credentials, createWith(template.id))),
		).resolves.toEqual({
			fields: [],
			emptyFieldsNotice: 'This template has no signer roles: use Signers.',
		});
	});
});
