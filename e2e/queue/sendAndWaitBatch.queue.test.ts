/**
 * Send and Wait for Signature with several items (node version 2) in n8n's queue mode (main + 2
 * workers + a webhook processor, Redis, PostgreSQL; see ./cluster.ts): a worker sends 4 documents
 * and puts the execution to wait once; three of them end (completed, declined, expired) and nothing
 * continues; the fourth completes and a worker continues the execution once, with 4 items in input
 * order (`approved` true, false, false, true), no webhook left.
 *
 * Needs the package built (`npm run build`), Redis and PostgreSQL (scripts/redis.sh,
 * scripts/postgres.sh). Run: `npx jest -c e2e/queue/jest.config.js e2e/queue/sendAndWaitBatch.queue.test.ts`.
 */
import { randomUUID } from 'node:crypto';

import { startSandbox, type Sandbox } from '../../sandbox';
import { waitFor } from '../../test/helpers/sandbox';
import type { Execution } from '../harness/n8n';
import { chain, executionItems, node, signingNode } from '../harness/workflows';
import { startQueueCluster, type QueueCluster } from './cluster';

const PDF_BASE64 = Buffer.from('%PDF-1.7 queue batch').toString('base64');
const FINISHED = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status);

describe('Send and Wait for Signature with 4 items in queue mode', () => {
	let sandbox: Sandbox;
	let cluster: QueueCluster;
	let apiKey: string;
	let workflowId: string;
	const webhookPath = `send-and-wait-batch-${randomUUID()}`;

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
					main.documentSigningCredential({ apiKey, name: 'Sandbox (queue send and wait batch)' }),
				]);
				const credential = { id: credentialId, name: 'Sandbox (queue send and wait batch)' };
				workflowId = await main.importWorkflow(
					chain('queue e2e: send and wait batch', [
						node(
							'List Received',
							'n8n-nodes-base.webhook',
							2,
							{ httpMethod: 'POST', path: webhookPath, responseMode: 'onReceived', options: {} },
							{ webhookId: randomUUID() },
						),
						node('One Item per Signer', 'n8n-nodes-base.code', 2, {
							mode: 'runOnceForAllItems',
							language: 'javaScript',
							jsCode: `return $input.first().json.body.signers.map((signer) => ({ json: signer, binary: { data: { data: '${PDF_BASE64}', mimeType: 'application/pdf', fileName: signer.file } } }));`,
						}),
						signingNode(
							'Send and Wait',
							{
								resource: 'document',
								operation: 'sendAndWait',
								documentFrom: 'file',
								name: '={{ $json.file }}',
								signers: { signer: [{ email: '={{ $json.email }}', name: '={{ $json.name }}' }] },
								additionalFields: { expires_at: "={{ $json.expiresAt ?? '' }}" },
								waitOptions: {},
							},
							{ credential, typeVersion: 2 },
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

	it('a worker sends 4 documents and waits once; three final ones continue nothing; the fourth continues it once on a worker, 4 items in input order', async () => {
		const inAnHour = new Date(Date.parse(sandbox.now()) + 60 * 60 * 1000).toISOString();
		const signers = ['Ada', 'Alan', 'Grace', 'Katherine'].map((name, index) => ({
			name,
			email: `${name.toLowerCase()}@example.com`,
			file: `queue-batch-${index + 1}.pdf`,
			...(index === 2 ? { expiresAt: inAnHour } : {}),
		}));
		const call = await fetch(cluster.productionWebhookUrl(webhookPath), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ signers }),
			signal: AbortSignal.timeout(30_000),
		});
		expect(call.status).toBe(200);
		const [waiting] = await waitFor(
			async () => {
				const list = await executions();
				return list.length === 1 && list[0].status === 'waiting' && list;
			},
			'the batch waiting',
			120_000,
		);
		const ids = signers.map(
			(signer) =>
				sandbox.store.documentsOf(apiKey).find((document) => document.name === signer.file)!.id,
		);
		const [webhook, ...others] = sandbox.store.webhooksOf(apiKey);
		expect(others).toEqual([]);
		expect(webhook.url.startsWith(`${cluster.webhookProcessors[0].baseUrl}/webhook-waiting/`)).toBe(
			true,
		);
		const signerOf = (id: string) =>
			sandbox.store.documentsOf(apiKey).find((document) => document.id === id)!.signers[0].id;

		sandbox.actAsSigner(ids[0], signerOf(ids[0]), 'sign');
		sandbox.actAsSigner(ids[1], signerOf(ids[1]), 'decline', 'No');
		sandbox.advanceClock(2 * 60 * 60);
		await sandbox.flushDeliveries();
		expect((await executions()).map((execution) => [execution.id, execution.status])).toEqual([
			[waiting.id, 'waiting'],
		]);

		sandbox.actAsSigner(ids[3], signerOf(ids[3]), 'sign');
		const [done] = await waitFor(
			async () => {
				const list = await executions();
				return list.length === 1 && FINISHED(list[0]) && list;
			},
			'the batch continued',
			180_000,
		);
		expect(done.status).toBe('success');
		expect(done.data?.resultData.runData['After Signing']).toHaveLength(1);
		expect(
			executionItems(done, 'After Signing').map((item) => [item.id, item.status, item.approved]),
		).toEqual([
			[ids[0], 'completed', true],
			[ids[1], 'declined', false],
			[ids[2], 'expired', false],
			[ids[3], 'completed', true],
		]);
		expect(sandbox.store.webhooksOf(apiKey)).toEqual([]);
		// The start and the continuation ran on workers.
		const ran = Object.values(cluster.executionsByWorker()).flat();
		expect(ran.filter((id) => id === done.id).length).toBeGreaterThanOrEqual(2);
		await sandbox.flushDeliveries();
		// Every delivery ended answered 2xx. A 503 (another call of the batch was reading at that
		// moment on the same webhook processor) was retried by the service; nothing else failed.
		const attempts = sandbox.deliveries();
		const last = new Map(attempts.map((attempt) => [attempt.deliveryId, attempt]));
		expect([...last.values()].filter((attempt) => !attempt.ok)).toEqual([]);
		expect(
			new Set(attempts.filter((attempt) => !attempt.ok).map((attempt) => attempt.status)),
		).toEqual(new Set(attempts.some((attempt) => !attempt.ok) ? [503] : []));
	});
});
