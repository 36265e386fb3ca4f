import { sleep } from 'n8n-workflow';

/** Only ever thrown into the retry policy, which reports it as it is. */
class CancelledError extends Error {
	constructor() {
		super('The execution was cancelled while waiting to retry');
	}
}

/** No place before the request's deadline: a 429's pause lasts longer, or every slot stays busy. */
export class GateDeadlineError extends Error {}

/** Sleeps `ms` in slices of 200 ms, so a cancelled execution stops waiting at once (n8n's sleep cannot be cancelled). */
export async function cancellableSleep(ms: number, signal?: AbortSignal): Promise<void> {
	const until = Date.now() + ms;
	for (;;) {
		if (signal?.aborted) throw new CancelledError();
		const left = until - Date.now();
		if (left <= 0) return;
		await sleep(Math.min(left, 200));
	}
}

/** Each request let through shortens the spacing between starts this much… */
const PACE_DECAY = 0.95;
/** …and each 429 to a request that was already spaced lengthens it this much. */
const PACE_GROWTH = 1.5;
/** Below MIN the spacing is dropped; above MAX, 429s' own waits hold requests back well enough. */
const MIN_PACE_MS = 1;
const MAX_PACE_MS = 1_000;

/**
 * Bounds concurrency per credential and holds its requests back while a 429 asks to wait; then they
 * start one at a time, spaced as TCP finds a link's rate: wider on a 429, narrower on each success.
 */
export class RequestGate {
	private active = 0;
	private readonly waiting: Array<() => void> = [];

	/** No request starts before this (epoch ms): a 429's wait, or the spacing after the last start. */
	private nextStartAt = 0;
	/** The current spacing between starts (0: none). */
	spacingMs = 0;
	/** When the spacing last grew: 429s to requests started before that are old news. */
	private spacingChangedAt = 0;
	constructor(private readonly limit: number) {}

	/** Waits for a place; resolves with the start time (epoch ms), for `rateLimited`. */
	async acquire({
		signal,
		deadline = Number.POSITIVE_INFINITY,
	}: { signal?: AbortSignal; deadline?: number } = {}): Promise<number> {
		for (;;) {
			if (signal?.aborted) throw new CancelledError();
			const pause = this.nextStartAt - Date.now();
			if (pause > 0) {
				if (this.nextStartAt > deadline) throw new GateDeadlineError();
				await cancellableSleep(Math.ceil(pause), signal);
			} else if (this.active < this.limit) {
				this.active++;
				const now = Date.now();
				if (this.spacingMs > 0) this.nextStartAt = now + this.spacingMs;
				return now;
			} else await this.queueUp(signal, deadline);
		}
	}

	/** Waits until a place frees up; leaves the queue when the signal aborts, or at `deadline`. */
	private async queueUp(signal: AbortSignal | undefined, deadline: number): Promise<void> {
		const left = deadline - Date.now();
		if (left <= 0) throw new GateDeadlineError();
		const expiry = Number.isFinite(left) ? AbortSignal.timeout(Math.ceil(left)) : undefined;
		const stop = AbortSignal.any([signal, expiry].filter((one) => one !== undefined));
		await new Promise<void>((resolve, reject) => {
			const wake = () => {
				stop.removeEventListener('abort', leave);
				resolve();
			};
			const leave = () => {
				this.waiting.splice(this.waiting.indexOf(wake), 1);
				reject(signal?.aborted ? new CancelledError() : new GateDeadlineError());
			};
			this.waiting.push(wake);
			stop.addEventListener('abort', leave, { once: true });
		});
	}

	release(): void {
		this.active--;
		this.waiting.shift()?.();
	}

	/** A 429 to the request started at `startedAt`: none starts for `waitMs`, then `nextRequestMs` apart. */
	rateLimited(waitMs: number, nextRequestMs: number, startedAt: number): void {
		const now = Date.now();
		this.nextStartAt = Math.max(this.nextStartAt, now + waitMs);
		if (nextRequestMs < MIN_PACE_MS) return;
		// Requests in flight when the spacing last changed were not spaced by it: they say nothing new.
		const spacedAndRefused = this.spacingMs > 0 && startedAt > this.spacingChangedAt;
		const spacing = Math.min(
			MAX_PACE_MS,
			Math.max(nextRequestMs, spacedAndRefused ? this.spacingMs * PACE_GROWTH : this.spacingMs),
		);
		if (spacing > this.spacingMs) {
			this.spacingMs = spacing;
			this.spacingChangedAt = now;
		}
	}

	/** The service let a request through (any response but 429): the spacing shrinks. */
	admitted(): void {
		this.spacingMs *= PACE_DECAY;
		if (this.spacingMs < MIN_PACE_MS) this.spacingMs = 0;
	}

	/** Nothing in flight, nothing waiting, no pause or spacing in force: forgetting it loses nothing. */
	get idle(): boolean {
		return (
			this.active === 0 &&
			this.waiting.length === 0 &&
			this.spacingMs === 0 &&
			this.nextStartAt <= Date.now()
		);
	}
}
