/**
 * Document › Send and Wait for Signature in a real n8n (the pinned 2.x, headless) with the sandbox
 * as the service and people signing in headless Chromium (harness/browser.ts).
 *
 * - A webhook call starts the workflow; the node sends the document and the execution waits, with
 *   one service webhook pointing at n8n's signed resume URL for this execution.
 * - A forged delivery to that URL is answered 200 and does not resume it.
 * - Every signer signs on the signing pages: the execution resumes once, the node passes on the
 *   completed document (and the node after it runs), and the service webhook is gone.
 * - A cancelled wait's webhook is removed by the next Send and Wait of the workflow.
 * - A wait survives an n8n restart (a decline after it resumes, with Any Final State).
 * - The time limit: n8n continues the execution with the document as sent, marked timedOut.
 *
 * Needs the package built (`npm run build`) and /usr/bin/chromium (`bash scripts/e2e-prereqs.sh`).
 */
import { randomUUID } from 'node:crypto';

import { startSandbox, type Sandbox } from '../sandbox';
import { launchBrowser, signEverySigner, type E2eBrowser } from './harness/browser';
import { createN8n, type Execution, type N8nInstance } from './harness/n8n';
import { chain, node, setNode, signingNode } from './harness/workflows';

const WAIT_NODE = 'Send and Wait';

describe('Send and Wait for Signature in a real n8n, with people signing in Chromium', () => {
	let sandbox: Sandbox;
	let n8n: N8nInstance;
	let browser: E2eBrowser | undefined;
	let apiKey: string;
	let credential: { id: string; name: string };

	async function waitingWorkflow(name: string, waitOptions: Record<string, unknown> = {}): Promise<{ workflowId: string; hookUrl: string }> {
		const hookPath = `send-and-wait-${randomUUID()}`;
		const workflowId = await n8n.importWorkflow(
			chain(name, [
				node('Deal Won', 'n8n-nodes-base.webhook', 2, { httpMethod: 'POST', path: hookPath, options: {} }, { webhookId: randomUUID() }),
				signingNode(
					WAIT_NODE,
					{
						resource: 'document',
						operation: 'sendAndWait',
						name: '={{ $json.body.deal }}-contract.pdf',
						signers: { signer: [{ email: 'ann@example.com', name: 'Ann Example' }, { email: 'cy@example.com', name: 'Cy Example', authentication: 'email_otp' }] },
						waitOptions,
					},
					{ credential },
				),
				setNode('After', { continued: true }, { includeOtherFields: true }),
			]),
		);
		expect((await n8n.activate(workflowId)).status).toBe('published');
		return { workflowId, hookUrl: n8n.productionWebhookUrl(hookPath) };
	}

	async function startWait(hookUrl: string, workflowId: string, deal: string): Promise<Execution> {
		const before = new Set((await n8n.executions({ workflowId, includeData: false })).map((execution) => execution.id));
		const call = await fetch(hookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ deal }) });
		expect(call.status).toBe(200);
		return await pollExecution(workflowId, (execution) => !before.has(execution.id) && execution.status === 'waiting', 'the execution to wait');
	}

	async function pollExecution(workflowId: string, done: (execution: Execution) => boolean, what: string, timeoutMs = 60_000): Promise<Execution> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const [latest] = await n8n.executions({ workflowId, limit: 1 });
			if (latest && done(latest)) return latest;
			if (latest && ['error', 'crashed'].includes(latest.status)) throw new Error(`execution ${latest.id} ended ${latest.status}: ${(latest.data?.resultData.error as { message?: string } | undefined)?.message}`);
			if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${latest?.status})`);
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
	}

	const outputOf = (execution: Execution, nodeName: string) => {
		const runs = execution.data?.resultData.runData[nodeName] ?? [];
		return (runs[runs.length - 1]?.data?.main?.[0] ?? []).map((item) => item.json as Record<string, any>);
	};

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, webhookRetry: { baseDelayMs: 250, maxAttempts: 4, timeoutMs: 10_000 } });
		({ apiKey } = sandbox.createAccount());
		n8n = await createN8n({ sandboxBaseUrl: sandbox.baseUrl });
		const [credentialId] = await n8n.importCredentials([n8n.documentSigningCredential({ apiKey, name: 'Sandbox (send and wait e2e)' })]);
		credential = { id: credentialId, name: 'Sandbox (send and wait e2e)' };
		await n8n.start();
	});

	afterAll(async () => {
		await browser?.close();
		await n8n?.dispose();
		await sandbox?.close();
	});

	it('waits until every signer signed in the browser, then continues once with the completed document; its webhook is removed', async () => {
		const { workflowId, hookUrl } = await waitingWorkflow('e2e: send and wait');
		const waiting = await startWait(hookUrl, workflowId, 'D-42');

		const webhooks = sandbox.store.webhooksOf(apiKey);
		expect(webhooks).toHaveLength(1);
		expect(webhooks[0].url.startsWith(`${n8n.baseUrl}/webhook-waiting/${waiting.id}/`)).toBe(true);
		expect(webhooks[0].events).toEqual(['document.completed']);
		const [document] = sandbox.store.documentsOf(apiKey).filter((d) => d.name === 'D-42-contract.pdf');
		expect(document.status).toBe('pending');

		// A forged "completed" for this document: answered, ignored, still waiting.
		const forged = await fetch(webhooks[0].url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ id: 'dlv_forged', event: 'document.completed', webhook_id: webhooks[0].id, data: { document: { id: document.id, status: 'completed' } } }),
		});
		expect(forged.status).toBe(200);
		expect((await n8n.executions({ workflowId, limit: 1 }))[0].status).toBe('waiting');

		browser = await launchBrowser();
		const page = await browser.newPage();
		await signEverySigner(page, String(document.signing_url));

		const done = await pollExecution(workflowId, (execution) => execution.status === 'success', 'the execution to resume');
		expect(done.id).toBe(waiting.id);
		const [output] = outputOf(done, WAIT_NODE);
		expect(output).toMatchObject({ id: document.id, status: 'completed' });
		expect(output.timedOut).toBeUndefined();
		expect(outputOf(done, 'After')).toEqual([expect.objectContaining({ id: document.id, status: 'completed', continued: true })]);
		expect(sandbox.store.webhooksOf(apiKey)).toHaveLength(0);
		// Exactly one execution of the workflow, resumed once.
		expect(await n8n.executions({ workflowId })).toHaveLength(1);
	});

	it('a cancelled wait loses its webhook at the next Send and Wait of the workflow; a waiting one keeps it', async () => {
		const { workflowId, hookUrl } = await waitingWorkflow('e2e: send and wait, cancel');
		const cancelled = await startWait(hookUrl, workflowId, 'D-44');
		const ofExecution = (id: string) => sandbox.store.webhooksOf(apiKey).filter((webhook) => webhook.url.startsWith(`${n8n.baseUrl}/webhook-waiting/${id}/`));
		expect(ofExecution(cancelled.id)).toHaveLength(1);
		await n8n.api('POST', `/executions/${cancelled.id}/stop`);
		expect((await n8n.executions({ workflowId, limit: 1 }))[0].status).toBe('canceled');
		// n8n tells no node: the webhook is still there.
		expect(ofExecution(cancelled.id)).toHaveLength(1);

		const next = await startWait(hookUrl, workflowId, 'D-45');
		expect(next.id).not.toBe(cancelled.id);
		expect(ofExecution(cancelled.id)).toHaveLength(0);
		expect(ofExecution(next.id)).toHaveLength(1);

		// And a third run leaves the second, still waiting, alone (its probe was answered and ignored).
		const third = await startWait(hookUrl, workflowId, 'D-46');
		expect(ofExecution(next.id)).toHaveLength(1);
		expect(ofExecution(third.id)).toHaveLength(1);
		const waiting = await n8n.executions({ workflowId, status: 'waiting' });
		expect(waiting.map((execution) => execution.id).sort()).toEqual([next.id, third.id].sort());
	});

	it('a wait survives an n8n restart: declining after it resumes the execution (Any Final State)', async () => {
		const { workflowId, hookUrl } = await waitingWorkflow('e2e: send and wait, restart', { resumeOn: 'anyFinal' });
		const waiting = await startWait(hookUrl, workflowId, 'D-47');
		await n8n.restart();
		const [document] = sandbox.store.documentsOf(apiKey).filter((d) => d.name === 'D-47-contract.pdf');
		// The service's delivery reaches the restarted n8n, which recomputes the wait's secret.
		sandbox.actAsSigner(document.id, document.signers[0].id, 'decline', 'Wrong amount');
		const done = await pollExecution(workflowId, (execution) => execution.id === waiting.id && execution.status === 'success', 'the execution to resume');
		expect(outputOf(done, WAIT_NODE)).toEqual([expect.objectContaining({ id: document.id, status: 'declined' })]);
		expect(sandbox.store.webhooksOf(apiKey).filter((webhook) => webhook.url.includes(`/webhook-waiting/${waiting.id}/`))).toHaveLength(0);
	});

	it('at the time limit n8n continues with the document as sent, marked timedOut', async () => {
		const { workflowId, hookUrl } = await waitingWorkflow('e2e: send and wait, time limit', {
			limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: new Date(Date.now() + 20_000).toISOString() } },
		});
		const waiting = await startWait(hookUrl, workflowId, 'D-43');
		// n8n's wait tracker looks for due executions once a minute.
		const done = await pollExecution(workflowId, (execution) => execution.status === 'success', 'the time limit', 150_000);
		expect(done.id).toBe(waiting.id);
		const [output] = outputOf(done, WAIT_NODE);
		expect(output).toMatchObject({ name: 'D-43-contract.pdf', status: 'pending', timedOut: true });
		expect(outputOf(done, 'After')).toEqual([expect.objectContaining({ timedOut: true, continued: true })]);
	});
});
