/**
 * Reliability of the package in a real n8n (the pinned one of the e2e harness) against the
 * sandbox (in this process). One n8n for the whole file; the checks run in order and the secret
 * check comes last, over everything the others produced. Each check prints one summary line.
 *
 *  1. Bulk: 1,000 creates under 429s, injected 503s and dropped connections: none lost, none twice.
 *  2. Webhook lifecycle: 50 activate/deactivate cycles with n8n restarts in between: the
 *     sandbox holds exactly one webhook for the workflow while active, none while inactive.
 *  3. Forgery: bad deliveries to the production URL are refused (401) and start nothing; the
 *     service's deliveries are processed once each; repeated delivery ids are processed no more.
 *  4. Bad input: every kind in test/helpers/badInputCases.ts fails in n8n with its message,
 *     and not one request reaches the sandbox.
 *  5. Secrets: no API key and no webhook secret in any execution's data, n8n's log or output,
 *     or this suite's output.
 *
 * Needs the package built (`npm run build`). Every wait is bounded.
 */
import { createHmac } from 'node:crypto';

import { startN8n, type N8nInstance } from '../e2e/harness/n8n';
import { startSandbox, type Sandbox } from '../sandbox';
import { badInputCases } from '../test/helpers/badInputCases';
import {
	allExecutions,
	callWebhook,
	createCredential,
	createWorkflow,
	executionWithData,
	nodeRun,
	runOnce,
	waitForFinished,
} from '../e2e/harness/n8nApi';
import { noOpNode, splitItemsNode, webhookNode } from '../e2e/harness/webhookWorkflows';
import {
	chain,
	codeNode,
	createDocument,
	signingNode,
	triggerNode,
	type WorkflowJson,
	type WorkflowNode,
} from '../e2e/harness/workflows';
import { webhookSecret } from '../test/helpers/sandbox';
import { codeForItems, deliveryBody, nowSeconds, post, printed, sign, summary } from './lib';

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));
const suiteStarted = Date.now();

let sandbox: Sandbox;
let n8n: N8nInstance;
/** Every API key and webhook secret the suite used: none may appear anywhere at the end. */
const secrets = new Set<string>();
/** Everything written to stdout/stderr while the suite ran. */
const output: string[] = [];
const originalWrite = {
	out: process.stdout.write.bind(process.stdout),
	err: process.stderr.write.bind(process.stderr),
};

beforeAll(async () => {
	process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
		output.push(String(chunk));
		return (originalWrite.out as (...args: unknown[]) => boolean)(chunk, ...rest);
	}) as typeof process.stdout.write;
	process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
		output.push(String(chunk));
		return (originalWrite.err as (...args: unknown[]) => boolean)(chunk, ...rest);
	}) as typeof process.stderr.write;
	sandbox = await startSandbox({ port: 0 });
	// Debug logging (the harness default): the secret check reads the most verbose log there is.
	n8n = await startN8n({ sandboxBaseUrl: sandbox.baseUrl });
}, 300_000);

afterAll(async () => {
	await n8n?.dispose();
	await sandbox?.close();
	process.stdout.write = originalWrite.out;
	process.stderr.write = originalWrite.err;
	process.stdout.write(
		`[reliability] wall time of the suite: ${Math.round((Date.now() - suiteStarted) / 1000)} s\n`,
	);
}, 120_000);

async function account(name: string) {
	const created = sandbox.createAccount();
	secrets.add(created.apiKey);
	const credential = await createCredential(n8n, name, created.apiKey, sandbox.baseUrl);
	return { ...created, credential };
}

test('1. bulk: 1,000 creates under 429s, 503s and dropped connections: none lost, none duplicated', async () => {
	const ITEMS = 1000;
	const { apiKey, credential } = await account('reliability bulk');
	const path = `rel-bulk-${Date.now()}`;
	const workflowId = await createWorkflow(
		n8n,
		chain('reliability bulk', [
			webhookNode(path),
			splitItemsNode(),
			signingNode(
				'Document Signing',
				{
					resource: 'document',
					operation: 'create',
					name: '={{ $json.name }}',
					signers: { signer: [{ email: '={{ $json.email }}', name: 'Bulk Signer' }] },
				},
				{ credential },
			),
		]),
	);
	await n8n.activate(workflowId);
	sandbox.configure({
		rateLimit: { requestsPerSecond: 100, burst: 10 },
		failureRate: 0.1,
		failureStatuses: [503],
		connectionResetRate: 0.03,
	});
	// Counts below are differences: nothing of another test's may be pending when they start.
	await sandbox.flushDeliveries();
	const before = sandbox.stats();
	const started = Date.now();
	let execution;
	try {
		const items = Array.from({ length: ITEMS }, (_, i) => ({
			name: `rel-${i}.pdf`,
			email: `signer${i}@example.com`,
		}));
		execution = await runOnce(n8n, workflowId, path, { items }, 540_000);
	} finally {
		sandbox.configure({
			rateLimit: null,
			failureRate: 0,
			connectionResetRate: 0,
			failureStatuses: [500, 503],
		});
	}
	const after = sandbox.stats();
	const out = nodeRun(execution, 'Document Signing');

	const stored = sandbox.store.documentsOf(apiKey);
	const counts = new Map<string, number>();
	for (const doc of stored) counts.set(doc.name, (counts.get(doc.name) ?? 0) + 1);
	const lost = Array.from({ length: ITEMS }, (_, i) => `rel-${i}.pdf`).filter(
		(name) => !counts.has(name),
	).length;
	const duplicated = [...counts.values()].reduce((sum, count) => sum + count - 1, 0);
	const faults = {
		requests: after.requests - before.requests,
		rateLimited: after.rateLimited - before.rateLimited,
		injected503: after.injectedFailures - before.injectedFailures,
		resets: after.resets - before.resets,
	};
	summary(
		`bulk with faults: ${stored.length}/${ITEMS} created, ${lost} lost, ${duplicated} duplicated; ${out.items.length} output items; ` +
			`${faults.requests} requests (${faults.rateLimited} x 429, ${faults.injected503} x 503, ${faults.resets} resets); execution ${execution.status} in ${Math.round((Date.now() - started) / 1000)} s`,
	);

	expect(execution.status).toBe('success');
	expect(out.items).toHaveLength(ITEMS);
	out.items.forEach((json, i) => expect(json.name).toBe(`rel-${i}.pdf`));
	expect({ created: stored.length, lost, duplicated }).toEqual({
		created: ITEMS,
		lost: 0,
		duplicated: 0,
	});
	// The faults really happened.
	expect(faults.rateLimited).toBeGreaterThan(0);
	expect(faults.injected503).toBeGreaterThan(0);
	expect(faults.resets).toBeGreaterThan(0);
});

test('2. webhook lifecycle: 50 activate/deactivate cycles with restarts: exactly one webhook while active, none while inactive', async () => {
	const CYCLES = 50;
	/** Restart n8n after these cycles' activation (while active) or deactivation (while inactive). */
	const RESTART_WHILE_ACTIVE = new Set([12, 37]);
	const RESTART_WHILE_INACTIVE = new Set([25]);
	const { apiKey, credential } = await account('reliability lifecycle');
	const trigger = triggerNode('Document Signing Trigger', {
		events: ['document.completed', 'document.declined'],
		credential,
	});
	const workflowId = await createWorkflow(
		n8n,
		chain('reliability lifecycle', [trigger, noOpNode()]),
	);
	const url = n8n.productionWebhookUrl(`${trigger.webhookId}/webhook`);
	const ours = () => sandbox.store.webhooksOf(apiKey).filter((webhook) => webhook.url === url);

	// Sampled all along, so a moment with two webhooks would show even between the checks.
	let maxSeen = 0;
	let samples = 0;
	const sampler = setInterval(() => {
		samples++;
		maxSeen = Math.max(maxSeen, sandbox.store.webhooksOf(apiKey).length);
	}, 20);
	// Some faults on the way: registrations and removals go through the transport's retries.
	sandbox.configure({ failureRate: 0.05, connectionResetRate: 0.02 });
	const violations: string[] = [];
	const webhookIds = new Set<string>();
	let restarts = 0;
	let failedPublications = 0;
	const started = Date.now();
	try {
		for (let cycle = 1; cycle <= CYCLES; cycle++) {
			const status = await n8n.activate(workflowId, { allowFailure: true });
			if (status.status !== 'published') {
				failedPublications++;
				violations.push(
					`cycle ${cycle}: activation ended ${status.status}: ${JSON.stringify(status.triggers)}`,
				);
			}
			let active = ours();
			if (active.length !== 1)
				violations.push(`cycle ${cycle}: ${active.length} webhooks after activation`);
			for (const webhook of active) {
				webhookIds.add(webhook.id);
				const secret = webhookSecret(sandbox, apiKey, webhook.id);
				if (secret) secrets.add(secret);
			}
			if (RESTART_WHILE_ACTIVE.has(cycle)) {
				await n8n.restart();
				restarts++;
				// n8n re-activates published workflows at start-up (checkExists, or create anew), possibly
				// after it reports ready: wait (bounded) for the registration to settle.
				const deadline = Date.now() + 30_000;
				while (
					Date.now() < deadline &&
					((await n8n.publicationStatus(workflowId)).status === 'in_progress' ||
						ours().length !== 1)
				)
					await sleep(200);
				active = ours();
				if (active.length !== 1)
					violations.push(`cycle ${cycle}: ${active.length} webhooks after a restart while active`);
				for (const webhook of active) {
					webhookIds.add(webhook.id);
					const secret = webhookSecret(sandbox, apiKey, webhook.id);
					if (secret) secrets.add(secret);
				}
			}
			await n8n.deactivate(workflowId);
			const left = ours().length;
			if (left !== 0) violations.push(`cycle ${cycle}: ${left} webhooks after deactivation`);
			if (RESTART_WHILE_INACTIVE.has(cycle)) {
				await n8n.restart();
				restarts++;
				if (ours().length !== 0)
					violations.push(
						`cycle ${cycle}: ${ours().length} webhooks after a restart while inactive`,
					);
			}
		}
	} finally {
		clearInterval(sampler);
		sandbox.configure({ failureRate: 0, connectionResetRate: 0 });
	}
	const atEnd = sandbox.store.webhooksOf(apiKey).length;
	summary(
		`webhook lifecycle: ${CYCLES} cycles, ${restarts} restarts (${RESTART_WHILE_ACTIVE.size} while active), ${webhookIds.size} registrations; ` +
			`${violations.length} violations; at most ${maxSeen} webhook(s) in ${samples} samples; ${atEnd} at the end; ${failedPublications} failed activations; ${Math.round((Date.now() - started) / 1000)} s`,
	);
	expect(violations).toEqual([]);
	expect(maxSeen).toBeLessThanOrEqual(1);
	expect(atEnd).toBe(0);
});

test('3. forgery: bad deliveries are refused with 401 and start nothing; valid ones are processed once each, repeats never', async () => {
	const { apiKey, credential } = await account('reliability forgery');
	const trigger = triggerNode('Document Signing Trigger', {
		events: ['document.completed'],
		credential,
	});
	const workflowId = await createWorkflow(n8n, chain('reliability forgery', [trigger, noOpNode()]));
	await n8n.activate(workflowId);
	const [webhook] = sandbox.store.webhooksOf(apiKey);
	const secret = webhookSecret(sandbox, apiKey, webhook.id)!;
	expect(secret).toBeTruthy();
	secrets.add(secret);
	const url = webhook.url;
	expect(url).toBe(n8n.productionWebhookUrl(`${trigger.webhookId}/webhook`));
	const otherSecret = 'whsec_not_the_registered_secret_0123456789abcdef';

	const forgeries: Array<{ kind: string; send: () => Promise<number> }> = [
		{
			kind: 'no signature header',
			send: async () => {
				const d = deliveryBody(webhook.id);
				return await post(url, d.body, {});
			},
		},
		{
			kind: 'malformed header',
			send: async () => {
				const d = deliveryBody(webhook.id);
				return await post(url, d.body, { 'x-signature': 'garbage' });
			},
		},
		{
			kind: 'signed with another secret',
			send: async () => {
				const d = deliveryBody(webhook.id);
				return await post(url, d.body, { 'x-signature': sign(otherSecret, d.body) });
			},
		},
		{
			kind: 'stale timestamp (10 min old, correctly signed)',
			send: async () => {
				const d = deliveryBody(webhook.id);
				return await post(url, d.body, { 'x-signature': sign(secret, d.body, nowSeconds() - 600) });
			},
		},
		{
			kind: 'future timestamp (10 min ahead, correctly signed)',
			send: async () => {
				const d = deliveryBody(webhook.id);
				return await post(url, d.body, { 'x-signature': sign(secret, d.body, nowSeconds() + 600) });
			},
		},
		{
			kind: 'only another scheme (v0=)',
			send: async () => {
				const d = deliveryBody(webhook.id);
				return await post(url, d.body, {
					'x-signature': sign(secret, d.body).replace('v1=', 'v0='),
				});
			},
		},
		{
			kind: 'empty body',
			send: async () => await post(url, '', { 'x-signature': sign(secret, '') }),
		},
		{
			kind: 'body changed after signing',
			send: async () => {
				const d = deliveryBody(webhook.id);
				return await post(url, d.body.replace('"completed"', '"declined"'), {
					'x-signature': sign(secret, d.body),
				});
			},
		},
		{
			kind: 'timestamp changed after signing',
			send: async () => {
				const d = deliveryBody(webhook.id);
				const t = nowSeconds();
				return await post(url, d.body, {
					'x-signature': sign(secret, d.body, t).replace(`t=${t}`, `t=${t - 1}`),
				});
			},
		},
		{
			kind: 'truncated signature',
			send: async () => {
				const d = deliveryBody(webhook.id);
				return await post(url, d.body, { 'x-signature': sign(secret, d.body).slice(0, -2) });
			},
		},
		{
			kind: 're-serialised JSON (same value, other bytes) under the original signature',
			send: async () => {
				const d = deliveryBody(webhook.id);
				return await post(url, JSON.stringify(JSON.parse(d.body), null, 2), {
					'x-signature': sign(secret, d.body),
				});
			},
		},
		{
			// Another layout the trigger reads (a body HMAC), keyed by another secret.
			kind: 'another layout with another secret (X-Hub-Signature-256)',
			send: async () => {
				const d = deliveryBody(webhook.id);
				return await post(url, d.body, {
					'x-hub-signature-256': `sha256=${createHmac('sha256', otherSecret).update(d.body).digest('hex')}`,
				});
			},
		},
	];
	const refused: Array<{ kind: string; status: number }> = [];
	for (const forgery of forgeries)
		refused.push({ kind: forgery.kind, status: await forgery.send() });
	// Give n8n time to start anything it wrongly accepted. (The workflow is this test's own, and
	// the service has made no delivery to its webhook yet: every execution would be a forgery's.)
	await sleep(2000);
	await sandbox.flushDeliveries();
	const afterForgeries = (await allExecutions(n8n, workflowId)).length;

	// Valid deliveries are the service's own: 100 documents, each signed by its one signer.
	const VALID = 100;
	for (let i = 0; i < VALID; i++) {
		const document = await createDocument(sandbox, apiKey, {
			name: `reliability ${i}.pdf`,
			signers: [{ email: `signer${i}@example.com`, name: `Signer ${i}` }],
		});
		sandbox.actAsSigner(document.id, document.signers[0].id, 'sign');
	}
	await sandbox.flushDeliveries();
	// One delivery per event; on a busy machine n8n may answer a burst late, and the service then
	// retries (same delivery id): what counts is that every delivery ends taken, and runs once.
	const attempts = sandbox.deliveries().filter((attempt) => attempt.webhookId === webhook.id);
	const valid = [...new Map(attempts.map((attempt) => [attempt.deliveryId, attempt])).values()];
	const taken = (deliveryId: string) =>
		attempts.some((attempt) => attempt.deliveryId === deliveryId && attempt.ok) ||
		sandbox.deliveryRecord(deliveryId)?.status === 'acknowledged';
	const validAccepted = valid.filter((delivery) => taken(delivery.deliveryId)).length;
	const executions = await waitForFinished(n8n, workflowId, VALID, 180_000);

	// Retries: the same body and delivery id, freshly signed. This n8n passed each on and its
	// execution claimed it, so each is answered "already processed" and starts no execution.
	const REPEATS = 20;
	const repeatAnswers: Array<{ status: number; reason: unknown }> = [];
	for (const d of valid.slice(0, REPEATS)) {
		const response = await fetch(url, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				'x-signature': sign(secret, d.body),
				'x-delivery-id': d.deliveryId,
			},
			body: d.body,
			signal: AbortSignal.timeout(30_000),
		});
		const answer = (await response.json().catch(() => ({}))) as { reason?: unknown };
		repeatAnswers.push({ status: response.status, reason: answer.reason });
	}
	await sandbox.flushDeliveries();
	const finalExecutions = await allExecutions(n8n, workflowId, true);
	const passedOn = finalExecutions.flatMap((execution) => {
		const items =
			execution.data?.resultData.runData['Document Signing Trigger']?.[0]?.data?.main?.[0] ?? [];
		return items.map((item) => item.json.deliveryId as string);
	});
	const reachedNextNode = finalExecutions.filter(
		(execution) => execution.data?.resultData.runData.Done,
	).length;
	await n8n.deactivate(workflowId);

	const refusedCount = refused.filter((r) => r.status === 401).length;
	summary(
		`forgery: ${refusedCount}/${forgeries.length} kinds of bad delivery answered 401, ${afterForgeries} executions from them; ` +
			`${validAccepted}/${VALID} service deliveries taken (${attempts.length} attempts) -> ${executions.length} executions; ` +
			`${repeatAnswers.filter((a) => a.reason === 'already processed').length}/${REPEATS} repeats answered "already processed" -> ${finalExecutions.length - executions.length} extra executions, ` +
			`${passedOn.length - VALID} processed twice`,
	);
	expect(refused).toEqual(forgeries.map((f) => ({ kind: f.kind, status: 401 })));
	expect(afterForgeries).toBe(0);
	expect(valid).toHaveLength(VALID);
	expect(validAccepted).toBe(VALID);
	expect(repeatAnswers).toEqual(Array(REPEATS).fill({ status: 200, reason: 'already processed' }));
	expect(finalExecutions).toHaveLength(VALID);
	expect(finalExecutions.every((execution) => execution.status === 'success')).toBe(true);
	expect(passedOn.sort()).toEqual(valid.map((d) => d.deliveryId).sort());
	expect(reachedNextNode).toBe(VALID);
});

test('4. bad input: every kind of the table fails in n8n with its message and sends nothing', async () => {
	const { credential } = await account('reliability bad input');
	// One workflow, one branch per case (Webhook -> Code emitting the items -> the node): a call
	// to a branch's webhook runs only that branch.
	const nodes: WorkflowNode[] = [];
	const connections: WorkflowJson['connections'] = {};
	const stamp = Date.now();
	badInputCases.forEach((testCase, i) => {
		const hook = webhookNode(`rel-bad-${stamp}-${i}`, `Webhook ${i}`);
		const items = codeNode(`Items ${i}`, codeForItems(testCase.items ?? [{ json: {} }]));
		const node = signingNode(`Case ${i}`, testCase.parameters as Record<string, unknown>, {
			credential,
		});
		nodes.push(hook, items, node);
		connections[hook.name] = { main: [[{ node: items.name, type: 'main', index: 0 }]] };
		connections[items.name] = { main: [[{ node: node.name, type: 'main', index: 0 }]] };
	});
	const workflowId = await createWorkflow(n8n, {
		name: 'reliability bad input',
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
	});
	await n8n.activate(workflowId);

	// The service's requests from earlier tests (claims of their deliveries) must not count: none pending.
	await sandbox.flushDeliveries();
	const before = sandbox.stats().requests;
	const results: Array<{
		title: string;
		status?: string;
		message?: string;
		httpCode?: string | null;
		ok: boolean;
	}> = [];
	for (const [i, testCase] of badInputCases.entries()) {
		const seen = new Set((await allExecutions(n8n, workflowId)).map((e) => e.id));
		const answer = await callWebhook(n8n, `rel-bad-${stamp}-${i}`, {});
		let execution;
		const deadline = Date.now() + 60_000;
		while (!execution && Date.now() < deadline) {
			const fresh = (await allExecutions(n8n, workflowId)).filter(
				(e) => !seen.has(e.id) && !['new', 'running', 'waiting'].includes(e.status),
			);
			if (fresh.length) execution = await executionWithData(n8n, fresh[0].id);
			else await sleep(200);
		}
		const error = execution?.data?.resultData.error;
		const message = error?.message;
		const matches =
			typeof testCase.message === 'string'
				? message === testCase.message
				: testCase.message.test(message ?? '');
		results.push({
			title: testCase.title,
			status: execution?.status,
			message,
			httpCode: error?.httpCode,
			// The branch's Webhook answers when the run ends: 500, since the node failed it.
			ok:
				answer === 500 &&
				execution?.status === 'error' &&
				matches &&
				error?.node?.name === `Case ${i}`,
		});
	}
	await sandbox.flushDeliveries();
	const requests = sandbox.stats().requests - before;
	await n8n.deactivate(workflowId);

	summary(
		`bad input: ${results.filter((r) => r.ok).length}/${badInputCases.length} kinds failed with their message in n8n; ${requests} requests reached the sandbox`,
	);
	expect(badInputCases.length).toBeGreaterThanOrEqual(15);
	expect(results.filter((r) => !r.ok)).toEqual([]);
	expect(requests).toBe(0);
});

test('5. secrets: no API key or webhook secret in any execution, n8n log or output, or this suite output', async () => {
	// Every execution of the instance, with data (the public API pages by cursor).
	const workflows = await n8n.api<{ data: Array<{ id: string }> }>('GET', '/workflows?limit=250');
	let executionsText = '';
	let executionCount = 0;
	for (const workflow of workflows.data) {
		for (const execution of await allExecutions(n8n, workflow.id, true)) {
			executionCount++;
			executionsText += JSON.stringify(execution);
		}
	}
	const log = n8n.logText();
	const suiteOutput = printed.join('') + output.join('');
	const hits: string[] = [];
	for (const secret of secrets) {
		const short = `${secret.slice(0, 10)}…`;
		if (executionsText.includes(secret)) hits.push(`${short} in execution data`);
		if (log.includes(secret)) hits.push(`${short} in n8n's log/output`);
		if (suiteOutput.includes(secret)) hits.push(`${short} in the suite's output`);
	}
	const keys = [...secrets].filter((s) => s.startsWith('sk_')).length;
	summary(
		`secrets: ${hits.length} hits for ${keys} API keys and ${secrets.size - keys} webhook secrets in ${executionCount} executions ` +
			`(${Math.round(executionsText.length / 1024)} KiB), n8n log/output (${Math.round(log.length / 1024)} KiB) and suite output (${Math.round(suiteOutput.length / 1024)} KiB)`,
	);
	expect(secrets.size).toBeGreaterThan(4);
	expect(hits).toEqual([]);
});
