/**
 * Smoke test of the real-n8n foundation: the pinned n8n starts headless with this package
 * installed as a community package, knows its node and credential types, and the harness's
 * headless execution, activation, executions list, restart and stop work.
 *
 * Needs the package built (`npm run build`); installs the n8n host on first use (about 3 min).
 */
import { randomUUID } from 'node:crypto';

import {
	CREDENTIAL_TYPE,
	NODE_TYPE,
	PACKAGE_NAME,
	TRIGGER_NODE_TYPE,
	createN8n,
	nodeOutput,
	type N8nInstance,
} from './harness/n8n';

function groupAlive(pid: number): boolean {
	try {
		process.kill(-pid, 0);
		return true;
	} catch {
		return false;
	}
}

describe('real n8n with n8n-nodes-document-signing installed', () => {
	let n8n: N8nInstance;

	beforeAll(async () => {
		n8n = await createN8n({ sandboxBaseUrl: 'http://127.0.0.1:9/v1' });
	});

	afterAll(async () => {
		await n8n?.dispose();
	});

	it('runs a workflow headless with `n8n execute`, before any server runs', async () => {
		const workflowId = await n8n.importWorkflow({
			name: 'smoke: manual',
			nodes: [
				{
					id: randomUUID(),
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				{
					id: randomUUID(),
					name: 'Set',
					type: 'n8n-nodes-base.set',
					typeVersion: 3.4,
					position: [200, 0],
					parameters: {
						mode: 'manual',
						assignments: {
							assignments: [{ id: randomUUID(), name: 'hello', value: 'world', type: 'string' }],
						},
						options: {},
					},
				},
			],
			connections: { Start: { main: [[{ node: 'Set', type: 'main', index: 0 }]] } },
		});

		const result = await n8n.execute(workflowId);

		expect({ status: result.status, error: result.error?.message }).toEqual({
			status: 'success',
			error: undefined,
		});
		expect(nodeOutput(result.run, 'Set')).toEqual([{ hello: 'world' }]);
	});

	it('imports a credential of the package type (stored encrypted)', async () => {
		const [id] = await n8n.importCredentials([
			n8n.documentSigningCredential({ apiKey: 'smoke-secret-api-key-6d1f', name: 'Smoke account' }),
		]);

		expect(id).toMatch(/^[A-Za-z0-9]{16}$/);
		expect(n8n.logText()).not.toContain('smoke-secret-api-key-6d1f');
	});

	it('starts headless and loads the package node types', async () => {
		await n8n.start();

		const response = await fetch(`${n8n.baseUrl}/healthz/readiness`);
		expect(response.status).toBe(200);

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

		const nodeTypes = await (
			await fetch(`${n8n.baseUrl}/types/nodes.json`, { headers: n8n.authHeaders() })
		).json();
		const ours = (nodeTypes as Array<{ name: string }>)
			.map((t) => t.name)
			.filter((name) => name.startsWith(`${PACKAGE_NAME}.`));
		expect(ours).toEqual(expect.arrayContaining([NODE_TYPE, TRIGGER_NODE_TYPE]));

		const credentialTypes = await (
			await fetch(`${n8n.baseUrl}/types/credentials.json`, { headers: n8n.authHeaders() })
		).json();
		expect((credentialTypes as Array<{ name: string }>).map((t) => t.name)).toContain(
			CREDENTIAL_TYPE,
		);
	});

	it('activates a webhook workflow and lists its execution with full data', async () => {
		const hookPath = `smoke-${randomUUID()}`;
		const workflowId = await n8n.importWorkflow({
			name: 'smoke: webhook',
			nodes: [
				{
					id: randomUUID(),
					name: 'Webhook',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					webhookId: randomUUID(),
					parameters: { httpMethod: 'POST', path: hookPath, options: {} },
				},
			],
		});

		const status = await n8n.activate(workflowId);
		expect(status.status).toBe('published');

		const call = await fetch(n8n.productionWebhookUrl(hookPath), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ ping: 1 }),
		});
		expect(call.status).toBe(200);

		const [execution] = await n8n.waitForExecutions(workflowId);
		expect(execution.status).toBe('success');
		expect(execution.mode).toBe('webhook');
		const body = execution.data?.resultData.runData.Webhook[0].data?.main?.[0]?.[0].json.body;
		expect(body).toEqual({ ping: 1 });

		const deactivated = await n8n.deactivate(workflowId);
		expect(deactivated.status).toBe('not_published');
		const after = await fetch(n8n.productionWebhookUrl(hookPath), { method: 'POST' });
		expect(after.status).toBe(404);
	});

	it('restarts on the same database and API key, and stops without leaving processes', async () => {
		const apiKey = n8n.apiKey;
		const firstPid = n8n.pid!;

		await n8n.restart();

		expect(n8n.apiKey).toBe(apiKey);
		expect(groupAlive(firstPid)).toBe(false);
		const workflows = await n8n.api<{ data: Array<{ name: string }> }>('GET', '/workflows');
		expect(workflows.data.map((w) => w.name)).toEqual(
			expect.arrayContaining(['smoke: manual', 'smoke: webhook']),
		);

		const pid = n8n.pid!;
		await n8n.stop();
		expect(n8n.running).toBe(false);
		expect(groupAlive(pid)).toBe(false);
	});
});
