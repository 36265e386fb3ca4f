import { createHash } from 'crypto';

import type { PageRequest } from './transport/listRecords';
import type { SignatureLayout } from './vocabulary';

/**
 * What one n8n process remembers of a workflow node between calls, where n8n keeps nothing:
 * webhook() cannot save static or custom data unless it starts an execution, and queue-mode
 * processes share nothing. Bounded per node and in all. Losing any of it costs a credential read,
 * a layout fixed again, a question to the service or a sweep started over, never a wrong response.
 */
export interface NodeMemory {
	/** Signing secrets recomputed from the credential (trigger), by registration. */
	secrets: Map<string, string>;
	/** Automatic Signature Layout: the layout of the first delivery that verified, by registration or wait. */
	layouts: Map<string, SignatureLayout>;
	/** Waits whose resume call is being handled now (Send and Wait). */
	busyWaits: Set<string>;
	/** Delivery ids passed on and processed (trigger), with when, oldest first. */
	processed: Map<string, number>;
	/** Deliveries passed on whose execution has not settled its claim yet. */
	inFlight: Map<string, InFlight>;
	/** Where Send and Wait's next sweep of the account's webhooks goes on. */
	sweepPlace?: PageRequest;
	/** Whether the service's missing acknowledge endpoint was logged already. */
	warnedNotClaimable: boolean;
}

/** Workflow nodes remembered at once. */
const MAX_NODES = 1_000;
/** Entries of a node's secrets, layouts and deliveries in flight at most. */
const MAX_ENTRIES_PER_MAP = 1_000;
/** Delivery ids kept per workflow node; the oldest are forgotten first. */
export const MAX_REMEMBERED_DELIVERIES = 10_000;
/** Delivery ids kept in all: with MAX_KEPT_ID_LENGTH, bounds the memory in bytes (about 20 MB). */
export const MAX_REMEMBERED_IN_ALL = 50_000;
/** Longer ids are kept as their SHA-256 (64 hex characters). */
export const MAX_KEPT_ID_LENGTH = 128;
/** The service retries for well under a day; older ids are forgotten. */
export const REMEMBER_MS = 24 * 60 * 60 * 1000;

/** The one store: each workflow node's memory, and how many delivery ids they keep in all. */
const store = { nodes: new Map<string, NodeMemory>(), rememberedInAll: 0 };

/** The memory of one workflow node, made when first asked for (most recently used last). */
export function memoryOf(workflowId: string | undefined, nodeId: string | undefined): NodeMemory {
	const key = `${workflowId ?? ''}\u0000${nodeId ?? ''}`;
	let memory = store.nodes.get(key);
	if (memory) store.nodes.delete(key);
	else
		memory = {
			secrets: new Map(),
			layouts: new Map(),
			busyWaits: new Set(),
			processed: new Map(),
			inFlight: new Map(),
			warnedNotClaimable: false,
		};
	store.nodes.set(key, memory);
	if (store.nodes.size > MAX_NODES) {
		const [oldestKey, oldest] = store.nodes.entries().next().value as [string, NodeMemory];
		store.rememberedInAll -= oldest.processed.size;
		store.nodes.delete(oldestKey);
	}
	return memory;
}

/** Adds an entry to one of a node's bounded maps, forgetting its oldest beyond the bound. */
export function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
	map.delete(key);
	map.set(key, value);
	if (map.size > MAX_ENTRIES_PER_MAP) map.delete(map.keys().next().value as K);
}

/** The id as kept: itself, or its digest when longer than MAX_KEPT_ID_LENGTH. */
function keptId(deliveryId: string): string {
	return deliveryId.length <= MAX_KEPT_ID_LENGTH
		? deliveryId
		: `sha256:${createHash('sha256').update(deliveryId).digest('hex')}`;
}

function forget(memory: NodeMemory, kept: string): void {
	if (memory.processed.delete(kept)) store.rememberedInAll--;
}

/** The node keeping the most ids forgets its oldest: a flood evicts the flooder's own ids only. */
function forgetOldestOfLargest(): void {
	let largest: NodeMemory | undefined;
	for (const memory of store.nodes.values())
		if (!largest || memory.processed.size > largest.processed.size) largest = memory;
	const oldest = largest?.processed.keys().next();
	if (largest && oldest && !oldest.done) forget(largest, oldest.value);
}

function fresh(memory: NodeMemory, kept: string, now: number): boolean {
	const at = memory.processed.get(kept);
	if (at === undefined) return false;
	if (now - at <= REMEMBER_MS) return true;
	forget(memory, kept);
	return false;
}

/** Whether this process processed the delivery already. */
export function wasProcessed(memory: NodeMemory, deliveryId: string, now = Date.now()): boolean {
	return fresh(memory, keptId(deliveryId), now);
}

/**
 * Records the delivery as processed; false when it already was (then the caller drops it).
 * Synchronous, so two executions of one delivery in this process cannot both win.
 */
export function markProcessed(memory: NodeMemory, deliveryId: string, now = Date.now()): boolean {
	const kept = keptId(deliveryId);
	if (fresh(memory, kept, now)) return false;
	memory.processed.set(kept, now);
	store.rememberedInAll++;
	if (memory.processed.size > MAX_REMEMBERED_DELIVERIES)
		forget(memory, memory.processed.keys().next().value as string);
	while (store.rememberedInAll > MAX_REMEMBERED_IN_ALL) forgetOldestOfLargest();
	return true;
}

/**
 * A delivery this process passed on whose execution has not settled its claim. A repeat arriving
 * meanwhile (the service's retry after a slow or lost response) waits for that outcome instead of
 * starting an execution that would only lose the claim. Regular mode runs the execution here and
 * settles it at once; in queue mode a worker runs it, so the entry only bounds the wait.
 */
export interface InFlight {
	/** The execution has begun in this process. */
	started: boolean;
	outcome: Promise<boolean>;
	settle(processed: boolean): void;
}

/** How long a repeat waits for the first execution to begin (n8n starts it at once or not at all). */
export const START_WAIT_MS = 2_000;
/** How long a repeat waits for a begun execution to settle its claim. */
export const SETTLE_WAIT_MS = 4_000;

export function inFlightDelivery(memory: NodeMemory, deliveryId: string): InFlight | undefined {
	return memory.inFlight.get(keptId(deliveryId));
}

/** This process passes the delivery on now (synchronous, so of two copies only one does). */
export function passOn(memory: NodeMemory, deliveryId: string): void {
	let settle: (processed: boolean) => void = () => undefined;
	const outcome = new Promise<boolean>((resolve) => (settle = resolve));
	remember(memory.inFlight, keptId(deliveryId), { started: false, outcome, settle });
}

/** The execution of a delivery this process passed on has begun. */
export function deliveryStarted(memory: NodeMemory, deliveryId: string): void {
	const entry = inFlightDelivery(memory, deliveryId);
	if (entry) entry.started = true;
}

/**
 * The execution settled the delivery: processed (claimed, here or by another execution, or passed
 * on without a claim), so later repeats are dropped; or not (its claim failed), so a repeat runs.
 */
export function settleDelivery(memory: NodeMemory, deliveryId: string, processed: boolean): void {
	if (processed) markProcessed(memory, deliveryId);
	const kept = keptId(deliveryId);
	memory.inFlight.get(kept)?.settle(processed);
	memory.inFlight.delete(kept);
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
