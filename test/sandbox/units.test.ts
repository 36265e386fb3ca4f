/** Unit tests of the sandbox's building blocks, where the HTTP tests cannot reach every path. */
import { ApiError, parseTarget, type Reply } from '../../sandbox/http';
import { IdempotencyStore, requestFingerprint } from '../../sandbox/idempotency';
import { decideFault, faultRandom } from '../../sandbox/faults';
import { RateLimiter } from '../../sandbox/rateLimit';
import { Router } from '../../sandbox/router';
import { csvCell } from '../../sandbox/routes/reports';

describe('IdempotencyStore', () => {
	const replyOf = (status: number, body: unknown = { ok: true }): Reply => ({ status, body });

	it('runs concurrent identical requests once; the others wait and replay', async () => {
		const store = new IdempotencyStore(() => 0, 1000);
		let runs = 0;
		let release!: () => void;
		const gate = new Promise<void>((resolve) => (release = resolve));
		const execute = async () => {
			runs++;
			await gate; // still "in flight" while the duplicates arrive
			return replyOf(201, { id: runs });
		};
		const all = Promise.all([1, 2, 3].map(() => store.run('acct', 'key', 'fp', execute)));
		await new Promise((resolve) => setImmediate(resolve));
		release();
		const replies = await all;
		expect(runs).toBe(1);
		expect(replies.map((reply) => reply.body)).toEqual([{ id: 1 }, { id: 1 }, { id: 1 }]);
		expect(
			replies.filter((reply) => reply.headers?.['Idempotent-Replayed'] === 'true'),
		).toHaveLength(2);
	});

	it('a different fingerprint while in flight is a conflict at once', async () => {
		const store = new IdempotencyStore(() => 0, 1000);
		let release!: () => void;
		const first = store.run(
			'acct',
			'key',
			'a',
			() => new Promise<Reply>((resolve) => (release = () => resolve(replyOf(201)))),
		);
		await expect(store.run('acct', 'key', 'b', async () => replyOf(201))).rejects.toMatchObject({
			status: 409,
			code: 'idempotency_conflict',
		});
		release();
		await first;
	});

	it('forgets 5xx answers and thrown errors, so waiting duplicates run again', async () => {
		const store = new IdempotencyStore(() => 0, 1000);
		let runs = 0;
		const failing = async () => {
			runs++;
			return replyOf(runs === 1 ? 503 : 201);
		};
		expect((await store.run('acct', 'key', 'fp', failing)).status).toBe(503);
		expect((await store.run('acct', 'key', 'fp', failing)).status).toBe(201);
		expect(runs).toBe(2);
		await expect(
			store.run('acct', 'other', 'fp', async () => Promise.reject(new Error('boom'))),
		).rejects.toThrow('boom');
		expect((await store.run('acct', 'other', 'fp', async () => replyOf(200))).status).toBe(200);
	});

	it('expires answers after the window', async () => {
		let now = 0;
		const store = new IdempotencyStore(() => now, 1000);
		let runs = 0;
		const execute = async () => replyOf(201, { run: ++runs });
		await store.run('acct', 'key', 'fp', execute);
		now = 999;
		expect((await store.run('acct', 'key', 'fp', execute)).body).toEqual({ run: 1 });
		now = 1000;
		expect((await store.run('acct', 'key', 'fp', execute)).body).toEqual({ run: 2 });
	});

	it('fingerprints the JSON value, not its spelling', () => {
		const a = requestFingerprint('POST', '/v1/documents', Buffer.from('{"a":1,"b":[1,2]}'));
		const b = requestFingerprint('POST', '/v1/documents', Buffer.from('{ "b": [1, 2], "a": 1 }'));
		const c = requestFingerprint('POST', '/v1/templates', Buffer.from('{"a":1,"b":[1,2]}'));
		const d = requestFingerprint('POST', '/v1/documents', Buffer.from('{"a":1,"b":[2,1]}'));
		expect(a).toBe(b);
		expect(a).not.toBe(c);
		expect(a).not.toBe(d);
	});
});

describe('RateLimiter', () => {
	it('allows the burst, then refuses with a whole-second Retry-After of at least 1', () => {
		let now = 0;
		const limiter = new RateLimiter({ requestsPerSecond: 2, burst: 2 }, () => now);
		expect(limiter.take('k')).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
		expect(limiter.take('k')).toMatchObject({ allowed: true, remaining: 0 });
		expect(limiter.take('k')).toMatchObject({
			allowed: false,
			remaining: 0,
			retryAfterSeconds: 1,
			resetAfterSeconds: 0.5,
		});
		now = 250;
		// A quarter second later, half a token is back: the precise wait halves, Retry-After cannot.
		expect(limiter.take('k')).toMatchObject({
			allowed: false,
			retryAfterSeconds: 1,
			resetAfterSeconds: 0.25,
		});
		now = 500; // half a second refills one token at 2/s
		expect(limiter.take('k')?.allowed).toBe(true);
		expect(limiter.take('other')?.allowed).toBe(true);
	});

	it('rounds Retry-After up for slow rates', () => {
		const limiter = new RateLimiter({ requestsPerSecond: 0.25 }, () => 0);
		expect(limiter.take('k')?.allowed).toBe(true);
		expect(limiter.take('k')).toMatchObject({ allowed: false, retryAfterSeconds: 4 });
	});

	it('is off when configured with null', () => {
		const limiter = new RateLimiter(null);
		expect(limiter.take('k')).toBeNull();
	});

	it("with initialTokens 0 refuses each key's first request, whenever it comes", () => {
		let now = 10_000;
		const limiter = new RateLimiter(
			{ requestsPerSecond: 50, burst: 10, initialTokens: 0 },
			() => now,
		);
		expect(limiter.take('k')).toMatchObject({
			allowed: false,
			retryAfterSeconds: 1,
			resetAfterSeconds: 0.02,
		});
		now += 20; // one token at 50/s
		expect(limiter.take('k')).toMatchObject({ allowed: true, remaining: 0 });
		now += 60_000;
		expect(limiter.take('other')?.allowed).toBe(false);
	});
});

describe('faultRandom', () => {
	it('with a seed, gives the same numbers in [0, 1) on every run; another seed others', () => {
		const draw = (seed: number) => {
			const random = faultRandom(seed);
			return Array.from({ length: 1000 }, () => random());
		};
		const first = draw(32);
		expect(draw(32)).toEqual(first);
		expect(first.filter((value) => value < 0 || value >= 1)).toEqual([]);
		expect(draw(33).filter((value, i) => value === first[i])).toEqual([]);
		// Spread over the interval, as a rate needs: each tenth gets 100 ± 40 of the 1,000.
		const tenths = Array.from({ length: 10 }, (_, tenth) =>
			first.filter((value) => Math.floor(value * 10) === tenth),
		);
		expect(tenths.filter(({ length }) => length < 60 || length > 140)).toEqual([]);
	});

	it('without a seed is Math.random', () => {
		expect(faultRandom(null)).toBe(Math.random);
	});
});

describe('decideFault', () => {
	const options = { failureRate: 0, failureStatuses: [500, 503], connectionResetRate: 0 };
	it('never fires when off and always when the rate is 1', () => {
		expect(decideFault(options, () => 0)).toBeNull();
		expect(decideFault({ ...options, connectionResetRate: 1 }, () => 0.999)).toEqual({
			kind: 'reset',
		});
		expect(decideFault({ ...options, failureRate: 1 }, () => 0.999)).toEqual({
			kind: 'fail',
			status: 503,
		});
		expect(decideFault({ ...options, failureRate: 1, failureStatuses: [502] }, () => 0.5)).toEqual({
			kind: 'fail',
			status: 502,
		});
	});
});

describe('Router', () => {
	const router = new Router<string>()
		.add('POST', '/v1/signatures/request', 'create')
		.add('GET', '/v1/signatures/:id', 'get')
		.add('POST', '/v1/signatures/:id/remind', 'remind');

	it('prefers literal segments and extracts parameters', () => {
		expect(router.resolve('POST', ['v1', 'signatures', 'request'])).toMatchObject({
			kind: 'found',
			route: { handler: 'create' },
		});
		expect(router.resolve('GET', ['v1', 'signatures', 'sr_1'])).toMatchObject({
			kind: 'found',
			params: { id: 'sr_1' },
		});
		expect(router.resolve('GET', ['v1', 'signatures', 'request'])).toMatchObject({
			kind: 'found',
			route: { handler: 'get' },
		});
	});

	it('tells 405 from 404', () => {
		expect(router.resolve('DELETE', ['v1', 'signatures', 'sr_1'])).toEqual({
			kind: 'method_not_allowed',
			allow: ['GET'],
		});
		expect(router.resolve('GET', ['v1', 'nothing'])).toEqual({ kind: 'not_found' });
	});
});

describe('parseTarget', () => {
	it('decodes segments, drops empty query values and keeps repeated ones', () => {
		expect(parseTarget('/v1/documents/doc%5F1/?a=1&a=2&b=&c=x')).toEqual({
			segments: ['v1', 'documents', 'doc_1'],
			pathname: '/v1/documents/doc_1',
			query: { a: ['1', '2'], c: 'x' },
		});
	});

	it('refuses absolute-form and broken encodings instead of throwing', () => {
		expect(parseTarget('http://evil.example/v1')).toBeNull();
		expect(parseTarget('/v1/%E0%A4%A')).toBeNull();
		expect(parseTarget(undefined)).toBeNull();
		expect(parseTarget('//v1//documents')?.segments).toEqual(['v1', 'documents']);
	});
});

describe('csvCell', () => {
	it.each([
		['plain', 'plain'],
		['a,b', '"a,b"'],
		['say "hi"', '"say ""hi"""'],
		['two\nlines', '"two\nlines"'],
		['=SUM(A1)', "'=SUM(A1)"],
		['+1', "'+1"],
		['@cmd', "'@cmd"],
		[' padded', '" padded"'],
		[null, ''],
		[3, '3'],
		[['a@example.com', 'b@example.com'], 'a@example.com;b@example.com'],
	])('%p → %p', (input, expected) => {
		expect(csvCell(input)).toBe(expected);
	});

	it('does not defuse numbers', () => {
		expect(csvCell(-5)).toBe('-5');
	});
});

describe('ApiError', () => {
	it('carries status, code, field and headers', () => {
		const error = new ApiError(429, 'rate_limited', 'slow down', undefined, undefined, {
			'Retry-After': '3',
		});
		expect(error).toMatchObject({
			status: 429,
			code: 'rate_limited',
			message: 'slow down',
			headers: { 'Retry-After': '3' },
		});
	});
});
