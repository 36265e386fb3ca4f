/** Webhook deliveries to a real local receiver: body, headers, signature, retries, limits. */
import http from 'http';
import type { AddressInfo } from 'net';

import {
	DocumentSchema,
	WebhookDeliveryBodySchema,
	WebhookDeliverySchema,
	WebhookWithSecretSchema,
	type WebhookDeliveryBody,
} from '../../contract';
import { verifyDelivery } from '../../nodes/shared/deliveryLayouts';
import { expectResponseMatchesOpenApi } from '../helpers/openapi';
import {
	api,
	documentBody,
	expectError,
	expectSchema,
	useReceivers,
	useSandbox,
	waitFor,
	type ReceivedRequest,
	type Receiver,
} from '../helpers/sandbox';

const sandbox = useSandbox({ webhookRetry: { baseDelayMs: 20, maxAttempts: 3, timeoutMs: 5000 } });

const receiver = useReceivers();

async function setup(events: string[] = ['*']) {
	const { apiKey } = sandbox().createAccount();
	const client = api(sandbox(), apiKey);
	const target = await receiver();
	const created = await client.post('/webhooks', { url: target.url, events });
	expect(created.status).toBe(201);
	const webhook = expectSchema(WebhookWithSecretSchema, created.data);
	return { client, apiKey, target, webhook };
}

function bodies(target: Receiver): WebhookDeliveryBody[] {
	return target.requests.map((request) =>
		expectSchema(WebhookDeliveryBodySchema, JSON.parse(request.rawBody.toString('utf8'))),
	);
}

/** The contract's X-Signature t=…,v1=… alone, at the time the request arrived. */
const verifyContract = (request: ReceivedRequest, secret: string) =>
	verifyDelivery({
		header: (name) =>
			name === 'x-signature' ? (request.headers[name] as string | undefined) : undefined,
		rawBody: request.rawBody,
		secret,
		nowSeconds: request.receivedAtSeconds,
		accepted: ['timestamped-header'],
	});

/** One body per event name (fails if an event arrived twice). */
function byEvent(list: WebhookDeliveryBody[]): Record<string, WebhookDeliveryBody> {
	const out: Record<string, WebhookDeliveryBody> = {};
	for (const body of list) {
		expect(out[body.event]).toBeUndefined();
		out[body.event] = body;
	}
	return out;
}

/** A delivery whose receiver answers 500: resolves after the first attempt, retries still to come. */
async function failingDelivery() {
	const context = await setup(['document.created']);
	context.target.queueStatuses(500, 500, 500);
	await context.client.post('/documents', documentBody());
	await waitFor(() => context.target.requests.length >= 1, 'the first attempt');
	return context;
}

describe('webhook deliveries', () => {
	it('POSTs each event with the contract body and headers, signed with the webhook secret', async () => {
		const { client, target, webhook } = await setup();
		const document = expectSchema(
			DocumentSchema,
			(await client.post('/documents', documentBody())).data,
		);
		await sandbox().flushDeliveries();

		// Deliveries run concurrently, so their arrival order is not part of the contract.
		expect(target.requests.map((request) => request.headers['x-event']).sort()).toEqual([
			'document.created',
			'document.sent',
			'signature.requested',
		]);
		for (const request of target.requests) {
			expect(request.method).toBe('POST');
			expect(request.headers['content-type']).toBe('application/json');
			const body = expectSchema(
				WebhookDeliveryBodySchema,
				JSON.parse(request.rawBody.toString('utf8')),
			);
			expect(request.headers['x-delivery-id']).toBe(body.id);
			expect(request.headers['x-event']).toBe(body.event);
			expect(body.webhook_id).toBe(webhook.id);

			const verification = verifyContract(request, webhook.secret);
			expect(verification).toEqual({
				valid: true,
				layout: 'timestamped-header',
				timestamp: expect.any(Number),
			});
			expect(verifyContract(request, 'x'.repeat(40))).toEqual({
				valid: false,
				layout: 'timestamped-header',
				reason: 'signature_mismatch',
			});
		}
		const received = bodies(target);
		expect(received.find((body) => body.event === 'document.created')?.data.document?.id).toBe(
			document.id,
		);
		expect(
			received.find((body) => body.event === 'signature.requested')?.data.signature_request?.id,
		).toBe(document.signature_request_id);
		expect(new Set(target.requests.map((request) => request.headers['x-delivery-id'])).size).toBe(
			3,
		);
	});

	it('sends only subscribed events; viewed/signed carry the signer; completion follows', async () => {
		const { client, target } = await setup([
			'document.viewed',
			'document.signed',
			'document.completed',
		]);
		const document = expectSchema(
			DocumentSchema,
			(
				await client.post(
					'/documents',
					documentBody({ signers: [{ email: 'a@example.com', name: 'A' }] }),
				)
			).data,
		);
		sandbox().actAsSigner(document.id, document.signers[0].id, 'sign');
		await sandbox().flushDeliveries();

		const received = byEvent(bodies(target));
		expect(Object.keys(received).sort()).toEqual([
			'document.completed',
			'document.signed',
			'document.viewed',
		]);
		expect(received['document.viewed'].data.signer).toMatchObject({
			id: document.signers[0].id,
			status: 'viewed',
		});
		expect(received['document.signed'].data.signer).toMatchObject({
			id: document.signers[0].id,
			status: 'signed',
		});
		expect(received['document.completed'].data.document?.status).toBe('completed');
		expect(received['document.completed'].data.signer).toBeUndefined();
	});

	it('delivers declined, cancelled, deleted and reminded events', async () => {
		const { client, target } = await setup([
			'document.declined',
			'document.cancelled',
			'document.deleted',
			'signature.reminded',
		]);
		const first = expectSchema(
			DocumentSchema,
			(await client.post('/documents', documentBody())).data,
		);
		sandbox().actAsSigner(first.id, first.signers[0].id, 'decline', 'No thanks');
		const second = expectSchema(
			DocumentSchema,
			(await client.post('/documents', documentBody())).data,
		);
		await client.post(`/signatures/${second.signature_request_id}/remind`);
		await client.delete(`/documents/${second.id}`);
		await sandbox().flushDeliveries();

		const received = byEvent(bodies(target));
		expect(Object.keys(received).sort()).toEqual([
			'document.cancelled',
			'document.declined',
			'document.deleted',
			'signature.reminded',
		]);
		expect(received['document.declined'].data.signer).toMatchObject({
			status: 'declined',
			decline_reason: 'No thanks',
		});
		expect(received['signature.reminded'].data.signature_request?.reminders_sent).toBe(1);
		expect(received['document.cancelled'].data.document?.status).toBe('cancelled');
		expect(received['document.deleted'].data.document?.id).toBe(second.id);
	});

	it('retries a failed delivery with the same id and body and a fresh valid signature', async () => {
		const { client, target, webhook } = await setup(['document.created']);
		target.queueStatuses(500, 503);
		await client.post('/documents', documentBody());
		await sandbox().flushDeliveries();

		expect(target.requests).toHaveLength(3);
		const ids = new Set(target.requests.map((request) => request.headers['x-delivery-id']));
		expect(ids.size).toBe(1);
		expect(new Set(target.requests.map((request) => request.rawBody.toString('utf8'))).size).toBe(
			1,
		);
		for (const request of target.requests) {
			expect(verifyContract(request, webhook.secret).valid).toBe(true);
		}
		const attempts = sandbox()
			.deliveries()
			.filter((attempt) => attempt.webhookId === webhook.id);
		expect(attempts.map((attempt) => [attempt.attempt, attempt.status, attempt.ok])).toEqual([
			[1, 500, false],
			[2, 503, false],
			[3, 200, true],
		]);
		expect(attempts.every((attempt) => attempt.deliveryId === [...ids][0])).toBe(true);
		expect(target.requests.map((request) => request.headers['x-delivery-attempt'])).toEqual([
			'1',
			'2',
			'3',
		]);
	});

	it('gives up after maxAttempts against a dead receiver', async () => {
		const { client, target, webhook } = await setup(['document.created']);
		await target.close(); // nothing listens any more: connection refused
		await client.post('/documents', documentBody());
		await sandbox().flushDeliveries();
		const attempts = sandbox()
			.deliveries()
			.filter((attempt) => attempt.webhookId === webhook.id);
		expect(attempts.map((attempt) => attempt.attempt)).toEqual([1, 2, 3]);
		expect(
			attempts.every((attempt) => !attempt.ok && attempt.status === null && attempt.error),
		).toBe(true);
		expect(sandbox().stats().deliveries.pending).toBe(0);
	});

	it('does not block the API on a slow receiver, and times the attempt out', async () => {
		const hanging: http.ServerResponse[] = [];
		const server = http.createServer((_req, res) => hanging.push(res));
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			sandbox().configure({ webhookRetry: { timeoutMs: 300, maxAttempts: 1 } });
			const { apiKey } = sandbox().createAccount();
			const client = api(sandbox(), apiKey);
			const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
			const webhook = expectSchema(
				WebhookWithSecretSchema,
				(await client.post('/webhooks', { url, events: ['document.created'] })).data,
			);

			const response = await client.post('/documents', documentBody());
			expect(response.status).toBe(201);
			// The API answered while the receiver still holds the delivery open (or before it arrived).
			expect(hanging.every((res) => !res.writableEnded)).toBe(true);

			await sandbox().flushDeliveries();
			const [attempt] = sandbox()
				.deliveries()
				.filter((item) => item.webhookId === webhook.id);
			expect(attempt).toMatchObject({ ok: false, status: null, error: 'timeout after 300 ms' });
		} finally {
			sandbox().configure({ webhookRetry: { timeoutMs: 5000, maxAttempts: 3 } });
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		}
	});

	it.each([
		[3, 3],
		[0, 12],
	])(
		'keeps at most concurrencyPerUrl attempts in flight to one URL (%i; 0: no bound), and every delivery arrives once',
		async (concurrencyPerUrl, expectedPeak) => {
			// A receiver that holds each request until 12 arrived or nothing new came for 100 ms.
			let open = 0;
			let peak = 0;
			const held: http.ServerResponse[] = [];
			const ids: string[] = [];
			const releaseAll = () => held.splice(0).forEach((res) => res.writeHead(200).end());
			let quiet: NodeJS.Timeout | undefined;
			const server = http.createServer((req, res) => {
				open++;
				peak = Math.max(peak, open);
				ids.push(String(req.headers['x-delivery-id']));
				res.on('finish', () => open--);
				held.push(res);
				clearTimeout(quiet);
				if (held.length >= 12) releaseAll();
				else quiet = setTimeout(releaseAll, 100);
			});
			await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
			try {
				sandbox().configure({ webhookRetry: { concurrencyPerUrl } });
				const { apiKey } = sandbox().createAccount();
				const client = api(sandbox(), apiKey);
				const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/burst`;
				expect((await client.post('/webhooks', { url, events: ['document.created'] })).status).toBe(
					201,
				);

				await Promise.all(
					Array.from({ length: 12 }, () => client.post('/documents', documentBody())),
				);
				await sandbox().flushDeliveries();

				expect(peak).toBe(expectedPeak);
				expect(ids).toHaveLength(12);
				expect(new Set(ids).size).toBe(12);
			} finally {
				clearTimeout(quiet);
				sandbox().configure({ webhookRetry: { concurrencyPerUrl: 10 } });
				server.closeAllConnections();
				await new Promise((resolve) => server.close(resolve));
			}
		},
	);

	it('stops retrying once the webhook is deleted', async () => {
		// Retries far in the future: only the cancellation can end this delivery quickly.
		sandbox().configure({ webhookRetry: { baseDelayMs: 60_000 } });
		try {
			const { client, target, webhook } = await failingDelivery();
			expect((await client.delete(`/webhooks/${webhook.id}`)).status).toBe(204);
			await sandbox().flushDeliveries();
			const attempts = sandbox()
				.deliveries()
				.filter((attempt) => attempt.webhookId === webhook.id);
			expect(attempts.map((attempt) => [attempt.attempt, attempt.status ?? attempt.error])).toEqual(
				[
					[1, 500],
					[2, 'cancelled: webhook removed'],
				],
			);
			expect(target.requests).toHaveLength(1);
		} finally {
			sandbox().configure({ webhookRetry: { baseDelayMs: 20 } });
		}
	});

	it("never delivers one account's events to another account's webhook", async () => {
		const a = await setup();
		const b = await setup();
		await a.client.post('/documents', documentBody());
		await sandbox().flushDeliveries();
		expect(a.target.requests.length).toBe(3);
		expect(b.target.requests).toHaveLength(0);
	});

	it('exposes the attempts over HTTP too', async () => {
		const { client, webhook } = await setup(['document.created']);
		await client.post('/documents', documentBody());
		const flushed = await fetch(`${sandbox().origin}/__sandbox/deliveries/flush`, {
			method: 'POST',
		});
		expect(flushed.status).toBe(200);
		const response = await fetch(
			`${sandbox().origin}/__sandbox/deliveries?webhookId=${webhook.id}`,
		);
		const { data } = (await response.json()) as {
			data: Array<{ event: string; ok: boolean; deliveryId: string }>;
		};
		expect(data).toEqual([
			expect.objectContaining({
				event: 'document.created',
				ok: true,
				deliveryId: expect.stringMatching(/^dlv_/),
			}),
		]);
	});
});

describe('a webhook for one document (document_id)', () => {
	it("delivers only that document's events, document.* and signature.*, and echoes document_id", async () => {
		const { client, apiKey } = await setup();
		const target = await receiver();
		const mine = expectSchema(
			DocumentSchema,
			(await client.post('/documents', documentBody({ draft: true }))).data,
		);
		const other = expectSchema(
			DocumentSchema,
			(await client.post('/documents', documentBody({ draft: true }))).data,
		);
		const created = await client.post('/webhooks', {
			url: target.url,
			events: ['*'],
			document_id: mine.id,
		});
		expect(created.status).toBe(201);
		expect(expectSchema(WebhookWithSecretSchema, created.data)).toMatchObject({
			document_id: mine.id,
		});
		expect(created.data).not.toHaveProperty('expires_at');
		expectResponseMatchesOpenApi(created);
		expect(
			sandbox()
				.store.webhooksOf(apiKey)
				.find((webhook) => webhook.id === created.data.id)?.document_id,
		).toBe(mine.id);

		await client.post('/signatures/request', { document_id: other.id });
		const request = (await client.post('/signatures/request', { document_id: mine.id })).data;
		expect((await client.post(`/signatures/${request.id}/remind`)).status).toBe(200);
		sandbox().actAsSigner(other.id, other.signers[0].id, 'decline', 'no');
		await sandbox().flushDeliveries();

		const received = bodies(target);
		expect(received.map((body) => body.event).sort()).toEqual([
			'document.sent',
			'signature.reminded',
			'signature.requested',
		]);
		for (const body of received)
			expect(body.data.document?.id ?? body.data.signature_request?.document_id).toBe(mine.id);
	});

	it("an unknown document, or another account's, is a 404 on document_id; nothing is created", async () => {
		const { client, apiKey, target } = await setup();
		const elsewhere = await setup();
		const foreign = (await elsewhere.client.post('/documents', documentBody())).data;
		expectError(
			await client.post('/webhooks', { url: target.url, events: ['*'], document_id: foreign.id }),
			404,
			'not_found',
			'document_id',
		);
		expectError(
			await client.post('/webhooks', { url: target.url, events: ['*'], document_id: 'doc_nosuch' }),
			404,
			'not_found',
			'document_id',
		);
		expectError(
			await client.post('/webhooks', { url: target.url, events: ['*'], document_id: '' }),
			400,
			'validation_error',
			'document_id',
		);
		expect(sandbox().store.webhooksOf(apiKey)).toHaveLength(1);
	});
});

describe('a webhook with an expiry (expires_at)', () => {
	const later = (seconds: number) => new Date(Date.parse(sandbox().now()) + seconds * 1000);

	it('is echoed in UTC, and removed once the business clock passes it: not listed, nothing delivered, logged as deleted by the system', async () => {
		const { client, apiKey } = await setup(['document.created']);
		const target = await receiver();
		const at = later(3600);
		const local = new Date(at.getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
		const created = await client.post('/webhooks', {
			url: target.url,
			events: ['document.created'],
			expires_at: local,
		});
		expect(created.status).toBe(201);
		expect(created.data.expires_at).toBe(new Date(Date.parse(local)).toISOString());
		expectSchema(WebhookWithSecretSchema, created.data);

		await client.post('/documents', documentBody());
		await sandbox().flushDeliveries();
		expect(target.requests).toHaveLength(1);

		sandbox().advanceClock(3601);
		const listed = (await client.get('/webhooks')).data.data as Array<{ id: string }>;
		expect(listed.map((webhook) => webhook.id)).not.toContain(created.data.id);
		expect(listed).toHaveLength(1);
		await client.post('/documents', documentBody());
		await sandbox().flushDeliveries();
		expect(target.requests).toHaveLength(1);
		expect(
			sandbox()
				.store.auditLogOf(apiKey)
				.find((entry) => entry.event === 'webhook.deleted'),
		).toMatchObject({
			actor: { type: 'system' },
			details: { webhook_id: created.data.id, reason: 'expired' },
		});
		expectError(await client.delete(`/webhooks/${created.data.id}`), 404, 'not_found');
	});

	it('ends the retries of a delivery still failing when it expires', async () => {
		sandbox().configure({ webhookRetry: { baseDelayMs: 60_000 } });
		try {
			const { client } = await setup(['document.created']);
			const target = await receiver();
			target.queueStatuses(500, 500, 500);
			const created = await client.post('/webhooks', {
				url: target.url,
				events: ['document.created'],
				expires_at: later(60).toISOString(),
			});
			await client.post('/documents', documentBody());
			await waitFor(() => target.requests.length >= 1, 'the first attempt');
			sandbox().advanceClock(61);
			await sandbox().flushDeliveries();
			const attempts = sandbox()
				.deliveries()
				.filter((attempt) => attempt.webhookId === created.data.id);
			expect(attempts.map((attempt) => [attempt.attempt, attempt.status ?? attempt.error])).toEqual(
				[
					[1, 500],
					[2, 'cancelled: webhook removed'],
				],
			);
		} finally {
			sandbox().configure({ webhookRetry: { baseDelayMs: 20 } });
		}
	});

	it('a time in the past or without a zone is a 400 on expires_at', async () => {
		const { client, apiKey, target } = await setup();
		expectError(
			await client.post('/webhooks', {
				url: target.url,
				events: ['*'],
				expires_at: later(-1).toISOString(),
			}),
			400,
			'validation_error',
			'expires_at',
		);
		expectError(
			await client.post('/webhooks', {
				url: target.url,
				events: ['*'],
				expires_at: '2099-01-01T00:00:00',
			}),
			400,
			'validation_error',
			'expires_at',
		);
		expect(sandbox().store.webhooksOf(apiKey)).toHaveLength(1);
	});
});

describe('acknowledging a delivery (POST /webhooks/{id}/deliveries/{delivery_id}/acknowledge)', () => {
	const path = (webhookId: string, deliveryId: string) =>
		`/webhooks/${webhookId}/deliveries/${deliveryId}/acknowledge`;

	async function oneDelivery() {
		const context = await setup(['document.created']);
		await context.client.post('/documents', documentBody());
		await sandbox().flushDeliveries();
		const [body] = bodies(context.target);
		return { ...context, deliveryId: body.id };
	}

	it('the first claim wins with the delivery record; every later one is 409 already_acknowledged', async () => {
		const { client, webhook, deliveryId } = await oneDelivery();
		const acknowledgedBefore = sandbox().stats().deliveries.acknowledged;
		const before = await client.get(`/webhooks/${webhook.id}/deliveries/${deliveryId}`);
		expect(before.status).toBe(200);
		expectResponseMatchesOpenApi(before);
		expect(expectSchema(WebhookDeliverySchema, before.data)).toMatchObject({
			id: deliveryId,
			status: 'received',
			attempts: 1,
			acknowledged_at: null,
			payload: { id: deliveryId, event: 'document.created', webhook_id: webhook.id },
		});

		const first = await client.post(path(webhook.id, deliveryId));
		expect(first.status).toBe(200);
		const record = expectSchema(WebhookDeliverySchema, first.data);
		expect(record).toMatchObject({
			id: deliveryId,
			webhook_id: webhook.id,
			event: 'document.created',
			status: 'acknowledged',
			attempts: 1,
		});
		expect(record.received_at).not.toBeNull();
		expect(record.acknowledged_at).not.toBeNull();

		const again = await client.post(path(webhook.id, deliveryId));
		expectError(again, 409, 'already_acknowledged');
		expectResponseMatchesOpenApi(first);
		expectResponseMatchesOpenApi(again);
		expect((await client.get(`/webhooks/${webhook.id}/deliveries/${deliveryId}`)).data).toEqual(
			record,
		);
		expect(again.data.error.message).toContain(record.acknowledged_at);
		expect(sandbox().stats().deliveries.acknowledged - acknowledgedBefore).toBe(1);
	});

	it('claims sent at the same moment with different keys: exactly one wins', async () => {
		const { client, webhook, deliveryId } = await oneDelivery();
		const answers = await Promise.all(
			Array.from({ length: 8 }, (_, index) =>
				client.post(path(webhook.id, deliveryId), undefined, {
					headers: { 'Idempotency-Key': `claim-${index}` },
				}),
			),
		);
		expect(answers.map((answer) => answer.status).sort()).toEqual([
			200, 409, 409, 409, 409, 409, 409, 409,
		]);
	});

	it('a repeat of the winning claim (same Idempotency-Key, its answer lost) replays the 200', async () => {
		const { client, webhook, deliveryId } = await oneDelivery();
		const headers = { 'Idempotency-Key': 'the-claim' };
		const first = await client.post(path(webhook.id, deliveryId), undefined, { headers });
		const repeat = await client.post(path(webhook.id, deliveryId), undefined, { headers });
		expect([first.status, repeat.status]).toEqual([200, 200]);
		expect(repeat.headers['idempotent-replayed']).toBe('true');
		expect(repeat.data).toEqual(first.data);
	});

	it('ends the retries of a delivery still failing', async () => {
		sandbox().configure({ webhookRetry: { baseDelayMs: 60_000 } });
		try {
			const { client, target, webhook } = await failingDelivery();
			const deliveryId = String(target.requests[0].headers['x-delivery-id']);
			expect(sandbox().deliveryRecord(deliveryId)).toMatchObject({
				status: 'pending',
				attempts: 1,
			});

			expect((await client.post(path(webhook.id, deliveryId))).status).toBe(200);
			// Without the acknowledgement this would wait a minute for the next attempt.
			await sandbox().flushDeliveries();
			expect(target.requests).toHaveLength(1);
			expect(sandbox().deliveryRecord(deliveryId)).toMatchObject({
				status: 'acknowledged',
				attempts: 1,
				received_at: null,
			});
		} finally {
			sandbox().configure({ webhookRetry: { baseDelayMs: 20 } });
		}
	});

	it("404 for an unknown delivery, another webhook's delivery, or another account's", async () => {
		const { client, webhook, deliveryId } = await oneDelivery();
		const other = await setup(['document.created']);
		const otherWebhook = expectSchema(
			WebhookWithSecretSchema,
			(await client.post('/webhooks', { url: other.target.url, events: ['*'] })).data,
		);

		expectError(
			await client.post(path(webhook.id, 'dlv_unknown')),
			404,
			'not_found',
			'delivery_id',
		);
		expectError(
			await client.get(`/webhooks/${webhook.id}/deliveries/dlv_unknown`),
			404,
			'not_found',
			'delivery_id',
		);
		expectError(
			await other.client.get(`/webhooks/${webhook.id}/deliveries/${deliveryId}`),
			404,
			'not_found',
		);
		expectError(
			await client.post(path(otherWebhook.id, deliveryId)),
			404,
			'not_found',
			'delivery_id',
		);
		expectError(await other.client.post(path(webhook.id, deliveryId)), 404, 'not_found');
		expectError(await client.post(path('wh_unknown', deliveryId)), 404, 'not_found');
		// None of these claimed it.
		expect((await client.post(path(webhook.id, deliveryId))).status).toBe(200);
	});

	it('acknowledging needs manage_account (viewer and member: 403, admin: 200; GET stays readable by all); a delivery older than 24 hours cannot be', async () => {
		const { client, apiKey, webhook, deliveryId } = await oneDelivery();
		const accountId = sandbox().store.accountIdOf(apiKey)!;
		const viewer = api(sandbox(), sandbox().createApiKey(accountId, 'viewer').apiKey);
		const member = api(sandbox(), sandbox().createApiKey(accountId, 'member').apiKey);
		const adminKey = api(sandbox(), sandbox().createApiKey(accountId, 'admin').apiKey);
		expectError(await viewer.post(path(webhook.id, deliveryId)), 403, 'forbidden');
		expectError(await member.post(path(webhook.id, deliveryId)), 403, 'forbidden');
		expect(sandbox().deliveryRecord(deliveryId)?.acknowledged_at).toBeNull();
		for (const reader of [viewer, member]) {
			expect((await reader.get(`/webhooks/${webhook.id}/deliveries/${deliveryId}`)).status).toBe(
				200,
			);
		}
		expect((await adminKey.post(path(webhook.id, deliveryId))).status).toBe(200);

		await client.post('/documents', documentBody());
		await sandbox().flushDeliveries();
		const later = sandbox()
			.deliveries()
			.filter(
				(attempt) => attempt.webhookId === webhook.id && attempt.deliveryId !== deliveryId,
			)[0].deliveryId;
		sandbox().advanceClock(24 * 60 * 60 + 1);
		expectError(await client.post(path(webhook.id, later)), 404, 'not_found', 'delivery_id');
	});
});

describe("listing a webhook's deliveries (GET /webhooks/{id}/deliveries?from=&to=, issue 55)", () => {
	it('lists the records GET …/deliveries/{id} gives, newest first, those made from `from` to `to`', async () => {
		const { client, webhook } = await setup(['document.created']);
		await client.post('/documents', documentBody());
		await client.post('/documents', documentBody());
		await sandbox().flushDeliveries();
		const listed = await client.get(`/webhooks/${webhook.id}/deliveries`);
		expect(listed.status).toBe(200);
		expectResponseMatchesOpenApi(listed);
		const records = (listed.data as { data: Array<{ id: string; created_at: string }> }).data;
		expect(records).toHaveLength(2);
		expect(records.map((record) => record.created_at)).toEqual(
			[...records.map((record) => record.created_at)].sort().reverse(),
		);
		for (const record of records)
			expect((await client.get(`/webhooks/${webhook.id}/deliveries/${record.id}`)).data).toEqual(
				record,
			);
		const [newest, oldest] = records;
		const only = async (from: string, to: string) =>
			(
				(await client.get(`/webhooks/${webhook.id}/deliveries`, { params: { from, to } })).data as {
					data: Array<{ id: string }>;
				}
			).data.map((record) => record.id);
		await expect(only(oldest.created_at, oldest.created_at)).resolves.toEqual([oldest.id]);
		await expect(only(newest.created_at, '2099-01-01T00:00:00Z')).resolves.toEqual([newest.id]);
		expectError(await client.get('/webhooks/wh_unknown/deliveries'), 404, 'not_found');
	});
});

describe('the delivery-own-times and no-delivery-endpoints dialects', () => {
	afterEach(() => sandbox().configure({ dialect: 'default' }));

	it("delivery-own-times: a delivery's time is 7 s after its audit entry's, its id its own", async () => {
		sandbox().configure({ dialect: 'delivery-own-times' });
		const { client, apiKey, target } = await setup(['document.created']);
		await client.post('/documents', documentBody());
		await sandbox().flushDeliveries();
		const [body] = bodies(target);
		const entry = sandbox()
			.store.auditLogOf(apiKey)
			.find((one) => one.event === 'document.created') as { id: string; created_at: string };
		expect(Date.parse(body.created_at) - Date.parse(entry.created_at)).toBe(7_000);
		expect(body.id).not.toBe(entry.id);
		expect(sandbox().deliveryRecord(body.id)?.created_at).toBe(body.created_at);
	});

	it('no-delivery-endpoints: the list is no route either (404)', async () => {
		const { client, webhook } = await setup(['document.created']);
		sandbox().configure({ dialect: 'no-delivery-endpoints' });
		expect((await client.get(`/webhooks/${webhook.id}/deliveries`)).status).toBe(404);
	});
});
