/**
 * The service's business clock: record timestamps and expiry read it, and tests move it forward
 * with advanceClock() instead of waiting. Transport concerns (webhook signature timestamps, retry
 * timers, the rate limiter) stay on the real clock, so a receiver checking `t` against its own
 * clock still accepts deliveries after the business clock was advanced.
 */
export class Clock {
	private offsetMs = 0;

	constructor(offsetMs = 0) {
		this.offsetMs = offsetMs;
	}

	now(): number {
		return Date.now() + this.offsetMs;
	}

	iso(): string {
		return new Date(this.now()).toISOString();
	}

	advance(seconds: number): void {
		if (!Number.isFinite(seconds) || seconds < 0)
			throw new RangeError('seconds must be a finite number ≥ 0');
		this.offsetMs += seconds * 1000;
	}

	get offsetSeconds(): number {
		return this.offsetMs / 1000;
	}

	reset(): void {
		this.offsetMs = 0;
	}
}

/** A timestamp without a zone (`2026-11-28T10:00:00.123`). */
export const ZONELESS_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?$/;

/**
 * The instant of a time text in milliseconds, a zone-less time read as UTC (never in the
 * process's zone, as `Date.parse` would read it); NaN when the text is no time.
 */
export function instantOf(time: string): number {
	return Date.parse(ZONELESS_TIME.test(time) ? `${time}Z` : time);
}
