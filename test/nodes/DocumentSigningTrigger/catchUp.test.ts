/**
 * Webhook mode's catch-up (nodes/DocumentSigningTrigger/catchUp.ts) against the sandbox: the
 * trigger's trigger() and its scheduled catch-ups run in n8n-core's REAL TriggerContext
 * (test/helpers/pollingHost.ts), the webhook's deliveries made by the sandbox's dispatcher. Time
 * passing is Date.now moved forward for both the trigger and the sandbox (same process).
 */
import http from 'http';
import type { AddressInfo } from 'net';

import type { IDataObject } from 'n8n-workflow';

import {
	caughtUp,
	deliveryIdentity,
	pairs,
	sameEvent,
	type Identity,
} from '../../../nodes/DocumentSigningTrigger/catchUp';
import { memoryOf } from '../../../nodes/shared/nodeMemory';
import { PollingHost } from '../../helpers/pollingHost';
import { api, documentBody, useReceivers, useSandbox, waitFor } from '../../helpers/sandbox';
import { captureWarnings, NODE_NAME } from '../../helpers/triggerHost';

const MINUTE = 60_000;
const AUDIT_LOG = 'GET /v1/reports/audit-log';

describe('the identity rule (docs/api-contract.md, "One event, two records")', () => {
	const at = (minutes: number) => Date.parse('2026-12-01T10:00:00.000Z') + minutes * MINUTE;
	const entry = (key: string, minutes: number, more: Partial<Identity> = {}): Identity => ({
		event: 'document.signed',
		document: 'doc_1',
		signer: 'sgn_1',
		ms: at(minutes),
		key,
		...more,
	});
	const delivery = (id: string, minutes: number, more: Partial<Identity> = {}) =>
		entry(id, minutes, { key: undefined, delivery: id, ...more });

	it.each<[string, boolean, Identity, Identity]>([
		['the same event 10 minutes apart', true, entry('a', 0), delivery('d', 10)],
		['10 minutes and 1 ms apart', false, entry('a', 0), delivery('d', 10 + 1 / MINUTE)],
		['7 s apart, the delivery first', true, entry('a', 0), delivery('d', -7 / 60)],
		['another event name', false, entry('a', 0), delivery('d', 0, { event: 'document.viewed' })],
		['another document', false, entry('a', 0), delivery('d', 0, { document: 'doc_2' })],
		['another signer', false, entry('a', 0), delivery('d', 0, { signer: 'sgn_2' })],
		[
			'a signer on one side only (bare)',
			true,
			entry('a', 0, { signer: undefined }),
			delivery('d', 1),
		],
		[
			'another request',
			false,
			entry('a', 0, { request: 'r1' }),
			delivery('d', 0, { request: 'r2' }),
		],
	])('%s: same event = %s', (_, same, one, other) => {
		expect(sameEvent(one, other)).toBe(same);
		expect(sameEvent(other, one)).toBe(same);
	});

	it('numeric ids (a dialect) compare as text: a delivery body with numbers pairs with the entry', () => {
		const body = {
			id: 77,
			event: 'document.signed',
			created_at: '2026-12-01T10:00:05.000Z',
			data: { document: { id: 12 }, signer: { id: 5 } },
		};
		const fromBody = deliveryIdentity(body) as Identity;
		expect(fromBody).toMatchObject({ document: '12', signer: '5', delivery: '77' });
		expect(sameEvent(entry('a', 0, { document: '12', signer: '5' }), fromBody)).toBe(true);
	});

	it('pairs one to one, oldest entry first, each with the nearest delivery', () => {
		const reminded = { event: 'signature.reminded', signer: undefined };
		const entries = [entry('second', 3, reminded), entry('first', 0, reminded)];
		const deliveries = [delivery('d-late', 3.1, reminded), delivery('d-early', 0.2, reminded)];
		const paired = pairs(entries, deliveries);
		expect(paired.get('first')?.delivery).toBe('d-early');
		expect(paired.get('second')?.delivery).toBe('d-late');
		// One delivery for two entries: the older entry takes it, the other stays unpaired (passes).
		const one = pairs(entries, [delivery('d-mid', 2, reminded)]);
		expect([...one.keys()]).toEqual(['first']);
	});
});

describe('Webhook mode catches up from the audit log', () => {
	// The service tries each delivery once, as one that does not retry (the case).
	const sandbox = useSandbox({ webhookRetry: { maxAttempts: 1, baseDelayMs: 10 } });
	const receivers = useReceivers();
	let restoreNow: (() => void) | undefined;
	afterEach(() => restoreNow?.());

	/** Both clocks (the trigger's and the sandbox's) `ms` ahead from now on. */
	const passTime = (ms: number) => {
		restoreNow?.();
		const real = Date.now.bind(Date);
		const spy = jest.spyOn(Date, 'now').mockImplementation(() => real() + ms);
		restoreNow = () => spy.mockRestore();
	};

	/** An account with a webhook to a receiver, and the trigger published for it. */
	async function published(
		options: { serviceUrl?: string; key?: (accountId: string) => string } = {},
	) {
		const { accountId, apiKey } = sandbox().createAccount();
		const receiver = await receivers();
		const client = api(sandbox(), apiKey);
		const secret = `whsec_${'s'.repeat(40)}`;
		const { data: webhook } = await client.post('/webhooks', {
			url: receiver.url,
			events: ['*'],
			secret,
		});
		const registration = {
			webhookId: webhook.id,
			webhookUrl: 'http://127.0.0.1:5678/webhook/x/webhook',
			webhookEvents: ['*'],
			secretNonce: 'nonce',
		};
		const host = new PollingHost(
			{ baseUrl: options.serviceUrl ?? sandbox().baseUrl },
			options.key?.(accountId) ?? apiKey,
			{ receiveEventsBy: 'webhook', catchUp: 1 },
			{ [`node:${NODE_NAME}`]: registration },
		);
		const activated = await host.activate();
		const sent = async () => {
			const { data } = await client.post('/documents', documentBody());
			await sandbox().flushDeliveries();
			return data as IDataObject;
		};
		const deliveries = () =>
			sandbox()
				.deliveries()
				.filter((attempt) => attempt.webhookId === webhook.id);
		return { host, activated, client, receiver, webhookId: String(webhook.id), sent, deliveries };
	}

	const auditReads = () => sandbox().stats().routes[AUDIT_LOG] ?? 0;

	/**
	 * One whole scheduled catch-up (the one started at activation may still run: a tick meanwhile
	 * returns at once and reads nothing). Its emits and its requests to the service.
	 */
	async function catchUp(host: PollingHost) {
		return await waitFor(async () => {
			const [reads, requests] = [auditReads(), sandbox().stats().requests];
			const emitted = await host.poll();
			if (auditReads() === reads) return undefined;
			return { emitted, requests: sandbox().stats().requests - requests };
		}, 'a whole catch-up');
	}

	it('is on by default every 15 minutes, runs at activation without holding it up, and an idle one costs one request', async () => {
		const { host, activated } = await published();
		expect(activated).toEqual({ closeFunction: expect.any(Function) });
		expect(host.crons.map((cron) => cron.expression)).toEqual(['0 */1 * * * *']);
		const defaults = new PollingHost(sandbox(), 'sk_x', { receiveEventsBy: 'webhook' });
		expect(defaults.workflow.getNode(NODE_NAME)?.parameters.catchUp).toBe(15);
		// The activation's read: the cursor saved with the activation.
		await waitFor(() => auditReads() > 0, 'the catch-up at activation');
		expect(host.saved()[`node:${NODE_NAME}`]).toMatchObject({
			pollCursor: { time: expect.any(String) },
		});
		await expect(catchUp(host)).resolves.toEqual({ emitted: 0, requests: 1 });
		await expect(catchUp(host)).resolves.toEqual({ emitted: 0, requests: 1 });
	});

	it('passes nothing a delivery ran (acknowledged), and reads the deliveries only when there is a new event', async () => {
		const { host, client, webhookId, sent, deliveries } = await published();
		await catchUp(host);
		await sent();
		for (const attempt of deliveries())
			expect(
				(await client.post(`/webhooks/${webhookId}/deliveries/${attempt.deliveryId}/acknowledge`))
					.status,
			).toBe(200);
		passTime(3 * MINUTE);
		// The log read, the deliveries list read once for the three new events.
		await expect(catchUp(host)).resolves.toEqual({ emitted: 0, requests: 2 });
		await expect(catchUp(host)).resolves.toEqual({ emitted: 0, requests: 1 });
		expect(host.emitted).toEqual([]);
	});

	it('a delivery received but not claimed is held while its execution may still claim it, then claimed and passed once', async () => {
		const { host, sent, deliveries } = await published();
		await catchUp(host);
		await sent();
		expect(deliveries().map((attempt) => attempt.status)).toEqual([200, 200, 200]);
		passTime(3 * MINUTE);
		await expect(catchUp(host)).resolves.toMatchObject({ emitted: 0 });
		passTime(11 * MINUTE);
		await expect(catchUp(host)).resolves.toMatchObject({ emitted: 3 });
		for (const attempt of deliveries())
			expect(sandbox().deliveryRecord(attempt.deliveryId)).toMatchObject({
				status: 'acknowledged',
			});
		await expect(catchUp(host)).resolves.toEqual({ emitted: 0, requests: 1 });
	});

	it('a failed delivery (n8n was down) is claimed and passed once, as the item a poll gives with via: catchUp; its late arrival starts nothing', async () => {
		const { host, receiver, sent, deliveries } = await published();
		await catchUp(host);
		receiver.queueStatuses(503, 503, 503);
		const document = await sent();
		expect(deliveries().map((attempt) => attempt.status)).toEqual([503, 503, 503]);
		passTime(3 * MINUTE);
		await expect(catchUp(host)).resolves.toMatchObject({ emitted: 3 });
		expect(host.events.map((json) => json.event)).toEqual([
			'document.created',
			'signature.requested',
			'document.sent',
		]);
		for (const json of host.events) {
			expect(Object.keys(json).sort()).toEqual(['data', 'event', 'eventId', 'timestamp', 'via']);
			expect(json).toMatchObject({ via: 'catchUp', data: { document: { id: document.id } } });
		}
		for (const attempt of deliveries())
			expect(sandbox().deliveryRecord(attempt.deliveryId)).toMatchObject({
				status: 'acknowledged',
			});
		await expect(catchUp(host)).resolves.toEqual({ emitted: 0, requests: 1 });
		// webhook() reads what the catch-up passed (saved with its emits): each delivery once per process.
		const saved = host.saved()[`node:${NODE_NAME}`] as IDataObject;
		const memory = memoryOf('wf-late', 'node-late');
		const bodies = deliveries().map((attempt) => JSON.parse(attempt.body) as IDataObject);
		expect(bodies.map((body) => caughtUp(saved, body, memory))).toEqual([true, true, true]);
		expect(bodies.map((body) => caughtUp(saved, body, memory))).toEqual([false, false, false]);
	});

	it('a failed delivery another process claimed first (409) is not passed', async () => {
		// The list says failed; the claim finds it claimed meanwhile.
		const service = await stubbed((request) =>
			request.url?.includes('/deliveries?') ? 'failed' : undefined,
		);
		try {
			const { host, client, webhookId, receiver, sent, deliveries } = await published({
				serviceUrl: service.baseUrl,
			});
			await catchUp(host);
			receiver.queueStatuses(503, 503, 503);
			await sent();
			for (const attempt of deliveries())
				await client.post(`/webhooks/${webhookId}/deliveries/${attempt.deliveryId}/acknowledge`);
			passTime(3 * MINUTE);
			await expect(catchUp(host)).resolves.toMatchObject({ emitted: 0 });
			expect(service.claims).toEqual([409, 409, 409]);
		} finally {
			await service.close();
		}
	});

	it('an event with no delivery (the webhook removed at the service) is held 2 minutes, then passed', async () => {
		const { host, client, webhookId, sent, deliveries } = await published();
		await catchUp(host);
		expect((await client.delete(`/webhooks/${webhookId}`)).status).toBe(204);
		await sent();
		expect(deliveries()).toEqual([]);
		await expect(catchUp(host)).resolves.toMatchObject({ emitted: 0 });
		passTime(3 * MINUTE);
		await expect(catchUp(host)).resolves.toMatchObject({ emitted: 3 });
		await expect(catchUp(host)).resolves.toEqual({ emitted: 0, requests: 1 });
	});

	it('without an acknowledge endpoint: a failed delivery passes, said once per activation', async () => {
		const service = await stubbed((request) =>
			request.url?.endsWith('/acknowledge') ? 405 : undefined,
		);
		const warnings = captureWarnings();
		try {
			const { host, receiver, sent } = await published({ serviceUrl: service.baseUrl });
			await catchUp(host);
			receiver.queueStatuses(503, 503, 503, 503, 503, 503);
			await sent();
			await sent();
			passTime(3 * MINUTE);
			await expect(catchUp(host)).resolves.toMatchObject({ emitted: 6 });
			expect(service.claims).toEqual([405]);
			expect(
				warnings.messages.filter((message) => message.includes('cannot confirm')),
			).toHaveLength(1);
			expect(host.errors).toEqual([]);
		} finally {
			warnings.restore();
			await service.close();
		}
	});

	const refusing = (part: string, status: number) => (request: http.IncomingMessage) =>
		request.url?.includes(part) ? status : undefined;
	it.each<[string, string, (request: http.IncomingMessage) => number | undefined]>([
		['no audit log (404)', 'activation', refusing('/audit-log', 404)],
		['no deliveries list (404, the webhook there)', 'first event', refusing('/deliveries?', 404)],
		['an audit log the key may not read (403)', 'activation', refusing('/audit-log', 403)],
	])(
		'%s: one warning at the %s, the catch-up off, no error workflow, no failed activation',
		async (_, _when, refuse) => {
			const service = await stubbed(refuse);
			const warnings = captureWarnings();
			try {
				const { host, activated, sent } = await published({ serviceUrl: service.baseUrl });
				expect(activated).toEqual({ closeFunction: expect.any(Function) });
				await sent();
				passTime(3 * MINUTE);
				await waitFor(async () => {
					await host.poll();
					return warnings.messages.some((message) => message.includes('off until'));
				}, 'the warning');
				const reads = service.requests;
				await host.poll();
				expect(service.requests).toBe(reads);
				expect(host.emitted).toEqual([]);
				expect(host.errors).toEqual([]);
				const said = warnings.messages.filter((message) => message.includes('catch-up'));
				expect(said).toEqual([
					expect.stringContaining('off until the workflow is published again'),
				]);
			} finally {
				warnings.restore();
				await service.close();
			}
		},
	);

	it('a viewer key, which may read but not claim: one warning, the catch-up off, nothing passed twice', async () => {
		const warnings = captureWarnings();
		try {
			const { host, receiver, sent } = await published({
				key: (accountId) => sandbox().createApiKey(accountId, 'viewer').apiKey,
			});
			await catchUp(host);
			receiver.queueStatuses(503, 503, 503);
			await sent();
			passTime(3 * MINUTE);
			await catchUp(host);
			await host.poll();
			expect(host.emitted).toEqual([]);
			expect(host.errors).toEqual([]);
			expect(warnings.messages.filter((message) => message.includes('catch-up'))).toEqual([
				expect.stringContaining('off until the workflow is published again'),
			]);
		} finally {
			warnings.restore();
		}
	});

	/**
	 * The sandbox behind a stub: `rule` answers a request with a status, or `failed` rewrites a
	 * deliveries list as every delivery failed, or passes it on. Claims' statuses are recorded.
	 */
	async function stubbed(rule: (request: http.IncomingMessage) => number | 'failed' | undefined) {
		const claims: number[] = [];
		let requests = 0;
		const target = new URL(sandbox().baseUrl);
		const server = http.createServer((request, response) => {
			requests++;
			const ruled = rule(request);
			if (typeof ruled === 'number') {
				if (request.url?.endsWith('/acknowledge')) claims.push(ruled);
				response.writeHead(ruled, { 'Content-Type': 'application/json' });
				response.end(JSON.stringify({ error: { code: 'stub', message: 'stubbed' } }));
				return;
			}
			const forward = http.request(
				{
					host: target.hostname,
					port: target.port,
					method: request.method,
					path: request.url,
					headers: request.headers,
				},
				(answer) => {
					const chunks: Buffer[] = [];
					answer.on('data', (chunk: Buffer) => chunks.push(chunk));
					answer.on('end', () => {
						let body = Buffer.concat(chunks);
						if (request.url?.endsWith('/acknowledge')) claims.push(answer.statusCode ?? 0);
						if (ruled === 'failed') {
							const list = JSON.parse(body.toString('utf8')) as { data: IDataObject[] };
							for (const record of list.data)
								Object.assign(record, { status: 'failed', acknowledged_at: null });
							body = Buffer.from(JSON.stringify(list));
						}
						const headers = { ...answer.headers, 'content-length': String(body.length) };
						response.writeHead(answer.statusCode ?? 502, headers);
						response.end(body);
					});
				},
			);
			request.pipe(forward);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as AddressInfo;
		return {
			baseUrl: `http://127.0.0.1:${port}${target.pathname}`,
			claims,
			get requests() {
				return requests;
			},
			close: () =>
				new Promise<void>((resolve) => {
					server.close(() => resolve());
					server.closeAllConnections();
				}),
		};
	}
});
