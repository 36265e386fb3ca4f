import nock from 'nock';
/**
 * Deliveries into the trigger's webhook(), through n8n-core's WebhookContext: what a real
 * delivery starts and passes on, forged and invalid deliveries, and the options. How a delivery
 * is claimed exactly once at the service, and how repeats are recognised, is claim.test.ts.
 *
 * The sandbox delivers real, signed requests to a tiny 127.0.0.1 receiver that stands in for
 * n8n's webhook endpoint: it keeps the exact bytes and headers it got, hands them to the node and
 * answers the sandbox with what n8n would answer. Recorded requests are then replayed and forged.
 */
import {
	signWebhookPayload,
	type DeliverySignatureStyle,
} from '../../../sandbox/deliverySignature';
import { captureWarnings, TriggerHost, type IncomingDelivery } from '../../helpers/triggerHost';
import {
	deliveryBody,
	deliveryIn,
	nowSeconds,
	signedDelivery,
	useDeliveryFixtures,
} from '../../helpers/deliveryFixtures';
import { withInstantWaits } from '../../helpers/instantWaits';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../../helpers/instantWaits').n8nWorkflowWithInstantWaits(),
);

const { sandbox, receiver, activeTrigger, sendDocument } = useDeliveryFixtures();

describe('a real delivery from the sandbox', () => {
	it('starts one execution that claims the delivery and passes on { event, deliveryId, timestamp, data, webhookId, via }', async () => {
		const { host, apiKey } = await activeTrigger(['document.sent']);
		const document = await sendDocument(apiKey);
		await host.idle();

		// The service sends only the subscribed event, answered 2xx on the first attempt.
		const attempts = sandbox()
			.deliveries()
			.filter((attempt) => attempt.url === host.webhookUrl);
		expect(attempts.map((attempt) => [attempt.event, attempt.attempt, attempt.status])).toEqual([
			['document.sent', 1, 200],
		]);
		expect(receiver.receivedBy(host)).toHaveLength(1);
		expect(Buffer.isBuffer(receiver.receivedBy(host)[0].rawBody)).toBe(true);

		expect(host.executions).toHaveLength(1);
		const [execution] = host.executions;
		expect(execution.error).toBeUndefined();
		expect(execution.items).toHaveLength(1);
		const sent = receiver.receivedBy(host)[0];
		const body = JSON.parse(sent.rawBody.toString('utf8'));
		const item = execution.items[0].json;
		expect(Object.keys(item).sort()).toEqual([
			'data',
			'deliveryId',
			'event',
			'timestamp',
			'via',
			'webhookId',
		]);
		expect(item.via).toBe('webhook');
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
		expect(sandbox().deliveryRecord(body.id)).toMatchObject({
			status: 'acknowledged',
			webhook_id: host.nodeStaticData.webhookId,
		});
	});

	it('Include Headers adds the request headers without the signature', async () => {
		const { host, apiKey } = await activeTrigger(['document.sent'], { includeHeaders: true });
		await sendDocument(apiKey);
		await host.idle();

		expect(host.processed).toHaveLength(1);
		const item = host.processed[0].items[0].json;
		const headers = item.headers as Record<string, unknown>;
		expect(headers).toMatchObject({
			'x-delivery-id': item.deliveryId,
			'x-event': 'document.sent',
			'content-type': 'application/json',
		});
		expect(Object.keys(headers).map((name) => name.toLowerCase())).not.toContain('x-signature');
	});

	it('real deliveries of events the node does not select are answered 2xx and start nothing', async () => {
		// Subscribed to everything on the service, while the node now selects one event only.
		const { host, apiKey } = await activeTrigger(['*']);
		host.parameters.events = ['document.sent'];
		await sendDocument(apiKey);
		await host.idle();

		const attempts = sandbox()
			.deliveries()
			.filter((attempt) => attempt.url === host.webhookUrl);
		expect(attempts.map((attempt) => attempt.event).sort()).toEqual([
			'document.created',
			'document.sent',
			'signature.requested',
		]);
		expect(attempts.every((attempt) => attempt.ok && attempt.attempt === 1)).toBe(true);
		const ignored = receiver.receivedBy(host).filter((request) => !request.outcome.started);
		expect(
			ignored.map((request) => JSON.parse(request.rawBody.toString('utf8')).event).sort(),
		).toEqual(['document.created', 'signature.requested']);
		expect(host.executions.map((execution) => execution.items[0].json.event)).toEqual([
			'document.sent',
		]);
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

describe('forged and invalid deliveries', () => {
	let host: TriggerHost;
	let secret: string;

	beforeAll(async () => {
		({ host, secret } = await activeTrigger(['document.completed']));
	});

	const hex64 = (char: string) => char.repeat(64);

	const cases: Array<[string, () => IncomingDelivery]> = [
		[
			'missing signature header',
			() => {
				const delivery = signedDelivery(secret, deliveryBody());
				delete delivery.headers['x-signature'];
				return delivery;
			},
		],
		[
			'empty signature header',
			() => ({ ...signedDelivery(secret, deliveryBody()), headers: { 'x-signature': '' } }),
		],
		[
			'signed with the wrong secret',
			() => signedDelivery('another-secret-that-is-long-enough-000000', deliveryBody()),
		],
		[
			'tampered body (same length)',
			() => {
				const delivery = signedDelivery(secret, deliveryBody());
				const tampered = delivery.rawBody.toString('utf8').replace('"doc_test"', '"doc_evil"');
				return { ...delivery, rawBody: Buffer.from(tampered, 'utf8') };
			},
		],
		[
			'tampered body (extra whitespace)',
			() => {
				const delivery = signedDelivery(secret, deliveryBody());
				return { ...delivery, rawBody: Buffer.concat([delivery.rawBody, Buffer.from(' ')]) };
			},
		],
		[
			'tampered timestamp',
			() => {
				const t = nowSeconds();
				const raw = JSON.stringify(deliveryBody());
				const v1 = signWebhookPayload(secret, t, raw).split('v1=')[1];
				return { headers: { 'x-signature': `t=${t - 1},v1=${v1}` }, rawBody: Buffer.from(raw) };
			},
		],
		[
			'stale timestamp (correctly signed, 301 s old)',
			() => signedDelivery(secret, deliveryBody(), nowSeconds() - 301),
		],
		[
			'timestamp far in the future (correctly signed)',
			() => signedDelivery(secret, deliveryBody(), nowSeconds() + 3600),
		],
		[
			'malformed header',
			() => ({ ...signedDelivery(secret, deliveryBody()), headers: { 'x-signature': 'garbage' } }),
		],
		[
			'malformed header (non-numeric t, non-hex v1)',
			() => ({
				...signedDelivery(secret, deliveryBody()),
				headers: { 'x-signature': 't=yesterday,v1=zzzz' },
			}),
		],
		[
			'wrong algorithm prefix (v0=)',
			() => {
				const delivery = signedDelivery(secret, deliveryBody());
				return {
					...delivery,
					headers: { 'x-signature': String(delivery.headers['x-signature']).replace('v1=', 'v0=') },
				};
			},
		],
		[
			'wrong algorithm prefix (sha256=)',
			() => {
				const delivery = signedDelivery(secret, deliveryBody());
				return {
					...delivery,
					headers: {
						'x-signature': String(delivery.headers['x-signature']).replace('v1=', 'sha256='),
					},
				};
			},
		],
		[
			'signature of the wrong length',
			() => ({
				...signedDelivery(secret, deliveryBody()),
				headers: { 'x-signature': `t=${nowSeconds()},v1=${hex64('a').slice(0, 40)}` },
			}),
		],
		['empty body (correctly signed)', () => signedDelivery(secret, '')],
		[
			'no raw body at all',
			() => ({
				...signedDelivery(secret, deliveryBody()),
				rawBody: undefined as unknown as Buffer,
			}),
		],
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
			via: 'webhook',
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
		const inactive = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: receiver.webhookBaseUrl,
			events: ['*'],
		});
		const outcome = await inactive.receive(signedDelivery('', deliveryBody()));
		expect(outcome.status).toBe(401);
		expect(inactive.executions).toHaveLength(0);
	});
});

describe('options', () => {
	const signEveryone = async (apiKey: string, documentId: string) => {
		const row = sandbox()
			.store.documentsOf(apiKey)
			.find((document) => document.id === documentId)!;
		for (const signer of row.signers) sandbox().actAsSigner(documentId, signer.id, 'sign');
		await sandbox().flushDeliveries();
	};

	it('Attach Signed File: a completed document arrives with its signed PDF as binary "data", byte for byte', async () => {
		const { host, apiKey } = await activeTrigger(['document.completed', 'document.sent'], {
			attachSignedFile: true,
		});
		const { id } = await sendDocument(apiKey);
		await signEveryone(apiKey, id);
		await host.idle();
		const events = host.processed.map((execution) => execution.items[0]);
		expect(events.map((item) => item.json.event).sort()).toEqual([
			'document.completed',
			'document.sent',
		]);
		const completed = events.find((item) => item.json.event === 'document.completed')!;
		const signed = await sandbox().documentFile(id, 'signed');
		expect(completed.binary?.data.mimeType).toBe('application/pdf');
		expect(completed.binary?.data.fileName).toBe(signed.fileName);
		expect(Buffer.from(completed.binary!.data.data, 'base64').equals(signed.data)).toBe(true);
		// Other events carry no file.
		expect(events.find((item) => item.json.event === 'document.sent')!.binary).toBeUndefined();
	});

	it('Attach Signed File: a failed download fails the execution with the service message and leaves the delivery unclaimed', async () => {
		const { host, apiKey } = await activeTrigger(['document.completed'], {
			attachSignedFile: true,
		});
		const { id } = await sendDocument(apiKey);
		const scope = nock(sandbox().origin, { allowUnmocked: true })
			.get(/\/v1\/documents\/[^/]+\/file/)
			.times(20)
			.reply(503, { error: { code: 'unavailable', message: 'File storage is down' } });
		try {
			await withInstantWaits(async () => {
				await signEveryone(apiKey, id);
				await host.idle();
			});
		} finally {
			nock.cleanAll();
		}
		expect(scope.pendingMocks().length).toBeLessThan(20);
		const failed = host.executions.filter((execution) => execution.error);
		expect(failed).toHaveLength(1);
		expect(failed[0].error!.message).toBe('File storage is down');
		expect(host.processed).toHaveLength(0);
		expect(
			sandbox().deliveryRecord(String(failed[0].received[0].json.deliveryId))?.status,
		).not.toBe('acknowledged');
	});

	it('Signature Tolerance (Seconds) narrows and widens the accepted window', async () => {
		const strict = await activeTrigger(['*'], { signatureToleranceSeconds: 10 });
		const lenient = await activeTrigger(['*'], { signatureToleranceSeconds: 1000 });
		const t = nowSeconds() - 60;

		expect(
			(await strict.host.receive(signedDelivery(strict.secret, deliveryBody(), t))).status,
		).toBe(401);
		expect(
			(await lenient.host.receive(signedDelivery(lenient.secret, deliveryBody(), t))).status,
		).toBe(200);
		await lenient.host.idle();
		expect(strict.host.executions).toHaveLength(0);
		expect(lenient.host.executions).toHaveLength(1);
	});
});

/** A delivery signed by the sandbox's signer in `style` (the service's side, written apart from the verifier). */
/** The warnings logged while `run` runs. */
async function warningsDuring(run: () => Promise<unknown>): Promise<string[]> {
	const warnings = captureWarnings();
	try {
		await run();
	} finally {
		warnings.restore();
	}
	return warnings.messages;
}

describe('signature layouts', () => {
	it.each<[DeliverySignatureStyle, string]>([
		['v1', 'timestamped-header'],
		['standard-webhooks', 'standard-webhooks'],
		['hub-sha256', 'body-hmac'],
		['signature-base64', 'body-hmac'],
		['timestamp-header', 'body-hmac-timestamp'],
	])('%s: verifies (Automatic) and starts one execution', async (style) => {
		const { host, secret } = await activeTrigger(['document.completed']);
		const outcome = await host.receive(deliveryIn(style, secret, deliveryBody()));
		expect(outcome.status).toBe(200);
		expect(outcome.started).toBe(true);
		await host.idle();
		expect(host.executions).toHaveLength(1);
	});

	it('Automatic: once a timestamped layout verified, a body-only HMAC of the same secret is refused (a replay stripped of its time)', async () => {
		const { host, secret } = await activeTrigger(['document.completed']);
		expect((await host.receive(deliveryIn('v1', secret, deliveryBody()))).status).toBe(200);
		let outcome: Awaited<ReturnType<TriggerHost['receive']>> | undefined;
		const warnings = await warningsDuring(async () => {
			outcome = await host.receive(deliveryIn('hub-sha256', secret, deliveryBody()));
		});
		expect(outcome).toMatchObject({ status: 401, started: false });
		const refusal = warnings.find((message) =>
			message.startsWith('Document Signing Trigger refused a delivery'),
		);
		expect(refusal).toContain('layout body-hmac');
		expect(refusal).toContain('timestamped-header, fixed by the first delivery that verified');
		expect(refusal).not.toMatch(/turn off|Verify Signatures/i);
		await host.idle();
		expect(host.executions).toHaveLength(1);
	});

	it('Automatic: the layout is fixed per registration, not for every trigger of the process', async () => {
		const first = await activeTrigger(['document.completed']);
		const second = await activeTrigger(['document.completed']);
		expect((await first.host.receive(deliveryIn('v1', first.secret, deliveryBody()))).status).toBe(
			200,
		);
		expect(
			(await second.host.receive(deliveryIn('hub-sha256', second.secret, deliveryBody()))).status,
		).toBe(200);
		expect(
			(await second.host.receive(deliveryIn('v1', second.secret, deliveryBody()))).status,
		).toBe(401);
		await Promise.all([first.host.idle(), second.host.idle()]);
	});

	it('Signature Layout set: only that layout verifies, from the first delivery on', async () => {
		const { host, secret } = await activeTrigger(['document.completed'], {
			signatureLayout: 'standard-webhooks',
		});
		expect((await host.receive(deliveryIn('v1', secret, deliveryBody()))).status).toBe(401);
		expect((await host.receive(deliveryIn('hub-sha256', secret, deliveryBody()))).status).toBe(401);
		expect(
			(await host.receive(deliveryIn('standard-webhooks', secret, deliveryBody()))).status,
		).toBe(200);
		await host.idle();
		expect(host.executions).toHaveLength(1);
	});

	it('Signature Layout "HMAC of Timestamp and Body": the signature without its timestamp header, or with a stale one, is refused', async () => {
		const { host, secret } = await activeTrigger(['document.completed'], {
			signatureLayout: 'body-hmac-timestamp',
		});
		const stripped = deliveryIn('timestamp-header', secret, deliveryBody());
		delete stripped.headers['X-Webhook-Timestamp'];
		expect((await host.receive(stripped)).status).toBe(401);
		expect(
			(
				await host.receive(
					deliveryIn('timestamp-header', secret, deliveryBody(), nowSeconds() - 301),
				)
			).status,
		).toBe(401);
		expect(
			(await host.receive(deliveryIn('unsigned-timestamp', secret, deliveryBody()))).status,
		).toBe(401);
		expect(
			(await host.receive(deliveryIn('timestamp-header', secret, deliveryBody()))).status,
		).toBe(200);
		await host.idle();
		expect(host.executions).toHaveLength(1);
	});

	it.each<DeliverySignatureStyle>([
		'standard-webhooks',
		'hub-sha256',
		'signature-base64',
		'timestamp-header',
	])('%s: another secret, a tampered body, no signature → 401, nothing runs', async (style) => {
		const { host, secret } = await activeTrigger(['document.completed']);
		const forged = deliveryIn(style, 'another-secret-that-is-long-enough-000000', deliveryBody());
		const tampered = deliveryIn(style, secret, deliveryBody());
		tampered.rawBody = Buffer.from(
			tampered.rawBody.toString('utf8').replace('"doc_test"', '"doc_evil"'),
		);
		const unsigned = deliveryIn('none', secret, deliveryBody());
		for (const delivery of [forged, tampered, unsigned])
			expect((await host.receive(delivery)).status).toBe(401);
		expect(host.executions).toHaveLength(0);
	});
});
