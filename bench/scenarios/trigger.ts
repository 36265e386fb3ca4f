/**
 * 3. Trigger: N events delivered by the sandbox -> executions started in real n8n. The trigger
 * listens to `document.created`; the events come from creating N documents through the API at a
 * steady rate. Latency is each delivery's first attempt (sandbox startedAt) to the start of the
 * execution it caused (n8n's startedAt), matched by delivery id; both clocks are this machine's.
 */
import type { Execution } from '../../e2e/harness/n8n';
import { allExecutions, cpuMs, createCredential, createWorkflow } from '../../e2e/harness/n8nApi';
import { seedDocuments } from '../lib/raw';
import { median, percentile } from '../lib/stats';
import { chain, executionItems, triggerNode } from '../../e2e/harness/workflows';
import { noOpNode, webhookNode } from '../../e2e/harness/webhookWorkflows';
import type { BenchContext } from './context';

export interface TriggerOptions {
	events: number;
	/** Events created per second. */
	eventsPerSecond: number;
	/**
	 * `trigger`: the Document Signing Trigger (registers its own webhook, verifies signatures,
	 * drops repeats). `webhook`: n8n's plain Webhook node, registered with the service by hand
	 * (no verification, no deduplication): what n8n itself costs per delivery. `webhookV1`: the
	 * same at the Webhook node's version 1, which n8n 2.41 gives the expression isolate every
	 * other webhook node (the trigger included) takes.
	 */
	receiver: 'trigger' | 'webhook' | 'webhookV1';
	/** The trigger's node version (2, the default, unless given). */
	triggerVersion?: number;
}

export interface TriggerResult {
	options: TriggerOptions;
	eventsCreatedMs: number;
	delivered: number;
	/** Delivery attempts beyond the first (the sandbox retrying after a non-2xx or a timeout). */
	redeliveries: number;
	failedDeliveries: number;
	executions: number;
	executed: number;
	duplicates: number;
	latencyMs: { median: number; p95: number; max: number };
	/** CPU time of the n8n main process (all threads) while the events were handled, per executed event. */
	n8nCpuMsPerEvent: number;
	/** First delivery attempt -> execution stoppedAt. */
	endToEndMs: { median: number; p95: number };
}

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
	let timer: NodeJS.Timeout | undefined;
	try {
		return await Promise.race([
			promise,
			new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms))),
		]);
	} finally {
		clearTimeout(timer);
	}
}

export async function runTrigger(
	ctx: BenchContext,
	options: TriggerOptions,
): Promise<TriggerResult> {
	const { sandbox, n8n, log } = ctx;
	sandbox.configure({
		rateLimit: null,
		failureRate: 0,
		connectionResetRate: 0,
		webhookRetry: { baseDelayMs: 1000, maxAttempts: 8, timeoutMs: 10_000 },
	});
	const account = sandbox.createAccount();
	const accountId = sandbox.store.accountIdOf(account.apiKey)!;
	let workflowId: string;
	let firstNode: string;
	if (options.receiver === 'trigger') {
		const cred = await createCredential(n8n, 'bench trigger', account.apiKey, sandbox.baseUrl);
		const trigger = triggerNode('Document Signing Trigger', {
			events: ['document.created'],
			credential: cred,
			typeVersion: options.triggerVersion,
		});
		firstNode = trigger.name;
		workflowId = await createWorkflow(n8n, chain('bench trigger', [trigger, noOpNode()]));
		await n8n.activate(workflowId);
	} else {
		const path = `bench-plain-webhook-${Date.now()}`;
		const hook = webhookNode(
			path,
			'Webhook',
			'onReceived',
			options.receiver === 'webhookV1' ? 1 : 2,
		);
		firstNode = hook.name;
		workflowId = await createWorkflow(n8n, chain('bench plain webhook', [hook, noOpNode()]));
		await n8n.activate(workflowId);
		const response = await fetch(`${sandbox.baseUrl}/webhooks`, {
			method: 'POST',
			headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
			body: JSON.stringify({ url: n8n.productionWebhookUrl(path), events: ['document.created'] }),
		});
		if (response.status !== 201)
			throw new Error(`registering the plain webhook: HTTP ${response.status}`);
	}
	if (sandbox.store.webhooksOf(account.apiKey).length !== 1)
		throw new Error('no webhook registered');

	// Warm-up: a few events, not counted (their delivery ids are excluded below).
	await seedDocuments({
		baseUrl: sandbox.baseUrl,
		apiKey: account.apiKey,
		count: 5,
		prefix: 'warm',
		concurrency: 1,
	});
	await withTimeout(sandbox.flushDeliveries(), 60_000);
	await sleep(1000);
	const warmIds = new Set(
		sandbox
			.deliveries()
			.filter((d) => d.accountId === accountId)
			.map((d) => d.deliveryId),
	);
	const warmExecutions = new Set((await allExecutions(n8n, workflowId)).map((e) => e.id));

	log(`trigger (${options.receiver}): ${options.events} events at ${options.eventsPerSecond}/s`);
	const cpuBefore = cpuMs(n8n.pid!);
	const started = performance.now();
	await seedDocuments({
		baseUrl: sandbox.baseUrl,
		apiKey: account.apiKey,
		count: options.events,
		prefix: 'event',
		concurrency: 8,
		perSecond: options.eventsPerSecond,
	});
	const eventsCreatedMs = performance.now() - started;
	await withTimeout(sandbox.flushDeliveries(), 300_000);

	// Wait until n8n has finished what it accepted (bounded), then read every execution.
	const accepted = new Set(
		sandbox
			.deliveries()
			.filter((d) => d.accountId === accountId && d.ok && !warmIds.has(d.deliveryId))
			.map((d) => d.deliveryId),
	);
	const deadline = Date.now() + 300_000;
	let finished: Execution[] = [];
	let lastCount = -1;
	let stableSince = Date.now();
	for (;;) {
		const list = (await allExecutions(n8n, workflowId)).filter((e) => !warmExecutions.has(e.id));
		finished = list.filter((e) => !['new', 'running', 'waiting'].includes(e.status));
		if (finished.length !== lastCount) {
			lastCount = finished.length;
			stableSince = Date.now();
		}
		if (
			finished.length === list.length &&
			(finished.length >= accepted.size || Date.now() - stableSince > 15_000)
		)
			break;
		if (Date.now() > deadline) break;
		await sleep(1000);
	}
	const cpuUsed = cpuMs(n8n.pid!) - cpuBefore;
	await n8n.deactivate(workflowId);

	const withData = (await allExecutions(n8n, workflowId, true)).filter(
		(e) => !warmExecutions.has(e.id),
	);
	const attempts = sandbox
		.deliveries()
		.filter((d) => d.accountId === accountId && !warmIds.has(d.deliveryId));
	const firstAttempt = new Map<string, number>();
	for (const attempt of attempts) {
		const at = Date.parse(attempt.startedAt);
		if (!firstAttempt.has(attempt.deliveryId) || at < firstAttempt.get(attempt.deliveryId)!)
			firstAttempt.set(attempt.deliveryId, at);
	}
	const executionsByDelivery = new Map<string, Execution[]>();
	for (const execution of withData) {
		const item = executionItems(execution, firstNode)[0];
		const found = options.receiver === 'trigger' ? item?.deliveryId : item?.body?.id;
		const id = typeof found === 'string' ? found : `unknown-${execution.id}`;
		executionsByDelivery.set(id, [...(executionsByDelivery.get(id) ?? []), execution]);
	}
	const latencies: number[] = [];
	const endToEnd: number[] = [];
	let duplicates = 0;
	for (const [deliveryId, executions] of executionsByDelivery) {
		duplicates += executions.length - 1;
		const sent = firstAttempt.get(deliveryId);
		if (sent === undefined) continue;
		const first = executions.reduce((a, b) =>
			Date.parse(a.startedAt) <= Date.parse(b.startedAt) ? a : b,
		);
		latencies.push(Date.parse(first.startedAt) - sent);
		if (first.stoppedAt) endToEnd.push(Date.parse(first.stoppedAt) - sent);
	}
	const delivered = new Set(attempts.filter((a) => a.ok).map((a) => a.deliveryId)).size;
	const failedDeliveries = firstAttempt.size - delivered;
	return {
		options,
		eventsCreatedMs,
		delivered,
		redeliveries: attempts.filter((a) => a.attempt > 1).length,
		failedDeliveries,
		executions: withData.length,
		executed: [...executionsByDelivery.keys()].filter((id) => firstAttempt.has(id)).length,
		duplicates,
		latencyMs: {
			median: median(latencies),
			p95: percentile(latencies, 95),
			max: Math.max(...latencies),
		},
		n8nCpuMsPerEvent: cpuUsed / Math.max(1, withData.length),
		endToEndMs: { median: median(endToEnd), p95: percentile(endToEnd, 95) },
	};
}
