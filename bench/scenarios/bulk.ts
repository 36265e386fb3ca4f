/**
 * 1. Bulk send: N items -> Document Create against a rate-limited sandbox, three ways, each on
 * its own fresh account (fresh rate-limit bucket):
 *   (a) this node, default settings, in real n8n;
 *   (b) n8n's HTTP Request node set up as a user would (our credential as predefined credential
 *       type, JSON body, default options); (b2) the same with its Batching option added (its
 *       defaults: 50 items per 1 s) — the obvious hand-tuning;
 *   (c) a raw HTTP client paced to the limit (the floor).
 * n8n wall time is the execution's own startedAt -> stoppedAt (n8n's figures, from its
 * executions API); the node's executionTime is kept too. The raw client is timed in this process.
 */
import {
	createCredential,
	createWorkflow,
	executionWallMs,
	nodeRun,
	rssBytes,
	runOnce,
	sampleRss,
} from '../../e2e/harness/n8nApi';
import { rawBulkCreate } from '../lib/raw';
import { countCopies } from '../lib/stats';
import { chain, signingNode, type CredentialRef } from '../../e2e/harness/workflows';
import {
	httpRequestCreateNode,
	splitItemsNode,
	webhookNode,
} from '../../e2e/harness/webhookWorkflows';
import { statsDelta, type BenchContext } from './context';

export interface BulkOptions {
	items: number;
	requestsPerSecond: number;
	burst: number;
	/** Also run (b2), the HTTP Request node with its Batching option. */
	withBatching: boolean;
}

export interface BulkRow {
	key: 'a' | 'b' | 'b2' | 'c';
	contender: string;
	wallMs: number;
	wallSource: string;
	/** n8n's executionTime of the node itself (n8n contenders). */
	nodeMs: number | null;
	ratioToFloor: number;
	created: number;
	lost: number;
	duplicated: number;
	requests: number;
	rateLimited: number;
	/** Requests beyond one per item (429s waited out, 5xx retried). */
	retries: number;
	executionStatus: string;
	error: string | null;
	/** n8n's resident memory before the execution and its peak during it (n8n contenders). */
	rssBeforeBytes?: number;
	rssPeakBytes?: number;
}

export interface BulkResult {
	options: BulkOptions;
	/** (items - burst) / rate: no client can finish sooner. */
	theoreticalFloorMs: number;
	rows: BulkRow[];
}

const createParameters = {
	resource: 'document',
	operation: 'create',
	name: '={{ $json.name }}',
	signers: { signer: [{ email: '={{ $json.email }}', name: 'Bulk Signer' }] },
};

function itemsFor(prefix: string, count: number) {
	return Array.from({ length: count }, (_, i) => ({
		name: `${prefix}-${i}.pdf`,
		email: `signer${i}@example.com`,
	}));
}

export async function runBulk(ctx: BenchContext, options: BulkOptions): Promise<BulkResult> {
	const { sandbox, n8n, log } = ctx;
	sandbox.configure({
		rateLimit: { requestsPerSecond: options.requestsPerSecond, burst: options.burst },
		failureRate: 0,
		connectionResetRate: 0,
	});

	// Workflows and credentials, one account each.
	const contenders: Array<{
		key: BulkRow['key'];
		label: string;
		nodeName: string;
		build: (cred: CredentialRef, path: string) => ReturnType<typeof chain>;
	}> = [
		{
			key: 'a',
			label: '(a) Document Signing node, default settings',
			nodeName: 'Document Signing',
			build: (cred, path) =>
				chain('bench bulk (a)', [
					webhookNode(path),
					splitItemsNode(),
					signingNode('Document Signing', createParameters, { credential: cred }),
				]),
		},
		{
			key: 'b',
			label: '(b) HTTP Request node, default options',
			nodeName: 'HTTP Request',
			build: (cred, path) =>
				chain('bench bulk (b)', [
					webhookNode(path),
					splitItemsNode(),
					httpRequestCreateNode(sandbox.baseUrl, cred),
				]),
		},
	];
	if (options.withBatching) {
		contenders.push({
			key: 'b2',
			label: '(b2) HTTP Request node + Batching option (50 items / 1 s)',
			nodeName: 'HTTP Request',
			build: (cred, path) =>
				chain('bench bulk (b2)', [
					webhookNode(path),
					splitItemsNode(),
					httpRequestCreateNode(sandbox.baseUrl, cred, {
						batching: { batch: { batchSize: 50, batchInterval: 1000 } },
					}),
				]),
		});
	}

	const prepared = [];
	for (const contender of contenders) {
		const account = sandbox.createAccount();
		const warmAccount = sandbox.createAccount();
		const cred = await createCredential(
			n8n,
			`bench bulk ${contender.key}`,
			account.apiKey,
			sandbox.baseUrl,
		);
		const warmCred = await createCredential(
			n8n,
			`bench bulk ${contender.key} warm-up`,
			warmAccount.apiKey,
			sandbox.baseUrl,
		);
		const path = `bench-bulk-${contender.key}-${Date.now()}`;
		const workflowId = await createWorkflow(n8n, contender.build(cred, path));
		const warmId = await createWorkflow(n8n, contender.build(warmCred, `${path}-warm`));
		await n8n.activate(workflowId);
		await n8n.activate(warmId);
		prepared.push({ ...contender, account, workflowId, path, warmId, warmPath: `${path}-warm` });
	}

	// Warm-up: a user's n8n has run its nodes before; 10 items each, on other accounts.
	for (const contender of prepared) {
		await runOnce(n8n, contender.warmId, contender.warmPath, { items: itemsFor('warm', 10) });
	}

	const rows: BulkRow[] = [];

	// (c) first: the floor.
	{
		const account = sandbox.createAccount();
		const items = itemsFor('bulk-c', options.items);
		log(`bulk (c): raw client, ${options.items} items`);
		const before = sandbox.stats();
		const result = await rawBulkCreate({
			baseUrl: sandbox.baseUrl,
			apiKey: account.apiKey,
			items,
			rate: options.requestsPerSecond,
			burst: options.burst,
		});
		const delta = statsDelta(before, sandbox.stats());
		const copies = countCopies(
			items.map((item) => item.name),
			sandbox.store.documentsOf(account.apiKey).map((doc) => doc.name),
		);
		rows.push({
			key: 'c',
			contender: '(c) raw HTTP client paced to the limit (floor)',
			wallMs: result.wallMs,
			wallSource: 'measured in the bench process',
			nodeMs: null,
			ratioToFloor: 1,
			...copies,
			requests: delta.requests,
			rateLimited: delta.rateLimited,
			retries: Math.max(0, delta.requests - options.items),
			executionStatus: result.errors.length ? 'errors' : 'success',
			error: result.errors[0] ?? null,
		});
	}

	for (const contender of prepared) {
		const items = itemsFor(`bulk-${contender.key}`, options.items);
		log(`bulk ${contender.label}: ${options.items} items`);
		const before = sandbox.stats();
		const rssBeforeBytes = rssBytes(n8n.pid!);
		const rss = sampleRss(n8n.pid!);
		let execution: Awaited<ReturnType<typeof runOnce>>;
		let rssPeakBytes = rssBeforeBytes;
		try {
			execution = await runOnce(n8n, contender.workflowId, contender.path, { items }, 600_000);
		} finally {
			rssPeakBytes = Math.max(rssPeakBytes, rss.stop().peak);
		}
		const delta = statsDelta(before, sandbox.stats());
		const run = nodeRun(execution, contender.nodeName);
		const copies = countCopies(
			items.map((item) => item.name),
			sandbox.store.documentsOf(contender.account.apiKey).map((doc) => doc.name),
		);
		const error = execution.data?.resultData.error ?? run.error;
		rows.push({
			key: contender.key,
			contender: contender.label,
			wallMs: executionWallMs(execution),
			wallSource: 'n8n execution startedAt -> stoppedAt (executions API)',
			nodeMs: run.executionTimeMs,
			ratioToFloor: NaN,
			...copies,
			requests: delta.requests,
			rateLimited: delta.rateLimited,
			retries: Math.max(0, delta.requests - options.items),
			executionStatus: execution.status,
			error: error
				? `${error.message ?? ''}${error.httpCode ? ` (HTTP ${error.httpCode})` : ''}`.slice(0, 160)
				: null,
			rssBeforeBytes,
			rssPeakBytes,
		});
	}

	const floor = rows.find((row) => row.key === 'c')!.wallMs;
	for (const row of rows) row.ratioToFloor = row.wallMs / floor;
	const order = ['a', 'b', 'b2', 'c'];
	rows.sort((x, y) => order.indexOf(x.key) - order.indexOf(y.key));
	sandbox.configure({ rateLimit: null });
	return {
		options,
		theoreticalFloorMs: ((options.items - options.burst) / options.requestsPerSecond) * 1000,
		rows,
	};
}
