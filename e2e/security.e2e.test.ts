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
 * Every server listens on 127.0.0.1 only; each test counts only its own requests.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

import { startSandbox, type Sandbox } from '../sandbox';
import { createN8n, newId, type N8nInstance } from './harness/n8n';
import {
	byId,
	chain,
	createDocument,
	manualTrigger,
	signingNode,
	triggerNode,
} from './harness/workflows';

interface Recorded {
	url: string;
	authorization?: string;
}

/** A server on 127.0.0.1 that records what reaches it and answers with `answer`. */
async function recordingServer(
	answer: (request: http.IncomingMessage, response: http.ServerResponse) => void,
) {
	const requests: Recorded[] = [];
	const server = http.createServer((request, response) => {
		requests.push({ url: request.url ?? '', authorization: request.headers.authorization });
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
	sandbox = await startSandbox({ port: 0 });
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
		const execution = await waitFor('the original to run for the new document', async () => {
			const runs = await n8n.executions({ workflowId: originalId });
			return runs.find((run) => JSON.stringify(run).includes(String(document.id)));
		});
		expect(execution).toBeDefined();
		await n8n.deactivate(originalId);
		expect(sandbox.store.webhooksOf(apiKey)).toEqual([]);
	});
});
