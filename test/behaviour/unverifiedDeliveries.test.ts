/**
 * With Verify Signatures off, a delivery makes the trigger act (with the key) only when the
 * service confirms it, and only what the service confirms is passed on. Servers listen on
 * 127.0.0.1 only. Each test's first comment says what the code before the fix did (the test fails
 * on it).
 */
import type { IDataObject } from 'n8n-workflow';

import { useSandbox, webhookSecret, waitFor, api } from '../helpers/sandbox';
import { signWebhookPayload } from '../../sandbox/deliverySignature';
import { useSecuritySuite } from '../helpers/securityKit';

import { captureWarnings, TriggerHost, type IncomingDelivery } from '../helpers/triggerHost';

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

const nowSeconds = () => Math.floor(Date.now() / 1000);

const routeCount = (prefix: string) =>
	Object.entries(sandbox().stats().routes)
		.filter(([key]) => key.startsWith(prefix))
		.reduce((sum, [, count]) => sum + count, 0);

function unsigned(body: Record<string, unknown>): IncomingDelivery {
	return {
		headers: { 'content-type': 'application/json' },
		rawBody: Buffer.from(JSON.stringify(body)),
	};
}

async function createDocumentIn(apiKey: string, name = 'someone-elses.pdf'): Promise<string> {
	const response = await fetch(`${sandbox().baseUrl}/documents`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({
			name,
			signers: [{ email: 'ada@example.com', name: 'Ada Lovelace' }],
		}),
	});
	expect(response.status).toBe(201);
	return String(((await response.json()) as IDataObject).id);
}

describe('an unverified delivery makes the trigger act with the key only when the service confirms it (finding 22.2)', () => {
	/** A trigger with Verify Signatures off; its URL is nowhere (the tests hand deliveries to it). */
	async function unverifiedTrigger(events: string[], options: IDataObject = {}) {
		const { apiKey } = sandbox().createAccount();
		const host = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: 'http://127.0.0.1:9/webhook',
			events,
			options,
		});
		host.parameters.verifySignature = false;
		await host.activate();
		return { host, apiKey, webhookId: String(host.nodeStaticData.webhookId) };
	}

	// Old: the forged body's document was downloaded with the key and attached.
	test('a forged document.completed naming another document: refused, nothing started or fetched', async () => {
		const { host, apiKey } = await unverifiedTrigger(['document.completed'], {
			attachSignedFile: true,
		});
		const otherDocument = await createDocumentIn(apiKey);
		const before = routeCount('GET /v1/documents/');
		const outcome = await host.receive(
			unsigned({
				id: 'dlv_madeup1',
				event: 'document.completed',
				data: {
					document: {
						id: otherDocument,
						status: 'completed',
						signed_file_url: `${sandbox().baseUrl}/documents/${otherDocument}/file?version=original`,
					},
				},
			}),
		);
		expect(outcome).toMatchObject({ started: false, status: 401 });
		expect(routeCount('GET /v1/documents/') - before).toBe(0);
	});

	// Old: the claim went to the body's webhook_id, acknowledging another webhook's delivery.
	test("a forged webhook_id naming another webhook: that webhook's delivery is not acknowledged", async () => {
		const { host, apiKey } = await unverifiedTrigger(['document.sent']);
		const response = await fetch(`${sandbox().baseUrl}/webhooks`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
			body: JSON.stringify({ url: 'http://127.0.0.1:9/other-receiver', events: ['document.sent'] }),
		});
		const other = String(((await response.json()) as IDataObject).id);
		await sendDocument(apiKey);
		const victim = sandbox()
			.deliveries()
			.find((attempt) => attempt.webhookId === other)!;
		expect(victim).toMatchObject({ webhookId: other, event: 'document.sent' });

		const outcome = await host.receive(
			unsigned({ id: victim.deliveryId, event: 'document.sent', webhook_id: other, data: {} }),
		);
		await outcome.execution;
		expect(sandbox().deliveryRecord(victim.deliveryId)?.status).not.toBe('acknowledged');
		expect(sandbox().deliveryRecord(victim.deliveryId)?.acknowledged_at ?? null).toBeNull();
	});

	test("a real delivery of this trigger's own webhook is confirmed by the service and claimed as usual", async () => {
		const { host, apiKey, webhookId } = await unverifiedTrigger(['document.sent']);
		await sendDocument(apiKey);
		const own = sandbox()
			.deliveries()
			.find((attempt) => attempt.webhookId === webhookId)!;
		const outcome = await host.receive({
			headers: { 'content-type': 'application/json' },
			rawBody: Buffer.from(own.body),
		});
		const execution = await outcome.execution!;
		expect(execution.items).toHaveLength(1);
		expect(sandbox().deliveryRecord(own.deliveryId)?.status).toBe('acknowledged');
	});

	// Old: the signed body's `status: completed` was trusted and the file requested.
	test("verified too: the document's state is read from the service first; one not completed gets no file request", async () => {
		const { apiKey } = sandbox().createAccount();
		const host = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: 'http://127.0.0.1:9/webhook',
			events: ['document.completed'],
			options: { attachSignedFile: true },
			continueOnFail: true,
		});
		await host.activate();
		const webhookId = String(host.nodeStaticData.webhookId);
		const secret = webhookSecret(sandbox(), apiKey, webhookId)!;
		const pending = await createDocumentIn(apiKey);
		const raw = JSON.stringify({
			id: 'dlv_state1',
			event: 'document.completed',
			webhook_id: webhookId,
			data: { document: { id: pending, status: 'completed' } },
		});
		const before = routeCount('GET /v1/documents/:id/file');
		const outcome = await host.receive({
			headers: {
				'content-type': 'application/json',
				'x-signature': signWebhookPayload(secret, nowSeconds(), raw),
			},
			rawBody: Buffer.from(raw),
		});
		const execution = await outcome.execution!;
		expect(String(execution.items[0]?.json.attachError)).toMatch(/is (sent|pending|draft)/);
		expect(routeCount('GET /v1/documents/:id/file') - before).toBe(0);
	});
});

describe('with Verify Signatures off, only what the service confirms passes on (finding 37.3)', () => {
	const sandbox = useSandbox({
		port: 0,
		host: '127.0.0.1',
		dialect: 'numeric-ids',
		webhookRetry: { baseDelayMs: 60_000, maxAttempts: 2, timeoutMs: 5000 },
	});

	/** A trigger with Verify Signatures off whose URL is nowhere: the test hands it deliveries. */
	async function unverifiedTrigger(options: IDataObject = {}) {
		const { apiKey } = sandbox().createAccount();
		const host = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: 'http://127.0.0.1:9/webhook',
			events: ['document.completed'],
			options,
		});
		host.parameters.verifySignature = false;
		await host.activate();
		return { host, apiKey, webhookId: String(host.nodeStaticData.webhookId) };
	}

	const unsigned = (body: IDataObject): IncomingDelivery => ({
		headers: { 'content-type': 'application/json' },
		rawBody: Buffer.from(JSON.stringify(body)),
	});

	const documentIdIn = (body: string) =>
		((JSON.parse(body) as { data: { document?: IDataObject } }).data.document ?? {}).id;

	async function completedDocument(apiKey: string, name: string): Promise<string> {
		const created = await api(sandbox(), apiKey).post('/documents', {
			name,
			signers: [{ email: 'ada@example.com', name: 'Ada Lovelace' }],
		});
		const id = String(created.data.id);
		const signer = String(created.data.signers[0].id);
		sandbox().actAsSigner(id, signer, 'sign');
		return id;
	}

	// Old: the body's document was passed on (with its signed PDF), and the real delivery was
	// acknowledged by the forgery, so the real event was lost.
	test("an invented body reusing a real pending delivery's id passes on the real delivery's document, never the body's", async () => {
		const { host, apiKey, webhookId } = await unverifiedTrigger({ attachSignedFile: true });
		const real = await completedDocument(apiKey, 'real.pdf');
		const other = await completedDocument(apiKey, 'other.pdf');
		await waitFor(
			() =>
				sandbox()
					.deliveries()
					.some((attempt) => attempt.webhookId === webhookId),
			'the deliveries',
		);
		const pending = sandbox()
			.deliveries()
			.find(
				(attempt) => attempt.webhookId === webhookId && String(documentIdIn(attempt.body)) === real,
			)!;
		expect(sandbox().deliveryRecord(pending.deliveryId)?.acknowledged_at).toBeNull();
		const outcome = await host.receive(
			unsigned({
				id: Number(pending.deliveryId),
				event: 'document.completed',
				data: { document: { id: Number(other), status: 'completed' } },
			}),
		);
		expect(outcome.started).toBe(true);
		const execution = await outcome.execution!;
		expect(execution.items).toHaveLength(1);
		const document = (execution.items[0].json.data as IDataObject).document as IDataObject;
		expect(String(document.id)).toBe(real);
		expect(execution.items[0].binary?.data.fileName).toMatch(/^real/);
		expect(sandbox().stats().routes['GET /v1/documents/:id/file']).toBe(1);
	});

	// Old: each made-up id was remembered as processed, so the real deliveries that later got
	// those ids were answered "already processed" and started nothing.
	test('invented deliveries for the next 20 ids are refused and mark nothing: the real ones start their executions', async () => {
		const { host, apiKey, webhookId } = await unverifiedTrigger();
		await completedDocument(apiKey, 'first.pdf');
		const ours = () =>
			sandbox()
				.deliveries()
				.filter((attempt) => attempt.webhookId === webhookId);
		await waitFor(() => ours().length > 0, 'the first delivery attempt');
		const last = Number(ours().at(-1)!.deliveryId);
		const warnings = captureWarnings();
		try {
			for (let id = last + 1; id <= last + 20; id++) {
				const outcome = await host.receive(
					unsigned({ id, event: 'document.completed', data: { document: { id: 1 } } }),
				);
				expect(outcome).toMatchObject({ started: false, status: 401 });
			}
		} finally {
			warnings.restore();
		}
		expect(
			warnings.messages.filter((message) => message.includes('does not report this delivery')),
		).toHaveLength(20);

		const before = host.processed.length;
		await completedDocument(apiKey, 'second.pdf');
		await waitFor(
			() => ours().some((attempt) => Number(attempt.deliveryId) > last),
			'the second delivery attempt',
		);
		const real = ours().filter((attempt) => Number(attempt.deliveryId) > last);
		// The attack only means something when a real id falls among the invented ones.
		expect(real.some((attempt) => Number(attempt.deliveryId) <= last + 20)).toBe(true);
		for (const attempt of real) {
			const outcome = await host.receive(unsigned(JSON.parse(attempt.body) as IDataObject));
			expect(outcome.started).toBe(true);
			await outcome.execution;
		}
		expect(host.processed.length - before).toBe(
			real.filter((attempt) => attempt.event === 'document.completed').length,
		);
	});
});
