/**
 * Document › Send and Wait for Signature in n8n's queue mode (main + 1 worker + 1 webhook
 * processor, Redis, PostgreSQL; see ./cluster.ts): a production webhook on the webhook processor
 * starts the workflow, a worker runs it until it waits; the service's delivery of the completion
 * reaches the webhook processor at the execution's signed resume URL, whose webhook() recomputes
 * the wait's secret from the credential; a worker continues the execution.
 *
 * Needs the package built (`npm run build`). Run: `npx jest -c e2e/queue/jest.config.js sendAndWait`.
 */
import { randomUUID } from 'node:crypto';

import { startSandbox, type Sandbox } from '../../sandbox';
import { CREDENTIAL_TYPE, NODE_TYPE, type Execution } from '../harness/n8n';
import { startQueueCluster, type QueueCluster } from './cluster';

const WAIT_NODE = 'Send and Wait';

describe('Send and Wait for Signature in queue mode', () => {
	let sandbox: Sandbox;
	let cluster: QueueCluster;
	let apiKey: string;
	let workflowId: string;
	const hookPath = `send-and-wait-${randomUUID()}`;

	async function latestExecution(): Promise<Execution | undefined> {
		const body = await cluster.main.api<{ data: Execution[] }>('GET', `/executions?workflowId=${workflowId}&includeData=true&limit=1`);
		return body.data[0];
	}

	async function poll(done: (execution: Execution) => boolean, what: string, timeoutMs = 120_000): Promise<Execution> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const latest = await latestExecution();
			if (latest && done(latest)) return latest;
			if (latest && ['error', 'crashed', 'canceled'].includes(latest.status)) throw new Error(`execution ${latest.id} ended ${latest.status}`);
			if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${latest?.status})`);
			await new Promise((resolve) => setTimeout(resolve, 500));
		}
	}

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, webhookRetry: { baseDelayMs: 1_000, maxAttempts: 8, timeoutMs: 10_000 } });
		({ apiKey } = sandbox.createAccount());
		cluster = await startQueueCluster({
			workers: 1,
			webhookProcessors: 1,
			sandboxBaseUrl: sandbox.baseUrl,
			beforeStart: async (main) => {
				const [credentialId] = await main.importCredentials([main.documentSigningCredential({ apiKey, name: 'Sandbox (queue send and wait)' })]);
				workflowId = await main.importWorkflow({
					name: 'queue e2e: send and wait',
					settings: { executionOrder: 'v1' },
					nodes: [
						{
							id: randomUUID(),
							name: 'Deal Won',
							type: 'n8n-nodes-base.webhook',
							typeVersion: 2,
							position: [0, 0],
							webhookId: randomUUID(),
							parameters: { httpMethod: 'POST', path: hookPath, responseMode: 'onReceived', options: {} },
						},
						{
							id: randomUUID(),
							name: WAIT_NODE,
							type: NODE_TYPE,
							typeVersion: 1,
							position: [220, 0],
							credentials: { [CREDENTIAL_TYPE]: { id: credentialId, name: 'Sandbox (queue send and wait)' } },
							parameters: {
								resource: 'document',
								operation: 'sendAndWait',
								name: 'queue-contract.pdf',
								signers: { signer: [{ email: 'ann@example.com', name: 'Ann Example' }] },
								waitOptions: { attachSignedFile: true },
							},
						},
					],
					connections: { 'Deal Won': { main: [[{ node: WAIT_NODE, type: 'main', index: 0 }]] } },
				});
			},
		});
	});

	afterAll(async () => {
		await cluster?.dispose();
		await sandbox?.close();
	});

	it('a worker waits, the webhook processor takes the completion, a worker continues with the completed document', async () => {
		expect((await cluster.main.activate(workflowId)).status).toBe('published');
		const call = await fetch(cluster.productionWebhookUrl(hookPath), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
		expect(call.status).toBe(200);
		const waiting = await poll((execution) => execution.status === 'waiting', 'the execution to wait');

		const [webhook] = sandbox.store.webhooksOf(apiKey);
		expect(webhook.url.startsWith(cluster.productionWebhookUrl('').replace(/\/webhook\/$/, `/webhook-waiting/${waiting.id}/`))).toBe(true);
		const [document] = sandbox.store.documentsOf(apiKey);
		sandbox.actAsSigner(document.id, document.signers[0].id, 'sign');

		const done = await poll((execution) => execution.id === waiting.id && execution.status === 'success', 'the execution to resume');
		const runs = done.data?.resultData.runData[WAIT_NODE] ?? [];
		const [item] = runs[runs.length - 1]?.data?.main?.[0] ?? [];
		expect(item.json).toMatchObject({ id: document.id, status: 'completed' });
		expect((item as { binary?: Record<string, { mimeType: string }> }).binary?.data?.mimeType).toBe('application/pdf');
		expect(sandbox.store.webhooksOf(apiKey)).toHaveLength(0);
		// One delivery, answered by the webhook processor on its first attempt.
		expect(sandbox.deliveries().filter((attempt) => attempt.webhookId === webhook.id).map((attempt) => [attempt.event, attempt.status])).toEqual([['document.completed', 200]]);
	});
});
