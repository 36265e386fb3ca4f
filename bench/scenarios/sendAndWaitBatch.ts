/**
 * 5b. Send and Wait for Signature with several items (issue 56): one execution sends N documents
 * (1, 10, 100) and waits once; then every document is signed in one loop. One workflow per size:
 * Webhook → Code (N items, each with a PDF) → Send and Wait (node version 2) → NoOp.
 *
 * Figures per size: the requests the node made to the service before the wait and from the first
 * signature to the resume (the sandbox's counters, by route; only this workflow talks to it
 * meanwhile), the deliveries to the batch's webhook and how n8n answered them, and the time from
 * the last signature to the resume (the execution's stoppedAt). Checked: the execution resumed
 * once, with N items in input order, all approved, and no webhook is left.
 */
import type { Execution } from '../../e2e/harness/n8n';
import { chain, node, signingNode } from '../../e2e/harness/workflows';
import {
	allExecutions,
	callWebhook,
	createCredential,
	createWorkflow,
} from '../../e2e/harness/n8nApi';
import { noOpNode, webhookNode } from '../../e2e/harness/webhookWorkflows';
import { statsDelta, type BenchContext } from './context';

export interface SendAndWaitBatchRow {
	documents: number;
	/** Requests to the service from the trigger call until the execution waited. */
	requestsBeforeWait: number;
	/** Requests to the service from the first signature until the resume (and its deliveries settled). */
	requestsToResume: number;
	/** The same, by route (e.g. `GET /v1/documents`). */
	routesToResume: Record<string, number>;
	/** Delivery attempts to the batch's webhook, and how many n8n answered 503 (a busy batch). */
	deliveries: number;
	busyAnswers: number;
	lastSignatureToResumeMs: number;
	/** The execution finished with success, once, with N items in input order, all approved. */
	resumedOnceInOrder: boolean;
	webhooksLeft: number;
}

export interface SendAndWaitBatchResult {
	rows: SendAndWaitBatchRow[];
}

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));
const WAIT_NODE = 'Send and Wait';
const PDF_BASE64 = Buffer.from('%PDF-1.7 bench').toString('base64');
const FINISHED = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status);

/** Polls `probe` every 100 ms until it returns something, at most `timeoutMs`. */
async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const found = await probe().catch(() => undefined);
		if (found !== undefined) return found;
		if (Date.now() > deadline) throw new Error(`bench send and wait batch: no ${what}`);
		await sleep(100);
	}
}

async function runOne(ctx: BenchContext, documents: number): Promise<SendAndWaitBatchRow> {
	const { sandbox, n8n, log } = ctx;
	const account = sandbox.createAccount();
	const credential = await createCredential(
		n8n,
		`bench send and wait batch ${documents}`,
		account.apiKey,
		sandbox.baseUrl,
	);
	const path = `bench-send-and-wait-batch-${documents}-${Date.now()}`;
	const workflowId = await createWorkflow(
		n8n,
		chain(`bench send and wait batch (${documents})`, [
			webhookNode(path, 'List Received', 'onReceived'),
			node('One Item per Row', 'n8n-nodes-base.code', 2, {
				mode: 'runOnceForAllItems',
				language: 'javaScript',
				jsCode: `return Array.from({ length: ${documents} }, (_, index) => ({ json: { file: 'batch-${documents}-' + index + '.pdf' }, binary: { data: { data: '${PDF_BASE64}', mimeType: 'application/pdf', fileName: 'nda.pdf' } } }));`,
			}),
			signingNode(
				WAIT_NODE,
				{
					resource: 'document',
					operation: 'sendAndWait',
					documentFrom: 'file',
					name: '={{ $json.file }}',
					signers: { signer: [{ email: 'signer@example.com', name: 'Bench Signer' }] },
					additionalFields: {},
					waitOptions: {},
				},
				{ credential, typeVersion: 2 },
			),
			noOpNode('Done'),
		]),
	);
	await n8n.activate(workflowId);

	const before = sandbox.stats();
	const status = await callWebhook(n8n, path, {});
	if (status !== 200) throw new Error(`starting the batch of ${documents}: HTTP ${status}`);
	const pending = () =>
		sandbox.store.documentsOf(account.apiKey).filter((document) => document.status === 'pending');
	const execution = await until('waiting execution', 60_000, async () => {
		const [waiting] = (await allExecutions(n8n, workflowId)).filter(
			(candidate) => candidate.status === 'waiting',
		);
		return waiting && pending().length === documents ? waiting : undefined;
	});
	const waited = sandbox.stats();
	const [webhook] = sandbox.store.webhooksOf(account.apiKey);

	// In input order: item i's document is named batch-<N>-<i>.pdf.
	const indexOf = (name: string) => Number(/-(\d+)\.pdf$/.exec(name)?.[1]);
	const sent = pending().sort((a, b) => indexOf(a.name) - indexOf(b.name));
	for (const document of sent) sandbox.actAsSigner(document.id, document.signers[0].id, 'sign');
	const lastSignature = Date.now();
	const done = await until('resume', 60_000, async () => {
		const list = await allExecutions(n8n, workflowId, true);
		return list.length === 1 && FINISHED(list[0]) ? list[0] : undefined;
	});
	await Promise.race([sandbox.flushDeliveries(), sleep(30_000)]);
	const after = sandbox.stats();
	const output = (done.data?.resultData.runData[WAIT_NODE]?.at(-1)?.data?.main?.[0] ??
		[]) as Array<{
		json: { id?: string; approved?: boolean };
	}>;
	const attempts = sandbox.deliveries().filter((attempt) => attempt.webhookId === webhook?.id);
	const toResume = statsDelta(waited, after);
	const row: SendAndWaitBatchRow = {
		documents,
		requestsBeforeWait: statsDelta(before, waited).requests,
		requestsToResume: toResume.requests,
		routesToResume: Object.fromEntries(
			Object.keys(after.routes)
				.map((route) => [route, toResume.route(route)] as const)
				.filter(([, count]) => count > 0),
		),
		deliveries: attempts.length,
		busyAnswers: attempts.filter((attempt) => attempt.status === 503).length,
		lastSignatureToResumeMs: Date.parse(done.stoppedAt ?? '') - lastSignature,
		resumedOnceInOrder:
			done.status === 'success' &&
			done.id === execution.id &&
			(done.data?.resultData.runData.Done ?? []).length === 1 &&
			JSON.stringify(output.map((item) => [item.json.id, item.json.approved])) ===
				JSON.stringify(sent.map((document) => [document.id, true])),
		webhooksLeft: sandbox.store.webhooksOf(account.apiKey).length,
	};
	await n8n.deactivate(workflowId);
	log(`send and wait batch: ${JSON.stringify(row)}`);
	return row;
}

export async function runSendAndWaitBatch(
	ctx: BenchContext,
	sizes: number[],
): Promise<SendAndWaitBatchResult> {
	ctx.sandbox.configure({
		dialect: 'default',
		rateLimit: null,
		failureRate: 0,
		connectionResetRate: 0,
		webhookRetry: { baseDelayMs: 1000, maxAttempts: 8, timeoutMs: 10_000 },
	});
	const rows: SendAndWaitBatchRow[] = [];
	for (const size of sizes) rows.push(await runOne(ctx, size));
	return { rows };
}

const seconds = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '–');

export function renderSendAndWaitBatch(result: SendAndWaitBatchResult): string[] {
	const out = [
		'### 5b. Send and Wait for Signature with N items: one execution, N documents, one wait',
		'',
		'| documents | requests before the wait | requests, first signature -> resume | by route | deliveries (503 busy) | last signature -> resume | resumed once, in order | webhooks left |',
		'|---:|---:|---:|---|---:|---:|---|---:|',
	];
	for (const row of result.rows) {
		const routes = Object.entries(row.routesToResume)
			.map(([route, count]) => `${count} × \`${route}\``)
			.join(', ');
		out.push(
			`| ${row.documents} | ${row.requestsBeforeWait} | ${row.requestsToResume} | ${routes} | ${row.deliveries} (${row.busyAnswers}) | ${seconds(row.lastSignatureToResumeMs)} | ${row.resumedOnceInOrder ? 'yes' : '**no**'} | ${row.webhooksLeft} |`,
		);
	}
	out.push(
		'',
		"Requests = the sandbox's request counter (only this workflow talks to it meanwhile). Before the wait: 1 read of the account's webhooks (the stale-webhook sweep), N creates, 1 webhook, N sends, 1 read of the states (one list page for a batch). To resume: what the deliveries of the N completions cost: each delivery that passes the checks reads the batch's documents in one list read and, when all are final, removes the webhook; a second removal answered 404 is a call that found the wait already ended (it resumes nothing). A delivery answered 503 arrived while another call of the batch was reading: the service retried it (1 s later here); deliveries that arrive after the resume reach n8n only. Last signature -> resume: from the end of the signing loop to the execution's stoppedAt.",
		'',
	);
	return out;
}
