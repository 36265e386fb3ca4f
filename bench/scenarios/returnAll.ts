/**
 * 2. Return All: N documents in the sandbox -> Document Get Many (Return All) in real n8n,
 * against a raw paging loop (cursor, largest page) in this process and n8n's HTTP Request node
 * with its Pagination option. Requests are counted by the
 * sandbox; peak memory is the n8n main process's RSS sampled every 50 ms during the execution.
 */
import { MAX_PAGE_SIZE } from '../../nodes/shared/vocabulary';
import {
	createCredential,
	createWorkflow,
	executionWallMs,
	nodeRun,
	rssBytes,
	runOnce,
	sampleRss,
} from '../../e2e/harness/n8nApi';
import { rawPageAll, seedDocuments } from '../lib/raw';
import { chain, signingNode } from '../../e2e/harness/workflows';
import { httpRequestListAllNode, webhookNode } from '../../e2e/harness/webhookWorkflows';
import { statsDelta, type BenchContext } from './context';

export interface ReturnAllResult {
	documents: number;
	pageSize: number;
	seedMs: number;
	minimumRequests: number;
	node: {
		requests: number;
		wallMs: number;
		wallSource: string;
		nodeMs: number;
		items: number;
		executionStatus: string;
		rssBeforeBytes: number;
		rssPeakBytes: number;
	};
	raw: { requests: number; wallMs: number; runsMs: number[]; records: number };
	/** n8n's HTTP Request node with its Pagination option (what users would use instead). */
	httpRequest: {
		requests: number;
		wallMs: number;
		nodeMs: number;
		records: number;
		executionStatus: string;
		ratio: number;
	};
	/** node wall / fastest raw loop. */
	ratio: number;
	/** node's own executionTime / fastest raw loop. */
	nodeRatio: number;
}

export async function runReturnAll(
	ctx: BenchContext,
	options: { documents: number },
): Promise<ReturnAllResult> {
	const { sandbox, n8n, log } = ctx;
	sandbox.configure({ rateLimit: null, failureRate: 0, connectionResetRate: 0 });
	const account = sandbox.createAccount();
	const warmAccount = sandbox.createAccount();

	log(`return all: seeding ${options.documents} documents`);
	const seedStart = performance.now();
	await seedDocuments({
		baseUrl: sandbox.baseUrl,
		apiKey: account.apiKey,
		count: options.documents,
	});
	await seedDocuments({ baseUrl: sandbox.baseUrl, apiKey: warmAccount.apiKey, count: 250 });
	const seedMs = performance.now() - seedStart;

	const parameters = { resource: 'document', operation: 'getAll', returnAll: true };
	const cred = await createCredential(n8n, 'bench return all', account.apiKey, sandbox.baseUrl);
	const warmCred = await createCredential(
		n8n,
		'bench return all warm-up',
		warmAccount.apiKey,
		sandbox.baseUrl,
	);
	const path = `bench-return-all-${Date.now()}`;
	const workflowId = await createWorkflow(
		n8n,
		chain('bench return all', [
			webhookNode(path),
			signingNode('Document Signing', parameters, { credential: cred }),
		]),
	);
	const warmId = await createWorkflow(
		n8n,
		chain('bench return all warm-up', [
			webhookNode(`${path}-warm`),
			signingNode('Document Signing', parameters, { credential: warmCred }),
		]),
	);
	const httpPath = `${path}-http`;
	const httpId = await createWorkflow(
		n8n,
		chain('bench return all (HTTP Request)', [
			webhookNode(httpPath),
			httpRequestListAllNode(sandbox.baseUrl, cred, MAX_PAGE_SIZE),
		]),
	);
	const httpWarmId = await createWorkflow(
		n8n,
		chain('bench return all (HTTP Request) warm-up', [
			webhookNode(`${httpPath}-warm`),
			httpRequestListAllNode(sandbox.baseUrl, warmCred, MAX_PAGE_SIZE),
		]),
	);
	for (const id of [workflowId, warmId, httpId, httpWarmId]) await n8n.activate(id);
	await runOnce(n8n, warmId, `${path}-warm`, {});
	await runOnce(n8n, httpWarmId, `${httpPath}-warm`, {});
	// Warm the raw loop too (connection, JIT).
	await rawPageAll({
		baseUrl: sandbox.baseUrl,
		apiKey: warmAccount.apiKey,
		path: '/documents',
		pageSize: MAX_PAGE_SIZE,
	});

	log('return all: raw paging loop');
	const raw1 = await rawPageAll({
		baseUrl: sandbox.baseUrl,
		apiKey: account.apiKey,
		path: '/documents',
		pageSize: MAX_PAGE_SIZE,
	});

	log('return all: n8n');
	const pid = n8n.pid!;
	const rssBefore = rssBytes(pid);
	const before = sandbox.stats();
	const sampler = sampleRss(pid);
	let memory: { peak: number; samples: number } | undefined;
	// Sampling stops when the webhook answers (the run is over), before the run data is read.
	const stop = () => (memory ??= sampler.stop());
	let execution;
	try {
		execution = await runOnce(n8n, workflowId, path, {}, 600_000, stop);
	} finally {
		stop();
	}
	const delta = statsDelta(before, sandbox.stats());
	const run = nodeRun(execution, 'Document Signing');

	log('return all: n8n, HTTP Request node with pagination');
	const httpBefore = sandbox.stats();
	const httpExecution = await runOnce(n8n, httpId, httpPath, {}, 600_000);
	const httpDelta = statsDelta(httpBefore, sandbox.stats());
	const httpRun = nodeRun(httpExecution, 'HTTP Request');
	const httpRecords = httpRun.items.reduce(
		(sum, page) => sum + (Array.isArray(page.data) ? page.data.length : 0),
		0,
	);

	const raw2 = await rawPageAll({
		baseUrl: sandbox.baseUrl,
		apiKey: account.apiKey,
		path: '/documents',
		pageSize: MAX_PAGE_SIZE,
	});
	const rawBest = Math.min(raw1.wallMs, raw2.wallMs);
	const wallMs = executionWallMs(execution);
	return {
		documents: options.documents,
		pageSize: MAX_PAGE_SIZE,
		seedMs,
		minimumRequests: Math.ceil(options.documents / MAX_PAGE_SIZE),
		node: {
			requests: delta.route('GET /v1/documents'),
			wallMs,
			wallSource: 'n8n execution startedAt -> stoppedAt (executions API)',
			nodeMs: run.executionTimeMs,
			items: run.items.length,
			executionStatus: execution.status,
			rssBeforeBytes: rssBefore,
			rssPeakBytes: memory!.peak,
		},
		raw: {
			requests: raw1.requests,
			wallMs: rawBest,
			runsMs: [raw1.wallMs, raw2.wallMs],
			records: raw1.records,
		},
		httpRequest: {
			requests: httpDelta.route('GET /v1/documents'),
			wallMs: executionWallMs(httpExecution),
			nodeMs: httpRun.executionTimeMs,
			records: httpRecords,
			executionStatus: httpExecution.status,
			ratio: executionWallMs(httpExecution) / rawBest,
		},
		ratio: wallMs / rawBest,
		nodeRatio: run.executionTimeMs / rawBest,
	};
}
