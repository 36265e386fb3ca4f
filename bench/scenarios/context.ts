import type { N8nInstance } from '../../e2e/harness/n8n';
import type { Sandbox } from '../../sandbox';

export interface BenchContext {
	sandbox: Sandbox;
	n8n: N8nInstance;
	/** Progress on stderr (the table goes to stdout). */
	log: (message: string) => void;
}

/** Sandbox counters that matter here, as a difference between two snapshots. */
export function statsDelta(
	before: ReturnType<Sandbox['stats']>,
	after: ReturnType<Sandbox['stats']>,
) {
	const route = (key: string) => (after.routes[key] ?? 0) - (before.routes[key] ?? 0);
	const status = (code: number) => (after.statuses[code] ?? 0) - (before.statuses[code] ?? 0);
	return {
		requests: after.requests - before.requests,
		rateLimited: after.rateLimited - before.rateLimited,
		injectedFailures: after.injectedFailures - before.injectedFailures,
		resets: after.resets - before.resets,
		route,
		status,
	};
}
