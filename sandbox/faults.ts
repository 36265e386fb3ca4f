/**
 * Failure injection for /v1 requests: answer 5xx or drop the connection BEFORE any work is done,
 * so a client retrying the same request is always safe. Off by default.
 */
export interface FaultOptions {
	failureRate: number;
	failureStatuses: number[];
	connectionResetRate: number;
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
