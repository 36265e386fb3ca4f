/**
 * Every one of the 19 endpoints of the vendor's published API description, answered as docs/api-contract.md says: status code and
 * body validated with the contract's zod schemas.
 */
import {
	AuditLogListSchema,
	DocumentListSchema,
	DocumentSchema,
	ExportJsonSchema,
	SigningRequestSchema,
	TeamMemberListSchema,
	TeamMemberSchema,
	TemplateListSchema,
	TemplateSchema,
	UsageReportSchema,
	WebhookListSchema,
	WebhookWithSecretSchema,
	EXPORT_COLUMNS,
} from '../../contract';
import { DEMO_OWNER_EMAIL } from '../../sandbox';
import { expectResponseMatchesOpenApi } from '../helpers/openapi';
import { api, documentBody, expectError, expectSchema, useSandbox } from '../helpers/sandbox';

const sandbox = useSandbox();

function freshClient() {
	const { apiKey } = sandbox().createAccount();
	return { client: api(sandbox(), apiKey), apiKey };
}

describe('documents', () => {
	it('POST /documents creates a pending document with a signing URL and its signing request', async () => {
		const { client } = freshClient();
		const file = {
			content_type: 'application/pdf',
			data: Buffer.from('%PDF-1.7 test').toString('base64'),
		};
		const response = await client.post(
			'/documents',
			documentBody({ message: 'Please sign', metadata: { deal: '42' }, file }),
		);
		expect(response.status).toBe(201);
		expectResponseMatchesOpenApi(response);
		const document = expectSchema(DocumentSchema, response.data);
		expect(document).toMatchObject({
			name: 'contract.pdf',
			status: 'pending',
			message: 'Please sign',
			metadata: { deal: '42' },
			file: { name: 'contract.pdf', content_type: 'application/pdf', size: 13 },
		});
		expect(document.signing_url).toMatch(
			new RegExp(`^${sandbox().origin}/sign/${document.id}\\?token=[\\w-]{20,}$`),
		);
		expect(
			document.signers.map((signer) => [signer.email, signer.status, signer.authentication]),
		).toEqual([
			['ann@example.com', 'pending', 'none'],
			['bob@example.com', 'pending', 'none'],
		]);
		for (const signer of document.signers) {
			expect(signer.signing_url).toMatch(
				new RegExp(`^${sandbox().origin}/sign/${document.id}/${signer.id}\\?token=.+`),
			);
		}
		expect(document.signature_request_id).toMatch(/^sr_/);
	});

	it('POST /documents with draft: true keeps it a draft without a signing request', async () => {
		const { client } = freshClient();
		const response = await client.post('/documents', { name: 'offer.docx', draft: true });
		expect(response.status).toBe(201);
		expect(expectSchema(DocumentSchema, response.data)).toMatchObject({
			status: 'draft',
			signers: [],
			signature_request_id: null,
		});
	});

	it('GET /documents lists, GET /documents/{id} fetches, DELETE /documents/{id} removes', async () => {
		const { client } = freshClient();
		const created = expectSchema(
			DocumentSchema,
			(await client.post('/documents', documentBody())).data,
		);

		const list = await client.get('/documents');
		expect(list.status).toBe(200);
		expectResponseMatchesOpenApi(list);
		expect(expectSchema(DocumentListSchema, list.data).data.map((document) => document.id)).toEqual(
			[created.id],
		);

		const one = await client.get(`/documents/${created.id}`);
		expect(one.status).toBe(200);
		expect(expectSchema(DocumentSchema, one.data)).toEqual(created);

		const removed = await client.delete(`/documents/${created.id}`);
		expect(removed.status).toBe(204);
		expectResponseMatchesOpenApi(removed);
		expectResponseMatchesOpenApi(await client.get(`/documents/${created.id}`));
		expect(removed.data).toBe('');
		expectError(await client.get(`/documents/${created.id}`), 404, 'not_found');
		expectError(await client.delete(`/documents/${created.id}`), 404, 'not_found');
	});

	it('creates from a template: name, message, metadata and pre-filled signers come from it', async () => {
		const { client } = freshClient();
		const template = expectSchema(
			TemplateSchema,
			(
				await client.post('/templates', {
					name: 'NDA',
					document_name: 'nda.pdf',
					message: 'Template message',
					metadata: { kind: 'nda' },
					signer_roles: [
						{ role: 'Company', order: 1, email: 'ceo@example.com', name: 'Chief' },
						{ role: 'Client', order: 2, email: 'client@example.com', name: 'Client Person' },
					],
				})
			).data,
		);
		const response = await client.post('/documents', {
			template_id: template.id,
			metadata: { deal: '7' },
		});
		expect(response.status).toBe(201);
		expect(expectSchema(DocumentSchema, response.data)).toMatchObject({
			name: 'nda.pdf',
			status: 'pending',
			template_id: template.id,
			message: 'Template message',
			metadata: { kind: 'nda', deal: '7' },
			signers: [
				{ email: 'ceo@example.com', order: 1 },
				{ email: 'client@example.com', order: 2 },
			],
		});
	});
});

describe('signing requests', () => {
	it('POST /signatures/request sends a draft; a second send is 409', async () => {
		const { client } = freshClient();
		const draft = expectSchema(
			DocumentSchema,
			(await client.post('/documents', { name: 'offer.pdf', draft: true })).data,
		);
		const response = await client.post('/signatures/request', {
			document_id: draft.id,
			signers: [{ email: 'carol@example.com', name: 'Carol' }],
			message: 'Over to you',
		});
		expect(response.status).toBe(201);
		expectResponseMatchesOpenApi(response);
		const request = expectSchema(SigningRequestSchema, response.data);
		expect(request).toMatchObject({
			document_id: draft.id,
			status: 'pending',
			message: 'Over to you',
			reminders_sent: 0,
		});
		expect(request.signers.map((signer) => signer.email)).toEqual(['carol@example.com']);

		const document = expectSchema(
			DocumentSchema,
			(await client.get(`/documents/${draft.id}`)).data,
		);
		expect(document).toMatchObject({ status: 'pending', signature_request_id: request.id });
		expectError(
			await client.post('/signatures/request', { document_id: draft.id }),
			409,
			'conflict',
			'document_id',
		);
	});

	it('a draft without signers cannot be sent without giving some', async () => {
		const { client } = freshClient();
		const draft = expectSchema(
			DocumentSchema,
			(await client.post('/documents', { name: 'offer.pdf', draft: true })).data,
		);
		expectError(
			await client.post('/signatures/request', { document_id: draft.id }),
			400,
			'validation_error',
			'signers',
		);
	});

	it('GET /signatures/{id} and POST /signatures/{id}/remind', async () => {
		const { client } = freshClient();
		const document = expectSchema(
			DocumentSchema,
			(await client.post('/documents', documentBody())).data,
		);
		const id = document.signature_request_id as string;

		const fetched = await client.get(`/signatures/${id}`);
		expect(fetched.status).toBe(200);
		expect(expectSchema(SigningRequestSchema, fetched.data)).toMatchObject({
			id,
			status: 'pending',
			document_id: document.id,
		});

		const reminded = await client.post(`/signatures/${id}/remind`);
		expect(reminded.status).toBe(200);
		expectResponseMatchesOpenApi(reminded);
		expectResponseMatchesOpenApi(fetched);
		const afterOne = expectSchema(SigningRequestSchema, reminded.data);
		expect(afterOne.reminders_sent).toBe(1);
		expect(afterOne.last_reminded_at).not.toBeNull();

		const targeted = await client.post(`/signatures/${id}/remind`, {
			signer_ids: [document.signers[1].id],
			message: 'Gentle nudge',
		});
		expect(targeted.status).toBe(200);
		expect(expectSchema(SigningRequestSchema, targeted.data).reminders_sent).toBe(2);

		expectError(
			await client.post(`/signatures/${id}/remind`, { signer_ids: ['sgn_unknown'] }),
			400,
			'validation_error',
			'signer_ids[0]',
		);
		expectError(await client.get('/signatures/sr_doesnotexist'), 404, 'not_found');
		expectError(await client.post('/signatures/sr_doesnotexist/remind'), 404, 'not_found');
	});

	it('reminding a request that is not pending is 409', async () => {
		const { client } = freshClient();
		const document = expectSchema(
			DocumentSchema,
			(await client.post('/documents', documentBody())).data,
		);
		expect((await client.delete(`/documents/${document.id}`)).status).toBe(204);
		// The signing request outlives its document and shows how it ended.
		const request = expectSchema(
			SigningRequestSchema,
			(await client.get(`/signatures/${document.signature_request_id}`)).data,
		);
		expect(request.status).toBe('cancelled');
		expectError(await client.post(`/signatures/${request.id}/remind`), 409, 'conflict');
	});
});

describe('templates', () => {
	it('POST /templates creates, GET /templates lists (with q), PUT /templates/{id} updates only what is sent', async () => {
		const { client } = freshClient();
		const createdResponse = await client.post('/templates', {
			name: 'Employment contract',
			description: 'Standard',
			document_name: 'employment.pdf',
			signer_roles: [{ role: 'Employer' }, { role: 'Employee' }],
		});
		expect(createdResponse.status).toBe(201);
		expectResponseMatchesOpenApi(createdResponse);
		const created = expectSchema(TemplateSchema, createdResponse.data);
		expect(created.signer_roles).toEqual([
			{ role: 'Employer', order: 1, email: null, name: null },
			{ role: 'Employee', order: 2, email: null, name: null },
		]);
		await client.post('/templates', { name: 'Other' });

		const list = await client.get('/templates', { params: { q: 'employ' } });
		expect(list.status).toBe(200);
		expectResponseMatchesOpenApi(list);
		expect(expectSchema(TemplateListSchema, list.data).data.map((template) => template.id)).toEqual(
			[created.id],
		);

		const updated = await client.put(`/templates/${created.id}`, {
			description: null,
			message: 'Hello',
		});
		expect(updated.status).toBe(200);
		expectResponseMatchesOpenApi(updated);
		expect(expectSchema(TemplateSchema, updated.data)).toMatchObject({
			name: 'Employment contract',
			description: null,
			message: 'Hello',
			document_name: 'employment.pdf',
			signer_roles: created.signer_roles,
		});
		expectError(await client.put('/templates/tpl_missing', { name: 'x' }), 404, 'not_found');
	});

	it('signers given with a template fill its roles in order and take their signing order', async () => {
		const { client } = freshClient();
		const template = expectSchema(
			TemplateSchema,
			(
				await client.post('/templates', {
					name: 'T',
					signer_roles: [
						{ role: 'Client', order: 2 },
						{ role: 'Company', order: 1 },
					],
				})
			).data,
		);
		const response = await client.post('/documents', {
			template_id: template.id,
			name: 'deal.pdf',
			signers: [
				{ email: 'company@example.com', name: 'Company' },
				{ email: 'client@example.com', name: 'Client' },
				{ email: 'extra@example.com', name: 'Extra' },
				{ email: 'own@example.com', name: 'Own order', order: 7 },
			],
		});
		expect(response.status).toBe(201);
		expect(
			expectSchema(DocumentSchema, response.data).signers.map((signer) => signer.order),
		).toEqual([1, 2, null, 7]);
	});

	it('a document from a template whose roles name nobody needs signers', async () => {
		const { client } = freshClient();
		const template = expectSchema(
			TemplateSchema,
			(await client.post('/templates', { name: 'T', signer_roles: [{ role: 'Client' }] })).data,
		);
		expectError(
			await client.post('/documents', { template_id: template.id, name: 'a.pdf' }),
			400,
			'validation_error',
			'signers',
		);
		expectError(
			await client.post('/documents', {
				template_id: template.id,
				signers: documentBody().signers,
			}),
			400,
			'validation_error',
			'name',
		);
		expectError(
			await client.post('/documents', documentBody({ template_id: 'tpl_missing' })),
			404,
			'not_found',
			'template_id',
		);
	});
});

describe('team members', () => {
	it('GET /users lists the owner, POST /users/invite invites, PUT /users/{id}/role changes a role', async () => {
		const { client } = freshClient();
		const initial = expectSchema(TeamMemberListSchema, (await client.get('/users')).data);
		expect(initial.data).toHaveLength(1);
		const owner = initial.data[0];
		expect(owner).toMatchObject({ role: 'owner', status: 'active', invited_at: null });

		const invited = await client.post('/users/invite', { email: 'dana@example.com', name: 'Dana' });
		expect(invited.status).toBe(201);
		expectResponseMatchesOpenApi(invited);
		const member = expectSchema(TeamMemberSchema, invited.data);
		expect(member).toMatchObject({ email: 'dana@example.com', role: 'member', status: 'invited' });
		expect(member.invited_at).not.toBeNull();
		expectError(
			await client.post('/users/invite', { email: 'DANA@example.com' }),
			409,
			'conflict',
			'email',
		);

		const changed = await client.put(`/users/${member.id}/role`, { role: 'admin' });
		expect(changed.status).toBe(200);
		expectResponseMatchesOpenApi(changed);
		expectResponseMatchesOpenApi(await client.get('/users'));
		expect(expectSchema(TeamMemberSchema, changed.data).role).toBe('admin');

		expectError(await client.put(`/users/${owner.id}/role`, { role: 'viewer' }), 409, 'conflict');
		expectError(
			await client.put(`/users/${member.id}/role`, { role: 'owner' }),
			400,
			'validation_error',
			'role',
		);
		expectError(await client.put('/users/usr_missing/role', { role: 'admin' }), 404, 'not_found');

		const admins = expectSchema(
			TeamMemberListSchema,
			(await client.get('/users', { params: { role: 'admin' } })).data,
		);
		expect(admins.data.map((user) => user.id)).toEqual([member.id]);
		const invitedOnly = expectSchema(
			TeamMemberListSchema,
			(await client.get('/users', { params: { status: 'active' } })).data,
		);
		expect(invitedOnly.data.map((user) => user.id)).toEqual([owner.id]);
	});

	it('the demo account has an owner user', async () => {
		const users = expectSchema(
			TeamMemberListSchema,
			(await api(sandbox()).get('/users', { params: { role: 'owner' } })).data,
		);
		expect(users.data.map((user) => user.email)).toEqual([DEMO_OWNER_EMAIL]);
	});
});

describe('webhooks', () => {
	it('POST /webhooks returns the secret once; GET /webhooks never shows it; DELETE removes', async () => {
		const { client } = freshClient();
		const generated = await client.post('/webhooks', {
			url: 'https://example.com/hook',
			events: ['document.completed'],
		});
		expect(generated.status).toBe(201);
		expectResponseMatchesOpenApi(generated);
		const first = expectSchema(WebhookWithSecretSchema, generated.data);
		expect(first.secret).toMatch(/^whsec_/);
		expect(first.active).toBe(true);

		const chosenSecret = 'a'.repeat(40);
		const second = expectSchema(
			WebhookWithSecretSchema,
			(
				await client.post('/webhooks', {
					url: 'http://127.0.0.1:9/x',
					events: ['*'],
					secret: chosenSecret,
					description: 'all',
				})
			).data,
		);
		expect(second.secret).toBe(chosenSecret);

		const list = await client.get('/webhooks');
		expect(list.status).toBe(200);
		expectResponseMatchesOpenApi(list);
		const page = expectSchema(WebhookListSchema, list.data);
		expect(page.data.map((webhook) => webhook.id)).toEqual([second.id, first.id]);
		expect(JSON.stringify(list.data)).not.toContain('secret');

		expect((await client.delete(`/webhooks/${first.id}`)).status).toBe(204);
		expect(
			expectSchema(WebhookListSchema, (await client.get('/webhooks')).data).data.map(
				(webhook) => webhook.id,
			),
		).toEqual([second.id]);
		expectError(await client.delete(`/webhooks/${first.id}`), 404, 'not_found');
	});
});

describe('reports', () => {
	it('GET /reports/usage counts what happened in the range', async () => {
		const { client } = freshClient();
		await client.post('/documents', documentBody());
		await client.post('/documents', documentBody());
		await client.post('/documents', { name: 'draft.pdf', draft: true });
		await client.post('/users/invite', { email: 'x@example.com' });

		const response = await client.get('/reports/usage');
		expect(response.status).toBe(200);
		expectResponseMatchesOpenApi(response);
		expect(expectSchema(UsageReportSchema, response.data)).toMatchObject({
			documents_created: 3,
			signing_requests_sent: 2,
			documents_completed: 0,
			team_members: 2,
		});

		const past = expectSchema(
			UsageReportSchema,
			(await client.get('/reports/usage', { params: { from: '2020-01-01', to: '2020-01-31' } }))
				.data,
		);
		expect(past).toMatchObject({
			from: '2020-01-01T00:00:00.000Z',
			to: '2020-01-31T23:59:59.999Z',
			documents_created: 0,
		});
		expectError(
			await client.get('/reports/usage', { params: { from: '2020-02-01', to: '2020-01-01' } }),
			400,
			'validation_error',
			'from',
		);
	});

	it('GET /reports/audit-log pages newest first and filters by document and event', async () => {
		const { client } = freshClient();
		const document = expectSchema(
			DocumentSchema,
			(await client.post('/documents', documentBody())).data,
		);
		await client.post('/documents', documentBody());

		const response = await client.get('/reports/audit-log', {
			params: { document_id: document.id },
		});
		expect(response.status).toBe(200);
		expectResponseMatchesOpenApi(response);
		const entries = expectSchema(AuditLogListSchema, response.data).data;
		expect(entries.map((entry) => entry.event)).toEqual([
			'document.sent',
			'signature.requested',
			'document.created',
		]);
		expect(entries[0].actor.type).toBe('api_key');

		const created = expectSchema(
			AuditLogListSchema,
			(await client.get('/reports/audit-log', { params: { event: 'document.created' } })).data,
		);
		expect(created.data).toHaveLength(2);
	});

	it('GET /reports/export returns a CSV file, or JSON rows', async () => {
		const { client } = freshClient();
		const document = expectSchema(
			DocumentSchema,
			(await client.post('/documents', documentBody({ name: '=cmd|x.pdf' }))).data,
		);

		const csv = await client.get('/reports/export', {
			params: { from: '2000-01-01', to: '2999-12-31' },
			responseType: 'text',
		});
		expect(csv.status).toBe(200);
		expectResponseMatchesOpenApi(csv);
		expect(csv.headers['content-type']).toMatch(/^text\/csv/);
		expect(csv.headers['content-disposition']).toBe(
			'attachment; filename="documents-2000-01-01-2999-12-31.csv"',
		);
		const lines = (csv.data as string).trimEnd().split('\r\n');
		expect(lines[0]).toBe(EXPORT_COLUMNS.join(','));
		expect(lines).toHaveLength(2);
		// Formula-looking names are defused for spreadsheets.
		expect(lines[1]).toContain(`${document.id},'=cmd|x.pdf,pending,`);
		expect(lines[1]).toContain('ann@example.com;bob@example.com');

		const json = await client.get('/reports/export', { params: { format: 'json' } });
		expect(json.status).toBe(200);
		expectResponseMatchesOpenApi(json);
		expect(json.headers['content-type']).toMatch(/^application\/json/);
		expect(json.headers['content-disposition']).toMatch(
			/^attachment; filename="documents-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.json"$/,
		);
		const rows = expectSchema(ExportJsonSchema, json.data);
		expect(rows).toEqual([
			expect.objectContaining({ id: document.id, signer_count: 2, signed_count: 0 }),
		]);

		expectError(
			await client.get('/reports/export', { params: { format: 'xml' } }),
			400,
			'validation_error',
			'format',
		);
	});
});
