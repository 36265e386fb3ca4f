import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import {
	searchDocuments,
	searchTeamMembers,
	searchTemplates,
} from '../../nodes/DocumentSigning/listSearch';
import { DIALECT_NAMES, parseDialect } from '../../sandbox';
import { useSandbox } from '../helpers/sandbox';
import { loadOptionsContext, runDocumentSigning } from '../helpers/n8nWorkflow';

/**
 * Every resource's operations through n8n's real routing engine against the sandbox, checking
 * both what the node outputs and what the service then holds — in every dialect the sandbox
 * speaks (numeric ids, other list envelopes and paging, error bodies, deletes, no delivery
 * endpoints, …): the real service is one more dialect nobody here has seen.
 */

describe.each(DIALECT_NAMES)('dialect %s', (dialectName) => {
	const dialect = parseDialect(dialectName);
	const sandbox = useSandbox({ port: 0, dialect: dialectName });
	let credentials: { baseUrl: string; apiKey: string };

	beforeEach(() => {
		// A fresh account per test keeps the tests independent of each other.
		credentials = { baseUrl: sandbox().baseUrl, apiKey: sandbox().createAccount().apiKey };
	});
	/** Ids as the sandbox's store holds them (text, whatever the wire shows). */
	const text = (value: unknown) => String(value);
	/** A failed item's whole story: the service's words may sit in the message or the description. */
	const story = (error: { message?: string; description?: string | null } | undefined) =>
		`${error?.message ?? ''} ${error?.description ?? ''}`;

	async function run(parameters: INodeParameters, items?: INodeExecutionData[]) {
		const result = await runDocumentSigning({ parameters, items, credentials });
		if (result.error)
			throw new Error(`${result.error.message} — ${result.error.description ?? ''}`);
		return result.items.map((item) => item.json);
	}

	const byId = (value: string) => ({ __rl: true, mode: 'id', value });
	const PDF = Buffer.from('%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
	const signers = {
		signer: [
			{ email: 'ada@example.com', name: 'Ada Lovelace' },
			{ email: 'alan@example.com', name: 'Alan Turing', order: 2 },
		],
	};

	describe('Document', () => {
		test('Create uploads a PDF from the previous node and keeps signing_url', async () => {
			const [doc] = await run(
				{
					resource: 'document',
					operation: 'create',
					name: 'nda.pdf',
					signers,
					attachFile: true,
					binaryPropertyName: 'data',
					additionalFields: {
						message: 'Please sign',
						metadata: '{"dealId":"D-1","amount":1200,"won":true}',
					},
				},
				[
					{
						json: {},
						binary: {
							data: {
								data: PDF.toString('base64'),
								mimeType: 'application/pdf',
								fileName: 'nda.pdf',
							},
						},
					},
				],
			);
			expect(doc).toMatchObject({
				name: 'nda.pdf',
				status: 'pending',
				message: 'Please sign',
				metadata: { dealId: 'D-1', amount: '1200', won: 'true' },
			});
			expect(doc.signing_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sign\//);
			expect((doc.file as IDataObject).size).toBe(PDF.length);
			expect((doc.signers as IDataObject[]).map((s) => s.email)).toEqual([
				'ada@example.com',
				'alan@example.com',
			]);
			expect(
				sandbox()
					.store.documentsOf(credentials.apiKey)
					.map((d) => d.id),
			).toEqual([text(doc.id)]);
		});

		test('Get by ID and by signing URL, Get Many across pages, Delete', async () => {
			const names = Array.from({ length: 45 }, (_, i) => ({ json: { name: `contract-${i}.pdf` } }));
			const created = await run(
				{ resource: 'document', operation: 'create', name: '={{ $json.name }}', signers },
				names,
			);
			expect(created).toHaveLength(45);

			const [byIdDoc] = await run({
				resource: 'document',
				operation: 'get',
				documentId: byId(String(created[0].id)),
				simplify: false,
			});
			expect(byIdDoc.id).toBe(created[0].id);
			const [byUrl] = await run({
				resource: 'document',
				operation: 'get',
				documentId: { __rl: true, mode: 'url', value: String(created[1].signing_url) },
			});
			expect(byUrl.id).toBe(created[1].id);

			const all = await run({ resource: 'document', operation: 'getAll', returnAll: true });
			expect(all.map((d) => d.id).sort()).toEqual(created.map((d) => d.id).sort());
			expect(Object.keys(all[0]).sort()).toEqual(
				expect.arrayContaining(['id', 'name', 'status', 'signing_url']),
			);
			const limited = await run({
				resource: 'document',
				operation: 'getAll',
				returnAll: false,
				limit: 7,
			});
			expect(limited).toHaveLength(7);
			const filtered = await run({
				resource: 'document',
				operation: 'getAll',
				returnAll: true,
				filters: { q: 'contract-4' },
			});
			expect(filtered.map((d) => d.name).sort()).toEqual([
				'contract-4.pdf',
				'contract-40.pdf',
				'contract-41.pdf',
				'contract-42.pdf',
				'contract-43.pdf',
				'contract-44.pdf',
			]);

			const [deleted] = await run({
				resource: 'document',
				operation: 'delete',
				documentId: byId(String(created[2].id)),
			});
			expect(deleted).toEqual({ id: text(created[2].id), deleted: true });
			expect(sandbox().store.documentsOf(credentials.apiKey)).toHaveLength(44);
			const gone = await runDocumentSigning({
				parameters: {
					resource: 'document',
					operation: 'get',
					documentId: byId(String(created[2].id)),
				},
				credentials,
			});
			expect(gone.error?.httpCode).toBe('404');
		});

		test('the document list search pages and filters', async () => {
			await run({ resource: 'document', operation: 'create', name: '={{ $json.name }}', signers }, [
				{ json: { name: 'alpha.pdf' } },
				{ json: { name: 'beta.pdf' } },
			]);
			const context = loadOptionsContext(credentials);
			const all = await searchDocuments.call(context);
			expect(all.results.map((r) => r.name).sort()).toEqual([
				'alpha.pdf (pending)',
				'beta.pdf (pending)',
			]);
			expect(all.results[0].url).toMatch(/\/sign\//);
			const found = await searchDocuments.call(context, 'alp');
			expect(found.results.map((r) => r.name)).toEqual(['alpha.pdf (pending)']);
		});

		test('the list search hands n8n a page token while more pages remain', async () => {
			await run(
				{ resource: 'document', operation: 'create', name: '={{ $json.name }}', signers },
				Array.from({ length: 60 }, (_, i) => ({ json: { name: `page-${i}.pdf` } })),
			);
			const context = loadOptionsContext(credentials);
			const first = await searchDocuments.call(context);
			const perPage = Math.min(50, dialect.maxPageSize);
			expect(first.results).toHaveLength(perPage);
			expect(first.paginationToken).toEqual(expect.any(String));
			if (dialect.paging === 'ignored') {
				// The service answers the first page again: said, not shown twice.
				await expect(
					searchDocuments.call(context, undefined, first.paginationToken as string),
				).rejects.toThrow(/already sent/);
				return;
			}
			const ids = first.results.map((r) => r.value);
			let token = first.paginationToken as string | undefined;
			for (let pages = 1; token && pages < 10; pages++) {
				const next = await searchDocuments.call(context, undefined, token);
				ids.push(...next.results.map((r) => r.value));
				token = next.paginationToken as string | undefined;
			}
			expect(token).toBeUndefined();
			expect(ids).toHaveLength(60);
			expect(new Set(ids).size).toBe(60);
		});
	});

	describe('Signing Request', () => {
		test('Create sends a draft; Get Status and Send Reminder follow it', async () => {
			const [draft] = await run({
				resource: 'document',
				operation: 'create',
				name: 'offer.pdf',
				signers: {},
				additionalFields: { draft: true },
			});
			expect(draft.status).toBe('draft');
			const [request] = await run({
				resource: 'signingRequest',
				operation: 'create',
				draftDocumentId: byId(String(draft.id)),
				requestSigners: signers,
				signingRequestAdditionalFields: { message: 'Welcome aboard' },
			});
			expect(request).toMatchObject({ document_id: draft.id, status: 'pending' });

			const [status] = await run({
				resource: 'signingRequest',
				operation: 'getStatus',
				signingRequestId: String(request.id),
			});
			expect(status).toMatchObject({ id: request.id, status: 'pending', reminders_sent: 0 });
			const [reminded] = await run({
				resource: 'signingRequest',
				operation: 'remind',
				signingRequestId: String(request.id),
				reminderOptions: { message: 'Gentle nudge' },
			});
			expect(reminded).toMatchObject({ id: request.id, reminders_sent: 1 });
			expect(sandbox().store.documentsOf(credentials.apiKey)[0].status).toBe('pending');
		});

		test('a second request for a document already out for signing is refused by the service', async () => {
			const [doc] = await run({
				resource: 'document',
				operation: 'create',
				name: 'nda.pdf',
				signers,
			});
			const result = await runDocumentSigning({
				parameters: {
					resource: 'signingRequest',
					operation: 'create',
					draftDocumentId: byId(String(doc.id)),
				},
				credentials,
			});
			expect(result.error?.httpCode).toBe('409');
		});
	});

	describe('Template', () => {
		test('Create, Update (partial) and Get Many, and the template list search', async () => {
			const [template] = await run({
				resource: 'template',
				operation: 'create',
				templateName: 'Mutual NDA',
				templateAdditionalFields: {
					description: 'Standard NDA',
					signer_roles: { role: [{ role: 'Client' }, { role: 'Company' }] },
				},
			});
			expect(template).toMatchObject({
				name: 'Mutual NDA',
				signer_roles: [
					{ role: 'Client', order: 1 },
					{ role: 'Company', order: 2 },
				],
			});
			const [updated] = await run({
				resource: 'template',
				operation: 'update',
				templateId: byId(String(template.id)),
				updateFields: { name: 'Mutual NDA v2' },
			});
			expect(updated).toMatchObject({
				id: template.id,
				name: 'Mutual NDA v2',
				description: 'Standard NDA',
			});
			const list = await run({ resource: 'template', operation: 'getAll', returnAll: true });
			expect(list.map((t) => t.name)).toEqual(['Mutual NDA v2']);
			const search = await searchTemplates.call(loadOptionsContext(credentials), 'v2');
			expect(search.results).toEqual([
				{ name: 'Mutual NDA v2', value: text(template.id), url: undefined },
			]);
		});
	});

	describe('Template → Document', () => {
		test('a template with a fixed signatory gives the document its name and the signers their order', async () => {
			const [template] = await run({
				resource: 'template',
				operation: 'create',
				templateName: 'Sales agreement',
				templateAdditionalFields: {
					document_name: 'sales-agreement.pdf',
					signer_roles: {
						role: [
							{ role: 'Client' },
							{ role: 'Company', email: 'ceo@vendor.example', name: 'Vera Vendor' },
						],
					},
				},
			});
			expect((template.signer_roles as IDataObject[])[1]).toMatchObject({
				role: 'Company',
				email: 'ceo@vendor.example',
				name: 'Vera Vendor',
				order: 2,
			});
			const [doc] = await run({
				resource: 'document',
				operation: 'create',
				name: '',
				signers: { signer: [{ email: 'client@example.com', name: 'Cleo Client' }] },
				additionalFields: { template_id: String(template.id) },
			});
			expect(doc.name).toBe('sales-agreement.pdf');
			expect(doc.template_id).toBe(template.id);
			expect((doc.signers as IDataObject[]).map((s) => s.email)).toEqual([
				'client@example.com',
				'ceo@vendor.example',
			]);
		});
	});

	describe('Team Member', () => {
		test('Invite, Change Role (listed and custom) and Get Many with a role filter', async () => {
			const [invited] = await run({
				resource: 'teamMember',
				operation: 'invite',
				email: 'grace@example.com',
				role: 'viewer',
				inviteAdditionalFields: { name: 'Grace Hopper' },
			});
			expect(invited).toMatchObject({
				email: 'grace@example.com',
				role: 'viewer',
				status: 'invited',
			});
			const [changed] = await run({
				resource: 'teamMember',
				operation: 'updateRole',
				teamMemberId: byId(String(invited.id)),
				role: 'admin',
			});
			expect(changed).toMatchObject({ id: invited.id, role: 'admin' });
			const admins = await run({
				resource: 'teamMember',
				operation: 'getAll',
				returnAll: true,
				filters: { role: 'admin' },
			});
			expect(admins.map((u) => u.email)).toEqual(['grace@example.com']);
			const custom = await runDocumentSigning({
				parameters: {
					resource: 'teamMember',
					operation: 'updateRole',
					teamMemberId: byId(String(invited.id)),
					role: '__custom',
					customRole: 'billing',
				},
				credentials,
			});
			// The contract knows no "billing" role: the service's validation message comes through.
			expect(custom.error?.httpCode).toBe('400');
			const search = await searchTeamMembers.call(loadOptionsContext(credentials), 'grace');
			expect(search.results.map((r) => r.value)).toEqual([text(invited.id)]);
		});
	});

	describe('Webhook', () => {
		test('Create, Get Many and Delete', async () => {
			const [hook] = await run({
				resource: 'webhook',
				operation: 'create',
				url: 'http://127.0.0.1:9/hook',
				events: ['document.completed', 'document.declined'],
			});
			expect(hook).toMatchObject({
				url: 'http://127.0.0.1:9/hook',
				events: ['document.completed', 'document.declined'],
			});
			expect(String(hook.secret)).toMatch(/^whsec_/);
			const list = await run({ resource: 'webhook', operation: 'getAll', returnAll: true });
			expect(list.map((w) => [w.id, w.url])).toEqual([[hook.id, hook.url]]);
			expect(list[0].secret).toBeUndefined();
			await run({ resource: 'webhook', operation: 'delete', webhookId: String(hook.id) });
			expect(sandbox().store.webhooksOf(credentials.apiKey)).toHaveLength(0);
		});

		test('Get Delivery and Acknowledge Delivery: the first claim wins, a repeat fails with the service message and 409', async () => {
			// A real delivery: the webhook points at a port nothing listens on, so it ends failed.
			sandbox().configure({ webhookRetry: { maxAttempts: 1 } });
			let deliveryId: string;
			let webhookId: string;
			try {
				const [hook] = await run({
					resource: 'webhook',
					operation: 'create',
					url: 'http://127.0.0.1:9/hook',
					events: ['document.created'],
				});
				webhookId = String(hook.id);
				await run({ resource: 'document', operation: 'create', name: 'a.pdf', signers });
				await sandbox().flushDeliveries();
				deliveryId = sandbox()
					.deliveries()
					.find((d) => d.webhookId === webhookId)!.deliveryId;
			} finally {
				sandbox().configure({ webhookRetry: { maxAttempts: 8 } });
			}

			if (!dialect.deliveryEndpoints) {
				// A service without delivery records: both operations fail with its 404, clearly.
				for (const operation of ['getDelivery', 'acknowledgeDelivery']) {
					const missing = await runDocumentSigning({
						parameters: { resource: 'webhook', operation, webhookId, deliveryId },
						credentials,
					});
					expect(missing.error?.httpCode).toBe('404');
				}
				return;
			}
			const [before] = await run({
				resource: 'webhook',
				operation: 'getDelivery',
				webhookId,
				deliveryId,
			});
			expect(before).toMatchObject({ status: 'failed', acknowledged_at: null });
			expect([text(before.id), text(before.webhook_id)]).toEqual([deliveryId, webhookId]);
			const [claimed] = await run({
				resource: 'webhook',
				operation: 'acknowledgeDelivery',
				webhookId,
				deliveryId,
			});
			expect(claimed).toMatchObject({ status: 'acknowledged' });
			expect(text(claimed.id)).toBe(deliveryId);

			const repeat = await runDocumentSigning({
				parameters: {
					resource: 'webhook',
					operation: 'acknowledgeDelivery',
					webhookId,
					deliveryId,
				},
				credentials,
			});
			expect(repeat.error?.httpCode).toBe('409');
			expect(story(repeat.error)).toContain('already acknowledged');
			// Continue On Fail: the item carries the error, so a workflow can branch on repeats.
			const tolerant = await runDocumentSigning({
				parameters: {
					resource: 'webhook',
					operation: 'acknowledgeDelivery',
					webhookId,
					deliveryId,
				},
				credentials,
				continueOnFail: true,
			});
			expect(
				`${String(tolerant.items[0].json.error)} ${story(tolerant.items[0].error as never)}`,
			).toContain('already acknowledged');
		});
	});

	describe('Report', () => {
		test('Usage, Audit Log (all pages) and Export as a binary file', async () => {
			await run(
				{ resource: 'document', operation: 'create', name: '={{ $json.name }}', signers },
				Array.from({ length: 3 }, (_, i) => ({ json: { name: `r${i}.pdf` } })),
			);
			const [usage] = await run({ resource: 'report', operation: 'usage' });
			expect(usage.documents_created).toBe(3);
			const audit = await run({ resource: 'report', operation: 'auditLog', returnAll: true });
			expect(audit.length).toBeGreaterThanOrEqual(3);
			// Entries come as the service names their fields (the action node passes them on unchanged).
			const eventField =
				{ renamed: 'type', bare: 'action' }[String(dialect.auditFields)] ?? 'event';
			expect(audit.every((entry) => typeof entry[eventField] === 'string')).toBe(true);

			const result = await runDocumentSigning({
				parameters: {
					resource: 'report',
					operation: 'export',
					format: 'csv',
					binaryPropertyName: 'data',
				},
				credentials,
			});
			const [item] = result.items;
			expect(item.binary?.data.mimeType).toBe('text/csv');
			expect(item.binary?.data.fileName).toMatch(/\.csv$/);
			const csv = Buffer.from(item.binary!.data.data, 'base64').toString();
			expect(csv.split('\n').filter((line) => /r\d\.pdf/.test(line))).toHaveLength(3);
		});
	});
});
