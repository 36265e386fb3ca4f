/**
 * Document › Send and Wait for Signature in n8n's queue mode (main + 2 workers + a webhook
 * processor, Redis, PostgreSQL; see ./cluster.ts): a production webhook on the webhook processor
 * starts the workflow; a worker sends the document, registers the service webhook at the signed
 * resume URL (on the webhook processor: N8N_WEBHOOK_URL) and puts the execution to wait. The
 * service's completion delivery reaches the webhook processor, and a worker continues the
 * execution: exactly once, with the completed document, its webhook removed.
 *
 * Needs the package built (`npm run build`), Redis and PostgreSQL (scripts/redis.sh,
 * scripts/postgres.sh). Run: `npx jest -c e2e/queue/jest.config.js e2e/queue/sendAndWait.queue.test.ts`.
 */
import { randomUUID } from 'node:crypto';

import { startSandbox, type Sandbox } from '../../sandbox';
import { waitFor } from '../../test/helpers/sandbox';
import type { Execution } from '../harness/n8n';
import { chain, executionItems, node, signingNode } from '../harness/workflows';
import { startQueueCluster, type QueueCluster } from './cluster';

const WAITS = 5;
const FINISHED = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status);

describe('Send and Wait for Signature in queue mode', () => {
	let sandbox: Sandbox;
	let cluster: QueueCluster;
	let apiKey: string;
	let workflowId: string;
	const webhookPath = `send-and-wait-${randomUUID()}`;

	const executions = async (): Promise<Execution[]> =>
		(
			await cluster.main.api<{ data: Execution[] }>(
				'GET',
				`/executions?workflowId=${workflowId}&includeData=true&limit=100`,
			)
		).data;

	beforeAll(async () => {
		sandbox = await startSandbox({
			port: 0,
			webhookRetry: { baseDelayMs: 1_000, maxAttempts: 8, timeoutMs: 10_000 },
		});
		({ apiKey } = sandbox.createAccount());
		cluster = await startQueueCluster({
			workers: 2,
			webhookProcessors: 1,
			sandboxBaseUrl: sandbox.baseUrl,
			beforeStart: async (main) => {
				const [credentialId] = await main.importCredentials([
					main.documentSigningCredential({ apiKey, name: 'Sandbox (queue send and wait)' }),
				]);
				const credential = { id: credentialId, name: 'Sandbox (queue send and wait)' };
				workflowId = await main.importWorkflow(
					chain('queue e2e: send and wait', [
						node(
							'Deal Won',
							'n8n-nodes-base.webhook',
							2,
							{ httpMethod: 'POST', path: webhookPath, responseMode: 'onReceived', options: {} },
							{ webhookId: randomUUID() },
						),
						signingNode(
							'Send and Wait',
							{
								resource: 'document',
								operation: 'sendAndWait',
								documentSource: 'new',
								name: '={{ $json.body.name }}',
								signers: { signer: [{ email: '={{ $json.body.email }}', name: 'Queue Signer' }] },
								waitOptions: { attachSignedFile: true },
							},
							{ credential },
						),
						node('After Signing', 'n8n-nodes-base.noOp', 1, {}),
					]),
				);
			},
		});
		await cluster.main.activate(workflowId);
	});

	afterAll(async () => {
		await cluster?.dispose();
		await sandbox?.close();
	});

	it('waits start on workers, completions reach the webhook processor, and each execution continues once on a worker', async () => {
		// One after the other: waits started at the same moment are the regular suite's concern
		// (e2e/sendAndWait.e2e.test.ts); here each start and each continuation is a worker's job.
		let waiting: Execution[] = [];
		for (let index = 0; index < WAITS; index++) {
			const call = await fetch(cluster.productionWebhookUrl(webhookPath), {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({
					name: `queue-wait-${index}.pdf`,
					email: `signer-${index}@example.com`,
				}),
				signal: AbortSignal.timeout(30_000),
			});
			expect(call.status).toBe(200);
			waiting = await waitFor(
				async () => {
					const list = await executions();
					return (
						list.length === index + 1 &&
						list.every((execution) => execution.status === 'waiting' || FINISHED(execution)) &&
						list
					);
				},
				`wait ${index} started`,
				120_000,
			);
		}
		expect(waiting.map((execution) => execution.status)).toEqual(Array(WAITS).fill('waiting'));
		const webhooks = sandbox.store.webhooksOf(apiKey);
		expect(webhooks).toHaveLength(WAITS);
		// The resume URLs are the webhook processor's (N8N_WEBHOOK_URL), not the main process's.
		for (const webhook of webhooks)
			expect(
				webhook.url.startsWith(`${cluster.webhookProcessors[0].baseUrl}/webhook-waiting/`),
			).toBe(true);

		const documents = sandbox.store.documentsOf(apiKey);
		for (const document of documents)
			sandbox.actAsSigner(document.id, document.signers[0].id, 'sign');

		const done = await waitFor(
			async () => {
				// n8n's public API leaves out executions that are running (resuming) at that moment.
				const list = await executions();
				return list.length === WAITS && list.every(FINISHED) && list;
			},
			'every wait resumed',
			180_000,
		);
		expect(done.map((execution) => execution.status)).toEqual(Array(WAITS).fill('success'));
		const names = done.map((execution) => {
			expect(execution.data?.resultData.runData['After Signing']).toHaveLength(1);
			const [item] = executionItems(execution, 'After Signing');
			expect(item.status).toBe('completed');
			return item.name as string;
		});
		expect(names.sort()).toEqual(documents.map((document) => document.name).sort());
		expect(sandbox.store.webhooksOf(apiKey)).toEqual([]);

		// Both the start and the continuation ran on workers (the main process runs none in queue mode).
		const byWorker = cluster.executionsByWorker();
		const ran = Object.values(byWorker).flat();
		for (const execution of done)
			expect(ran.filter((id) => id === execution.id).length).toBeGreaterThanOrEqual(2);
		// Every completion was answered by the webhook processor with a 2xx (none retried for ever).
		await sandbox.flushDeliveries();
		expect(sandbox.deliveries().filter((attempt) => !attempt.ok)).toEqual([]);
	});
});
