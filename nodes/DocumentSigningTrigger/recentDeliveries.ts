import { createHash } from 'crypto';

/**
 * Repeats the service cannot settle: when it has no acknowledge endpoint (the claim answers
 * 404/405/501), the trigger still suppresses the repeats one n8n process can see. A bounded memory
 * of recently processed delivery ids per workflow node, shared by the webhook step and the
 * executions of this process. The memory is shared fairly: when it is full, the node keeping the
 * most ids forgets its oldest, so one workflow's flood never evicts another's ids. Guarantee without the endpoint: at most once per delivery per n8n
 * process (not across queue-mode workers, nor after a restart). Bounded in bytes: at most
 * MAX_REMEMBERED_IN_ALL ids of at most MAX_KEPT_ID_LENGTH characters are kept (about 20 MB).
 */

/** Delivery ids kept per workflow node; the oldest are forgotten first. */
export const MAX_REMEMBERED_DELIVERIES = 10_000;
/** Delivery ids kept in all, across workflow nodes: with MAX_KEPT_ID_LENGTH, bounds the memory in bytes. */
export const MAX_REMEMBERED_IN_ALL = 50_000;
/** Longer ids are kept as their SHA-256 (64 hex characters), so one id costs at most about 400 bytes. */
export const MAX_KEPT_ID_LENGTH = 128;
/** The service retries for well under a day; older ids are forgotten. */
export const REMEMBER_MS = 24 * 60 * 60 * 1000;
/** Workflow nodes remembered at once (the least recently used go first). */
const MAX_SCOPES = 1_000;

const scopes = new Map<string, Map<string, number>>();
let rememberedInAll = 0;

/** The id as kept: itself, or its digest when longer than MAX_KEPT_ID_LENGTH. */
function keptId(deliveryId: string): string {
	return deliveryId.length <= MAX_KEPT_ID_LENGTH
		? deliveryId
		: `sha256:${createHash('sha256').update(deliveryId).digest('hex')}`;
}

/**
 * Forgets the oldest id of the workflow node that keeps the most: a node flooding the memory
 * evicts its own ids, never another's, so each keeps at least an equal share of the whole.
 */
function forgetOldest(): void {
	let largestKey: string | undefined;
	let largest: Map<string, number> | undefined;
	for (const [key, scope] of scopes)
		if (!largest || scope.size > largest.size) [largestKey, largest] = [key, scope];
	if (!largest) return;
	const oldest = largest.keys().next();
	if (!oldest.done) {
		largest.delete(oldest.value);
		rememberedInAll--;
	}
	if (largest.size === 0) scopes.delete(largestKey as string);
}

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
	if (scopes.size > MAX_SCOPES) {
		const [oldestKey, oldestScope] = scopes.entries().next().value as [string, Map<string, number>];
		rememberedInAll -= oldestScope.size;
		scopes.delete(oldestKey);
	}
	return scope;
}

function fresh(scope: Map<string, number>, deliveryId: string, now: number): boolean {
	const at = scope.get(deliveryId);
	if (at === undefined) return false;
	if (now - at <= REMEMBER_MS) return true;
	scope.delete(deliveryId);
	rememberedInAll--;
	return false;
}

export function scopeKey(workflowId: string | undefined, nodeId: string | undefined): string {
	return `${workflowId ?? ''}\u0000${nodeId ?? ''}`;
}

/** Whether this process already passed this delivery on. */
export function wasProcessed(scopeKeyValue: string, deliveryId: string, now = Date.now()): boolean {
	const scope = scopeOf(scopeKeyValue, false);
	return scope ? fresh(scope, keptId(deliveryId), now) : false;
}

/**
 * Records the delivery as processed; false when it already was (then the caller drops it).
 * Synchronous, so two executions of one delivery in this process cannot both win.
 */
export function markProcessed(
	scopeKeyValue: string,
	deliveryId: string,
	now = Date.now(),
): boolean {
	const scope = scopeOf(scopeKeyValue, true) as Map<string, number>;
	const kept = keptId(deliveryId);
	if (fresh(scope, kept, now)) return false;
	scope.set(kept, now);
	rememberedInAll++;
	if (scope.size > MAX_REMEMBERED_DELIVERIES) {
		scope.delete(scope.keys().next().value as string);
		rememberedInAll--;
	}
	while (rememberedInAll > MAX_REMEMBERED_IN_ALL) forgetOldest();
	return true;
}

/** How many ids are kept, and the characters they take (for tests of the bounds). */
export function rememberedSize(): { ids: number; characters: number } {
	let ids = 0;
	let characters = 0;
	for (const scope of scopes.values()) {
		for (const id of scope.keys()) {
			ids++;
			characters += id.length;
		}
	}
	return { ids, characters };
}

/** For tests: forget everything. */
export function forgetAllDeliveries(): void {
	scopes.clear();
	rememberedInAll = 0;
	inFlight.clear();
}

/**
 * Deliveries this process passed on whose execution has not settled its claim yet. A repeat that
 * arrives meanwhile (the service's retry after a slow or lost answer) waits for that outcome
 * instead of starting an execution that would only lose the claim. Regular mode runs the
 * execution here and settles it at once; in queue mode a worker runs it, so the entry only
 * bounds the wait and the service's record decides (delivery.ts).
 */
interface InFlight {
	/** The execution has begun in this process. */
	started: boolean;
	outcome: Promise<boolean>;
	settle(processed: boolean): void;
}

/** Deliveries in flight kept at once (the oldest go first; a repeat of one then asks the service). */
export const MAX_IN_FLIGHT = 10_000;
/** How long a repeat waits for the first execution to begin (n8n starts it at once or not at all). */
export const START_WAIT_MS = 2_000;
/** How long a repeat waits for a begun execution to settle its claim. */
export const SETTLE_WAIT_MS = 4_000;

const inFlight = new Map<string, InFlight>();
const inFlightKey = (scope: string, deliveryId: string) => `${scope}\u0000${keptId(deliveryId)}`;

export function inFlightDelivery(scope: string, deliveryId: string): InFlight | undefined {
	return inFlight.get(inFlightKey(scope, deliveryId));
}

/** This process passes the delivery on now (synchronous, so of two copies only one does). */
export function passOn(scope: string, deliveryId: string): void {
	let settle: (processed: boolean) => void = () => undefined;
	const outcome = new Promise<boolean>((resolve) => (settle = resolve));
	const key = inFlightKey(scope, deliveryId);
	inFlight.delete(key);
	inFlight.set(key, { started: false, outcome, settle });
	if (inFlight.size > MAX_IN_FLIGHT) inFlight.delete(inFlight.keys().next().value as string);
}

/** The execution of a delivery this process passed on has begun. */
export function deliveryStarted(scope: string, deliveryId: string): void {
	const entry = inFlightDelivery(scope, deliveryId);
	if (entry) entry.started = true;
}

/**
 * The execution settled the delivery: processed (claimed, here or by another execution, or passed
 * on without a claim), so later repeats are dropped; or not (its claim failed), so a repeat runs.
 */
export function settleDelivery(scope: string, deliveryId: string, processed: boolean): void {
	if (processed) markProcessed(scope, deliveryId);
	const key = inFlightKey(scope, deliveryId);
	inFlight.get(key)?.settle(processed);
	inFlight.delete(key);
}

/** Resolves with `value` after `ms` (AbortSignal.timeout: no timer of the node's own). */
const after = <T>(ms: number, value: T) =>
	new Promise<T>((resolve) =>
		AbortSignal.timeout(ms).addEventListener('abort', () => resolve(value), { once: true }),
	);

/** What became of a delivery in flight, within the waits above; undefined when still unknown. */
export async function outcomeOf(entry: InFlight): Promise<boolean | undefined> {
	const early = await Promise.race([entry.outcome, after(START_WAIT_MS, undefined)]);
	if (early !== undefined || !entry.started) return early;
	return await Promise.race([entry.outcome, after(SETTLE_WAIT_MS, undefined)]);
}
