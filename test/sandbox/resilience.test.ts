/** Rate limiting (429 + Retry-After), injected 5xx and connection resets. */
import axios from 'axios';

import {
	api,
	documentBody,
	expectError,
	startReceiver,
	useSandbox,
	waitFor,
} from '../helpers/sandbox';
import { startSandbox, type Sandbox } from '../../sandbox';
import { decideFault, faultRandom } from '../../sandbox/faults';

describe('rate limit', () => {
	// A slow refill (1 request per 100 s) so that no token comes back during the test.
	const sandbox = useSandbox({ rateLimit: { requestsPerSecond: 0.01, burst: 3 } });

	it('answers 429 rate_limited with Retry-After once the bucket is empty', async () => {
		const { apiKey } = sandbox().createAccount();
		const client = api(sandbox(), apiKey);
		const rateLimitedBefore = sandbox().stats().rateLimited;
		const responses = [];
		for (let i = 0; i < 5; i++) responses.push(await client.get('/documents'));
		expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 429, 429]);
		expect(responses.map((response) => response.headers['x-ratelimit-limit'])).toEqual([
			'3',
			'3',
			'3',
			'3',
			'3',
		]);
		const limited = responses[3];
		expectError(limited, 429, 'rate_limited');
		expect(limited.headers['x-ratelimit-remaining']).toBe('0');
		// The bucket refills one token per 100 s: the wait is 100 s less the time since it emptied,
		// to the millisecond in X-RateLimit-Reset-After, rounded up to whole seconds in Retry-After.
		const resetAfter = Number(limited.headers['x-ratelimit-reset-after']);
		expect(resetAfter).toBeGreaterThan(90);
		expect(resetAfter).toBeLessThanOrEqual(100);
		expect(limited.headers['retry-after']).toBe(String(Math.ceil(resetAfter)));
		expect(sandbox().stats().rateLimited - rateLimitedBefore).toBe(2);
	});

	it('limits each key on its own', async () => {
		const a = api(sandbox(), sandbox().createAccount().apiKey);
		const b = api(sandbox(), sandbox().createAccount().apiKey);
		for (let i = 0; i < 3; i++) expect((await a.get('/templates')).status).toBe(200);
		expect((await a.get('/templates')).status).toBe(429);
		expect((await b.get('/templates')).status).toBe(200);
	});

	it('does not limit the admin routes', async () => {
		for (let i = 0; i < 10; i++) {
			expect((await axios.get(`${sandbox().origin}/__sandbox/stats`)).status).toBe(200);
		}
	});

	it('refills over time and can be switched off at run time', async () => {
		const client = api(sandbox(), sandbox().createAccount().apiKey);
		sandbox().configure({ rateLimit: { requestsPerSecond: 50, burst: 1 } });
		try {
			expect((await client.get('/webhooks')).status).toBe(200);
			// One token every 20 ms: a later request gets through again.
			await waitFor(
				async () => (await client.get('/webhooks')).status === 200,
				'a refilled token',
				10_000,
			);
			sandbox().configure({ rateLimit: null });
			const burst = await Promise.all(Array.from({ length: 20 }, () => client.get('/webhooks')));
			expect(burst.every((response) => response.status === 200)).toBe(true);
			expect(burst[0].headers['x-ratelimit-limit']).toBeUndefined();
		} finally {
			sandbox().configure({ rateLimit: { requestsPerSecond: 0.01, burst: 3 } });
		}
	});
});

describe('failure injection', () => {
	let sandbox: Sandbox;
	beforeEach(async () => {
		sandbox = await startSandbox();
	});
	afterEach(async () => {
		await sandbox.close();
	});

	it('failureRate 1 answers every /v1 request with an injected 500/503 before doing any work', async () => {
		sandbox.configure({ failureRate: 1 });
		const client = api(sandbox);
		for (let i = 0; i < 30; i++) {
			const response = await client.post('/documents', documentBody());
			expect([500, 503]).toContain(response.status);
			expectError(
				response,
				response.status,
				response.status === 500 ? 'internal_error' : 'unavailable',
			);
		}
		expect(sandbox.store.documentsOf(sandbox.apiKey)).toHaveLength(0);
		expect(sandbox.stats().injectedFailures).toBe(30);
		// Admin routes are never failed, so the switch can always be turned off again.
		expect(
			(await axios.put(`${sandbox.origin}/__sandbox/config`, { failureRate: 0 })).data.failureRate,
		).toBe(0);
		expect((await client.post('/documents', documentBody())).status).toBe(201);
	});

	it('failureStatuses chooses the injected status; a failed request is safe to retry', async () => {
		sandbox.configure({ failureRate: 1, failureStatuses: [502] });
		const client = api(sandbox);
		expectError(await client.post('/documents', documentBody()), 502, 'unavailable');
		// Even an unauthenticated request fails first: nothing was looked at.
		expect((await api(sandbox, null).get('/documents')).status).toBe(502);
		sandbox.configure({ failureRate: 0 });
		expect((await client.get('/documents')).data.data).toEqual([]);
	});

	it('a partial failure rate fails some requests and lets others through: with faultSeed, the same ones on every run', async () => {
		sandbox.configure({ failureRate: 0.5, faultSeed: 7 });
		const client = api(sandbox);
		const statuses: number[] = [];
		for (let i = 0; i < 200; i++) statuses.push((await client.get('/documents')).status);
		const random = faultRandom(7);
		const decided = statuses.map(() => decideFault(sandbox.config(), random));
		expect(statuses).toEqual(decided.map((fault) => (fault?.kind === 'fail' ? fault.status : 200)));
		expect([...new Set(statuses)].sort()).toEqual([200, 500, 503]);
		// Changing the seed starts its sequence again.
		sandbox.configure({ faultSeed: 7 });
		expect((await client.get('/documents')).status).toBe(statuses[0]);
	});

	it('connectionResetRate 1 destroys the socket without an answer, before any work', async () => {
		sandbox.configure({ connectionResetRate: 1 });
		const client = api(sandbox);
		const error = await client.post('/documents', documentBody()).then(
			() => undefined,
			(failure: unknown) => failure,
		);
		expect(axios.isAxiosError(error)).toBe(true);
		expect(axios.isAxiosError(error) && error.response).toBeFalsy();
		expect(axios.isAxiosError(error) && error.code).toMatch(
			/ECONNRESET|ERR_BAD_RESPONSE|EPIPE|ECONNABORTED|socket hang up/i,
		);
		expect(sandbox.stats().resets).toBe(1);
		expect(sandbox.store.documentsOf(sandbox.apiKey)).toHaveLength(0);
		sandbox.configure({ connectionResetRate: 0 });
		expect((await client.get('/documents')).status).toBe(200);
	});

	it('never injects failures into webhook deliveries or the signing pages', async () => {
		const target = await startReceiver();
		try {
			const client = api(sandbox);
			const webhook = await client.post('/webhooks', {
				url: target.url,
				events: ['document.created'],
			});
			const document = await client.post('/documents', documentBody());
			expect([webhook.status, document.status]).toEqual([201, 201]);
			sandbox.configure({ failureRate: 1, connectionResetRate: 0 });
			expect((await fetch(document.data.signing_url)).status).toBe(200);
			await sandbox.flushDeliveries();
			expect(target.requests).toHaveLength(1);
		} finally {
			await target.close();
		}
	});
});
