/**
 * nodes/shared/transport/retry.ts through sendWithRetries, on a fake clock: how long a 429 makes a
 * request wait, how far apart requests start afterwards, and the backoff after a 5xx.
 */
import type { IN8nHttpFullResponse, INode } from 'n8n-workflow';

import { HttpStatusError } from '../../../../nodes/shared/transport/errors';
import { sendWithRetries } from '../../../../nodes/shared/transport/retry';

/** A request's whole life, every wait included (the policy's bound). */
const FIVE_MINUTES = 300_000;
const node = { name: 'Document Signing' } as INode;
const NOW = Date.parse('2026-11-22T10:00:00Z');
let gates = 0;

const answer = (
	statusCode: number,
	headers: Record<string, string> = {},
): IN8nHttpFullResponse => ({
	body: {},
	headers,
	statusCode,
	statusMessage: '',
});

/**
 * The start times (ms after NOW) of one request answered `answers` in turn, then 200, and of a
 * second request on the same credential sent as soon as the first succeeds.
 */
async function startTimes(answers: IN8nHttpFullResponse[], random = 0.5) {
	const gateKey = `retry-test-${++gates}`;
	jest.useFakeTimers({ now: NOW });
	jest.spyOn(Math, 'random').mockReturnValue(random);
	try {
		const first: number[] = [];
		const second: number[] = [];
		const done = sendWithRetries({ node, gateKey, idempotent: true }, async () => {
			first.push(Date.now() - NOW);
			const next = answers[first.length - 1];
			if (next) throw new HttpStatusError(next);
		}).then(() =>
			sendWithRetries({ node, gateKey, idempotent: true }, async () => {
				second.push(Date.now() - NOW);
			}),
		);
		await jest.advanceTimersByTimeAsync(FIVE_MINUTES);
		await done;
		return { first, second: second[0] };
	} finally {
		jest.restoreAllMocks();
		jest.useRealTimers();
	}
}

/** How long a request waited after its one 429 answered with `headers`. */
const waitAfter = async (headers: Record<string, string>) => {
	const { first } = await startTimes([answer(429, headers)]);
	return first[1] - first[0];
};

describe('how long a 429 waits', () => {
	test('Retry-After in seconds, or as an HTTP date', async () => {
		expect(await waitAfter({ 'Retry-After': '3' })).toBe(3000);
		expect(await waitAfter({ 'retry-after': 'Sun, 22 Nov 2026 10:00:05 GMT' })).toBe(5000);
	});

	test('one second when Retry-After is missing, unreadable or negative', async () => {
		expect(await waitAfter({})).toBe(1000);
		expect(await waitAfter({ 'Retry-After': 'soon' })).toBe(1000);
		expect(await waitAfter({ 'Retry-After': '-5' })).toBe(1000);
	});

	test('X-RateLimit-Reset-After wins over the rounded-up Retry-After', async () => {
		expect(await waitAfter({ 'Retry-After': '1', 'X-RateLimit-Reset-After': '0.007' })).toBe(7);
		expect(await waitAfter({ 'Retry-After': '2', 'X-RateLimit-Reset-After': 'nonsense' })).toBe(
			2000,
		);
	});

	test('requests are spaced afterwards only by a precise time to the next request, under a second', async () => {
		const spaced = await startTimes([answer(429, { 'X-RateLimit-Reset-After': '0.02' })]);
		expect(spaced.second - spaced.first[1]).toBe(20);
		// A whole-second Retry-After says how long to wait, not how fast the service refills.
		for (const headers of <Array<Record<string, string>>>[
			{ 'Retry-After': '1' },
			{ 'Retry-After': '3', 'X-RateLimit-Reset-After': '2.5' },
		]) {
			const { first, second } = await startTimes([answer(429, headers)]);
			expect(second).toBe(first[1]);
		}
	});
});

describe('backoff after 5xx and dropped connections', () => {
	test('grows exponentially with jitter (half to all of its ceiling) and stays under the cap', async () => {
		// Seven attempts: six waits, from 250 ms doubling up to the 8 s cap.
		const ceilings = [250, 500, 1_000, 2_000, 4_000, 8_000];
		const failures = ceilings.map(() => answer(503));
		const gaps = ({ first }: { first: number[] }) => first.slice(1).map((at, i) => at - first[i]);
		expect(gaps(await startTimes(failures, 0))).toEqual(ceilings.map((ceiling) => ceiling / 2));
		expect(gaps(await startTimes(failures, 1))).toEqual(ceilings);
	});
});
