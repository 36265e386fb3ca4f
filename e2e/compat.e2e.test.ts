/**
 * Compatibility across n8n generations: the same checks on every pinned n8n host (n8n 1.123.x,
 * the last 1.x, and n8n 2.41.1; see N8N_HOSTS in harness/n8n.ts and scripts/n8n-host.sh),
 * against the sandbox running in this jest process:
 *
 * - the package loads without errors, and n8n knows both node types and the credential type;
 * - the credential test passes with a good key, and fails with the 401 message for a wrong one;
 * - one operation of every resource of the Document Signing node executes (`n8n execute`);
 * - the trigger: activation (1.x: activate, 2.x: publish) registers one webhook at the service,
 *   one signed document event runs exactly one execution carrying the event's data, and
 *   deactivation removes the webhook at the service.
 *
 * Each generation gets one n8n instance and two sandbox accounts of its own (one for the action
 * node's records, one for the trigger's webhook), so generations and tests do not see each
 * other's records. Needs the package built (`npm run build`).
 */
import { randomUUID } from 'node:crypto';

import { startSandbox, type Sandbox } from '../sandbox';
import {
	CREDENTIAL_TYPE,
	NODE_TYPE,
	TRIGGER_NODE_TYPE,
	ensureN8nHost,
	newId,
	type ExecuteResult,
	type N8nHostId,
	type N8nInstance,
	createN8n,
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

/** Oldest first: n8n 1.85.4 (the floor), 1.123.x (the last 1.x), 2.41.1. N8N_E2E_COMPAT_HOSTS=1,2 picks some. */
const HOSTS = (process.env.N8N_E2E_COMPAT_HOSTS?.split(',') ?? ['1.85', '1', '2']) as N8nHostId[];
/**
 * What the credential test says for a key the service refuses (401). n8n 1.85 and 2.x show the
 * message of the credential's 401 rule; n8n 1.123's tester never reaches the rules (its routing
 * node's error has no `cause.response`) and shows n8n's own message for a 401 (NodeApiError).
 */
const RULE_401 = 'The service refused the API key (401). Check the key in your account settings.';
const REFUSED: Record<N8nHostId, string> = {
	'1.85': RULE_401,
	'1': 'Authorization failed - please check your credentials',
	'2': RULE_401,
};
const TRIGGER_NAME = 'Document Signing Trigger';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, webhookRetry: { baseDelayMs: 250, maxAttempts: 3, timeoutMs: 10_000 } });
});

afterAll(async () => {
	await sandbox?.close();
});

/** One operation per resource, as independent branches of one manual workflow (one `n8n execute`). */
function actionsWorkflow(credential: CredentialRef): WorkflowJson {
	const nodes = [
		manualTrigger(),
		signingNode(
			'Create Document',
			{ resource: 'document', operation: 'create', name: 'compat.pdf', signers: { signer: [{ email: 'ada@example.com', name: 'Ada Lovelace' }] } },
			{ credential },
		),
		signingNode(
			'Get Signing Request',
			{ resource: 'signingRequest', operation: 'getStatus', signingRequestId: '={{ $json.signature_request_id }}' },
			{ credential },
		),
		signingNode('Create Template', { resource: 'template', operation: 'create', templateName: 'Compat NDA' }, { credential }),
		signingNode(
			'Invite',
			{ resource: 'teamMember', operation: 'invite', email: 'grace@example.com', role: 'viewer', inviteAdditionalFields: { name: 'Grace Hopper' } },
			{ credential },
		),
		signingNode(
			'Create Webhook',
			{ resource: 'webhook', operation: 'create', url: 'https://example.com/hooks/compat', events: ['document.declined'] },
			{ credential },
		),
		signingNode('Usage', { resource: 'report', operation: 'usage' }, { credential }),
	];
	const workflow: WorkflowJson = { name: 'compat: one operation per resource', nodes: [], connections: {}, settings: { executionOrder: 'v1' } };
	nodes.forEach((entry, index) => workflow.nodes.push({ ...entry, position: [index * 220, index * 100] }));
	connect(workflow, 'Start', 'Create Document');
	connect(workflow, 'Create Document', 'Get Signing Request');
	for (const name of ['Create Template', 'Invite', 'Create Webhook', 'Usage']) connect(workflow, 'Start', name);
	return workflow;
}

describe.each(HOSTS.map((id) => ({ id, version: ensureN8nHost(id).version })))('n8n $version', ({ id, version }) => {
	let n8n: N8nInstance;
	const credentials = {
		actions: { id: newId(), name: 'Compat (actions)' },
		trigger: { id: newId(), name: 'Compat (trigger)' },
		wrong: { id: newId(), name: 'Compat (wrong key)' },
	};
	const keys = { actions: '', trigger: '', wrong: `sk_compat_WRONG_${newId()}` };
	const webhookId = randomUUID();
	let triggerWorkflowId: string;
	let actions: ExecuteResult;

	let started: number;

	beforeAll(async () => {
		started = Date.now();
		keys.actions = sandbox.createAccount().apiKey;
		keys.trigger = sandbox.createAccount().apiKey;
		n8n = await createN8n({ host: id, sandboxBaseUrl: sandbox.baseUrl });
		await n8n.importCredentials(
			(['actions', 'trigger', 'wrong'] as const).map((which) =>
				n8n.documentSigningCredential({ ...credentials[which], apiKey: keys[which] }),
			),
		);
		const [actionsId, triggerId] = await importWorkflows(n8n, [
			actionsWorkflow(credentials.actions),
			{
				name: 'compat: when a document is completed',
				nodes: [triggerNode(TRIGGER_NAME, { events: ['document.completed'], credential: credentials.trigger, webhookId })],
				connections: {},
			},
		]);
		triggerWorkflowId = triggerId;
		// Headless, before the server starts (the way actions.e2e.test.ts runs its workflows).
		actions = await n8n.execute(actionsId);
		await n8n.start();
	});

	afterAll(async () => {
		await n8n?.dispose();
		process.stderr.write(`compat: n8n ${version} took ${Math.round((Date.now() - started) / 1000)} s\n`);
	});

	it(`is n8n ${version}, and loads the package without errors, with both node types and the credential type`, async () => {
		expect(n8n.version).toBe(version);
		expect(n8n.generation).toBe(Number(version.split('.')[0]));
		expect(n8n.packageLoadProblems()).toEqual([]);

		const descriptions = await n8n.rest<Array<{ name: string; displayName: string }>>('POST', '/rest/node-types', {
			nodeInfos: [
				{ name: NODE_TYPE, version: 1 },
				{ name: TRIGGER_NODE_TYPE, version: 1 },
			],
		});
		expect(descriptions.map((d) => d.displayName).sort()).toEqual(['Document Signing', 'Document Signing Trigger']);
		const nodeTypes = (await (await fetch(`${n8n.baseUrl}/types/nodes.json`, { headers: n8n.authHeaders() })).json()) as Array<{
			name: string;
		}>;
		expect(nodeTypes.map((t) => t.name)).toEqual(expect.arrayContaining([NODE_TYPE, TRIGGER_NODE_TYPE]));
		const credentialTypes = (await (
			await fetch(`${n8n.baseUrl}/types/credentials.json`, { headers: n8n.authHeaders() })
		).json()) as Array<{ name: string }>;
		expect(credentialTypes.map((t) => t.name)).toContain(CREDENTIAL_TYPE);
	});

	it('the credential test passes with a good key and fails with the 401 message for a wrong one', async () => {
		expect(await n8n.testCredential(credentials.actions.id)).toEqual({ status: 'OK', message: 'Connection successful!' });
		const refusedBefore = sandbox.stats().statuses['401'] ?? 0;
		expect(await n8n.testCredential(credentials.wrong.id)).toEqual({ status: 'Error', message: REFUSED[id] });
		// The service did refuse it.
		expect((sandbox.stats().statuses['401'] ?? 0) - refusedBefore).toBeGreaterThanOrEqual(1);
	});

	it('executes one operation of every resource (document, signingRequest, template, teamMember, webhook, report)', () => {
		expect({ status: actions.status, error: actions.error?.message }).toEqual({ status: 'success', error: undefined });
		const one = (node: string) => {
			const items = nodeItems(actions.run, node);
			expect({ node, items: items.length }).toEqual({ node, items: 1 });
			return items[0].json;
		};
		const document = one('Create Document');
		expect(document).toMatchObject({ name: 'compat.pdf', status: 'pending' });
		expect(one('Get Signing Request')).toMatchObject({ id: document.signature_request_id, document_id: document.id, status: 'pending' });
		const template = one('Create Template');
		expect(template).toMatchObject({ name: 'Compat NDA' });
		const member = one('Invite');
		expect(member).toMatchObject({ email: 'grace@example.com', role: 'viewer', status: 'invited' });
		const webhook = one('Create Webhook');
		expect(webhook).toMatchObject({ url: 'https://example.com/hooks/compat', events: ['document.declined'] });
		expect(one('Usage')).toMatchObject({ documents_created: 1, team_members: 2 });

		// The service holds what the node made.
		expect(sandbox.store.documentsOf(keys.actions).map((d) => d.id)).toEqual([document.id]);
		expect(sandbox.store.templatesOf(keys.actions).map((t) => t.id)).toEqual([template.id]);
		expect(sandbox.store.usersOf(keys.actions).map((u) => u.id)).toContain(member.id);
		expect(sandbox.store.webhooksOf(keys.actions).map((w) => w.id)).toEqual([webhook.id]);
	});

	it('the trigger: activation registers one webhook, one signed document runs one execution with its data, deactivation removes the webhook', async () => {
		const productionUrl = n8n.productionWebhookUrl(`${webhookId}/webhook`);
		await n8n.activate(triggerWorkflowId);
		expect(await n8n.isActive(triggerWorkflowId)).toBe(true);
		const webhooks = sandbox.store.webhooksOf(keys.trigger);
		expect(webhooks).toEqual([expect.objectContaining({ url: productionUrl, events: ['document.completed'], active: true })]);

		const document = await createDocument(sandbox, keys.trigger, {
			name: `compat-${id}.pdf`,
			signers: [{ email: 'sam@example.com', name: 'Sam Signer' }],
		});
		sandbox.actAsSigner(document.id, document.signers[0].id, 'sign');
		await n8n.waitForExecutions(triggerWorkflowId, { count: 1, timeoutMs: 60_000 });
		await sandbox.flushDeliveries();

		const executions = await n8n.executions({ workflowId: triggerWorkflowId });
		expect(executions.map((e) => ({ status: e.status, mode: e.mode }))).toEqual([{ status: 'success', mode: 'webhook' }]);
		const item = triggerItem(executions[0], TRIGGER_NAME);
		expect(item).toMatchObject({ event: 'document.completed', webhookId: webhooks[0].id });
		expect(item.data.document).toMatchObject({ id: document.id, name: `compat-${id}.pdf`, status: 'completed' });
		const attempts = sandbox.deliveries().filter((attempt) => attempt.webhookId === webhooks[0].id);
		expect(attempts.map((a) => ({ event: a.event, status: a.status, deliveryId: a.deliveryId }))).toEqual([
			{ event: 'document.completed', status: 200, deliveryId: item.deliveryId },
		]);

		await n8n.deactivate(triggerWorkflowId);
		expect(await n8n.isActive(triggerWorkflowId)).toBe(false);
		expect(sandbox.store.webhooksOf(keys.trigger)).toEqual([]);
		expect((await fetch(productionUrl, { method: 'POST', body: '{}', signal: AbortSignal.timeout(15_000) })).status).toBe(404);

		expect(n8n.logText()).not.toContain(keys.trigger);
	});
});
