/**
 * Token bucket per API key (docs/api-contract.md, "Rate limits"). Uses the real clock: tests
 * that advance the business clock must not refill buckets by accident.
 */
export interface RateLimitOptions {
	requestsPerSecond: number;
	/** Bucket size: how many requests may arrive at once. Default: requestsPerSecond (at least 1). */
	burst?: number;
	/**
	 * Tokens a key's bucket holds at its first request (default: full). 0 refuses a key's first
	 * request whatever the client's speed, as a quota another client just used up would: a test of
	 * a client's 429 handling forces its 429 with it.
	 */
	initialTokens?: number;
}

export interface RateDecision {
	allowed: boolean;
	limit: number;
	remaining: number;
	/** Whole seconds until one request is allowed again, at least 1; only meaningful when refused. */
	retryAfterSeconds: number;
	/** The same wait to the millisecond (X-RateLimit-Reset-After); only meaningful when refused. */
	resetAfterSeconds: number;
}

interface Bucket {
	tokens: number;
	updatedMs: number;
}

export class RateLimiter {
	private readonly buckets = new Map<string, Bucket>();

	constructor(
		private options: RateLimitOptions | null,
		private readonly nowMs: () => number = () => performance.now(),
	) {}

	configure(options: RateLimitOptions | null): void {
		this.options = options;
		this.buckets.clear();
	}

	get enabled(): boolean {
		return this.options !== null;
	}

	take(key: string): RateDecision | null {
		if (!this.options) return null;
		const rate = this.options.requestsPerSecond;
		const capacity = Math.max(1, this.options.burst ?? Math.ceil(rate));
		const now = this.nowMs();
		const bucket = this.buckets.get(key) ?? {
			tokens: Math.min(capacity, this.options.initialTokens ?? capacity),
			updatedMs: now,
		};
		bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.updatedMs) / 1000) * rate);
		bucket.updatedMs = now;
		this.buckets.set(key, bucket);

		if (bucket.tokens >= 1) {
			bucket.tokens -= 1;
			return {
				allowed: true,
				limit: capacity,
				remaining: Math.floor(bucket.tokens),
				retryAfterSeconds: 0,
				resetAfterSeconds: 0,
			};
		}
		const secondsToOneToken = (1 - bucket.tokens) / rate;
		return {
			allowed: false,
			limit: capacity,
			remaining: 0,
			retryAfterSeconds: Math.max(1, Math.ceil(secondsToOneToken)),
			resetAfterSeconds: Math.ceil(secondsToOneToken * 1000) / 1000,
		};
	}
}
