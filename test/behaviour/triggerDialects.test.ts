/**
 * The trigger's whole life — activation, real deliveries, repeats, deactivation — in every
 * dialect the sandbox speaks (numeric ids, list envelopes, paging that is ignored, a secret the
 * service chooses, no delivery endpoints, unsigned deliveries, other error bodies, deletes
 * answered 200), through n8n-core's real contexts. Plus what must hold whatever the service
 * answers at activation: nothing a failed activation created is left behind.
 */
import { DIALECT_NAMES, parseDialect, type Sandbox } from '../../sandbox';
import { useSandbox, waitFor } from '../helpers/sandbox';
import { startRewritingProxy } from '../helpers/rewritingProxy';
import { captureWarnings, Receiver, TriggerHost } from '../helpers/triggerHost';

const RETRY = { baseDelayMs: 5, maxAttempts: 3, timeoutMs: 5000 };

async function sendDocument(sandbox: Sandbox, apiKey: string): Promise<void> {
	const response = await fetch(`${sandbox.baseUrl}/documents`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({
			name: 'contract.pdf',
			signers: [{ email: 'ada@example.com', name: 'Ada Lovelace' }],
		}),
	});
	expect(response.status).toBe(201);
}

describe.each(DIALECT_NAMES)('dialect %s', (dialectName) => {
	const dialect = parseDialect(dialectName);
	const unsigned = dialect.deliverySignature === 'none';
	// Neither signed nor on record: nothing can confirm a delivery (issue 37, finding 3).
	const unconfirmable = unsigned && !dialect.deliveryEndpoints;
	const sandbox = useSandbox({ port: 0, dialect: dialectName, webhookRetry: RETRY });
	const receiver = new Receiver();

	beforeAll(async () => {
		await receiver.start();
	});
	afterAll(async () => {
		await receiver.close();
	});

	function newTrigger(
		events: string[],
		verifySignature = true,
	): { host: TriggerHost; apiKey: string } {
		const { apiKey } = sandbox().createAccount();
		const host = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: receiver.webhookBaseUrl,
			events,
		});
		host.parameters.verifySignature = verifySignature;
		receiver.hosts.set(host.nodeWebhookId, host);
		return { host, apiKey };
	}

	if (unconfirmable) {
		test('no delivery can be confirmed: each is refused and logged, none starts a workflow; deactivation leaves none', async () => {
			const { host, apiKey } = newTrigger(['document.sent'], false);
			await host.activate();
			const warnings = captureWarnings();
			try {
				await sendDocument(sandbox(), apiKey);
				await sandbox().flushDeliveries();
			} finally {
				warnings.restore();
			}
			expect(host.executions).toHaveLength(0);
			const refusals = warnings.messages.filter((message) =>
				message.includes('the service does not report this delivery'),
			);
			expect(refusals).toHaveLength(RETRY.maxAttempts);
			await host.deactivate();
			expect(sandbox().store.webhooksOf(apiKey)).toHaveLength(0);
		});
	}

	if (!unconfirmable)
		test('activation registers one webhook; each event runs once, repeats never; deactivation leaves none', async () => {
			const { host, apiKey } = newTrigger(['document.sent'], !unsigned);
			await host.activate();
			const webhooks = sandbox().store.webhooksOf(apiKey);
			expect(webhooks).toHaveLength(1);
			expect(String(host.nodeStaticData.webhookId)).toBe(String(webhooks[0].id));
			expect(await host.runHook('checkExists', { save: false })).toBe(true);

			await sendDocument(sandbox(), apiKey);
			await sandbox().flushDeliveries();
			await host.idle();
			expect(host.processed).toHaveLength(1);
			const [item] = host.processed[0].items;
			expect(item.json.event).toBe('document.sent');
			expect(String(item.json.deliveryId)).toBe(
				sandbox()
					.deliveries()
					.find((attempt) => attempt.event === 'document.sent')!.deliveryId,
			);

			// The exact same request again (a retry after a lost answer): not processed a second time.
			const original = receiver
				.receivedBy(host)
				.find(
					(received) =>
						received.outcome.started &&
						String(JSON.parse(received.rawBody.toString()).id) === String(item.json.deliveryId),
				)!;
			const replay = await host.receive({ headers: original.headers, rawBody: original.rawBody });
			await replay.execution;
			await host.idle();
			expect(host.processed).toHaveLength(1);

			await host.deactivate();
			expect(sandbox().store.webhooksOf(apiKey)).toHaveLength(0);
			expect(host.nodeStaticData.webhookId).toBeUndefined();
		});

	if (unsigned) {
		test('unsigned deliveries are refused while Verify Signatures is on, each logged at warning level with the reason', async () => {
			const { host, apiKey } = newTrigger(['document.sent'], true);
			await host.activate();
			const warnings = captureWarnings();
			try {
				await sendDocument(sandbox(), apiKey);
				await sandbox().flushDeliveries();
			} finally {
				warnings.restore();
			}
			expect(host.executions).toHaveLength(0);
			const refusals = warnings.messages.filter((message) =>
				message.startsWith(
					'Document Signing Trigger refused a delivery: layout none: no signature header',
				),
			);
			// Every attempt of the one delivery (the service retries a refusal).
			expect(refusals).toHaveLength(RETRY.maxAttempts);
			// The fix is never to give up verification.
			expect(refusals.filter((message) => /verif|turn off/i.test(message))).toEqual([]);
			await host.deactivate();
		});
	}
});

describe('a failed activation leaves nothing behind, whatever the service answered', () => {
	const sandbox = useSandbox({ port: 0, dialect: 'numeric-ids' });

	test.each([
		['an answer without an id', (body: string) => JSON.stringify({ webhook: JSON.parse(body) })],
		[
			'an id that is not a scalar',
			(body: string) => JSON.stringify({ ...JSON.parse(body), id: { value: 1 } }),
		],
		['an answer that is not JSON', () => '<html><body>Created</body></html>'],
	])('20 activations in a row against %s leave 0 webhooks', async (_title, rewriteBody) => {
		const { apiKey } = sandbox().createAccount();
		const proxy = await startRewritingProxy(sandbox().origin, (request, answer) =>
			request.method === 'POST' && request.path.startsWith('/v1/webhooks') && answer.status === 201
				? { status: 201, body: rewriteBody(answer.body) }
				: undefined,
		);
		try {
			const host = new TriggerHost({
				baseUrl: proxy.baseUrl,
				apiKey,
				webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
				events: ['document.completed'],
			});
			for (let attempt = 0; attempt < 20; attempt++) {
				await expect(host.activate()).rejects.toThrow();
				expect(sandbox().store.webhooksOf(apiKey)).toHaveLength(0);
			}
			expect(host.nodeStaticData.webhookId).toBeUndefined();
		} finally {
			await proxy.close();
		}
	});

	test('a create whose answer is lost (connection reset) is retried with the same Idempotency-Key: one webhook', async () => {
		const { apiKey } = sandbox().createAccount();
		let creates = 0;
		const proxy = await startRewritingProxy(sandbox().origin, (request) =>
			request.method === 'POST' && request.path === '/v1/webhooks' && creates++ === 0
				? 'reset'
				: undefined,
		);
		try {
			const host = new TriggerHost({
				baseUrl: proxy.baseUrl,
				apiKey,
				webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
				events: ['document.completed'],
			});
			await host.activate();
			// The first create was reset, the retry got through.
			expect(creates).toBe(2);
			expect(sandbox().store.webhooksOf(apiKey)).toHaveLength(1);
			await host.deactivate();
			expect(sandbox().store.webhooksOf(apiKey)).toHaveLength(0);
		} finally {
			await proxy.close();
		}
	});

	test('deactivation sweeps numeric ids too, including one the static data never knew', async () => {
		const { apiKey } = sandbox().createAccount();
		const host = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
			events: ['document.completed'],
		});
		await host.activate({ save: false });
		await host.activate({ save: false });
		expect(sandbox().store.webhooksOf(apiKey)).toHaveLength(1);
		await host.deactivate();
		expect(sandbox().store.webhooksOf(apiKey)).toHaveLength(0);
	});
});

/**
 * Issue 31: a repeated delivery starts no execution — not even one that only loses the claim —
 * also under load and with numeric ids. Six events are delivered and each first execution is
 * held at its claim (a pass-through in front of the sandbox holds every acknowledge until
 * released); meanwhile three copies of every delivery arrive at once (two as replays without an
 * attempt number, one as the service's retry). Then the claims go through.
 */
describe.each(['default', 'numeric-ids'])('repeats under load (%s)', (dialectName) => {
	const sandbox = useSandbox({ port: 0, dialect: dialectName, webhookRetry: RETRY });
	const receiver = new Receiver();
	beforeAll(async () => {
		await receiver.start();
	});
	afterAll(async () => {
		await receiver.close();
	});

	/** A pass-through to the sandbox that holds every claim until `release()`. */
	async function claimGate() {
		let held = 0;
		let release!: () => void;
		const released = new Promise<void>((resolve) => (release = resolve));
		const proxy = await startRewritingProxy(
			sandbox().origin,
			() => undefined,
			async ({ method, path }) => {
				if (method !== 'POST' || !path.endsWith('/acknowledge')) return;
				held++;
				await released;
			},
		);
		return { ...proxy, held: () => held, release };
	}

	test('six events, three copies of each while its execution claims it: six executions, every copy answered "already processed"', async () => {
		const gate = await claimGate();
		try {
			const { apiKey } = sandbox().createAccount();
			const host = new TriggerHost({
				baseUrl: gate.baseUrl,
				apiKey,
				webhookBaseUrl: receiver.webhookBaseUrl,
				events: ['document.sent'],
			});
			receiver.hosts.set(host.nodeWebhookId, host);
			await host.activate();
			await Promise.all(Array.from({ length: 6 }, () => sendDocument(sandbox(), apiKey)));
			await waitFor(() => gate.held() === 6, 'six claims held');
			const originals = receiver.receivedBy(host);
			expect(originals.map((received) => received.outcome.started)).toEqual(Array(6).fill(true));

			const copies = originals.flatMap((original) =>
				[undefined, undefined, '2'].map((attempt) =>
					host.receive({
						headers: { ...original.headers, 'x-delivery-attempt': attempt },
						rawBody: original.rawBody,
					}),
				),
			);
			gate.release();
			const outcomes = await Promise.all(copies);
			await host.idle();

			expect(outcomes.map((outcome) => [outcome.status, outcome.started, outcome.body])).toEqual(
				Array(18).fill([
					200,
					false,
					{ received: true, ignored: true, reason: 'already processed' },
				]),
			);
			expect(host.executions).toHaveLength(6);
			expect(host.processed).toHaveLength(6);
			const ids = originals.map((received) => String(JSON.parse(received.rawBody.toString()).id));
			expect(ids.map((id) => sandbox().deliveryRecord(id)?.status)).toEqual(
				Array(6).fill('acknowledged'),
			);
			if (dialectName === 'numeric-ids') expect(ids.every((id) => /^\d+$/.test(id))).toBe(true);
			await host.deactivate();
		} finally {
			gate.release();
			await gate.close();
		}
	});
});
