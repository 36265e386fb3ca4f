/**
 * The checks that show the package works in an n8n, shared by the compatibility suite
 * (compat.e2e.test.ts: dist/ copied into each pinned n8n) and the install suite
 * (install.e2e.test.ts: installed from a local npm registry the way users install it):
 *
 * - the package loads without errors, and n8n knows both node types and the credential type;
 * - the credential test passes with a good key, and fails with the 401 message for a wrong one;
 * - one operation of every resource of the Document Signing node executes (`n8n execute`);
 * - the trigger: activation (1.x: activate, 2.x: publish) registers one webhook at the service,
 *   one signed document event runs exactly one execution carrying the event's data, and
 *   deactivation removes the webhook at the service.
 *
 * `describePackageChecks` registers, inside the caller's `describe`, a beforeAll that prepares an
 * instance (given by the caller, not started), two sandbox accounts of its own (one for the
 * action node's records, one for the trigger's webhook), the credentials and workflows, runs the
 * actions workflow headless and starts n8n; an afterAll that disposes of it; and the four tests.
 * The caller may add tests after it (they run after the four, on the same instance).
 */
import { randomUUID } from 'node:crypto';

import type { Sandbox } from '../sandbox';
import {
	CREDENTIAL_TYPE,
	NODE_TYPE,
	TRIGGER_NODE_TYPE,
	newId,
	type ExecuteResult,
	type N8nHostId,
	type N8nInstance,
} from './harness/n8n';
import {
	connect,
	createDocument,
	importWorkflows,
	manualTrigger,
	nodeItems,
	signingNode,
	triggerItem,
	triggerNode,
	type CredentialRef,
	type WorkflowJson,
} from './harness/workflows';

/**
 * What the credential test says for a key the service refuses (401). n8n 2.x shows the message
 * of the credential's 401 rule; n8n 1.110's and 1.123's testers never reach the rules (their
 * routing node's error has no `cause.response`) and show n8n's own message for a 401.
 */
const RULE_401 = 'The service refused the API key (401). Check the key in your account settings.';
const N8N_1_401 = 'Authorization failed - please check your credentials';
export const REFUSED: Record<N8nHostId, string> = {
	'1.110': N8N_1_401,
	'1': N8N_1_401,
	'2': RULE_401,
};
export const TRIGGER_NAME = 'Document Signing Trigger';

/** One operation per resource, as independent branches of one manual workflow (one `n8n execute`). */
export function actionsWorkflow(credential: CredentialRef): WorkflowJson {
	const nodes = [
		manualTrigger(),
		signingNode(
			'Create Document',
			{
				resource: 'document',
				operation: 'create',
				name: 'compat.pdf',
				signers: { signer: [{ email: 'ada@example.com', name: 'Ada Lovelace' }] },
			},
			{ credential },
		),
		signingNode(
			'Get Signing Request',
			{
				resource: 'signingRequest',
				operation: 'getStatus',
				signingRequestId: '={{ $json.signature_request_id }}',
			},
			{ credential },
		),
		signingNode(
			'Create Template',
			{ resource: 'template', operation: 'create', templateName: 'Compat NDA' },
			{ credential },
		),
		signingNode(
			'Invite',
			{
				resource: 'teamMember',
				operation: 'invite',
				email: 'grace@example.com',
				role: 'viewer',
				inviteAdditionalFields: { name: 'Grace Hopper' },
			},
			{ credential },
		),
		signingNode(
			'Create Webhook',
			{
				resource: 'webhook',
				operation: 'create',
				url: 'https://example.com/hooks/compat',
				events: ['document.declined'],
			},
			{ credential },
		),
		signingNode('Usage', { resource: 'report', operation: 'usage' }, { credential }),
	];
	const workflow: WorkflowJson = {
		name: 'compat: one operation per resource',
		nodes: [],
		connections: {},
		settings: { executionOrder: 'v1' },
	};
	nodes.forEach((entry, index) =>
		workflow.nodes.push({ ...entry, position: [index * 220, index * 100] }),
	);
	connect(workflow, 'Start', 'Create Document');
	connect(workflow, 'Create Document', 'Get Signing Request');
	for (const name of ['Create Template', 'Invite', 'Create Webhook', 'Usage'])
		connect(workflow, 'Start', name);
	return workflow;
}

export interface PackageChecksContext {
	/** The instance, once beforeAll made it. */
	readonly n8n: N8nInstance;
	readonly actionsWorkflowId: string;
	readonly triggerWorkflowId: string;
	/** The trigger node's webhook id (its production URL is `<webhookId>/webhook`). */
	readonly webhookId: string;
	readonly keys: { actions: string; trigger: string; wrong: string };
}

export function describePackageChecks(options: {
	hostId: N8nHostId;
	/** n8n's version the host is expected to hold. */
	version: string;
	sandbox: () => Sandbox;
	/** Prepares the instance (not started), with the package in place. */
	create: () => Promise<N8nInstance>;
	/** Written to stderr with the seconds the instance lived, from afterAll. */
	label: string;
}): PackageChecksContext {
	const { hostId: id, version } = options;
	const credentials = {
		actions: { id: newId(), name: 'Compat (actions)' },
		trigger: { id: newId(), name: 'Compat (trigger)' },
		wrong: { id: newId(), name: 'Compat (wrong key)' },
	};
	const keys = { actions: '', trigger: '', wrong: `sk_compat_WRONG_${newId()}` };
	const webhookId = randomUUID();
	let n8n: N8nInstance | undefined;
	let actionsWorkflowId = '';
	let triggerWorkflowId = '';
	let actions: ExecuteResult;
	let started: number;
	const context: PackageChecksContext = {
		get n8n() {
			if (!n8n) throw new Error('the n8n instance was not made');
			return n8n;
		},
		get actionsWorkflowId() {
			return actionsWorkflowId;
		},
		get triggerWorkflowId() {
			return triggerWorkflowId;
		},
		webhookId,
		keys,
	};

	beforeAll(async () => {
		started = Date.now();
		const sandbox = options.sandbox();
		keys.actions = sandbox.createAccount().apiKey;
		keys.trigger = sandbox.createAccount().apiKey;
		n8n = await options.create();
		const instance = n8n;
		await instance.importCredentials(
			(['actions', 'trigger', 'wrong'] as const).map((which) =>
				instance.documentSigningCredential({ ...credentials[which], apiKey: keys[which] }),
			),
		);
		[actionsWorkflowId, triggerWorkflowId] = await importWorkflows(instance, [
			actionsWorkflow(credentials.actions),
			{
				name: 'compat: when a document is completed',
				nodes: [
					triggerNode(TRIGGER_NAME, {
						events: ['document.completed'],
						credential: credentials.trigger,
						webhookId,
					}),
				],
				connections: {},
			},
		]);
		// Headless, before the server starts (the way actions.e2e.test.ts runs its workflows).
		actions = await instance.execute(actionsWorkflowId);
		await instance.start();
	});

	afterAll(async () => {
		await n8n?.dispose();
		process.stderr.write(
			`${options.label}: n8n ${version} took ${Math.round((Date.now() - started) / 1000)} s\n`,
		);
	});

	it(`is n8n ${version}, and loads the package without errors, with both node types and the credential type`, async () => {
		const n8n = context.n8n;
		expect(n8n.version).toBe(version);
		expect(n8n.generation).toBe(Number(version.split('.')[0]));
		expect(n8n.packageLoadProblems()).toEqual([]);

		const descriptions = await n8n.rest<Array<{ name: string; displayName: string }>>(
			'POST',
			'/rest/node-types',
			{
				nodeInfos: [
					{ name: NODE_TYPE, version: 1 },
					{ name: TRIGGER_NODE_TYPE, version: 1 },
				],
			},
		);
		expect(descriptions.map((d) => d.displayName).sort()).toEqual([
			'Document Signing',
			'Document Signing Trigger',
		]);
		const nodeTypes = (await (
			await fetch(`${n8n.baseUrl}/types/nodes.json`, { headers: n8n.authHeaders() })
		).json()) as Array<{
			name: string;
		}>;
		expect(nodeTypes.map((t) => t.name)).toEqual(
			expect.arrayContaining([NODE_TYPE, TRIGGER_NODE_TYPE]),
		);
		const credentialTypes = (await (
			await fetch(`${n8n.baseUrl}/types/credentials.json`, { headers: n8n.authHeaders() })
		).json()) as Array<{ name: string }>;
		expect(credentialTypes.map((t) => t.name)).toContain(CREDENTIAL_TYPE);
	});

	it('the credential test passes with a good key and fails with the 401 message for a wrong one', async () => {
		const sandbox = options.sandbox();
		const n8n = context.n8n;
		expect(await n8n.testCredential(credentials.actions.id)).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		const refusedBefore = sandbox.stats().statuses['401'] ?? 0;
		expect(await n8n.testCredential(credentials.wrong.id)).toEqual({
			status: 'Error',
			message: REFUSED[id],
		});
		// The service did refuse it.
		expect((sandbox.stats().statuses['401'] ?? 0) - refusedBefore).toBeGreaterThanOrEqual(1);
	});

	it('executes one operation of every resource (document, signingRequest, template, teamMember, webhook, report)', () => {
		const sandbox = options.sandbox();
		expect({ status: actions.status, error: actions.error?.message }).toEqual({
			status: 'success',
			error: undefined,
		});
		const one = (node: string) => {
			const items = nodeItems(actions.run, node);
			expect({ node, items: items.length }).toEqual({ node, items: 1 });
			return items[0].json;
		};
		const document = one('Create Document');
		expect(document).toMatchObject({ name: 'compat.pdf', status: 'pending' });
		expect(one('Get Signing Request')).toMatchObject({
			id: document.signature_request_id,
			document_id: document.id,
			status: 'pending',
		});
		const template = one('Create Template');
		expect(template).toMatchObject({ name: 'Compat NDA' });
		const member = one('Invite');
		expect(member).toMatchObject({ email: 'grace@example.com', role: 'viewer', status: 'invited' });
		const webhook = one('Create Webhook');
		expect(webhook).toMatchObject({
			url: 'https://example.com/hooks/compat',
			events: ['document.declined'],
		});
		expect(one('Usage')).toMatchObject({ documents_created: 1, team_members: 2 });

		// The service holds what the node made.
		expect(sandbox.store.documentsOf(keys.actions).map((d) => d.id)).toEqual([document.id]);
		expect(sandbox.store.templatesOf(keys.actions).map((t) => t.id)).toEqual([template.id]);
		expect(sandbox.store.usersOf(keys.actions).map((u) => u.id)).toContain(member.id);
		expect(sandbox.store.webhooksOf(keys.actions).map((w) => w.id)).toEqual([webhook.id]);
	});

	it('the trigger: activation registers one webhook, one signed document runs one execution with its data, deactivation removes the webhook', async () => {
		const sandbox = options.sandbox();
		const n8n = context.n8n;
		const productionUrl = n8n.productionWebhookUrl(`${webhookId}/webhook`);
		await n8n.activate(triggerWorkflowId);
		expect(await n8n.isActive(triggerWorkflowId)).toBe(true);
		const webhooks = sandbox.store.webhooksOf(keys.trigger);
		expect(webhooks).toEqual([
			expect.objectContaining({ url: productionUrl, events: ['document.completed'], active: true }),
		]);

		const document = await createDocument(sandbox, keys.trigger, {
			name: `compat-${id}.pdf`,
			signers: [{ email: 'sam@example.com', name: 'Sam Signer' }],
		});
		sandbox.actAsSigner(document.id, document.signers[0].id, 'sign');
		await n8n.waitForExecutions(triggerWorkflowId, { count: 1, timeoutMs: 60_000 });
		await sandbox.flushDeliveries();

		const executions = await n8n.executions({ workflowId: triggerWorkflowId });
		expect(executions.map((e) => ({ status: e.status, mode: e.mode }))).toEqual([
			{ status: 'success', mode: 'webhook' },
		]);
		const item = triggerItem(executions[0], TRIGGER_NAME);
		expect(item).toMatchObject({ event: 'document.completed', webhookId: webhooks[0].id });
		expect(item.data.document).toMatchObject({
			id: document.id,
			name: `compat-${id}.pdf`,
			status: 'completed',
		});
		const attempts = sandbox.deliveries().filter((attempt) => attempt.webhookId === webhooks[0].id);
		expect(
			attempts.map((a) => ({ event: a.event, status: a.status, deliveryId: a.deliveryId })),
		).toEqual([{ event: 'document.completed', status: 200, deliveryId: item.deliveryId }]);

		await n8n.deactivate(triggerWorkflowId);
		expect(await n8n.isActive(triggerWorkflowId)).toBe(false);
		expect(sandbox.store.webhooksOf(keys.trigger)).toEqual([]);
		expect(
			(
				await fetch(productionUrl, {
					method: 'POST',
					body: '{}',
					signal: AbortSignal.timeout(15_000),
				})
			).status,
		).toBe(404);

		expect(n8n.logText()).not.toContain(keys.trigger);
	});

	return context;
}
