import { sleep } from 'n8n-workflow';

/** Waits that end early when the execution is cancelled (n8n's sleep itself cannot be cancelled). */

/** Longest single sleep: a cancelled execution is released within this. */
const SLICE_MS = 200;

export class CancelledError extends Error {
	constructor() {
		super('The execution was cancelled');
	}
}

export function throwIfCancelled(signal: AbortSignal | undefined): void {
	if (signal?.aborted) throw new CancelledError();
}

/** Sleeps `ms`, in short slices so a cancelled execution stops waiting at once. */
export async function cancellableSleep(ms: number, signal?: AbortSignal): Promise<void> {
	const until = Date.now() + ms;
	for (;;) {
		throwIfCancelled(signal);
		const left = until - Date.now();
		if (left <= 0) return;
		await sleep(Math.min(left, SLICE_MS));
	}
}
