/**
 * The package in a real n8n against seven dialects of the API (see docs/api-contract.md,
 * "Dialects"): the default contract; numeric ids with `{items, links: {next}}` lists; a minimal
 * service with no delivery endpoints, unsigned deliveries, `{message}` errors and deletes answered
 * 200 (its deliveries can be confirmed neither way, so the trigger refuses each); deliveries signed as Standard Webhooks with a `whsec_` secret the service issued; and a hex
 * HMAC of `<timestamp>.<body>` with the time in its own header, with offset paging capped at 50
 * records a page and a stated total (docs/dialects.md); records, total and token nested in the
body; and the next token and total in headers only, with numeric ids. In each: documents created, listed across
 * pages, read and deleted by a workflow; the trigger activated, one event run once, its repeat
 * starting no execution at all, a delivery re-signed in a weaker layout refused, and no webhook left after
 * deactivation.
 */
import { randomUUID } from 'node:crypto';

import { deliverySignatureHeaders } from '../sandbox/deliverySignature';
import { webhookSecret } from '../test/helpers/sandbox';
import { parseDialect, startSandbox, type Sandbox } from '../sandbox';
import { createN8n, type Execution, type N8nInstance } from './harness/n8n';
import {
	byId,
	chain,
	importWorkflows,
	manualTrigger,
	nodeItems,
	signingNode,
	triggerNode,
	type CredentialRef,
} from './harness/workflows';

const DIALECTS = [
	'default',
	'numeric-ids+items-links',
	'minimal',
	'sig-standard-webhooks+server-secret',
	'sig-timestamp-header+offset-total',
	'nested-paging',
	'header-cursor+numeric-ids',
] as const;
const TRIGGER_NAME = 'Document Signing Trigger';
/** A service that neither signs deliveries nor keeps records of them: no delivery can be confirmed. */
const unconfirmable = (dialect: string) =>
	parseDialect(dialect).deliverySignature === 'none' && !parseDialect(dialect).deliveryEndpoints;

interface Setup {
	dialect: (typeof DIALECTS)[number];
	sandbox: Sandbox;
	apiKey: string;
	credential: CredentialRef;
	actionsWorkflowId: string;
	triggerWorkflowId: string;
	productionUrl: string;
}

let n8n: N8nInstance;
const setups = new Map<string, Setup>();

async function api(setup: Setup, method: string, urlPath: string, body?: unknown): Promise<any> {
	const response = await fetch(`${setup.sandbox.baseUrl}${urlPath}`, {
		method,
		headers: { authorization: `Bearer ${setup.apiKey}`, 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	if (!response.ok) throw new Error(`${method} ${urlPath}: ${response.status} ${text}`);
	return text ? JSON.parse(text) : undefined;
}

/** Executions in which the trigger passed an event on. */
function processed(executions: Execution[]): Execution[] {
	return executions.filter(
		(execution) =>
			(execution.data?.resultData.runData[TRIGGER_NAME]?.[0]?.data?.main?.[0] ?? []).length > 0,
	);
}

beforeAll(async () => {
	n8n = await createN8n({});
	const credentials = [];
	for (const dialect of DIALECTS) {
		const sandbox = await startSandbox({
			port: 0,
			dialect,
			webhookRetry: { baseDelayMs: 250, maxAttempts: 3, timeoutMs: 10_000 },
		});
		const { apiKey } = sandbox.createAccount();
		const credential = { id: `dialect${setups.size}`, name: `Sandbox (${dialect})` };
		credentials.push(
			n8n.documentSigningCredential({ ...credential, apiKey, baseUrl: sandbox.baseUrl }),
		);
		setups.set(dialect, {
			dialect,
			sandbox,
			apiKey,
			credential,
			actionsWorkflowId: '',
			triggerWorkflowId: '',
			productionUrl: '',
		});
	}
	await n8n.importCredentials(credentials);

	const workflows = [];
	for (const setup of setups.values()) {
		const webhookNodeId = randomUUID();
		setup.productionUrl = n8n.productionWebhookUrl(`${webhookNodeId}/webhook`);
		workflows.push(
			chain(`e2e dialect ${setup.dialect}: documents`, [
				manualTrigger(),
				signingNode(
					'List Documents',
					{ resource: 'document', operation: 'getAll', returnAll: true, simplify: false },
					{ credential: setup.credential },
				),
				signingNode(
					'Get Document',
					{
						resource: 'document',
						operation: 'get',
						documentId: byId('={{ $json.id }}'),
						simplify: false,
					},
					{ credential: setup.credential },
				),
				signingNode(
					'Delete Document',
					{ resource: 'document', operation: 'delete', documentId: byId('={{ $json.id }}') },
					{ credential: setup.credential },
				),
			]),
			chain(`e2e dialect ${setup.dialect}: trigger`, [
				triggerNode(TRIGGER_NAME, {
					events: ['document.completed'],
					parameters: { verifySignature: parseDialect(setup.dialect).deliverySignature !== 'none' },
					credential: setup.credential,
					webhookId: webhookNodeId,
				}),
			]),
		);
	}
	const ids = await importWorkflows(n8n, workflows);
	[...setups.values()].forEach((setup, index) => {
		setup.actionsWorkflowId = ids[index * 2];
		setup.triggerWorkflowId = ids[index * 2 + 1];
	});
	await n8n.start();
});

afterAll(async () => {
	await n8n?.dispose();
	for (const setup of setups.values()) await setup.sandbox.close();
});

describe.each(DIALECTS)('dialect %s', (dialect) => {
	test('a workflow lists every document across pages (each once), reads each and deletes each', async () => {
		const setup = setups.get(dialect)!;
		// 105 documents: more than one page at the largest page size.
		for (let i = 0; i < 105; i++)
			await api(setup, 'POST', '/documents', { name: `d${i}.pdf`, draft: true });
		const result = await n8n.execute(setup.actionsWorkflowId);
		expect(result.error).toBeUndefined();
		const listed = nodeItems(result.run, 'List Documents').map((item) => String(item.json.id));
		expect(listed).toHaveLength(105);
		expect(new Set(listed).size).toBe(105);
		expect(nodeItems(result.run, 'Get Document').map((item) => String(item.json.id))).toEqual(
			listed,
		);
		expect(
			nodeItems(result.run, 'Delete Document').every((item) => item.json.deleted === true),
		).toBe(true);
		expect(setup.sandbox.store.documentsOf(setup.apiKey)).toHaveLength(0);
		expect(typeof nodeItems(result.run, 'List Documents')[0].json.id).toBe(
			parseDialect(dialect).ids === 'numeric' ? 'number' : 'string',
		);
	});

	test('the trigger: one webhook, one execution per event (none when nothing can confirm it), none for its repeat, none left after deactivation', async () => {
		const setup = setups.get(dialect)!;
		const status = await n8n.activate(setup.triggerWorkflowId);
		expect(status.triggers.map((trigger) => trigger.errorMessage)).toEqual([null]);
		const webhooks = setup.sandbox.store.webhooksOf(setup.apiKey);
		expect(webhooks.map((webhook) => webhook.url)).toEqual([setup.productionUrl]);

		const document = await api(setup, 'POST', '/documents', {
			name: 'contract.pdf',
			signers: [{ email: 'ada@example.com', name: 'Ada Lovelace' }],
		});
		const stored = setup.sandbox.store
			.documentsOf(setup.apiKey)
			.find((row) => row.name === 'contract.pdf')!;
		setup.sandbox.actAsSigner(stored.id, stored.signers[0]!.id, 'sign');
		await setup.sandbox.flushDeliveries();
		if (unconfirmable(dialect)) {
			// Neither signed nor on record: nothing can confirm a delivery, so each attempt is refused.
			const attempts = setup.sandbox
				.deliveries()
				.filter((delivery) => delivery.url === setup.productionUrl);
			expect(attempts.length).toBeGreaterThan(0);
			expect(attempts.map((delivery) => delivery.status)).toEqual(attempts.map(() => 401));
			expect(await n8n.executions({ workflowId: setup.triggerWorkflowId })).toHaveLength(0);
			await n8n.deactivate(setup.triggerWorkflowId);
			expect(setup.sandbox.store.webhooksOf(setup.apiKey)).toHaveLength(0);
			return;
		}
		const executions = await n8n.waitForExecutions(setup.triggerWorkflowId, { count: 1 });
		expect(processed(executions)).toHaveLength(1);
		const triggerRuns = processed(executions)[0].data?.resultData.runData[TRIGGER_NAME] ?? [];
		const item = (
			(triggerRuns[0]?.data?.main?.[0] ?? []) as Array<{ json: Record<string, any> }>
		)[0].json;
		expect(item.event).toBe('document.completed');
		expect(String(item.data.document.id)).toBe(String(document.id));

		// The same delivery again, as the service's retry after a lost answer would send it.
		const attempt = setup.sandbox
			.deliveries()
			.find((delivery) => delivery.event === 'document.completed')!;
		const headers: Record<string, string> = {
			'content-type': 'application/json',
			'x-delivery-id': attempt.deliveryId,
			'x-delivery-attempt': '2',
		};
		const secret = webhookSecret(setup.sandbox, setup.apiKey, attempt.webhookId)!;
		const style = parseDialect(dialect).deliverySignature;
		Object.assign(
			headers,
			deliverySignatureHeaders(
				style,
				secret,
				Math.floor(Date.now() / 1000),
				attempt.deliveryId,
				attempt.body,
			),
		);
		const repeat = await fetch(setup.productionUrl, {
			method: 'POST',
			headers,
			body: attempt.body,
		});
		// Answered without starting an execution: the service reports the delivery claimed, or (without
		// delivery endpoints) this n8n remembers processing it.
		expect([repeat.status, await repeat.json()]).toEqual([
			200,
			{ received: true, ignored: true, reason: 'already processed' },
		]);
		// Not one execution for the repeat, not even one that passes nothing on (issue 31 counted 7
		// executions for 6 events with numeric ids).
		expect(await n8n.executions({ workflowId: setup.triggerWorkflowId })).toHaveLength(1);

		if (style !== 'none' && style !== 'hub-sha256') {
			// A new delivery signed with the right secret in a weaker layout (a body-only HMAC): the
			// first delivery fixed this registration's layout, so it is refused.
			const body = JSON.stringify({ ...JSON.parse(attempt.body), id: 'dlv_downgraded' });
			const downgraded = await fetch(setup.productionUrl, {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					...deliverySignatureHeaders(
						'hub-sha256',
						secret,
						Math.floor(Date.now() / 1000),
						'dlv_downgraded',
						body,
					),
				},
				body,
			});
			expect(downgraded.status).toBe(401);
			expect(processed(await n8n.executions({ workflowId: setup.triggerWorkflowId }))).toHaveLength(
				1,
			);
		}

		await n8n.deactivate(setup.triggerWorkflowId);
		expect(setup.sandbox.store.webhooksOf(setup.apiKey)).toHaveLength(0);
	});
});
