/**
 * A trigger and Send and Wait remove only the webhooks they created: a copied workflow (another
 * n8n, or the same n8n and webhook URL) never deletes the original's; a busy account (many
 * webhooks) never stops activation or clean-up; clean-up asks the service, never a probe of n8n
 * that a proxy in front of it could answer. Servers listen on 127.0.0.1 only. Each test's first
 * comment says what the code before the fix did (the test fails on it).
 */

import { useSandbox, api } from '../helpers/sandbox';
import { WEBHOOK_SWEEP_BUDGET } from '../../nodes/shared/vocabulary';
import { TriggerHost } from '../helpers/triggerHost';
import type { Sandbox } from '../../sandbox';
import { sendAndWait, sendAndWaitKit } from '../helpers/sendAndWaitKit';
import { captureWarnings, Receiver, warned, useSecuritySuite } from '../helpers/securityKit';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../helpers/instantWaits').n8nWorkflowWithInstantWaits(),
);

const sandbox = useSandbox({
	port: 0,
	host: '127.0.0.1',
	webhookRetry: { baseDelayMs: 5, maxAttempts: 2, timeoutMs: 5000 },
});

useSecuritySuite();

async function sendDocument(apiKey: string): Promise<void> {
	const response = await fetch(`${sandbox().baseUrl}/documents`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({
			name: 'contract.pdf',
			signers: [{ email: 'ada@example.com', name: 'Ada Lovelace' }],
		}),
	});
	expect(response.status).toBe(201);
	await sandbox().flushDeliveries();
}

/** Creates `count` webhooks on the account (20 at a time), pointing nowhere this test owns. */
async function fillAccount(
	sandbox: Sandbox,
	apiKey: string,
	count: number,
	batch = 'all',
): Promise<void> {
	const client = api(sandbox, apiKey);
	for (let start = 0; start < count; start += 20) {
		await Promise.all(
			Array.from({ length: Math.min(20, count - start) }, async (_, i) => {
				const created = await client.post('/webhooks', {
					url: `https://other-integration.example/hooks/${batch}/${start + i}`,
					events: ['document.completed'],
				});
				expect(created.status).toBe(201);
			}),
		);
	}
}

describe("a copied workflow never deletes the original's webhook (finding 4)", () => {
	const receiverA = new Receiver();
	const receiverB = new Receiver();

	beforeAll(async () => {
		await receiverA.start();
		await receiverB.start();
	});
	afterAll(async () => {
		await receiverA.close();
		await receiverB.close();
	});

	// Old: B's activation deleted the webhook id found in its (copied) static data: A's webhook.
	test("instance B activated from a copy of A's static data: both webhooks live, each instance runs one execution per event", async () => {
		const { apiKey } = sandbox().createAccount();
		const a = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: receiverA.webhookBaseUrl,
			events: ['document.sent'],
		});
		receiverA.hosts.set(a.nodeWebhookId, a);
		await a.activate();
		const aWebhookId = String(a.nodeStaticData.webhookId);

		const b = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: receiverB.webhookBaseUrl,
			events: ['document.sent'],
			workflowId: a.workflowId,
			nodeWebhookId: a.nodeWebhookId,
		});
		b.savedStaticData = structuredClone(a.savedStaticData);
		receiverB.hosts.set(b.nodeWebhookId, b);
		const warnings = captureWarnings();
		await b.activate();

		// A's registration was forgotten by B and logged, never deleted.
		const foreign = warned(warnings).filter(([message]) =>
			/points at another address.*forgotten, not deleted/.test(message),
		);
		expect(foreign).toHaveLength(1);
		expect(foreign[0][1]).toMatchObject({
			webhookId: aWebhookId,
			storedOrigin: new URL(receiverA.webhookBaseUrl).origin,
			currentOrigin: new URL(receiverB.webhookBaseUrl).origin,
		});

		const bWebhookId = String(b.nodeStaticData.webhookId);
		expect(bWebhookId).not.toBe(aWebhookId);
		expect(
			sandbox()
				.store.webhooksOf(apiKey)
				.map((webhook) => [webhook.id, webhook.url])
				.sort(),
		).toEqual(
			[
				[aWebhookId, a.webhookUrl],
				[bWebhookId, b.webhookUrl],
			].sort(),
		);
		expect(await a.runHook('checkExists')).toBe(true);
		expect(await b.runHook('checkExists')).toBe(true);

		await sendDocument(apiKey);
		await a.idle();
		await b.idle();
		expect(a.executions).toHaveLength(1);
		expect(b.executions).toHaveLength(1);
		expect(a.processed.map((execution) => execution.items[0].json.webhookId)).toEqual([aWebhookId]);
		expect(b.processed.map((execution) => execution.items[0].json.webhookId)).toEqual([bWebhookId]);

		// Deactivating B removes B's webhook only.
		await b.deactivate();
		expect(
			sandbox()
				.store.webhooksOf(apiKey)
				.map((webhook) => webhook.id),
		).toEqual([aWebhookId]);
		expect(await a.runHook('checkExists')).toBe(true);
		expect(a.nodeStaticData.webhookId).toBe(aWebhookId);
	}, 20_000);

	// Old: deactivate deleted the stored id whatever URL it was registered for.
	test('deactivating an instance whose stored registration is on another origin forgets it (logged) and deletes nothing', async () => {
		const { apiKey } = sandbox().createAccount();
		const a = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: receiverA.webhookBaseUrl,
			events: ['document.completed'],
		});
		await a.activate();
		const copy = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: receiverB.webhookBaseUrl,
			events: ['document.completed'],
			workflowId: a.workflowId,
			nodeWebhookId: a.nodeWebhookId,
		});
		copy.savedStaticData = structuredClone(a.savedStaticData);
		const warnings = captureWarnings();
		await copy.deactivate();
		expect(
			warned(warnings).some(([message]) => /another address.*forgotten, not deleted/.test(message)),
		).toBe(true);
		expect(copy.nodeStaticData.webhookId).toBeUndefined();
		expect(
			sandbox()
				.store.webhooksOf(apiKey)
				.map((webhook) => webhook.id),
		).toEqual([a.nodeStaticData.webhookId]);
		expect(await a.runHook('checkExists')).toBe(true);
	});
});

describe("a copy of a workflow on the same n8n (same webhook URL) never removes the original's webhook (finding 22.10)", () => {
	// Old: the copy's delete step swept every webhook with its URL, which is the original's too.
	// Real n8n: e2e/security.e2e.test.ts › 10 (the copy's activation refused as "path taken").
	test("the copy's checkExists and delete leave the original's registration alone", async () => {
		const { apiKey } = sandbox().createAccount();
		const webhookBaseUrl = 'http://127.0.0.1:9/webhook';
		const original = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl,
			events: ['document.completed'],
		});
		await original.activate();
		const originalId = String(original.nodeStaticData.webhookId);
		const copy = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl,
			events: ['document.completed'],
			nodeWebhookId: original.nodeWebhookId,
		});
		copy.savedStaticData = structuredClone(original.savedStaticData);
		expect(copy.workflowId).not.toBe(original.workflowId);
		expect(copy.webhookUrl).toBe(original.webhookUrl);

		expect(await copy.runHook('checkExists')).toBe(false);
		await copy.deactivate();
		expect(
			sandbox()
				.store.webhooksOf(apiKey)
				.map((webhook) => webhook.id),
		).toEqual([originalId]);
		expect(await original.runHook('checkExists')).toBe(true);
	});
});

describe('a busy account never stops a trigger or Send and Wait (finding 37.4)', () => {
	// A service that pages by 20, and an account with 10,000 webhooks of other integrations:
	// 500 pages, ten times what one sweep reads.
	const sandbox = useSandbox({ port: 0, host: '127.0.0.1', dialect: '{"maxPageSize":20}' });
	const OTHERS = 10_000;
	const kit = sendAndWaitKit(sandbox);
	let apiKey: string;
	beforeAll(async () => {
		apiKey = sandbox().createAccount().apiKey;
		await fillAccount(sandbox(), apiKey, OTHERS);
	}, 300_000);

	const ownUrls = (url: string) =>
		sandbox()
			.store.webhooksOf(apiKey)
			.filter((webhook) => webhook.url.startsWith(url));

	// Old: "The list has more than 50 pages" failed activation, n8n's start and deactivation.
	test('activation, n8n’s start (checkExists) and deactivation work, and deactivation leaves nothing of the trigger', async () => {
		const host = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: 'http://127.0.0.1:9/webhook',
			events: ['document.completed'],
		});
		const before = sandbox().stats().routes['GET /v1/webhooks'] ?? 0;
		await host.activate();
		expect(ownUrls(host.webhookUrl)).toHaveLength(1);
		expect(String(host.nodeStaticData.webhookId)).toBe(String(ownUrls(host.webhookUrl)[0].id));
		// Each sweep reads at most its budget, never the whole account.
		expect((sandbox().stats().routes['GET /v1/webhooks'] ?? 0) - before).toBeLessThanOrEqual(
			WEBHOOK_SWEEP_BUDGET.pages,
		);

		expect(await host.runHook('checkExists')).toBe(true);
		await host.deactivate();
		expect(ownUrls(host.webhookUrl)).toHaveLength(0);
		expect(sandbox().store.webhooksOf(apiKey)).toHaveLength(OTHERS);
	});

	// Old: the clean-up failed on the 51st page every run, so cancelled waits' webhooks piled up.
	test('Send and Wait’s clean-up takes turns through the list: a cancelled wait’s webhook deep in it (its document deleted) is gone after a few runs, live waits keep theirs', async () => {
		// The cancelled wait's webhook sits in the middle of the account's list, in either order.
		const waitsKey = sandbox().createAccount().apiKey;
		await fillAccount(sandbox(), waitsKey, OTHERS / 2, 'first');
		const host = await kit.newHost(waitsKey);
		const cancelled = await host.run({ parameters: sendAndWait() });
		host.cancel(cancelled);
		const gone = await api(sandbox(), waitsKey).delete(`/documents/${kit.documentIdOf(cancelled)}`);
		expect(gone.status).toBe(204);
		await fillAccount(sandbox(), waitsKey, OTHERS / 2, 'second');
		const waitsOf = (execution: { id: string }) =>
			sandbox()
				.store.webhooksOf(waitsKey)
				.filter((webhook) =>
					webhook.url.startsWith(`${host.origin}/webhook-waiting/${execution.id}/`),
				);
		expect(waitsOf(cancelled)).toHaveLength(1);

		const live = [];
		const runsToCover = Math.ceil(OTHERS / 20 / WEBHOOK_SWEEP_BUDGET.pages) + 1;
		for (let run = 0; run < runsToCover && waitsOf(cancelled).length > 0; run++)
			live.push(await host.run({ parameters: sendAndWait() }));
		expect(waitsOf(cancelled)).toHaveLength(0);
		// The first run cannot have reached it: the list is read one budget at a time.
		expect(live.length).toBeGreaterThan(1);
		for (const execution of live) {
			expect(execution.status).toBe('waiting');
			expect(waitsOf(execution)).toHaveLength(1);
		}
	}, 300_000);
});

describe('(suspected) a proxy in front of n8n answers every call to it (finding 37)', () => {
	const sandbox = useSandbox({ port: 0, host: '127.0.0.1' });
	const kit = sendAndWaitKit(sandbox);

	// Old: a probe of n8n read a proxy's 404 or page as "ended", so the next run removed a live
	// wait's webhook (the wait then never resumed). Now the clean-up asks the service, never n8n.
	test.each([
		['404 with its own page', { status: 404, body: '<html><title>Not Found</title></html>' }],
		['404 with JSON of its own', { status: 404, body: { message: 'no route' } }],
		['200 with a login page', { status: 200, body: '<html><title>Sign in</title></html>' }],
		['409 of its own', { status: 409, body: { message: 'conflict' } }],
	])('%s: the live wait keeps its webhook and still resumes', async (_name, answer) => {
		const { apiKey } = sandbox().createAccount();
		const host = await kit.newHost(apiKey);
		const live = await host.run({ parameters: sendAndWait() });
		host.proxyAnswer = answer;
		const next = await host.run({ parameters: sendAndWait() });
		host.proxyAnswer = undefined;
		// The live wait's webhook is still at the service (kit.registration would throw, not return none).
		expect(kit.webhooksOf(apiKey).map((webhook) => webhook.url)).toContainEqual(
			expect.stringContaining(`/webhook-waiting/${live.id}/`),
		);
		kit.signAll(apiKey, kit.documentIdOf(live));
		await kit.resumed(live);
		expect(live.items[0].json).toMatchObject({ status: 'completed', approved: true });
		expect(next.status).toBe('waiting');
	});
});
