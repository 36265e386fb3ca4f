/**
 * Repeats the service cannot settle: when it has no acknowledge endpoint (the claim answers
 * 404/405/501), the trigger still suppresses the repeats one n8n process can see. A bounded memory
 * of recently processed delivery ids per workflow node, shared by the webhook step and the
 * executions of this process. Guarantee without the endpoint: at most once per delivery per n8n
 * process (not across queue-mode workers, nor after a restart).
 */

/** Delivery ids kept per workflow node; the oldest are forgotten first. */
export const MAX_REMEMBERED_DELIVERIES = 10_000;
/** The service retries for well under a day; older ids are forgotten. */
export const REMEMBER_MS = 24 * 60 * 60 * 1000;
/** Workflow nodes remembered at once (the least recently used go first). */
const MAX_SCOPES = 1_000;

const scopes = new Map<string, Map<string, number>>();

function scopeOf(key: string, create: boolean): Map<string, number> | undefined {
	let scope = scopes.get(key);
	if (scope) {
		// Most recently used last.
		scopes.delete(key);
		scopes.set(key, scope);
		return scope;
	}
	if (!create) return undefined;
	scope = new Map();
	scopes.set(key, scope);
	if (scopes.size > MAX_SCOPES) scopes.delete(scopes.keys().next().value as string);
	return scope;
}

function fresh(scope: Map<string, number>, deliveryId: string, now: number): boolean {
	const at = scope.get(deliveryId);
	if (at === undefined) return false;
	if (now - at <= REMEMBER_MS) return true;
	scope.delete(deliveryId);
	return false;
}

export function scopeKey(workflowId: string | undefined, nodeId: string | undefined): string {
	return `${workflowId ?? ''}\u0000${nodeId ?? ''}`;
}

/** Whether this process already passed this delivery on. */
export function wasProcessed(scopeKeyValue: string, deliveryId: string, now = Date.now()): boolean {
	const scope = scopeOf(scopeKeyValue, false);
	return scope ? fresh(scope, deliveryId, now) : false;
}

/**
 * Records the delivery as processed; false when it already was (then the caller drops it).
 * Synchronous, so two executions of one delivery in this process cannot both win.
 */
export function markProcessed(scopeKeyValue: string, deliveryId: string, now = Date.now()): boolean {
	const scope = scopeOf(scopeKeyValue, true) as Map<string, number>;
	if (fresh(scope, deliveryId, now)) return false;
	scope.set(deliveryId, now);
	if (scope.size > MAX_REMEMBERED_DELIVERIES) scope.delete(scope.keys().next().value as string);
	return true;
}

/** For tests: forget everything. */
export function forgetAllDeliveries(): void {
	scopes.clear();
}
