import { CancelledError, cancellableSleep, throwIfCancelled } from './wait';

/** Each request the service lets through shortens the spacing between starts this much… */
const PACE_DECAY = 0.95;
/** …and each 429 to a request that was already spaced lengthens it this much. */
const PACE_GROWTH = 1.5;
/** Below this the spacing is dropped: requests start as concurrency allows. */
const MIN_PACE_MS = 1;
/** Above this, 429s' own waits hold requests back well enough. */
const MAX_PACE_MS = 1_000;

/**
 * Bounds concurrency per credential (one API key at one service) and holds its requests back while a
 * 429 asks to wait. Afterwards they start one at a time: a limit that refills one request at a time
 * would refuse all but one, earning more 429s. The spacing finds the service's rate as TCP finds a
 * link's: it grows when a spaced request is still refused and shrinks with each one let through.
 */
export class RequestGate {
	private active = 0;

	private readonly waiting: Array<() => void> = [];

	/** No request starts before this (epoch ms): a 429's wait, or the spacing after the last start. */
	private nextStartAt = 0;

	private paceMs = 0;

	/** When the spacing last grew: 429s to requests started before that are old news. */
	private paceChangedAt = 0;

	constructor(private readonly limit: number) {}

	/**
	 * Waits for a place; resolves with the start time (epoch ms), for `rateLimited`. Rejects with
	 * CancelledError when `signal` aborts, and with GateDeadlineError when no place can be had
	 * before `deadline` (epoch ms) because a 429's pause lasts longer.
	 */
	async acquire({
		signal,
		deadline = Number.POSITIVE_INFINITY,
	}: { signal?: AbortSignal; deadline?: number } = {}): Promise<number> {
		for (;;) {
			throwIfCancelled(signal);
			const pause = this.nextStartAt - Date.now();
			if (pause > 0) {
				if (this.nextStartAt > deadline) throw new GateDeadlineError(this.nextStartAt);
				await cancellableSleep(Math.ceil(pause), signal);
				continue;
			}
			if (this.active < this.limit) {
				this.active++;
				const now = Date.now();
				if (this.paceMs > 0) this.nextStartAt = now + this.paceMs;
				return now;
			}
			await this.queueUp(signal, deadline);
		}
	}

	/**
	 * Waits until a place frees up; leaves the queue when the signal aborts, or at `deadline` (a
	 * request whose every slot is held by hanging requests gives up within its own bound).
	 */
	private async queueUp(signal: AbortSignal | undefined, deadline: number): Promise<void> {
		const left = deadline - Date.now();
		if (left <= 0)
			throw new GateDeadlineError(
				deadline,
				"No free request slot for this credential before the request's time limit",
			);
		const expiry = Number.isFinite(deadline) ? AbortSignal.timeout(Math.ceil(left)) : undefined;
		await new Promise<void>((resolve, reject) => {
			const stopListening = () => {
				signal?.removeEventListener('abort', onAbort);
				expiry?.removeEventListener('abort', onExpiry);
			};
			const leave = () => {
				const index = this.waiting.indexOf(wake);
				if (index >= 0) this.waiting.splice(index, 1);
				stopListening();
			};
			const wake = () => {
				stopListening();
				resolve();
			};
			const onAbort = () => {
				leave();
				reject(new CancelledError());
			};
			const onExpiry = () => {
				leave();
				reject(
					new GateDeadlineError(
						deadline,
						"No free request slot for this credential before the request's time limit",
					),
				);
			};
			this.waiting.push(wake);
			signal?.addEventListener('abort', onAbort, { once: true });
			expiry?.addEventListener('abort', onExpiry, { once: true });
		});
	}

	/** A request ended (whatever its outcome): its place goes to the next one waiting. */
	release(): void {
		this.active--;
		this.waiting.shift()?.();
	}

	/**
	 * A 429 to the request started at `startedAt`: nobody starts for `waitMs`; then starts are spaced
	 * by at least `nextRequestMs` (the service's time to its next allowed request; 0 when unknown).
	 */
	rateLimited(waitMs: number, nextRequestMs: number, startedAt: number): void {
		const now = Date.now();
		this.nextStartAt = Math.max(this.nextStartAt, now + waitMs);
		if (nextRequestMs < MIN_PACE_MS) return;
		// Requests in flight when the spacing last changed were not spaced by it: they say nothing new.
		const spacedAndRefused = this.paceMs > 0 && startedAt > this.paceChangedAt;
		const paceMs = Math.min(
			MAX_PACE_MS,
			Math.max(nextRequestMs, spacedAndRefused ? this.paceMs * PACE_GROWTH : this.paceMs),
		);
		if (paceMs > this.paceMs) {
			this.paceMs = paceMs;
			this.paceChangedAt = now;
		}
	}

	/** The service let a request through (any response but 429): the spacing shrinks. */
	admitted(): void {
		if (this.paceMs === 0) return;
		this.paceMs *= PACE_DECAY;
		if (this.paceMs < MIN_PACE_MS) this.paceMs = 0;
	}

	/** Nothing in flight, nothing waiting, no pause or spacing in force: forgetting it loses nothing. */
	get idle(): boolean {
		return (
			this.active === 0 &&
			this.waiting.length === 0 &&
			this.paceMs === 0 &&
			this.nextStartAt <= Date.now()
		);
	}

	/** The current spacing between starts, in ms (0: none). */
	get spacingMs(): number {
		return this.paceMs;
	}
}

/** A 429's pause would outlast the request's own time budget. */
export class GateDeadlineError extends Error {
	constructor(
		readonly resumesAt: number,
		message = 'The service asked to wait longer than this request may wait',
	) {
		super(message);
	}
}
