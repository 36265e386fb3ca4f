/**
 * Failure injection for /v1 requests: answer 5xx or drop the connection BEFORE any work is done,
 * so a client retrying the same request is always safe. Off by default.
 */
export interface FaultOptions {
	failureRate: number;
	failureStatuses: number[];
	connectionResetRate: number;
}

/**
 * The random numbers the fault decisions draw: Math.random, or with a seed a fixed sequence
 * (mulberry32), so that the n-th /v1 request gets the same fault on every run and a test knows
 * which faults happen whatever the machine's speed.
 */
export function faultRandom(seed: number | null): () => number {
	if (seed === null) return Math.random;
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = Math.imul(state ^ (state >>> 15), state | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export type FaultDecision = { kind: 'reset' } | { kind: 'fail'; status: number } | null;

export function decideFault(
	options: FaultOptions,
	random: () => number = Math.random,
): FaultDecision {
	if (options.connectionResetRate > 0 && random() < options.connectionResetRate)
		return { kind: 'reset' };
	if (options.failureRate > 0 && random() < options.failureRate) {
		const statuses = options.failureStatuses.length > 0 ? options.failureStatuses : [500];
		return {
			kind: 'fail',
			status: statuses[Math.floor(random() * statuses.length)] ?? statuses[0],
		};
	}
	return null;
}
