import nock from 'nock';
/**
 * Deliveries into the trigger's webhook(), through n8n-core's WebhookContext.
 *
 * The sandbox delivers real, signed requests to a tiny 127.0.0.1 receiver that stands in for
 * n8n's webhook endpoint: it keeps the exact bytes and headers it got, hands them to the node and
 * answers the sandbox with what n8n would answer. Recorded requests are then replayed and forged.
 */
import { useSandbox, webhookSecret } from '../helpers/sandbox';
import type { IDataObject } from 'n8n-workflow';

import { RETRY_POLICY } from '../../nodes/shared/transport';
import { signWebhookPayload } from '../../nodes/shared/webhookSignature';
import { Receiver, TriggerHost, type IncomingDelivery } from './harness';

const sandbox = useSandbox({ port: 0, host: '127.0.0.1', webhookRetry: { baseDelayMs: 5, maxAttempts: 4, timeoutMs: 5000 } });
const receiver = new Receiver();

beforeAll(async () => {
	await receiver.start();
});

afterAll(async () => {
	await receiver.close();
});

beforeEach(() => {
	receiver.received.length = 0;
	receiver.answerOverride = undefined;
});

async function activeTrigger(events: string[], options: IDataObject = {}) {
	const { apiKey } = sandbox().createAccount();
	const host = new TriggerHost({ baseUrl: sandbox().baseUrl, apiKey, webhookBaseUrl: receiver.webhookBaseUrl, events, options });
	receiver.hosts.set(host.nodeWebhookId, host);
	await host.activate();
	expect(sandbox().store.webhooksOf(apiKey)).toHaveLength(1);
	const webhookId = String(host.nodeStaticData.webhookId);
	return { host, apiKey, secret: String(webhookSecret(sandbox(), apiKey, webhookId)) };
}

/** Creates and sends a document: the service emits document.created, signature.requested, document.sent. */
async function sendDocument(apiKey: string): Promise<{ id: string }> {
	const response = await fetch(`${sandbox().baseUrl}/documents`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({ name: 'contract.pdf', signers: [{ email: 'ada@example.com', name: 'Ada Lovelace' }] }),
	});
	expect(response.status).toBe(201);
	const document = (await response.json()) as { id: string };
	await sandbox().flushDeliveries();
	return document;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Makes the transport's retries quick while `run` runs. */
async function withFastRetries<T>(run: () => Promise<T>): Promise<T> {
	const saved = { ...RETRY_POLICY };
	Object.assign(RETRY_POLICY, { baseDelayMs: 1, maxDelayMs: 2 });
	try {
		return await run();
	} finally {
		Object.assign(RETRY_POLICY, saved);
	}
}

function signedDelivery(secret: string, body: object | string, t = nowSeconds()): IncomingDelivery {
	const raw = typeof body === 'string' ? body : JSON.stringify(body);
	return {
		headers: { 'content-type': 'application/json', 'x-signature': signWebhookPayload(secret, t, raw) },
		rawBody: Buffer.from(raw, 'utf8'),
	};
}

let deliverySeq = 0;
function deliveryBody(event = 'document.completed', extra: Record<string, unknown> = {}) {
	deliverySeq++;
	return {
		id: `dlv_forged${String(deliverySeq).padStart(6, '0')}`,
		event,
		created_at: '2026-11-22T10:00:00.000Z',
		webhook_id: 'wh_test',
		data: { document: { id: 'doc_test', name: 'contract.pdf', status: 'completed' } },
		...extra,
	};
}

/**
 * An active trigger and a real delivery the service made but n8n never ran (it could not start
 * the execution, and the service gave up after one attempt): recorded as failed, unclaimed.
 */
async function unclaimedDelivery() {
	const trigger = await activeTrigger(['document.sent']);
	trigger.host.failStarts = Number.MAX_SAFE_INTEGER;
	sandbox().configure({ webhookRetry: { maxAttempts: 1 } });
	try {
		await sendDocument(trigger.apiKey);
	} finally {
		sandbox().configure({ webhookRetry: { maxAttempts: 4 } });
		trigger.host.failStarts = 0;
	}
	const body = receiver.received[0].rawBody.toString('utf8');
	expect(sandbox().deliveryRecord(JSON.parse(body).id)?.status).toBe('failed');
	return { ...trigger, body };
}

const deliveryIdOf = (request: IncomingDelivery): string => JSON.parse(request.rawBody.toString('utf8')).id as string;

describe('a real delivery from the sandbox', () => {
	it('starts one execution that claims the delivery and passes on { event, deliveryId, timestamp, data, webhookId }', async () => {
		const { host, apiKey } = await activeTrigger(['document.sent']);
		const document = await sendDocument(apiKey);
		await host.idle();

		// The service sends only the subscribed event, answered 2xx on the first attempt.
		const attempts = sandbox().deliveries().filter((attempt) => attempt.url === host.webhookUrl);
		expect(attempts.map((attempt) => [attempt.event, attempt.attempt, attempt.status])).toEqual([['document.sent', 1, 200]]);
		expect(receiver.received).toHaveLength(1);
		expect(Buffer.isBuffer(receiver.received[0].rawBody)).toBe(true);

		expect(host.executions).toHaveLength(1);
		const [execution] = host.executions;
		expect(execution.error).toBeUndefined();
		expect(execution.items).toHaveLength(1);
		const sent = receiver.received[0];
		const body = JSON.parse(sent.rawBody.toString('utf8'));
		const item = execution.items[0].json;
		expect(Object.keys(item).sort()).toEqual(['data', 'deliveryId', 'event', 'timestamp', 'webhookId']);
		expect(item.event).toBe('document.sent');
		expect(item.deliveryId).toBe(body.id);
		expect(item.deliveryId).toBe(sent.headers['x-delivery-id']);
		expect(item.deliveryId).toMatch(/^dlv_/);
		expect(item.timestamp).toBe(body.created_at);
		expect(item.webhookId).toBe(host.nodeStaticData.webhookId);
		expect((item.data as { document: { id: string } }).document.id).toBe(document.id);
		expect(item.data).toEqual(body.data);
		expect(execution.items[0].pairedItem).toEqual({ item: 0 });
		// The execution claimed it at the service.
		expect(sandbox().deliveryRecord(body.id)).toMatchObject({ status: 'acknowledged', webhook_id: host.nodeStaticData.webhookId });
	});

	it('replaying the exact same request (same delivery id): its execution passes nothing on', async () => {
		const { host, apiKey } = await activeTrigger(['document.sent']);
		await sendDocument(apiKey);
		await host.idle();
		const original = receiver.received[0];

		const replay = await host.receive({ headers: original.headers, rawBody: original.rawBody });
		expect(replay.status).toBe(200);
		const execution = await replay.execution!;

		expect(execution.received).toHaveLength(1);
		expect(execution.items).toEqual([]);
		expect(execution.error).toBeUndefined();
		expect(host.processed).toHaveLength(1);
	});

	it('a retry by the service after a lost answer is processed once, whichever arrives first: the retry or the claim', async () => {
		const { host, apiKey } = await activeTrigger(['document.sent']);
		let failedOnce = false;
		receiver.answerOverride = (request) => {
			if (!failedOnce && request.outcome.started) {
				failedOnce = true;
				return 503;
			}
			return undefined;
		};

		await sendDocument(apiKey);
		await host.idle();
		await sandbox().flushDeliveries();
		await host.idle();

		const sentRequests = receiver.received.filter((request) => request.headers['x-event'] === 'document.sent');
		const deliveryId = deliveryIdOf(sentRequests[0]);
		// Either the claim ended the retries before the next attempt, or the retry came and its
		// execution lost the claim: never a second processing.
		expect(sentRequests.length).toBeGreaterThanOrEqual(1);
		expect(sentRequests.every((request) => request.rawBody.equals(sentRequests[0].rawBody))).toBe(true);
		expect(host.processed.map((execution) => execution.items[0].json.deliveryId)).toEqual([deliveryId]);
		expect(host.executions).toHaveLength(sentRequests.length);
		expect(sandbox().deliveryRecord(deliveryId)?.status).toBe('acknowledged');
	});

	it('three copies of one delivery arriving at the same time: three executions, one passes it on', async () => {
		const { host, apiKey } = await activeTrigger(['document.sent']);
		await sendDocument(apiKey);
		await host.idle();
		const original = receiver.received[0];
		const before = host.executions.length;
		// Claims are settled at the service, so whether the copies reach one n8n process or three
		// (webhook processors in queue mode) makes no difference.
		const copy = () => host.receive({ headers: original.headers, rawBody: original.rawBody });
		const outcomes = await Promise.all([copy(), copy(), copy()]);
		expect(outcomes.map((outcome) => outcome.status)).toEqual([200, 200, 200]);
		await host.idle();
		expect(host.executions).toHaveLength(before + 3);
		expect(host.processed).toHaveLength(1);
	});

	it('new copies of a delivery not yet claimed race for it: exactly one execution passes it on', async () => {
		const { host, secret, body } = await unclaimedDelivery();

		const outcomes = await Promise.all(Array.from({ length: 5 }, () => host.receive(signedDelivery(secret, body))));
		await Promise.all(outcomes.map((outcome) => outcome.execution));
		expect(host.executions).toHaveLength(5);
		expect(host.processed).toHaveLength(1);
		expect(sandbox().deliveryRecord(JSON.parse(body).id)?.status).toBe('acknowledged');
	});

	it('a delivery whose execution n8n could not start is processed when the service retries it', async () => {
		const { host, apiKey } = await activeTrigger(['document.sent']);
		host.failStarts = 1;
		await sendDocument(apiKey);
		await host.idle();

		const attempts = sandbox().deliveries().filter((attempt) => attempt.url === host.webhookUrl);
		expect(attempts.map((attempt) => [attempt.attempt, attempt.status])).toEqual([
			[1, 500],
			[2, 200],
		]);
		expect(host.processed).toHaveLength(1);
		expect(host.processed[0].items[0].json.deliveryId).toBe(attempts[0].deliveryId);
	});

	it('the same delivery stays claimed for a later n8n (nothing is kept in the process or in static data)', async () => {
		const { host, apiKey } = await activeTrigger(['document.sent']);
		await sendDocument(apiKey);
		await host.idle();
		const original = receiver.received[0];
		const registration = structuredClone(host.savedStaticData);

		// Another n8n process (or the same one restarted): same database, nothing else shared.
		const other = new TriggerHost({ baseUrl: sandbox().baseUrl, apiKey, webhookBaseUrl: receiver.webhookBaseUrl, events: ['document.sent'], workflowId: host.workflowId, nodeWebhookId: host.nodeWebhookId });
		other.savedStaticData = structuredClone(host.savedStaticData);
		const outcome = await other.receive({ headers: original.headers, rawBody: original.rawBody });
		expect(outcome.started).toBe(true);
		expect((await outcome.execution!).items).toEqual([]);
		// No request wrote anything to the workflow's static data.
		expect(host.savedStaticData).toEqual(registration);
		expect(Object.keys(host.nodeStaticData).sort()).toEqual(['keyCheck', 'secretNonce', 'webhookEvents', 'webhookId', 'webhookUrl']);
	});

	it('a retry (attempt 2+) of a delivery already claimed is answered 2xx with no execution; first attempts are never checked', async () => {
		const { host, apiKey, secret } = await activeTrigger(['document.sent']);
		const checks = () => sandbox().stats().routes['GET /v1/webhooks/:id/deliveries/:deliveryId'] ?? 0;
		const checksBefore = checks();
		await sendDocument(apiKey);
		await host.idle();
		expect(receiver.received[0].headers['x-delivery-attempt']).toBe('1');
		expect(checks()).toBe(checksBefore);
		const body = receiver.received[0].rawBody.toString('utf8');
		const retry = (attempt: string) => {
			const delivery = signedDelivery(secret, body);
			delivery.headers['x-delivery-attempt'] = attempt;
			return host.receive(delivery);
		};

		const second = await retry('2');
		expect(second).toMatchObject({ status: 200, started: false, body: { ignored: true, reason: 'already processed' } });
		expect(checks()).toBe(checksBefore + 1);
		// Without the attempt header (or as attempt 1) it is left to the execution's claim.
		const unnumbered = await retry('1');
		expect(unnumbered.started).toBe(true);
		expect((await unnumbered.execution!).items).toEqual([]);
		expect(checks()).toBe(checksBefore + 1);
		expect(host.processed).toHaveLength(1);
	});

	it('a retry of a delivery nobody claimed yet starts its execution; so does one when the check fails', async () => {
		const { host, secret, body } = await unclaimedDelivery();
		const retry = () => {
			const delivery = signedDelivery(secret, body);
			delivery.headers['x-delivery-attempt'] = '3';
			return host.receive(delivery);
		};

		// The service is failing: the check gives up at once (no retries), the execution decides.
		sandbox().configure({ failureRate: 1 });
		let failedCheck: Awaited<ReturnType<typeof retry>>;
		try {
			failedCheck = await retry();
		} finally {
			sandbox().configure({ failureRate: 0 });
		}
		expect(failedCheck.started).toBe(true);

		const unclaimed = await retry();
		expect(unclaimed.started).toBe(true);
		await host.idle();
		expect(host.processed).toHaveLength(1);
		expect(host.executions.length).toBeGreaterThanOrEqual(2);
	});

	it('Include Headers adds the request headers without the signature', async () => {
		const { host, apiKey } = await activeTrigger(['document.sent'], { includeHeaders: true });
		await sendDocument(apiKey);
		await host.idle();

		expect(host.processed).toHaveLength(1);
		const item = host.processed[0].items[0].json;
		const headers = item.headers as Record<string, unknown>;
		expect(headers).toBeDefined();
		expect(headers['x-delivery-id']).toBe(item.deliveryId);
		expect(headers['x-event']).toBe('document.sent');
		expect(headers['content-type']).toBe('application/json');
		expect(Object.keys(headers).map((name) => name.toLowerCase())).not.toContain('x-signature');
	});

	it('real deliveries of events the node does not select are answered 2xx and start nothing', async () => {
		// Subscribed to everything on the service, while the node now selects one event only.
		const { host, apiKey } = await activeTrigger(['*']);
		host.parameters.events = ['document.sent'];
		await sendDocument(apiKey);
		await host.idle();

		const attempts = sandbox().deliveries().filter((attempt) => attempt.url === host.webhookUrl);
		expect(attempts.map((attempt) => attempt.event).sort()).toEqual(['document.created', 'document.sent', 'signature.requested']);
		expect(attempts.every((attempt) => attempt.ok && attempt.attempt === 1)).toBe(true);
		const ignored = receiver.received.filter((request) => !request.outcome.started);
		expect(ignored.map((request) => JSON.parse(request.rawBody.toString('utf8')).event).sort()).toEqual([
			'document.created',
			'signature.requested',
		]);
		expect(host.executions.map((execution) => execution.items[0].json.event)).toEqual(['document.sent']);
	});

	it('"Any Event" starts one execution per event', async () => {
		const { host, apiKey } = await activeTrigger(['*']);
		await sendDocument(apiKey);
		await host.idle();
		expect(host.processed.map((execution) => execution.items[0].json.event).sort()).toEqual([
			'document.created',
			'document.sent',
			'signature.requested',
		]);
	});
});

describe('when the claim cannot be made', () => {
	/** The key was revoked at the service after activation: the claim is answered 401. */
	const refuseClaims = () =>
		nock(sandbox().origin, { allowUnmocked: true })
			.post(/\/v1\/webhooks\/[^/]+\/deliveries\/[^/]+\/acknowledge$/)
			.reply(401, { error: { code: 'unauthorized', message: 'The API key was revoked' } });
	afterEach(() => nock.cleanAll());

	it('a service that does not know the delivery (404): the event is passed on anyway, at least once', async () => {
		const { host, secret } = await activeTrigger(['document.completed']);
		// Signed correctly, but the service never made this delivery (nor webhook wh_test).
		const outcome = await host.receive(signedDelivery(secret, deliveryBody()));
		const execution = await outcome.execution!;
		expect(execution.error).toBeUndefined();
		expect(execution.items).toHaveLength(1);
		expect(execution.items[0].json.webhookId).toBe('wh_test');
	});

	it('a refused key (401): the execution fails with the service message, retryable from n8n, nothing passed on', async () => {
		const { host, apiKey } = await activeTrigger(['document.sent']);
		refuseClaims();
		await sendDocument(apiKey);
		await host.idle();

		const [execution] = host.executions;
		expect(execution.items).toEqual([]);
		expect(execution.error).toBeDefined();
		expect(execution.error!.httpCode).toBe('401');
		expect(execution.error!.message).toBe('The API key was revoked');
		expect(JSON.stringify(execution.error)).not.toContain(apiKey);
		// Unclaimed: a retry of this execution (or a later copy) can still claim it.
		expect(sandbox().deliveryRecord(String(execution.received[0].json.deliveryId))?.status).toBe('received');
	});

	it('with Continue On Fail the event is passed on with the reason it is unconfirmed', async () => {
		const { apiKey } = sandbox().createAccount();
		const host = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: receiver.webhookBaseUrl,
			events: ['document.sent'],
			continueOnFail: true,
		});
		receiver.hosts.set(host.nodeWebhookId, host);
		await host.activate();
		refuseClaims();
		await sendDocument(apiKey);
		await host.idle();

		const [execution] = host.executions;
		expect(execution.error).toBeUndefined();
		expect(execution.items).toHaveLength(1);
		expect(execution.items[0].json).toMatchObject({ event: 'document.sent', claimError: 'The API key was revoked' });
		expect(String(execution.items[0].json.claimError)).not.toContain(apiKey);
	});
});

describe('forged and invalid deliveries', () => {
	let host: TriggerHost;
	let secret: string;

	beforeAll(async () => {
		({ host, secret } = await activeTrigger(['document.completed']));
	});

	const hex64 = (char: string) => char.repeat(64);

	const cases: Array<[string, () => IncomingDelivery]> = [
		['missing signature header', () => {
			const delivery = signedDelivery(secret, deliveryBody());
			delete delivery.headers['x-signature'];
			return delivery;
		}],
		['empty signature header', () => ({ ...signedDelivery(secret, deliveryBody()), headers: { 'x-signature': '' } })],
		['signed with the wrong secret', () => signedDelivery('another-secret-that-is-long-enough-000000', deliveryBody())],
		['tampered body (same length)', () => {
			const delivery = signedDelivery(secret, deliveryBody());
			const tampered = delivery.rawBody.toString('utf8').replace('"doc_test"', '"doc_evil"');
			return { ...delivery, rawBody: Buffer.from(tampered, 'utf8') };
		}],
		['tampered body (extra whitespace)', () => {
			const delivery = signedDelivery(secret, deliveryBody());
			return { ...delivery, rawBody: Buffer.concat([delivery.rawBody, Buffer.from(' ')]) };
		}],
		['tampered timestamp', () => {
			const t = nowSeconds();
			const raw = JSON.stringify(deliveryBody());
			const v1 = signWebhookPayload(secret, t, raw).split('v1=')[1];
			return { headers: { 'x-signature': `t=${t - 1},v1=${v1}` }, rawBody: Buffer.from(raw) };
		}],
		['stale timestamp (correctly signed, 301 s old)', () => signedDelivery(secret, deliveryBody(), nowSeconds() - 301)],
		['timestamp far in the future (correctly signed)', () => signedDelivery(secret, deliveryBody(), nowSeconds() + 3600)],
		['malformed header', () => ({ ...signedDelivery(secret, deliveryBody()), headers: { 'x-signature': 'garbage' } })],
		['malformed header (non-numeric t, non-hex v1)', () => ({
			...signedDelivery(secret, deliveryBody()),
			headers: { 'x-signature': 't=yesterday,v1=zzzz' },
		})],
		['wrong algorithm prefix (v0=)', () => {
			const delivery = signedDelivery(secret, deliveryBody());
			return { ...delivery, headers: { 'x-signature': String(delivery.headers['x-signature']).replace('v1=', 'v0=') } };
		}],
		['wrong algorithm prefix (sha256=)', () => {
			const delivery = signedDelivery(secret, deliveryBody());
			return { ...delivery, headers: { 'x-signature': String(delivery.headers['x-signature']).replace('v1=', 'sha256=') } };
		}],
		['signature of the wrong length', () => ({
			...signedDelivery(secret, deliveryBody()),
			headers: { 'x-signature': `t=${nowSeconds()},v1=${hex64('a').slice(0, 40)}` },
		})],
		['empty body (correctly signed)', () => signedDelivery(secret, '')],
		['no raw body at all', () => ({ ...signedDelivery(secret, deliveryBody()), rawBody: undefined as unknown as Buffer })],
	];

	it.each(cases)('%s → 401 and no execution', async (_name, build) => {
		const before = host.executions.length;
		const savedBefore = JSON.stringify(host.savedStaticData);

		const outcome = await host.receive(build());

		expect(outcome.status).toBe(401);
		expect(outcome.started).toBe(false);
		expect(outcome.result).toEqual({ noWebhookResponse: true });
		expect(outcome.body).toMatchObject({ error: { code: 'invalid_signature' } });
		expect(host.executions).toHaveLength(before);
		// A refused request writes nothing.
		expect(JSON.stringify(host.savedStaticData)).toBe(savedBefore);
	});

	it('the same construction with a valid signature is accepted (control for the table above)', async () => {
		const body = deliveryBody();
		const outcome = await host.receive(signedDelivery(secret, body));
		expect(outcome.status).toBe(200);
		expect(outcome.started).toBe(true);
		expect((await outcome.execution!).received[0].json).toEqual({
			event: 'document.completed',
			deliveryId: body.id,
			timestamp: body.created_at,
			data: body.data,
			webhookId: 'wh_test',
		});
	});

	it('a signed delivery for an event that was not chosen → 2xx and no execution', async () => {
		const before = host.executions.length;
		const outcome = await host.receive(signedDelivery(secret, deliveryBody('document.viewed')));
		expect(outcome.status).toBe(200);
		expect(outcome.started).toBe(false);
		expect(outcome.body).toMatchObject({ ignored: true, reason: 'event not selected' });
		expect(host.executions).toHaveLength(before);
	});

	it('the event comes from the signed body, not from the unsigned X-Event header', async () => {
		const before = host.executions.length;
		const delivery = signedDelivery(secret, deliveryBody('document.viewed'));
		delivery.headers['x-event'] = 'document.completed';
		const outcome = await host.receive(delivery);
		expect(outcome.started).toBe(false);
		expect(host.executions).toHaveLength(before);
	});

	it('a signed body without an event starts nothing, whatever X-Event says', async () => {
		const before = host.executions.length;
		const withoutEvent: Record<string, unknown> = deliveryBody();
		delete withoutEvent.event;
		const delivery = signedDelivery(secret, withoutEvent);
		delivery.headers['x-event'] = 'document.completed';
		const outcome = await host.receive(delivery);
		expect(outcome.status).toBe(200);
		expect(outcome.started).toBe(false);
		expect(host.executions).toHaveLength(before);
	});

	it('a correctly signed body that is not a JSON object → 400 and no execution', async () => {
		const before = host.executions.length;
		const outcome = await host.receive(signedDelivery(secret, '["not", "an", "object"]'));
		expect(outcome.status).toBe(400);
		expect(outcome.started).toBe(false);
		expect(host.executions).toHaveLength(before);
	});

	it('refuses everything while no secret is stored (the trigger was never activated)', async () => {
		const { apiKey } = sandbox().createAccount();
		const inactive = new TriggerHost({ baseUrl: sandbox().baseUrl, apiKey, webhookBaseUrl: receiver.webhookBaseUrl, events: ['*'] });
		const outcome = await inactive.receive(signedDelivery('', deliveryBody()));
		expect(outcome.status).toBe(401);
		expect(inactive.executions).toHaveLength(0);
	});
});

describe('options', () => {
	const signEveryone = async (apiKey: string, documentId: string) => {
		const row = sandbox().store.documentsOf(apiKey).find((document) => document.id === documentId)!;
		for (const signer of row.signers) sandbox().actAsSigner(documentId, signer.id, 'sign');
		await sandbox().flushDeliveries();
	};

	it('Attach Signed File: a completed document arrives with its signed PDF as binary "data", byte for byte', async () => {
		const { host, apiKey } = await activeTrigger(['document.completed', 'document.sent'], { attachSignedFile: true });
		const { id } = await sendDocument(apiKey);
		await signEveryone(apiKey, id);
		await host.idle();
		const events = host.processed.map((execution) => execution.items[0]);
		expect(events.map((item) => item.json.event).sort()).toEqual(['document.completed', 'document.sent']);
		const completed = events.find((item) => item.json.event === 'document.completed')!;
		const signed = await sandbox().documentFile(id, 'signed');
		expect(completed.binary?.data.mimeType).toBe('application/pdf');
		expect(completed.binary?.data.fileName).toBe(signed.fileName);
		expect(Buffer.from(completed.binary!.data.data, 'base64').equals(signed.data)).toBe(true);
		// Other events carry no file.
		expect(events.find((item) => item.json.event === 'document.sent')!.binary).toBeUndefined();
	});

	it('Attach Signed File: a failed download fails the execution with the service message and leaves the delivery unclaimed', async () => {
		const { host, apiKey } = await activeTrigger(['document.completed'], { attachSignedFile: true });
		const { id } = await sendDocument(apiKey);
		const scope = nock(sandbox().origin, { allowUnmocked: true })
			.get(/\/v1\/documents\/[^/]+\/file/)
			.times(20)
			.reply(503, { error: { code: 'unavailable', message: 'File storage is down' } });
		try {
			await withFastRetries(async () => {
				await signEveryone(apiKey, id);
				await host.idle();
			});
		} finally {
			nock.cleanAll();
		}
		expect(scope.pendingMocks().length).toBeLessThan(20);
		const failed = host.executions.filter((execution) => execution.error);
		expect(failed.length).toBeGreaterThan(0);
		expect(failed[0].error!.message).toBe('File storage is down');
		expect(host.processed).toHaveLength(0);
		expect(sandbox().deliveryRecord(String(failed[0].received[0].json.deliveryId))?.status).not.toBe('acknowledged');
	});

	it('Signature Tolerance (Seconds) narrows and widens the accepted window', async () => {
		const strict = await activeTrigger(['*'], { signatureToleranceSeconds: 10 });
		const lenient = await activeTrigger(['*'], { signatureToleranceSeconds: 1000 });
		const t = nowSeconds() - 60;

		expect((await strict.host.receive(signedDelivery(strict.secret, deliveryBody(), t))).status).toBe(401);
		expect((await lenient.host.receive(signedDelivery(lenient.secret, deliveryBody(), t))).status).toBe(200);
		await lenient.host.idle();
		expect(strict.host.executions).toHaveLength(0);
		expect(lenient.host.executions).toHaveLength(1);
	});
});
