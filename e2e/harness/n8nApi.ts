/**
 * What the benchmarks and the reliability suite do with a running n8n beyond N8nInstance (n8n.ts):
 * create workflows through the public API, start them through their production webhook, wait for
 * and read executions (paging through all of them), and read the process's memory and CPU time.
 */
import * as fs from 'node:fs';

import type { Execution, N8nInstance } from './n8n';
import type { WorkflowJson } from './workflows';

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

/** POST /api/v1/workflows: resolves with the new workflow's id (inactive). */
export async function createWorkflow(n8n: N8nInstance, workflow: WorkflowJson): Promise<string> {
	const created = await n8n.api<{ id: string }>('POST', '/workflows', workflow);
	return created.id;
}

/** Every execution of a workflow (newest first), paging through the public API. */
export async function allExecutions(
	n8n: N8nInstance,
	workflowId: string,
	includeData = false,
): Promise<Execution[]> {
	const out: Execution[] = [];
	let cursor: string | undefined;
	for (let page = 0; page < 1000; page++) {
		const params = new URLSearchParams({
			workflowId,
			includeData: String(includeData),
			limit: includeData ? '100' : '250',
		});
		if (cursor) params.set('cursor', cursor);
		const body = await withRetries(() =>
			n8n.api<{ data: Execution[]; nextCursor?: string | null }>(
				'GET',
				`/executions?${params.toString()}`,
			),
		);
		out.push(...body.data);
		cursor = body.nextCursor ?? undefined;
		if (!cursor || body.data.length === 0) break;
	}
	return out;
}

export async function executionWithData(n8n: N8nInstance, executionId: string): Promise<Execution> {
	return await withRetries(() =>
		n8n.api<Execution>('GET', `/executions/${executionId}?includeData=true`),
	);
}

/**
 * Reads from n8n's API are retried a few times: a busy n8n on a loaded 2-core machine sometimes
 * drops or times out one (seen while it saved a large execution).
 */
async function withRetries<T>(read: () => Promise<T>, attempts = 4): Promise<T> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await read();
		} catch (error) {
			if (attempt >= attempts) throw error;
			process.stderr.write(
				`n8n API read failed (attempt ${attempt}), retrying: ${String((error as Error).message).split('\n')[0]}\n`,
			);
			await sleep(1000 * attempt);
		}
	}
}

const FINISHED = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status);

/** Waits (bounded) until `count` executions of the workflow have finished; resolves with them. */
export async function waitForFinished(
	n8n: N8nInstance,
	workflowId: string,
	count: number,
	timeoutMs: number,
): Promise<Execution[]> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const finished = (await allExecutions(n8n, workflowId)).filter(FINISHED);
		if (finished.length >= count) return finished;
		if (Date.now() > deadline)
			throw new Error(
				`${finished.length} of ${count} executions of workflow ${workflowId} finished after ${timeoutMs} ms`,
			);
		await sleep(count > 50 ? 1000 : 200);
	}
}

/** POSTs `body` to a production webhook; resolves with the status. */
export async function callWebhook(
	n8n: N8nInstance,
	path: string,
	body: unknown,
	headers: Record<string, string> = {},
	timeoutMs = 60_000,
): Promise<number> {
	const response = await fetch(n8n.productionWebhookUrl(path), {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body: typeof body === 'string' ? body : JSON.stringify(body),
		signal: AbortSignal.timeout(timeoutMs),
	});
	await response.arrayBuffer();
	return response.status;
}

/**
 * Starts a webhook workflow (Webhook node answering when the run ends, see webhookNode) once
 * and resolves with its execution and run data. n8n is not polled while the workflow runs: the
 * polling would be part of the figures. A failed run answers 500: the execution tells why.
 */
export async function runOnce(
	n8n: N8nInstance,
	workflowId: string,
	path: string,
	body: unknown,
	timeoutMs = 300_000,
	onAnswered?: () => void,
): Promise<Execution> {
	const before = new Set((await allExecutions(n8n, workflowId)).map((execution) => execution.id));
	const status = await callWebhook(n8n, path, body, {}, timeoutMs);
	onAnswered?.();
	if (status !== 200 && status !== 500) throw new Error(`webhook ${path} answered ${status}`);
	const deadline = Date.now() + 60_000;
	for (;;) {
		const fresh = (await allExecutions(n8n, workflowId)).filter(
			(execution) => !before.has(execution.id) && FINISHED(execution),
		);
		if (fresh.length) return await executionWithData(n8n, fresh[0].id);
		if (Date.now() > deadline)
			throw new Error(
				`no finished execution of workflow ${workflowId} 60 s after its webhook answered ${status}`,
			);
		await sleep(200);
	}
}

/** Wall time of an execution as n8n recorded it (stoppedAt - startedAt), ms. */
export function executionWallMs(execution: {
	startedAt: string;
	stoppedAt: string | null;
}): number {
	if (!execution.stoppedAt) return NaN;
	return Date.parse(execution.stoppedAt) - Date.parse(execution.startedAt);
}

/** A node's own run: its execution time (ms, n8n's figure), items out, error. */
export function nodeRun(
	execution: Execution,
	nodeName: string,
): {
	executionTimeMs: number;
	items: Array<Record<string, any>>;
	error?: { message?: string; description?: string | null; httpCode?: string | null };
} {
	const runs = execution.data?.resultData.runData[nodeName];
	if (!runs?.length)
		return { executionTimeMs: NaN, items: [], error: execution.data?.resultData.error };
	const run = runs[0] as any;
	return {
		executionTimeMs: Number(run.executionTime),
		items: (run.data?.main?.[0] ?? []).map((item: { json: Record<string, any> }) => item.json),
		error: run.error,
	};
}

/** Resident memory of a process in bytes (VmRSS), or NaN when it is gone. */
export function rssBytes(pid: number): number {
	try {
		const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
		const match = /VmRSS:\s+(\d+) kB/.exec(status);
		return match ? Number(match[1]) * 1024 : NaN;
	} catch {
		return NaN;
	}
}

/** Samples a process's RSS every `intervalMs` until stopped; resolves with the peak seen. */
export function sampleRss(
	pid: number,
	intervalMs = 50,
): { stop: () => { peak: number; samples: number } } {
	let peak = rssBytes(pid);
	let samples = 1;
	const timer = setInterval(() => {
		const value = rssBytes(pid);
		if (Number.isFinite(value)) {
			samples++;
			if (value > peak) peak = value;
		}
	}, intervalMs);
	return {
		stop: () => {
			clearInterval(timer);
			const last = rssBytes(pid);
			if (last > peak) peak = last;
			return { peak, samples };
		},
	};
}

/** POST /api/v1/credentials: a Document Signing API credential; resolves with its reference. */
export async function createCredential(
	n8n: N8nInstance,
	name: string,
	apiKey: string,
	baseUrl: string,
): Promise<{ id: string; name: string }> {
	const created = await n8n.api<{ id: string; name: string }>('POST', '/credentials', {
		name,
		type: 'documentSigningApi',
		data: { baseUrl, apiKey },
	});
	return { id: created.id, name: created.name };
}

/** CPU time (user + system, all threads) a process has used so far, in ms; NaN when it is gone. */
export function cpuMs(pid: number): number {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		// Fields after the command name (which may hold spaces) start after the last ')'.
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		const ticks = Number(fields[11]) + Number(fields[12]);
		return (ticks * 1000) / 100;
	} catch {
		return NaN;
	}
}
