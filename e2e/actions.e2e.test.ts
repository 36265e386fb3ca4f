/**
 * Every resource of the Document Signing node, executed by a real n8n (`n8n execute`, headless)
 * against the sandbox running in this jest process. Each test checks the node's output items in
 * the run data AND what the sandbox then holds (or counted).
 *
 * One n8n instance for the file; one sandbox account (and credential) per test, all imported
 * at once, so the tests do not see each other's records.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { startSandbox, type Sandbox } from '../sandbox';
import { createN8n, newId, type N8nInstance, type RunData } from './harness/n8n';
import {
	byId,
	chain,
	codeNode,
	extractCsvNode,
	importWorkflows,
	manualTrigger,
	nodeItems,
	readFilesNode,
	sandboxPost,
	signingNode,
	type CredentialRef,
	type WorkflowJson,
	type WorkflowNode,
} from './harness/workflows';

const TESTS = ['document', 'pages', 'signing', 'template', 'team', 'reports'] as const;
type TestName = (typeof TESTS)[number];

let sandbox: Sandbox;
let n8n: N8nInstance;
// Read/Write Files from Disk may only read below N8N_RESTRICT_FILE_ACCESS_TO (n8n 2.x default
// ~/.n8n-files): the PDF is written here and n8n is told so.
const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-actions-files-'));
/** Each test's own sandbox account (its key is set in beforeAll) and the credential holding it. */
const credentialOf = Object.fromEntries(
	TESTS.map((test) => [test, { id: newId(), name: `Document Signing (${test})` }]),
) as Record<TestName, CredentialRef>;
const apiKeyOf = {} as Record<TestName, string>;
/** Each test's workflow, registered next to the test, imported all at once in beforeAll. */
const workflows = new Map<TestName, { build: () => WorkflowJson; id?: string }>();

// A small but real PDF (header, one object, trailer), read from disk by n8n.
const PDF = Buffer.from(
	'%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
);
const SIGNERS = {
	signer: [
		{ email: 'ada@example.com', name: 'Ada Lovelace' },
		{ email: 'alan@example.com', name: 'Alan Turing', order: 2 },
	],
};

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
	fs.writeFileSync(path.join(filesDir, 'master-services-agreement.pdf'), PDF);
	n8n = await createN8n({
		sandboxBaseUrl: sandbox.baseUrl,
		env: { N8N_RESTRICT_FILE_ACCESS_TO: filesDir },
	});
	for (const test of TESTS) apiKeyOf[test] = sandbox.createAccount().apiKey;
	await n8n.importCredentials(
		TESTS.map((test) =>
			n8n.documentSigningCredential({ ...credentialOf[test], apiKey: apiKeyOf[test] }),
		),
	);
	// One CLI call for every workflow of the file.
	const entries = [...workflows.values()];
	const ids = await importWorkflows(
		n8n,
		entries.map((entry) => entry.build()),
	);
	entries.forEach((entry, index) => (entry.id = ids[index]));
});

afterAll(async () => {
	await n8n?.dispose();
	await sandbox?.close();
	fs.rmSync(filesDir, { recursive: true, force: true });
});

/** The Document Signing node with the credential of `test`'s account. */
function signing(
	test: TestName,
	name: string,
	parameters: Record<string, unknown>,
	options: { executeOnce?: boolean } = {},
): WorkflowNode {
	return signingNode(name, parameters, { credential: credentialOf[test], ...options });
}

/**
 * Registers `test`'s workflow for the import in beforeAll; the returned function executes it with
 * `n8n execute` and fails with n8n's error when the execution failed.
 */
function workflowFor(test: TestName, build: () => WorkflowJson): () => Promise<RunData> {
	workflows.set(test, { build });
	return async () => {
		const id = workflows.get(test)?.id;
		if (!id) throw new Error(`workflow of "${test}" was not imported`);
		const result = await n8n.execute(id);
		if (result.status !== 'success') {
			throw new Error(
				`execution failed: ${result.error?.message} — ${result.error?.description ?? ''} (node ${result.error?.node?.name})`,
			);
		}
		return result.run;
	};
}

const json = (run: RunData, node: string) => nodeItems(run, node).map((item) => item.json);

describe('Document', () => {
	const documentWorkflow = workflowFor('document', () =>
		chain('e2e: document create/get/delete', [
			manualTrigger(),
			readFilesNode('Read PDF', path.join(filesDir, 'master-services-agreement.pdf')),
			signing('document', 'Create Document', {
				resource: 'document',
				operation: 'create',
				name: '={{ $binary.data.fileName }}',
				signers: SIGNERS,
				attachFile: true,
				binaryPropertyName: 'data',
				additionalFields: { message: 'Please sign the MSA', metadata: '{"dealId":"D-42"}' },
			}),
			signing('document', 'Get Document', {
				resource: 'document',
				operation: 'get',
				documentId: byId('={{ $json.id }}'),
				simplify: false,
			}),
			signing('document', 'Delete Document', {
				resource: 'document',
				operation: 'delete',
				documentId: byId('={{ $json.id }}'),
			}),
		]),
	);

	it('creates a document from a PDF read by the previous node, gets it and deletes it', async () => {
		const apiKey = apiKeyOf.document;
		const run = await documentWorkflow();

		// The binary came from the previous node, as n8n read it from disk.
		const [read] = nodeItems(run, 'Read PDF');
		expect(read.binary?.data).toMatchObject({
			fileName: 'master-services-agreement.pdf',
			mimeType: 'application/pdf',
		});

		const [created] = json(run, 'Create Document');
		expect(created).toMatchObject({
			name: 'master-services-agreement.pdf',
			status: 'pending',
			message: 'Please sign the MSA',
			metadata: { dealId: 'D-42' },
			file: {
				name: 'master-services-agreement.pdf',
				content_type: 'application/pdf',
				size: PDF.length,
				sha256: createHash('sha256').update(PDF).digest('hex'),
			},
		});
		expect(created.id).toMatch(/^doc_/);
		expect(created.signing_url).toContain(`${sandbox.origin}/sign/${created.id}`);
		expect(created.signers.map((s: any) => [s.email, s.order])).toEqual([
			['ada@example.com', null],
			['alan@example.com', 2],
		]);

		const [got] = json(run, 'Get Document');
		expect(got).toMatchObject({
			id: created.id,
			name: created.name,
			status: 'pending',
			signature_request_id: created.signature_request_id,
		});
		expect(got.file.sha256).toBe(created.file.sha256);

		expect(json(run, 'Delete Document')).toEqual([{ id: created.id, deleted: true }]);

		// The service: nothing left, and the audit log tells the document's whole story.
		expect(sandbox.store.documentsOf(apiKey)).toEqual([]);
		const events = sandbox.store
			.auditLogOf(apiKey)
			.filter((entry) => entry.document_id === created.id)
			.map((entry) => entry.event)
			.reverse();
		expect(events).toEqual(
			expect.arrayContaining([
				'document.created',
				'document.sent',
				'document.cancelled',
				'document.deleted',
			]),
		);
		expect(events[0]).toBe('document.created');
		expect(events[events.length - 1]).toBe('document.deleted');
	});

	const COUNT = 105;
	const pagesWorkflow = workflowFor('pages', () =>
		chain('e2e: document pages', [
			manualTrigger(),
			codeNode(
				'Names',
				`return Array.from({ length: ${COUNT} }, (_, i) => ({ json: { name: 'bulk-' + String(i).padStart(3, '0') + '.pdf' } }));`,
			),
			signing('pages', 'Create Documents', {
				resource: 'document',
				operation: 'create',
				name: '={{ $json.name }}',
				signers: SIGNERS,
			}),
			signing(
				'pages',
				'Get All',
				{ resource: 'document', operation: 'getAll', returnAll: true },
				{ executeOnce: true },
			),
			signing(
				'pages',
				'Get 102',
				{ resource: 'document', operation: 'getAll', returnAll: false, limit: 102 },
				{ executeOnce: true },
			),
		]),
	);

	it('lists every document across pages of 100 (Return All) and with a Limit above one page', async () => {
		const apiKey = apiKeyOf.pages;
		const before = sandbox.stats().routes['GET /v1/documents'] ?? 0;
		const run = await pagesWorkflow();

		const created = json(run, 'Create Documents');
		expect(created).toHaveLength(COUNT);
		const stored = sandbox.store.documentsOf(apiKey);
		expect(stored).toHaveLength(COUNT);
		expect(new Set(created.map((d) => d.id))).toEqual(new Set(stored.map((d) => d.id)));

		// Return All: every document once, newest first, as the service orders them.
		const all = json(run, 'Get All');
		expect(all.map((d) => d.id)).toEqual(stored.map((d) => d.id));
		// Simplified output.
		expect(Object.keys(all[0]).sort()).toEqual([
			'completed_at',
			'created_at',
			'expires_at',
			'fields',
			'id',
			'name',
			'signature_request_id',
			'signers',
			'signing_url',
			'status',
		]);

		// Limit 102: the first 102 of the same order.
		const limited = json(run, 'Get 102');
		expect(limited.map((d) => d.id)).toEqual(stored.slice(0, 102).map((d) => d.id));

		// Two pages each (100 + 5, and 100 + 2): the node followed the cursor.
		expect((sandbox.stats().routes['GET /v1/documents'] ?? 0) - before).toBe(4);
	});
});

describe('Signing Request', () => {
	const signingWorkflow = workflowFor('signing', () =>
		chain('e2e: signing request', [
			manualTrigger(),
			signing('signing', 'Create Draft', {
				resource: 'document',
				operation: 'create',
				name: 'offer-letter.pdf',
				signers: {},
				additionalFields: { draft: true },
			}),
			signing('signing', 'Send for Signing', {
				resource: 'signingRequest',
				operation: 'create',
				draftDocumentId: byId('={{ $json.id }}'),
				requestSigners: { signer: [{ email: 'grace@example.com', name: 'Grace Hopper' }] },
				signingRequestAdditionalFields: { message: 'Welcome aboard' },
			}),
			signing('signing', 'Get Status', {
				resource: 'signingRequest',
				operation: 'getStatus',
				signingRequestId: '={{ $json.id }}',
			}),
			signing('signing', 'Remind', {
				resource: 'signingRequest',
				operation: 'remind',
				signingRequestId: '={{ $json.id }}',
				reminderOptions: { message: 'Gentle nudge' },
			}),
		]),
	);

	it('sends a draft (Create), reads its status and sends a reminder', async () => {
		const apiKey = apiKeyOf.signing;
		const run = await signingWorkflow();

		const [draft] = json(run, 'Create Draft');
		expect(draft).toMatchObject({
			name: 'offer-letter.pdf',
			status: 'draft',
			signature_request_id: null,
		});
		const [request] = json(run, 'Send for Signing');
		expect(request).toMatchObject({
			document_id: draft.id,
			status: 'pending',
			message: 'Welcome aboard',
			reminders_sent: 0,
		});
		expect(request.id).toMatch(/^sr_/);
		expect(request.signers.map((s: any) => s.email)).toEqual(['grace@example.com']);
		const [status] = json(run, 'Get Status');
		expect(status).toMatchObject({
			id: request.id,
			document_id: draft.id,
			status: 'pending',
			reminders_sent: 0,
			last_reminded_at: null,
		});
		const [reminded] = json(run, 'Remind');
		expect(reminded).toMatchObject({ id: request.id, status: 'pending', reminders_sent: 1 });
		expect(reminded.last_reminded_at).toEqual(expect.any(String));

		const [storedRequest] = sandbox.store.signingRequestsOf(apiKey);
		expect(storedRequest).toMatchObject({
			id: request.id,
			document_id: draft.id,
			reminders_sent: 1,
		});
		const [document] = sandbox.store.documentsOf(apiKey);
		expect(document).toMatchObject({
			id: draft.id,
			status: 'pending',
			signature_request_id: request.id,
		});
		expect(document.signers.map((s) => s.email)).toEqual(['grace@example.com']);
		const reminder = sandbox.store
			.auditLogOf(apiKey)
			.find((entry) => entry.event === 'signature.reminded');
		expect(reminder?.details).toMatchObject({ signature_request_id: request.id });
	});
});

describe('Template', () => {
	const templateWorkflow = workflowFor('template', () =>
		chain('e2e: template', [
			manualTrigger(),
			signing('template', 'Create Template', {
				resource: 'template',
				operation: 'create',
				templateName: 'Mutual NDA',
				templateAdditionalFields: {
					description: 'Standard mutual NDA',
					document_name: 'nda.pdf',
					message: 'Please sign our NDA',
					signer_roles: { role: [{ role: 'Client' }, { role: 'Company' }] },
				},
			}),
			signing('template', 'Update Template', {
				resource: 'template',
				operation: 'update',
				templateId: byId('={{ $json.id }}'),
				updateFields: { name: 'Mutual NDA v2', message: 'Please sign the new NDA' },
			}),
			signing('template', 'List Templates', {
				resource: 'template',
				operation: 'getAll',
				returnAll: true,
			}),
		]),
	);

	it('creates a template, updates some fields and lists it', async () => {
		const apiKey = apiKeyOf.template;
		const run = await templateWorkflow();

		const [created] = json(run, 'Create Template');
		expect(created).toMatchObject({
			name: 'Mutual NDA',
			description: 'Standard mutual NDA',
			document_name: 'nda.pdf',
			signer_roles: [
				{ role: 'Client', order: 1 },
				{ role: 'Company', order: 2 },
			],
		});
		const [updated] = json(run, 'Update Template');
		// Changed what was given, kept the rest.
		expect(updated).toMatchObject({
			id: created.id,
			name: 'Mutual NDA v2',
			message: 'Please sign the new NDA',
			description: 'Standard mutual NDA',
			document_name: 'nda.pdf',
		});
		const listed = json(run, 'List Templates');
		expect(listed).toEqual([
			{
				id: created.id,
				name: 'Mutual NDA v2',
				description: 'Standard mutual NDA',
				document_name: 'nda.pdf',
				fields: [],
				signer_roles: created.signer_roles,
				updated_at: updated.updated_at,
			},
		]);

		const stored = sandbox.store.templatesOf(apiKey);
		expect(stored).toHaveLength(1);
		expect(stored[0]).toMatchObject({
			id: created.id,
			name: 'Mutual NDA v2',
			message: 'Please sign the new NDA',
			description: 'Standard mutual NDA',
		});
	});
});

describe('Team Member', () => {
	const teamWorkflow = workflowFor('team', () =>
		chain('e2e: team member', [
			manualTrigger(),
			signing('team', 'Invite', {
				resource: 'teamMember',
				operation: 'invite',
				email: 'katherine@example.com',
				role: 'viewer',
				inviteAdditionalFields: { name: 'Katherine Johnson' },
			}),
			signing('team', 'Make Admin', {
				resource: 'teamMember',
				operation: 'updateRole',
				teamMemberId: byId('={{ $json.id }}'),
				role: 'admin',
			}),
			signing('team', 'List Admins', {
				resource: 'teamMember',
				operation: 'getAll',
				returnAll: true,
				filters: { role: 'admin' },
			}),
		]),
	);

	it('invites a team member and changes their role', async () => {
		const apiKey = apiKeyOf.team;
		const run = await teamWorkflow();

		const [invited] = json(run, 'Invite');
		expect(invited).toMatchObject({
			email: 'katherine@example.com',
			name: 'Katherine Johnson',
			role: 'viewer',
			status: 'invited',
		});
		expect(invited.id).toMatch(/^usr_/);
		const [changed] = json(run, 'Make Admin');
		expect(changed).toMatchObject({
			id: invited.id,
			email: 'katherine@example.com',
			role: 'admin',
			status: 'invited',
		});
		expect(json(run, 'List Admins')).toEqual([
			{
				id: invited.id,
				email: 'katherine@example.com',
				name: 'Katherine Johnson',
				role: 'admin',
				status: 'invited',
			},
		]);

		const members = sandbox.store.usersOf(apiKey);
		expect(members).toHaveLength(2);
		expect(members.find((m) => m.id === invited.id)).toMatchObject({
			email: 'katherine@example.com',
			role: 'admin',
			status: 'invited',
		});
		expect(members.find((m) => m.id !== invited.id)).toMatchObject({
			role: 'owner',
			status: 'active',
		});
		const events = sandbox.store.auditLogOf(apiKey).map((entry) => entry.event);
		expect(events).toEqual(['user.role_changed', 'user.invited']);
	});
});

describe('Report', () => {
	const reportsWorkflow = workflowFor('reports', () =>
		chain('e2e: reports', [
			manualTrigger(),
			signing('reports', 'Usage', { resource: 'report', operation: 'usage' }),
			signing('reports', 'Audit Log', {
				resource: 'report',
				operation: 'auditLog',
				returnAll: true,
			}),
			signing(
				'reports',
				'Export',
				{ resource: 'report', operation: 'export', format: 'csv', binaryPropertyName: 'report' },
				{ executeOnce: true },
			),
			extractCsvNode('Read CSV', 'report'),
		]),
	);

	it('reads usage and the audit log, and exports the documents as a CSV file', async () => {
		const apiKey = apiKeyOf.reports;
		// Three documents made through the API; every signer of the first signs it.
		const names = ['report-alpha.pdf', 'report-beta.pdf', 'report-gamma.pdf'];
		const seeded: any[] = [];
		for (const name of names)
			seeded.push(
				await sandboxPost(sandbox, apiKey, '/documents', { name, signers: SIGNERS.signer }),
			);
		for (const signer of seeded[0].signers) sandbox.actAsSigner(seeded[0].id, signer.id, 'sign');

		const run = await reportsWorkflow();

		const [usage] = json(run, 'Usage');
		expect(usage).toMatchObject({
			documents_created: 3,
			documents_completed: 1,
			documents_declined: 0,
			signing_requests_sent: 3,
			reminders_sent: 0,
			signatures_collected: 2,
			team_members: 1,
		});

		const audit = json(run, 'Audit Log');
		const storedAudit = sandbox.store.auditLogOf(apiKey);
		expect(audit.map((entry) => entry.id)).toEqual(storedAudit.map((entry) => entry.id));
		expect(
			audit
				.filter((entry) => entry.event === 'document.completed')
				.map((entry) => entry.document_id),
		).toEqual([seeded[0].id]);

		// The export: binary with the service's file name and type, in the field asked for.
		const exported = nodeItems(run, 'Export');
		expect(exported).toHaveLength(1);
		const file = exported[0].binary?.report;
		expect(file?.mimeType).toBe('text/csv');
		const [, from, to] =
			/^documents-(\d{4}-\d{2}-\d{2})-(\d{4}-\d{2}-\d{2})\.csv$/.exec(file?.fileName ?? '') ?? [];
		// The default period: the last 30 days.
		expect((Date.parse(to) - Date.parse(from)) / 86_400_000).toBe(30);
		expect(exported[0].json).toMatchObject({ fileName: file?.fileName, mimeType: 'text/csv' });

		// Its content, parsed by n8n's Extract from File: one row per document, newest first.
		const rows = json(run, 'Read CSV');
		const stored = sandbox.store.documentsOf(apiKey);
		expect(
			rows.map((row) => [
				row.id,
				row.name,
				row.status,
				row.signer_count,
				row.signed_count,
				row.signer_emails,
			]),
		).toEqual(
			stored.map((doc) => [
				doc.id,
				doc.name,
				doc.status,
				'2',
				doc.id === seeded[0].id ? '2' : '0',
				'ada@example.com;alan@example.com',
			]),
		);
		expect(rows.map((row) => row.name).sort()).toEqual(names);
	});
});
