/**
 * Security findings (issue 22) where n8n's own behaviour matters, in the pinned real n8n:
 *
 * - 1: the credential's Test button runs its request through n8n's routing engine and HTTP layer,
 *   which follow redirects unless told not to (and put `Authorization` back after a cross-origin
 *   hop). A Base URL answering 302 to another local server must not bring the key there.
 * - 8: a service error message of 2,000,000 characters with markup reaches the execution's data
 *   (what n8n's REST API hands the editor) cut to the package's bound, as plain text.
 * - 10: a workflow copied on the same n8n (`n8n import:workflow`, keeping the trigger's webhook
 *   id, so the same webhook URL) is refused activation by n8n, which then runs the copy's delete
 *   step: the original's registration must survive it.
 *
 * The fourth review's findings (issue 37; each also has a unit test in the test/behaviour suite named for its behaviour):
 *
 * - 37.1: a signer email of 100,000 characters from an input item fails as fast as a short bad
 *   one, with a short message naming the field, and nothing is sent.
 * - 37.2: Return All over 20 pages whose only next link sits behind 15,000 `<` in the Link header:
 *   every record once, in order, one request a page.
 * - 37.4: the trigger on an account with 10,000 other webhooks, listed 20 a page: activation, a
 *   restart, an event and deactivation each work and touch only the trigger's own webhook.
 * - 37.8: Send and Wait at version 2 with no options (sending a draft): a decline continues the
 *   workflow with `approved: false` and the status.
 *
 * Every server listens on 127.0.0.1 only; each test counts only its own requests and executions.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

import { startSandbox, type Sandbox } from '../sandbox';
import { createN8n, newId, type Execution, type N8nInstance } from './harness/n8n';
import { createCredential, createWorkflow, executionWallMs } from './harness/n8nApi';
import { activationSettled, waitForState } from './harness/waitForState';
import {
	byId,
	chain,
	codeNode,
	createDocument,
	executionItems,
	manualTrigger,
	node,
	sandboxPost,
	signingNode,
	triggerItem,
	triggerNode,
	type WorkflowNode,
} from './harness/workflows';

interface Recorded {
	method: string;
	url: string;
	authorization?: string;
}

/** A server on 127.0.0.1 that records what reaches it and answers with `answer`. */
async function recordingServer(
	answer: (request: http.IncomingMessage, response: http.ServerResponse) => void,
) {
	const requests: Recorded[] = [];
	const server = http.createServer((request, response) => {
		requests.push({
			method: request.method ?? '',
			url: request.url ?? '',
			authorization: request.headers.authorization,
		});
		request.resume();
		answer(request, response);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		origin,
		requests,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

async function waitFor<T>(
	what: string,
	read: () => Promise<T | undefined>,
	timeoutMs = 30_000,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await read();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

const FINISHED = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status);

/** A workflow's one stored execution, once `reached` holds for it (each workflow here runs once). */
async function onlyExecution(
	workflowId: string,
	reached: (execution: Execution) => boolean = FINISHED,
	timeoutMs?: number,
): Promise<Execution> {
	return await waitFor(
		`the execution of workflow ${workflowId}`,
		async () => {
			const executions = await n8n.executions({ workflowId });
			if (executions.length > 1)
				throw new Error(`workflow ${workflowId} ran ${executions.length} times, expected once`);
			return executions.find(reached);
		},
		timeoutMs,
	);
}

/** Creates a Manual Trigger workflow of `nodes`, runs it once with `n8n execute`, and resolves with its stored execution. */
async function runManual(
	name: string,
	nodes: WorkflowNode[],
	reached?: (execution: Execution) => boolean,
): Promise<Execution> {
	const workflowId = await createWorkflow(n8n, chain(name, [manualTrigger(), ...nodes]));
	await n8n.execute(workflowId);
	return await onlyExecution(workflowId, reached);
}

const HUGE_MESSAGE = `<img src=x onerror="alert(1)"><script>alert(2)</script>${'A'.repeat(2_000_000)}`;

let sandbox: Sandbox;
let n8n: N8nInstance;
let apiKey: string;
let elsewhere: Awaited<ReturnType<typeof recordingServer>>;
let redirector: Awaited<ReturnType<typeof recordingServer>>;
let loudService: Awaited<ReturnType<typeof recordingServer>>;
const ids = { redirected: newId(), loud: newId(), sandbox: newId() };
const redirectedKey = `sk_e2e_redirect_${newId()}`;

beforeAll(async () => {
	// Quick retries: a wait's resuming delivery (37.8) reaches n8n at once or soon after.
	sandbox = await startSandbox({
		port: 0,
		webhookRetry: { baseDelayMs: 250, maxAttempts: 4, timeoutMs: 10_000 },
	});
	({ apiKey } = sandbox.createAccount());
	// Another origin (another port) that records any Authorization header reaching it.
	elsewhere = await recordingServer((_request, response) =>
		response.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}'),
	);
	redirector = await recordingServer((request, response) =>
		response.writeHead(302, { location: `${elsewhere.origin}${request.url ?? '/'}` }).end(),
	);
	loudService = await recordingServer((_request, response) =>
		response
			.writeHead(400, { 'content-type': 'application/json' })
			.end(JSON.stringify({ error: { code: 'bad_request', message: HUGE_MESSAGE } })),
	);
	n8n = await createN8n({ sandboxBaseUrl: sandbox.baseUrl });
	await n8n.importCredentials([
		n8n.documentSigningCredential({
			id: ids.redirected,
			name: 'Redirecting Base URL',
			apiKey: redirectedKey,
			baseUrl: `${redirector.origin}/v1`,
		}),
		n8n.documentSigningCredential({
			id: ids.loud,
			name: 'Loud errors',
			apiKey,
			baseUrl: `${loudService.origin}/v1`,
		}),
		n8n.documentSigningCredential({ id: ids.sandbox, name: 'Sandbox (security e2e)', apiKey }),
	]);
	await n8n.start();
});

afterAll(async () => {
	await n8n?.dispose();
	await sandbox?.close();
	await elsewhere?.close();
	await redirector?.close();
	await loudService?.close();
});

describe('1. the credential test never follows a redirect', () => {
	it('a Base URL answering 302 to another origin: the test fails naming the redirect, and nothing reaches the other origin', async () => {
		const result = await n8n.testCredential(ids.redirected);
		expect(redirector.requests.length).toBeGreaterThanOrEqual(1);
		expect(redirector.requests[0]).toMatchObject({
			url: '/v1/users?limit=1',
			authorization: `Bearer ${redirectedKey}`,
		});
		expect(elsewhere.requests).toEqual([]);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/redirect \(302\).*never followed/);
	});
});

describe("8. the service's error text reaches the execution as plain text, cut to its bound", () => {
	it('a 2,000,000-character message with markup: at most 500 characters, markup as look-alike text, the error body not kept whole', async () => {
		const workflowId = await n8n.importWorkflow(
			chain('e2e: loud service error', [
				manualTrigger(),
				signingNode(
					'Get Document',
					{ resource: 'document', operation: 'get', documentId: byId('doc_1') },
					{ credential: { id: ids.loud, name: 'Loud errors' } },
				),
			]),
		);
		const result = await n8n.execute(workflowId);
		expect(result.status).toBe('error');
		expect(loudService.requests).toHaveLength(1);
		const message = String(result.error?.message ?? '');
		expect(message.length).toBeLessThanOrEqual(500);
		expect(message).toMatch(/^‹img src=x onerror="alert\(1\)"›‹script›alert\(2\)‹\/script›A+…$/);
		// The whole run's data as n8n stored and printed it: the message is nowhere whole, no markup.
		const stored = JSON.stringify(result.run);
		expect(stored.length).toBeLessThan(100_000);
		expect(stored).not.toContain('<img');
		expect(stored).not.toContain('<script');
	});
});

describe("10. a workflow copied on the same n8n never removes the original's webhook", () => {
	it("the copy's refused activation and its deactivation leave the original's registration working", async () => {
		const webhookId = randomUUID();
		const credential = { id: ids.sandbox, name: 'Sandbox (security e2e)' };
		const workflow = (name: string) => ({
			name,
			nodes: [
				triggerNode('Document Signing Trigger', {
					events: ['document.created'],
					credential,
					webhookId,
				}),
			],
			connections: {},
		});
		const originalId = await n8n.importWorkflow(workflow('e2e: original'));
		await n8n.activate(originalId);
		const registered = sandbox.store.webhooksOf(apiKey);
		expect(registered).toHaveLength(1);

		// The copy: another workflow id, the same trigger webhook id (so the same webhook URL).
		const copyId = await n8n.importWorkflow(workflow('e2e: copy'));
		expect(copyId).not.toBe(originalId);
		// Through the public API n8n refuses at once (409, a webhook conflict) and calls no hook.
		await expect(n8n.activate(copyId, { allowFailure: true })).rejects.toThrow(/409/);
		// Through the CLI the copy is marked published and the running n8n tries to activate it: the
		// webhook path is taken, so n8n runs the copy's delete step.
		await n8n.publishWithCli(copyId);
		const settled = await waitFor("the copy's activation to settle", async () => {
			const status = await n8n.publicationStatus(copyId);
			return status.status === 'in_progress' || status.status === 'not_published'
				? undefined
				: status;
		});
		expect(settled.triggers.map((trigger) => trigger.errorMessage)).toEqual([
			expect.stringMatching(/already taken/),
		]);
		await n8n.deactivate(copyId).catch(() => undefined);

		expect(sandbox.store.webhooksOf(apiKey).map((webhook) => webhook.id)).toEqual([
			registered[0].id,
		]);
		expect(await n8n.isActive(originalId)).toBe(true);
		// And it still works: an event starts the original.
		const document = await createDocument(sandbox, apiKey, {
			name: 'copy-check.pdf',
			signers: [{ email: 'ann@example.com', name: 'Ann Example' }],
		});
		// waitFor fails the test when no execution of the original holds the document within its bound
		// (it returns only a found one, so an expect on its result could not fail).
		await waitFor('the original to run for the new document', async () => {
			const runs = await n8n.executions({ workflowId: originalId });
			return runs.find((run) => JSON.stringify(run).includes(String(document.id)));
		});
		await n8n.deactivate(originalId);
		expect(sandbox.store.webhooksOf(apiKey)).toEqual([]);
	});
});

describe('37.1 one long signer email never holds n8n', () => {
	it('a 100,000-character email from the input item fails as fast as a short bad one, naming the field in a short message, and nothing is sent', async () => {
		const service = await recordingServer((_request, response) =>
			response.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"doc_1"}'),
		);
		try {
			const credential = await createCredential(
				n8n,
				'Counting service (37.1)',
				apiKey,
				`${service.origin}/v1`,
			);
			const run = async (emailCode: string) =>
				await runManual('e2e 37.1: signer email from the input', [
					codeNode('Signer', `return [{ json: { email: ${emailCode} } }];`),
					signingNode(
						'Create Document',
						{
							resource: 'document',
							operation: 'create',
							name: 'contract.pdf',
							signers: { signer: [{ email: '={{ $json.email }}', name: 'Ann' }] },
						},
						{ credential },
					),
				]);
			const short = await run(`'not-an-email'`);
			const long = await run(`'a@' + '.'.repeat(100000) + '@'`);
			const message = (execution: Execution) => execution.data?.resultData.error?.message;
			expect([short.status, message(short)]).toEqual([
				'error',
				'Signers › Signer 1 › Email: "not-an-email" is not a valid email address',
			]);
			expect(long.status).toBe('error');
			expect(message(long)).toMatch(
				/^Signers › Signer 1 › Email: "a@\.{78}…" \(100003 characters\) is not a valid email address$/,
			);
			expect(message(long)!.length).toBeLessThan(200);
			// n8n's own figures: the long value costs about what the short one does (seconds before).
			expect(executionWallMs(long)).toBeLessThanOrEqual(executionWallMs(short) * 5 + 1_000);
			expect(service.requests.filter((request) => request.method === 'POST')).toEqual([]);
		} finally {
			await service.close();
		}
	});
});

describe('37.2 a Link header of 15,000 `<` on every page', () => {
	it('Return All reads 20 pages whose next link follows 15,000 `<`: the 1,000 records once each, in order, one request a page', async () => {
		const PAGES = 20;
		const PER_PAGE = 50;
		const idOf = (index: number) => `doc_${String(index).padStart(4, '0')}`;
		const service = await recordingServer((request, response) => {
			const page = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('page') ?? 1);
			const data = Array.from({ length: PER_PAGE }, (_, i) => ({
				id: idOf((page - 1) * PER_PAGE + i),
			}));
			const next = `<http://${request.headers.host}/v1/documents?page=${page + 1}>; rel="next"`;
			response
				.writeHead(200, {
					'content-type': 'application/json',
					...(page < PAGES ? { link: `${'<'.repeat(15_000)}${next}` } : {}),
				})
				.end(JSON.stringify({ data }));
		});
		try {
			const credential = await createCredential(
				n8n,
				'Link header service (37.2)',
				apiKey,
				`${service.origin}/v1`,
			);
			const execution = await runManual('e2e 37.2: Link header behind 15,000 <', [
				signingNode(
					'List Documents',
					{ resource: 'document', operation: 'getAll', returnAll: true, simplify: false },
					{ credential },
				),
			]);
			expect({ status: execution.status, error: execution.data?.resultData.error }).toEqual({
				status: 'success',
				error: undefined,
			});
			expect(executionItems(execution, 'List Documents').map((item) => item.id)).toEqual(
				Array.from({ length: PAGES * PER_PAGE }, (_, index) => idOf(index)),
			);
			expect(
				service.requests.map((request) => [
					request.method,
					new URL(request.url, 'http://x').pathname,
					new URL(request.url, 'http://x').searchParams.get('page') ?? '1',
				]),
			).toEqual(
				Array.from({ length: PAGES }, (_, page) => ['GET', '/v1/documents', `${page + 1}`]),
			);
		} finally {
			await service.close();
		}
	});
});

describe('37.4 a trigger on an account with 10,000 other webhooks, paging by 20', () => {
	const OTHERS = 10_000;
	let busy: Sandbox;
	let busyKey: string;
	let othersBefore: string[];

	beforeAll(async () => {
		busy = await startSandbox({ port: 0, dialect: '{"maxPageSize":20}' });
		busyKey = busy.createAccount().apiKey;
		// The other integration watches another document of the account: its webhooks are in every
		// list the trigger reads, but the event of this test is not delivered to them (10,000
		// deliveries to other.example would fill the sandbox's queue and drop the trigger's).
		const watched = await createDocument(busy, busyKey, { name: 'watched.pdf', draft: true });
		for (let start = 0; start < OTHERS; start += 20)
			await Promise.all(
				Array.from(
					{ length: 20 },
					async (_, i) =>
						await sandboxPost(busy, busyKey, '/webhooks', {
							url: `https://other.example/hooks/${start + i}`,
							events: ['document.completed'],
							document_id: watched.id,
						}),
				),
			);
		othersBefore = busy.store
			.webhooksOf(busyKey)
			.map((webhook) => webhook.id)
			.sort();
	}, 300_000);

	afterAll(async () => {
		await busy?.close();
	});

	it('activation, a restart, one event and deactivation: no error, one webhook of its own, one execution, the others untouched', async () => {
		expect(othersBefore).toHaveLength(OTHERS);
		const credential = await createCredential(n8n, 'Busy account (37.4)', busyKey, busy.baseUrl);
		const webhookId = randomUUID();
		const workflowId = await createWorkflow(
			n8n,
			chain('e2e 37.4: trigger on a busy account', [
				triggerNode('Document Signing Trigger', {
					events: ['document.completed'],
					credential,
					webhookId,
				}),
			]),
		);
		const url = n8n.productionWebhookUrl(`${webhookId}/webhook`);
		const own = () => busy.store.webhooksOf(busyKey).filter((webhook) => webhook.url === url);
		const errors = (status: { triggers: Array<{ errorMessage: string | null }> }) =>
			status.triggers.map((trigger) => trigger.errorMessage);

		expect(errors(await n8n.activate(workflowId))).toEqual([null]);
		const registered = own().map((webhook) => webhook.id);
		expect(registered).toHaveLength(1);

		// n8n 2.41 keeps a published trigger's webhook over a restart without calling its
		// checkExists (no list request reaches the service then); the registration must still work.
		await n8n.restart();
		const restarted = await waitForState(
			() => n8n.publicationStatus(workflowId),
			activationSettled,
			{ timeoutMs: 60_000, describe: (last) => `after the restart: ${JSON.stringify(last)}` },
		);
		expect([restarted.status, errors(restarted)]).toEqual(['published', [null]]);

		const document = await createDocument(busy, busyKey, {
			name: 'busy-contract.pdf',
			signers: [{ email: 'ann@example.com', name: 'Ann Example' }],
		});
		const stored = busy.store.documentsOf(busyKey).find((row) => row.id === document.id)!;
		busy.actAsSigner(stored.id, stored.signers[0].id, 'sign');
		await busy.flushDeliveries();
		const execution = await onlyExecution(workflowId);
		expect(execution.status).toBe('success');
		expect(triggerItem(execution)).toMatchObject({
			event: 'document.completed',
			data: { document: { id: document.id } },
		});
		expect(own().map((webhook) => webhook.id)).toEqual(registered);

		await n8n.deactivate(workflowId);
		expect(own()).toEqual([]);
		expect(
			busy.store
				.webhooksOf(busyKey)
				.map((webhook) => webhook.id)
				.sort(),
		).toEqual(othersBefore);
	});
});

describe('37.8 a decline is visible under the defaults', () => {
	it('Send and Wait at version 2 with no options: a decline continues with approved false and the status, and the next node runs once', async () => {
		const account = sandbox.createAccount();
		const credential = await createCredential(
			n8n,
			'Sandbox (37.8)',
			account.apiKey,
			sandbox.baseUrl,
		);
		const draft = await createDocument(sandbox, account.apiKey, {
			name: 'nda.pdf',
			signers: [{ email: 'ann@example.com', name: 'Ann Example' }],
			draft: true,
		});
		const waiting = await runManual(
			'e2e 37.8: a decline under the defaults',
			[
				signingNode(
					'Send and Wait',
					{
						resource: 'document',
						operation: 'sendAndWait',
						documentFrom: 'draft',
						waitDocumentId: byId(String(draft.id)),
					},
					{ credential, typeVersion: 2 },
				),
				node('After Signing', 'n8n-nodes-base.noOp', 1, {}),
			],
			(execution) => execution.status === 'waiting',
		);
		const [document] = sandbox.store.documentsOf(account.apiKey);
		expect(document).toMatchObject({ name: 'nda.pdf', status: 'pending' });
		expect(
			sandbox.store
				.webhooksOf(account.apiKey)
				.filter((webhook) => webhook.url.includes(`/webhook-waiting/${waiting.id}/`)),
		).toHaveLength(1);

		sandbox.actAsSigner(document.id, document.signers[0].id, 'decline', 'No');
		const done = await onlyExecution(
			waiting.workflowId,
			(execution) => execution.id === waiting.id && FINISHED(execution),
			60_000,
		);
		expect({ status: done.status, error: done.data?.resultData.error?.message }).toEqual({
			status: 'success',
			error: undefined,
		});
		expect(done.data?.resultData.runData['After Signing']).toHaveLength(1);
		expect(executionItems(done, 'Send and Wait')).toEqual([
			expect.objectContaining({ id: document.id, approved: false, status: 'declined' }),
		]);
	});
});
