import type { IN8nHttpFullResponse } from 'n8n-workflow';

import { backoffMs, rateLimitOf, RETRY_POLICY } from '../../../../nodes/shared/transport/retry';

const answer = (headers: Record<string, string>): IN8nHttpFullResponse => ({
	body: {},
	headers,
	statusCode: 429,
	statusMessage: 'Too Many Requests',
});

describe('how long a 429 waits', () => {
	test('Retry-After in seconds, or as an HTTP date', () => {
		expect(rateLimitOf(answer({ 'Retry-After': '3' })).waitMs).toBe(3000);
		jest.useFakeTimers({ now: Date.parse('2026-11-22T10:00:00Z') });
		try {
			const date = answer({ 'retry-after': 'Sun, 22 Nov 2026 10:00:05 GMT' });
			expect(rateLimitOf(date).waitMs).toBe(5000);
		} finally {
			jest.useRealTimers();
		}
	});

	test('one second when Retry-After is missing, unreadable or negative', () => {
		expect(rateLimitOf(answer({})).waitMs).toBe(1000);
		expect(rateLimitOf(answer({ 'Retry-After': 'soon' })).waitMs).toBe(1000);
		expect(rateLimitOf(answer({ 'Retry-After': '-5' })).waitMs).toBe(1000);
	});

	test('X-RateLimit-Reset-After wins over the rounded-up Retry-After', () => {
		expect(
			rateLimitOf(answer({ 'Retry-After': '1', 'X-RateLimit-Reset-After': '0.007' })).waitMs,
		).toBe(7);
		expect(rateLimitOf(answer({ 'retry-after': '2' })).waitMs).toBe(2000);
		expect(
			rateLimitOf(answer({ 'Retry-After': '2', 'X-RateLimit-Reset-After': 'nonsense' })).waitMs,
		).toBe(2000);
	});

	test('requests are spaced afterwards only by a precise time to the next request, under a second', () => {
		expect(
			rateLimitOf(answer({ 'Retry-After': '1', 'X-RateLimit-Reset-After': '0.02' })).paceMs,
		).toBe(20);
		// A whole-second Retry-After says how long to wait, not how fast the service refills.
		expect(rateLimitOf(answer({ 'Retry-After': '1' })).paceMs).toBe(0);
		expect(
			rateLimitOf(answer({ 'Retry-After': '3', 'X-RateLimit-Reset-After': '2.5' })).paceMs,
		).toBe(0);
		expect(rateLimitOf(answer({ 'X-RateLimit-Reset-After': 'nonsense' })).paceMs).toBe(0);
	});
});

describe('backoff after 5xx and dropped connections', () => {
	test('grows exponentially with jitter and stays under the cap', () => {
		for (let failures = 1; failures <= 10; failures++) {
			const ceiling = Math.min(
				RETRY_POLICY.maxDelayMs,
				RETRY_POLICY.baseDelayMs * 2 ** (failures - 1),
			);
			for (let i = 0; i < 50; i++) {
				const delay = backoffMs(failures);
				expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
				expect(delay).toBeLessThanOrEqual(ceiling);
			}
		}
	});
});
