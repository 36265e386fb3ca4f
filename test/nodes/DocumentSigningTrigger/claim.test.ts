import nock from 'nock';
/**
 * Exactly once across n8n processes (nodes/DocumentSigningTrigger/claim.ts): every execution a
 * delivery starts claims it at the service first, and only the winner passes it on; replays,
 * the service's retries and copies racing each other are processed once (the repeat check before
 * an execution starts is delivery.ts's, the claim in it claim.ts's). And what happens when
 * the claim cannot be made. Through n8n-core's WebhookContext, with real deliveries from the
 * sandbox to the receiver of test/helpers/triggerHost.ts (see deliveryFixtures.ts).
 */
import {
	sameTriggerElsewhere,
	triggerOfAnotherProcess,
	TriggerHost,
	type IncomingDelivery,
} from '../../helpers/triggerHost';
import {
	deliveryBody,
	deliveryIdOf,
	signedDelivery,
	useDeliveryFixtures,
} from '../../helpers/deliveryFixtures';

const { sandbox, receiver, activeTrigger, sendDocument, unclaimedDelivery } = useDeliveryFixtures();

describe('exactly once: the delivery is claimed at the service', () => {
	it('replaying the exact same request (same delivery id) to the process that ran it: answered "already processed", no execution', async () => {
		const { host, apiKey } = await activeTrigger(['document.sent']);
		await sendDocument(apiKey);
		await host.idle();
		const original = receiver.receivedBy(host)[0];
		const checks = sandbox().stats().routes['GET /v1/webhooks/:id/deliveries/:deliveryId'] ?? 0;

		const replay = await host.receive({ headers: original.headers, rawBody: original.rawBody });
		expect([replay.status, replay.started, replay.body]).toEqual([
			200,
			false,
			{ received: true, ignored: true, reason: 'already processed' },
		]);
		expect(host.executions).toHaveLength(1);
		// Known to this process: no request to the service either.
		expect(sandbox().stats().routes['GET /v1/webhooks/:id/deliveries/:deliveryId'] ?? 0).toBe(
			checks,
		);
	});

	describe('a retry by the service after a lost answer is processed once, whichever comes first: the retry or the claim', () => {
		/** A gate a test opens once the state it orders against is reached. */
		const gate = () => {
			let open!: () => void;
			const opened = new Promise<void>((resolve) => (open = resolve));
			return { open, opened };
		};
		const attemptOf = (request: IncomingDelivery) => Number(request.headers['x-delivery-attempt']);

		/** The first attempt is processed (its execution starts) but its answer is lost: a 503. */
		async function lostFirstAnswer() {
			const trigger = await activeTrigger(['document.sent']);
			receiver.answerOverride = (request) =>
				request.host === trigger.host &&
				request.headers['x-event'] === 'document.sent' &&
				attemptOf(request) === 1
					? 503
					: undefined;
			return trigger;
		}

		/** The attempts of document.sent that reached `host`, once every delivery and execution ended. */
		async function sentAttempts(host: TriggerHost) {
			await host.idle();
			await sandbox().flushDeliveries();
			await host.idle();
			const sent = receiver
				.receivedBy(host)
				.filter((request) => request.headers['x-event'] === 'document.sent');
			expect(sent.map(attemptOf)).toEqual(sent.map((_, index) => index + 1));
			expect(sent.every((request) => request.rawBody.equals(sent[0].rawBody))).toBe(true);
			return sent;
		}

		/** The first execution of `host` as a promise, once the receiver has seen its request. */
		const firstExecution = (host: TriggerHost) => receiver.receivedBy(host)[0].outcome.execution!;

		it('the claim comes first: it ends the retries, the service sends no second attempt', async () => {
			const { host, apiKey } = await lostFirstAnswer();
			// n8n answers (503) only after the first execution has claimed the delivery.
			receiver.holdAnswer = async (request) => {
				if (request.host === host && attemptOf(request) === 1) await request.outcome.execution;
			};
			await sendDocument(apiKey);

			const sent = await sentAttempts(host);
			const deliveryId = deliveryIdOf(sent[0]);
			expect(sent).toHaveLength(1);
			expect(
				sandbox()
					.deliveries()
					.filter((attempt) => attempt.deliveryId === deliveryId)
					.map((attempt) => attempt.status),
			).toEqual([503]);
			expect(host.executions).toHaveLength(1);
			expect(host.processed.map((execution) => execution.items[0].json.deliveryId)).toEqual([
				deliveryId,
			]);
			expect(sandbox().deliveryRecord(deliveryId)?.status).toBe('acknowledged');
		});

		it('the retry comes first while n8n has not begun the first execution (2 s): the service is asked, the retry starts an execution, which loses the claim and passes nothing on', async () => {
			const { host, apiKey } = await lostFirstAnswer();
			const retryStarted = gate();
			// The first execution waits until the retry has started its own; that one waits until
			// the first has claimed the delivery.
			host.holdExecution = async (index) => {
				if (index === 0) await retryStarted.opened;
				if (index === 1) {
					retryStarted.open();
					await firstExecution(host);
				}
			};
			await sendDocument(apiKey);

			const sent = await sentAttempts(host);
			const deliveryId = deliveryIdOf(sent[0]);
			expect(sent).toHaveLength(2);
			expect(sent.map((request) => request.outcome.started)).toEqual([true, true]);
			const [first, retry] = await Promise.all(sent.map((request) => request.outcome.execution!));
			expect(first.items.map((item) => item.json.deliveryId)).toEqual([deliveryId]);
			expect(retry.received).toHaveLength(1);
			expect(retry.items).toEqual([]);
			expect(retry.error).toBeUndefined();
			expect(host.processed).toHaveLength(1);
			expect(sandbox().deliveryRecord(deliveryId)?.status).toBe('acknowledged');
		});

		it('the retry is sent before the claim and reaches n8n after it: answered "already processed", no execution', async () => {
			const { host, apiKey } = await lostFirstAnswer();
			const retryArrived = gate();
			// The first execution waits until the retry is on its way; the retry reaches webhook()
			// only once that execution has claimed the delivery.
			host.holdExecution = async (index) => {
				if (index === 0) await retryArrived.opened;
			};
			receiver.holdRequest = async (request) => {
				if (attemptOf(request) !== 2) return;
				retryArrived.open();
				await firstExecution(host);
			};
			await sendDocument(apiKey);

			const sent = await sentAttempts(host);
			const deliveryId = deliveryIdOf(sent[0]);
			expect(sent).toHaveLength(2);
			const [first, retry] = sent;
			expect(first.outcome.started).toBe(true);
			expect([retry.outcome.started, retry.outcome.status, retry.outcome.body]).toEqual([
				false,
				200,
				{ received: true, ignored: true, reason: 'already processed' },
			]);
			expect(host.executions).toHaveLength(1);
			expect(host.processed.map((execution) => execution.items[0].json.deliveryId)).toEqual([
				deliveryId,
			]);
			expect(sandbox().deliveryRecord(deliveryId)?.status).toBe('acknowledged');
		});
	});

	it('three copies of a processed delivery arriving at the same time: no execution', async () => {
		const { host, apiKey } = await activeTrigger(['document.sent']);
		await sendDocument(apiKey);
		await host.idle();
		const original = receiver.receivedBy(host)[0];
		const before = host.executions.length;
		const copy = () => host.receive({ headers: original.headers, rawBody: original.rawBody });
		const outcomes = await Promise.all([copy(), copy(), copy()]);
		expect(outcomes.map((outcome) => [outcome.status, outcome.started])).toEqual([
			[200, false],
			[200, false],
			[200, false],
		]);
		await host.idle();
		expect(host.executions).toHaveLength(before);
		expect(host.processed).toHaveLength(1);
	});

	it('new copies of a delivery nobody claimed yet (its first start failed), arriving at once: one execution, which passes it on', async () => {
		const { host, secret, body } = await unclaimedDelivery();

		const outcomes = await Promise.all(
			Array.from({ length: 5 }, () => host.receive(signedDelivery(secret, body))),
		);
		await Promise.all(outcomes.map((outcome) => outcome.execution));
		expect(outcomes.filter((outcome) => outcome.started)).toHaveLength(1);
		expect(host.executions).toHaveLength(1);
		expect(host.processed).toHaveLength(1);
		expect(sandbox().deliveryRecord(JSON.parse(body).id)?.status).toBe('acknowledged');
	});

	it('a delivery whose execution n8n could not start is processed when the service retries it', async () => {
		const { host, apiKey } = await activeTrigger(['document.sent']);
		host.failStarts = 1;
		await sendDocument(apiKey);
		await host.idle();

		const attempts = sandbox()
			.deliveries()
			.filter((attempt) => attempt.url === host.webhookUrl);
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
		const original = receiver.receivedBy(host)[0];
		const registration = structuredClone(host.savedStaticData);

		// Another n8n process (or the same one restarted): same database, nothing else shared.
		const other = new TriggerHost({
			trigger: triggerOfAnotherProcess(),
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: receiver.webhookBaseUrl,
			events: ['document.sent'],
			workflowId: host.workflowId,
			nodeWebhookId: host.nodeWebhookId,
		});
		other.savedStaticData = structuredClone(host.savedStaticData);
		const outcome = await other.receive({ headers: original.headers, rawBody: original.rawBody });
		expect(outcome.started).toBe(true);
		expect((await outcome.execution!).items).toEqual([]);
		// No request wrote anything to the workflow's static data.
		expect(host.savedStaticData).toEqual(registration);
		expect(Object.keys(host.nodeStaticData).sort()).toEqual([
			'secretNonce',
			'webhookEvents',
			'webhookId',
			'webhookOwner',
			'webhookUrl',
		]);
	});

	it('a retry (attempt 2+) of a delivery already claimed is answered 2xx with no execution; first attempts are never checked', async () => {
		const { host, apiKey, secret } = await activeTrigger(['document.sent']);
		const checks = () =>
			sandbox().stats().routes['GET /v1/webhooks/:id/deliveries/:deliveryId'] ?? 0;
		const checksBefore = checks();
		await sendDocument(apiKey);
		await host.idle();
		expect(receiver.receivedBy(host)[0].headers['x-delivery-attempt']).toBe('1');
		expect(checks()).toBe(checksBefore);
		const body = receiver.receivedBy(host)[0].rawBody.toString('utf8');
		const retry = (attempt: string, on: TriggerHost) => {
			const delivery = signedDelivery(secret, body);
			delivery.headers['x-delivery-attempt'] = attempt;
			return on.receive(delivery);
		};

		const ignored = {
			status: 200,
			started: false,
			body: { ignored: true, reason: 'already processed' },
		};
		// In another n8n process (it remembers nothing): the service is asked.
		const second = sameTriggerElsewhere(host);
		expect(await retry('2', second)).toMatchObject(ignored);
		expect(checks()).toBe(checksBefore + 1);
		// That process remembers it now: a further copy costs no request.
		expect(await retry('3', second)).toMatchObject(ignored);
		expect(checks()).toBe(checksBefore + 1);
		// In yet another process, a copy without the attempt header (or as attempt 1) is not checked:
		// it is left to the execution's claim.
		const third = sameTriggerElsewhere(host);
		const unnumbered = await retry('1', third);
		expect(unnumbered.started).toBe(true);
		expect((await unnumbered.execution!).items).toEqual([]);
		expect(checks()).toBe(checksBefore + 1);
		expect(host.processed).toHaveLength(1);
	});

	it('a retry of a delivery nobody claimed yet starts its execution, also when the check fails; a copy after that execution claimed it starts none', async () => {
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

		const later = await retry();
		expect(later.started).toBe(false);
		await host.idle();
		expect(host.processed).toHaveLength(1);
		expect(host.executions).toHaveLength(1);
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
		expect(execution.error).toMatchObject({
			httpCode: '401',
			message: 'The API key was revoked',
		});
		expect(JSON.stringify(execution.error)).not.toContain(apiKey);
		// Unclaimed: a retry of this execution (or a later copy) can still claim it.
		expect(sandbox().deliveryRecord(String(execution.received[0].json.deliveryId))?.status).toBe(
			'received',
		);
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
		expect(execution.items[0].json).toMatchObject({
			event: 'document.sent',
			claimError: 'The API key was revoked',
		});
		expect(String(execution.items[0].json.claimError)).not.toContain(apiKey);
	});
});
