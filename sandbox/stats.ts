/** Request counters exposed by Sandbox.stats() and GET /__sandbox/stats. */
export interface SandboxStats {
	/** Requests to /v1 (including refused and injected ones). */
	requests: number;
	rateLimited: number;
	injectedFailures: number;
	resets: number;
	/** Unexpected errors answered with 500 (should stay 0: every input must be handled). */
	internalErrors: number;
	/** Per route pattern, e.g. `POST /v1/documents`; unmatched paths count under `unmatched`. */
	routes: Record<string, number>;
	/** Per answered status code of /v1 requests. */
	statuses: Record<string, number>;
	deliveries: {
		pending: number;
		succeeded: number;
		failed: number;
		dropped: number;
		acknowledged: number;
	};
}

export class StatsCounter {
	requests = 0;
	rateLimited = 0;
	injectedFailures = 0;
	resets = 0;
	routes: Record<string, number> = {};
	statuses: Record<string, number> = {};

	route(key: string): void {
		this.routes[key] = (this.routes[key] ?? 0) + 1;
	}

	status(code: number): void {
		this.statuses[code] = (this.statuses[code] ?? 0) + 1;
	}

	reset(): void {
		this.requests = this.rateLimited = this.injectedFailures = this.resets = 0;
		this.routes = {};
		this.statuses = {};
	}
}
