/**
 * Waiting for a state, not for an answer: n8n reports some changes in steps (2.x publishes
 * through an outbox, then writes the triggers' rows; in queue mode other processes answer
 * later), so the first answer after an action can still show the state from before it.
 */
import { sleep } from './processes';

export interface WaitForStateOptions<T> {
	timeoutMs: number;
	/** Pause between reads. Default 200 ms. */
	intervalMs?: number;
	/** The failure message, given the last state read. */
	describe: (last: T | undefined) => string;
	/** Called with the message when time is up; must throw. Default: throws an Error. */
	onTimeout?: (message: string) => never;
}

/** Reads until `reached` holds (then resolves with that state) or the time is up (then fails). */
export async function waitForState<T>(
	read: () => Promise<T>,
	reached: (state: T) => boolean,
	options: WaitForStateOptions<T>,
): Promise<T> {
	const deadline = Date.now() + options.timeoutMs;
	let last: T | undefined;
	for (;;) {
		last = await read();
		if (reached(last)) return last;
		if (Date.now() > deadline) {
			const message = options.describe(last);
			if (options.onTimeout) options.onTimeout(message);
			throw new Error(message);
		}
		await sleep(options.intervalMs ?? 200);
	}
}

interface PublicationLike {
	status: string;
}

/** An activation has an outcome: the triggers run, some of them, or none did. */
export const activationSettled = (state: PublicationLike): boolean =>
	state.status === 'published' || state.status === 'partial' || state.status === 'failed';

/** A deactivation has happened only once no trigger is left. */
export const deactivationSettled = (state: PublicationLike): boolean =>
	state.status === 'not_published';
