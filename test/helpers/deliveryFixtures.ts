/**
 * What the delivery suites (delivery.test.ts, claim.test.ts, deliveryReplays.test.ts) share: a
 * sandbox that delivers real, signed requests to a tiny 127.0.0.1 receiver standing in for n8n's
 * webhook endpoint (the Receiver and TriggerHost of triggerHost.ts), active triggers, sent
 * documents, and signed deliveries built by hand. Call `useDeliveryFixtures()` once at the top of
 * a file: it registers the hooks.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	deliverySignatureHeaders,
	signWebhookPayload,
	type DeliverySignatureStyle,
} from '../../sandbox/deliverySignature';
import { useSandbox, webhookSecret } from './sandbox';
import { Receiver, TriggerHost, type IncomingDelivery } from './triggerHost';

export const nowSeconds = () => Math.floor(Date.now() / 1000);

export function signedDelivery(
	secret: string,
	body: object | string,
	t = nowSeconds(),
): IncomingDelivery {
	const raw = typeof body === 'string' ? body : JSON.stringify(body);
	return {
		headers: {
			'content-type': 'application/json',
			'x-signature': signWebhookPayload(secret, t, raw),
		},
		rawBody: Buffer.from(raw, 'utf8'),
	};
}

let deliverySeq = 0;
export function deliveryBody(event = 'document.completed', extra: Record<string, unknown> = {}) {
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

export const deliveryIdOf = (request: IncomingDelivery): string =>
	JSON.parse(request.rawBody.toString('utf8')).id as string;

export function useDeliveryFixtures() {
	const sandbox = useSandbox({
		port: 0,
		host: '127.0.0.1',
		webhookRetry: { baseDelayMs: 5, maxAttempts: 4, timeoutMs: 5000 },
	});
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
		receiver.holdRequest = undefined;
		receiver.holdAnswer = undefined;
	});

	async function activeTrigger(events: string[], options: IDataObject = {}) {
		const { apiKey } = sandbox().createAccount();
		const host = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: receiver.webhookBaseUrl,
			events,
			options,
		});
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
			body: JSON.stringify({
				name: 'contract.pdf',
				signers: [{ email: 'ada@example.com', name: 'Ada Lovelace' }],
			}),
		});
		expect(response.status).toBe(201);
		const document = (await response.json()) as { id: string };
		await sandbox().flushDeliveries();
		return document;
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
		const body = receiver.receivedBy(trigger.host)[0].rawBody.toString('utf8');
		expect(sandbox().deliveryRecord(JSON.parse(body).id)?.status).toBe('failed');
		return { ...trigger, body };
	}

	return { sandbox, receiver, activeTrigger, sendDocument, unclaimedDelivery };
}

/** A delivery of `body` signed in `style` (sandbox/deliverySignature.ts), as the service sends it. */
export function deliveryIn(
	style: DeliverySignatureStyle,
	secret: string,
	body: object,
	t = nowSeconds(),
	id = 'dlv_sw0001',
): IncomingDelivery {
	const raw = JSON.stringify(body);
	return {
		headers: {
			'content-type': 'application/json',
			...deliverySignatureHeaders(style, secret, t, id, raw),
		},
		rawBody: Buffer.from(raw, 'utf8'),
	};
}
