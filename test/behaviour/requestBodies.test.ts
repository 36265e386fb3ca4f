import nock from 'nock';
import type { INodeParameters } from 'n8n-workflow';
import type { z } from 'zod';

import * as contract from '../../contract/schemas';
import { runDocumentSigning } from '../helpers/n8nWorkflow';

/**
 * The bodies the node builds, parsed with the contract's own request schemas: node and contract
 * read their values (limits, file types, phone pattern, roles, events) from one module, and this
 * proves the node sends only what the contract accepts.
 */

const ORIGIN = 'http://signing.test';
const credentials = { baseUrl: `${ORIGIN}/v1`, apiKey: 'sk_bodies' };
const PDF = Buffer.from('%PDF-1.7\n%%EOF\n');

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
afterEach(() => nock.cleanAll());

async function bodyOf(
	method: 'post' | 'put',
	path: string | RegExp,
	parameters: INodeParameters,
	items?: Array<{ json: object; binary?: object }>,
): Promise<unknown> {
	let body: unknown;
	nock(ORIGIN)
		.intercept(path, method.toUpperCase(), (requestBody: unknown) => {
			body = requestBody;
			return true;
		})
		.reply(200, { id: 'x_1' });
	const result = await runDocumentSigning({
		parameters,
		credentials,
		...(items ? { items: items as never } : {}),
	});
	expect(result.error).toBeUndefined();
	return body;
}

const signers = {
	signer: [
		{
			email: 'ada@example.com',
			name: 'Ada Lovelace',
			order: 1,
			authentication: 'sms_otp',
			phone: '+44 20 7946 0958',
		},
		{ email: 'alan@example.com', name: 'Alan Turing', order: 2, authentication: 'national_eid' },
	],
};

// Every row has all six values: jest would hand a missing last argument the `done` callback.
test.each<
	[
		string,
		'post' | 'put',
		string | RegExp,
		INodeParameters,
		z.ZodTypeAny,
		Array<{ json: object; binary?: object }> | undefined,
	]
>([
	[
		'Document › Create (file, signers, metadata, expiry)',
		'post',
		'/v1/documents',
		{
			resource: 'document',
			operation: 'create',
			name: 'nda.pdf',
			signers,
			attachFile: true,
			binaryPropertyName: 'data',
			additionalFields: {
				message: 'Please sign',
				metadata: '{"deal":"D-1","amount":12}',
				expires_at: '2099-01-01T00:00:00Z',
			},
		},
		contract.CreateDocumentBodySchema,
		[
			{
				json: {},
				binary: {
					data: { data: PDF.toString('base64'), mimeType: 'application/pdf', fileName: 'nda.pdf' },
				},
			},
		],
	],
	[
		'Document › Create (draft from a template)',
		'post',
		'/v1/documents',
		{
			resource: 'document',
			operation: 'create',
			name: '',
			signers: {},
			additionalFields: { draft: true, template_id: 'tpl_1' },
		},
		contract.CreateDocumentBodySchema,
		undefined,
	],
	[
		'Signing Request › Create',
		'post',
		'/v1/signatures/request',
		{
			resource: 'signingRequest',
			operation: 'create',
			draftDocumentId: { __rl: true, mode: 'id', value: 'doc_1' },
			requestSigners: signers,
			signingRequestAdditionalFields: { message: 'Hi', expires_at: '2099-01-01' },
		},
		contract.CreateSigningRequestBodySchema,
		undefined,
	],
	[
		'Signing Request › Send Reminder',
		'post',
		'/v1/signatures/sr_1/remind',
		{
			resource: 'signingRequest',
			operation: 'remind',
			signingRequestId: 'sr_1',
			reminderOptions: { message: 'Nudge' },
		},
		contract.RemindBodySchema,
		undefined,
	],
	[
		'Template › Create',
		'post',
		'/v1/templates',
		{
			resource: 'template',
			operation: 'create',
			templateName: 'NDA',
			templateAdditionalFields: {
				description: 'd',
				document_name: 'nda.pdf',
				signer_roles: {
					role: [{ role: 'Client' }, { role: 'Company', email: 'ceo@example.com', name: 'Ceo' }],
				},
				metadata: '{"a":"b"}',
			},
		},
		contract.CreateTemplateBodySchema,
		undefined,
	],
	[
		'Template › Update',
		'put',
		'/v1/templates/tpl_1',
		{
			resource: 'template',
			operation: 'update',
			templateId: { __rl: true, mode: 'id', value: 'tpl_1' },
			updateFields: { name: 'NDA v2' },
		},
		contract.UpdateTemplateBodySchema,
		undefined,
	],
	[
		'Team Member › Invite',
		'post',
		'/v1/users/invite',
		{
			resource: 'teamMember',
			operation: 'invite',
			email: 'grace@example.com',
			role: 'viewer',
			inviteAdditionalFields: { name: 'Grace' },
		},
		contract.InviteUserBodySchema,
		undefined,
	],
	[
		'Team Member › Change Role',
		'put',
		'/v1/users/usr_1/role',
		{
			resource: 'teamMember',
			operation: 'updateRole',
			teamMemberId: { __rl: true, mode: 'id', value: 'usr_1' },
			role: 'admin',
		},
		contract.ChangeRoleBodySchema,
		undefined,
	],
	[
		'Webhook › Create',
		'post',
		'/v1/webhooks',
		{
			resource: 'webhook',
			operation: 'create',
			url: 'https://example.com/hook',
			events: ['document.signed', 'document.completed'],
			webhookAdditionalFields: { secret: 's'.repeat(40), description: 'x' },
		},
		contract.CreateWebhookBodySchema,
		undefined,
	],
])(
	'%s: the body parses with the contract',
	async (_title, method, path, parameters, schema, items) => {
		const body = await bodyOf(method, path, parameters, items);
		const parsed = schema.safeParse(body);
		expect(parsed.success ? 'valid' : parsed.error.issues).toBe('valid');
	},
);
