/**
 * A webhook's signing secret: never readable from the workflow's static data (sealed with the key,
 * opened only with that key), nothing there that verifies a guess of the API key, and a service
 * that signs every webhook of an account with one secret cannot make one trigger accept another's
 * delivery. Servers listen on 127.0.0.1 only. Each test's first comment says what the code before
 * the fix did (the test fails on it).
 */
import { createHash, createHmac } from 'crypto';
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { useSandbox, webhookSecret, waitFor, api } from '../helpers/sandbox';
import { keyCheck } from '../../nodes/shared/webhooks';
import { deliverySignatureHeaders } from '../../sandbox/deliverySignature';
import { triggerOfAnotherProcess, TriggerHost } from '../helpers/triggerHost';
import {
	captureWarnings,
	signed,
	warned,
	useSecuritySuite,
	API_KEY,
	ORIGIN,
} from '../helpers/securityKit';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../helpers/instantWaits').n8nWorkflowWithInstantWaits(),
);

const sandbox = useSandbox({
	port: 0,
	host: '127.0.0.1',
	webhookRetry: { baseDelayMs: 5, maxAttempts: 2, timeoutMs: 5000 },
});

useSecuritySuite({ offline: true });

/** Every string anywhere in `value`. */
function strings(value: unknown): string[] {
	if (typeof value === 'string') return [value];
	if (Array.isArray(value)) return value.flatMap(strings);
	if (typeof value === 'object' && value !== null)
		return [...Object.keys(value), ...Object.values(value).flatMap(strings)];
	return [];
}

describe('the webhook secret is not readable from static data (finding 7)', () => {
	async function activated() {
		const { apiKey } = sandbox().createAccount();
		const host = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
			events: ['document.completed'],
		});
		await host.activate();
		const webhookId = String(host.nodeStaticData.webhookId);
		const secret = webhookSecret(sandbox(), apiKey, webhookId);
		// Derived from the key (nodes/shared/webhooks.ts: derivedSecret): 64 hex characters.
		expect(secret).toMatch(/^[0-9a-f]{64}$/);
		return { host, apiKey, webhookId, secret: secret! };
	}

	// Old: static data held `webhookSecret` in clear (readable through n8n's public API).
	test('static data holds neither the stored secret nor any 64-hex value', async () => {
		const { host, secret } = await activated();
		const all = strings(host.savedStaticData);
		expect(host.savedStaticData).toEqual({
			'node:Document Signing Trigger': {
				webhookId: expect.any(String),
				// Who registered it: a hash of workflow and node ids, nothing of the key.
				webhookOwner: expect.stringMatching(/^[0-9a-f]{16}$/),
				webhookUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:5678\/webhook\//),
				webhookEvents: ['document.completed'],
				secretNonce: expect.stringMatching(/^[0-9a-f]{32}$/),
			},
		});
		expect(all.filter((text) => text.includes(secret))).toEqual([]);
		expect(all.filter((text) => /[0-9a-f]{64}/i.test(text))).toEqual([]);
		expect(JSON.stringify(host.savedStaticData)).not.toContain(secret);
	});

	// Old: the secret was in static data, so a reader could sign deliveries.
	test('deliveries signed with secrets derived from static data alone are refused 401', async () => {
		const { host, webhookId } = await activated();
		const data = host.nodeStaticData;
		const nonce = String(data.secretNonce);
		const hmac = (key: string, text: string) =>
			createHmac('sha256', key).update(text).digest('hex');
		const guesses = [
			nonce,
			hmac(nonce, ''),
			hmac(nonce, host.workflowId),
			hmac(
				nonce,
				[
					'n8n-nodes-document-signing',
					'webhook-secret',
					host.workflowId,
					'trigger-node',
					nonce,
				].join('\u0000'),
			),
			hmac(
				'',
				[
					'n8n-nodes-document-signing',
					'webhook-secret',
					host.workflowId,
					'trigger-node',
					nonce,
				].join('\u0000'),
			),
			createHash('sha256').update(nonce).digest('hex'),
			String(data.keyCheck),
			webhookId,
			...strings(data),
		];
		for (const guess of guesses) {
			const outcome = await host.receive(signed(guess, webhookId));
			expect([guess, outcome.status, outcome.started]).toEqual([guess, 401, false]);
		}
		expect(host.executions).toHaveLength(0);
	});

	// Old: another process read the secret from static data; now it recomputes it from the credential.
	test('another process with a copy of the static data and the same credential verifies; with another key it refuses with a clear warning', async () => {
		const { host, apiKey, webhookId, secret } = await activated();
		const sibling = (key: string, trigger?: TriggerHost['trigger']) => {
			const other = new TriggerHost({
				trigger,
				baseUrl: sandbox().baseUrl,
				apiKey: key,
				webhookBaseUrl: host.webhookBaseUrl,
				events: ['document.completed'],
				workflowId: host.workflowId,
				nodeWebhookId: host.nodeWebhookId,
			});
			other.savedStaticData = structuredClone(host.savedStaticData);
			return other;
		};

		const same = sibling(apiKey);
		const accepted = await same.receive(signed(secret, webhookId));
		expect(accepted.status).toBe(200);
		expect(accepted.started).toBe(true);
		expect((await accepted.execution!).received).toHaveLength(1);

		// Another process, started after the key changed: nothing of this one's memory.
		const warnings = captureWarnings();
		const otherKey = sibling('sk_another_key_entirely_0000000000', triggerOfAnotherProcess());
		const refused = await otherKey.receive(signed(secret, webhookId));
		expect(refused.status).toBe(401);
		expect(refused.started).toBe(false);
		const reasons = warned(warnings).map(([message]) => message);
		expect(
			reasons.some((message) =>
				/refused a delivery.*API key changed since the webhook was registered/.test(message),
			),
		).toBe(true);
		expect(reasons.join('\n')).not.toContain(secret);
		await same.idle();
	});
});

describe('a secret the service chose itself is sealed, not stored (finding 7b)', () => {
	// Old: the service's own secret was stored in static data as is.
	test('static data holds only a sealed copy; this credential verifies with it, another key cannot open it', async () => {
		const serviceSecret = 'svc_chosen_secret_' + 'f'.repeat(40);
		let registered: IDataObject = {};
		nock(ORIGIN)
			.get('/v1/webhooks')
			.query(true)
			.reply(200, { data: [] })
			.post('/v1/webhooks', (body: IDataObject) => {
				registered = body;
				return true;
			})
			.reply(201, () => ({
				id: 'wh_svc',
				url: registered.url,
				events: registered.events,
				secret: serviceSecret,
				active: true,
			}));
		nock(ORIGIN)
			.persist()
			.post(/\/v1\/webhooks\/wh_svc\/deliveries\/[^/]+\/acknowledge/)
			.reply(200, { status: 'acknowledged' });
		const host = new TriggerHost({
			baseUrl: `${ORIGIN}/v1`,
			apiKey: API_KEY,
			webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
			events: ['document.completed'],
		});
		await host.activate();
		expect(registered.secret).not.toBe(serviceSecret);
		expect(host.nodeStaticData).toMatchObject({
			webhookId: 'wh_svc',
			sealedSecret: expect.any(String),
		});
		expect(JSON.stringify(host.savedStaticData)).not.toContain(serviceSecret);
		expect(strings(host.savedStaticData).filter((text) => /[0-9a-f]{64}/i.test(text))).toEqual([]);

		const accepted = await host.receive(signed(serviceSecret, 'wh_svc'));
		expect(accepted.status).toBe(200);
		expect(accepted.started).toBe(true);
		await host.idle();

		// Another process: nothing of this one's memory.
		const otherKey = new TriggerHost({
			trigger: triggerOfAnotherProcess(),
			baseUrl: `${ORIGIN}/v1`,
			apiKey: 'sk_another_key_entirely_1111111111',
			webhookBaseUrl: host.webhookBaseUrl,
			events: ['document.completed'],
			workflowId: host.workflowId,
			nodeWebhookId: host.nodeWebhookId,
		});
		otherKey.savedStaticData = structuredClone(host.savedStaticData);
		expect((await otherKey.receive(signed(serviceSecret, 'wh_svc'))).status).toBe(401);
	});
});

describe('static data holds no verifier of the API key (finding 22.11)', () => {
	// Old: static data kept `keyCheck`, 64 bits of an HMAC keyed by the API key.
	test('after activation static data has no keyCheck nor any value computed from the key; a changed key is still noticed', async () => {
		const { apiKey, accountId } = sandbox().createAccount();
		const host = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: 'http://127.0.0.1:9/webhook',
			events: ['document.completed'],
		});
		await host.activate();
		const data = host.nodeStaticData;
		expect(Object.keys(data).sort()).toEqual([
			'secretNonce',
			'webhookEvents',
			'webhookId',
			'webhookOwner',
			'webhookUrl',
		]);
		// Every value in static data is the service's id, n8n's URL, the events, or a random nonce.
		const scope = {
			apiKey,
			workflowId: host.workflowId,
			nodeId: 'trigger-node',
			nonce: String(data.secretNonce),
		};
		expect(strings(data)).not.toContain(keyCheck(scope));

		expect(await host.runHook('checkExists')).toBe(true);
		// Another key of the same account: the same webhooks are visible, but the secret is not ours any more.
		host.credentials.apiKey = sandbox().createApiKey(accountId, 'admin').apiKey;
		expect(await host.runHook('checkExists')).toBe(false);
	});
});

describe('(suspected) a service that signs every webhook of an account with one secret (finding 37)', () => {
	const sandbox = useSandbox({
		port: 0,
		host: '127.0.0.1',
		dialect: 'account-secret',
		webhookRetry: { baseDelayMs: 60_000, maxAttempts: 2, timeoutMs: 5000 },
	});

	// Old: trigger B accepted a captured delivery of trigger A's webhook (the same secret), and its
	// execution claimed it at the service, so A's own execution found it taken and dropped it.
	test("another trigger's delivery, validly signed with the shared secret, is refused: nothing started, nothing claimed", async () => {
		const { apiKey } = sandbox().createAccount();
		const trigger = (name: string) =>
			new TriggerHost({
				baseUrl: sandbox().baseUrl,
				apiKey,
				webhookBaseUrl: `http://127.0.0.1:9/${name}`,
				events: ['document.sent'],
			});
		const [a, b] = [trigger('a'), trigger('b')];
		await a.activate();
		await b.activate();
		const webhookA = String(a.nodeStaticData.webhookId);
		// The premise: both webhooks are signed with the account's one secret.
		expect(webhookSecret(sandbox(), apiKey, webhookA)).toBe(
			webhookSecret(sandbox(), apiKey, String(b.nodeStaticData.webhookId)),
		);
		await api(sandbox(), apiKey).post('/documents', {
			name: 'contract.pdf',
			signers: [{ email: 'ada@example.com', name: 'Ada Lovelace' }],
		});
		await waitFor(
			() =>
				sandbox()
					.deliveries()
					.some((attempt) => attempt.webhookId === webhookA),
			'a delivery to A',
		);
		const captured = sandbox()
			.deliveries()
			.find((attempt) => attempt.webhookId === webhookA)!;
		const headers = { 'content-type': 'application/json' };
		Object.assign(
			headers,
			deliverySignatureHeaders(
				'v1',
				webhookSecret(sandbox(), apiKey, webhookA)!,
				Math.floor(Date.now() / 1000),
				captured.deliveryId,
				captured.body,
			),
		);
		const atB = await b.receive({ headers, rawBody: Buffer.from(captured.body) });
		expect(atB).toMatchObject({ started: false, status: 401 });
		expect(sandbox().deliveryRecord(captured.deliveryId)?.acknowledged_at).toBeNull();
		// At A, its own trigger, the same request is taken.
		const atA = await a.receive({ headers, rawBody: Buffer.from(captured.body) });
		expect(atA.started).toBe(true);
		expect((await atA.execution!).items).toHaveLength(1);
	});
});
