import { createHash } from 'crypto';

import type { PageRequest } from './transport';
import type { SignatureLayout } from './vocabulary';

/**
 * What one n8n process remembers of a workflow node between calls: webhook() cannot save static
 * or custom data unless it starts an execution. Each store is bounded on its own (below); losing
 * any of it is never a wrong answer, only a slower or repeated check.
 */
const newMemory = () => ({
	/** Signing secrets recomputed from the credential's key (a credential read per delivery saved), by registration or wait; 1,000 (`remember`). */
	secrets: new Map<string, string>(),
	/** Automatic Signature Layout: the first layout that verified, by registration or wait; 1,000 (`remember`). */
	layouts: new Map<string, SignatureLayout>(),
	/** Waits whose resume call is being handled now (Send and Wait): each leaves when its call ends. */
	busyWaits: new Set<string>(),
	/** Delivery ids passed on and processed (trigger), with when, oldest first; MAX_REMEMBERED_DELIVERIES, REMEMBER_MS. */
	processed: new Map<string, number>(),
	/** Deliveries passed on whose execution has not settled its claim yet; 1,000 (`remember`). */
	inFlight: new Map<string, InFlight>(),
	/** Where Send and Wait's next sweep of the account's webhooks goes on: one place. */
	sweepPlace: undefined as PageRequest | undefined,
	/** The "deliveries cannot be claimed" warning is logged once per node. */
	warnedNotClaimable: false,
});
export type NodeMemory = ReturnType<typeof newMemory>;

/**
 * A delivery passed on whose execution has not settled its claim: a repeat arriving meanwhile
 * waits for that outcome. In queue mode a worker runs it, so the entry only bounds the wait.
 */
interface InFlight {
	/** The execution has begun in this process. */
	started: boolean;
	outcome: Promise<boolean>;
	settle(processed: boolean): void;
}

/** Delivery ids kept per workflow node, and in all (with ids of 128 characters: about 20 MB). */
const MAX_REMEMBERED_DELIVERIES = 10_000;
const MAX_REMEMBERED_IN_ALL = 50_000;
/** The service retries for well under a day. */
const REMEMBER_MS = 24 * 60 * 60 * 1000;

/** Workflow nodes by workflow and node id, most recently used last; MAX_NODES. */
const nodes = new Map<string, NodeMemory>();
const MAX_NODES = 1_000;
/** Ids in all nodes' `processed`, counted as they come and go, so no delivery walks the nodes. */
let processedInAll = 0;
/** The node holding the most ids when it last grew: past MAX_REMEMBERED_IN_ALL it forgets first. */
let fullest: NodeMemory | undefined;

/** Adds an entry to one of a node's bounded maps (1,000 entries), forgetting its oldest beyond. */
export function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
	map.delete(key);
	map.set(key, value);
	if (map.size > 1_000) map.delete(map.keys().next().value as K);
}

/** The memory of one workflow node, made when first asked for; the least recently used goes first. */
export function memoryOf(workflowId: string | undefined, nodeId: string | undefined): NodeMemory {
	const key = `${workflowId ?? ''}\u0000${nodeId ?? ''}`;
	const memory = nodes.get(key) ?? newMemory();
	nodes.delete(key);
	nodes.set(key, memory);
	if (nodes.size > MAX_NODES) {
		const [oldestKey, oldest] = nodes.entries().next().value as [string, NodeMemory];
		nodes.delete(oldestKey);
		processedInAll -= oldest.processed.size;
		if (fullest === oldest) fullest = undefined;
	}
	return memory;
}

/** Longer ids are kept as their SHA-256. */
const keptId = (deliveryId: string) =>
	deliveryId.length <= 128
		? deliveryId
		: `sha256:${createHash('sha256').update(deliveryId).digest('hex')}`;

/** Whether this process processed the delivery within REMEMBER_MS; an older entry is forgotten. */
export function wasProcessed(memory: NodeMemory, deliveryId: string): boolean {
	const kept = keptId(deliveryId);
	const at = memory.processed.get(kept);
	if (at !== undefined && Date.now() - at <= REMEMBER_MS) return true;
	forget(memory, kept);
	return false;
}

function forget(memory: NodeMemory, kept: string | undefined): void {
	if (kept !== undefined && memory.processed.delete(kept)) processedInAll--;
}

const oldestOf = (map: Map<string, unknown>) => map.keys().next().value as string | undefined;

/** Records the delivery as processed; false when it already was. Synchronous, so only one wins. */
export function markProcessed(memory: NodeMemory, deliveryId: string): boolean {
	if (wasProcessed(memory, deliveryId)) return false;
	memory.processed.set(keptId(deliveryId), Date.now());
	processedInAll++;
	if (memory.processed.size > MAX_REMEMBERED_DELIVERIES) forget(memory, oldestOf(memory.processed));
	if (!fullest || memory.processed.size >= fullest.processed.size) fullest = memory;
	// The fullest node forgets its oldest: a flood evicts the flooder's own ids only.
	if (processedInAll > MAX_REMEMBERED_IN_ALL) {
		const victim = fullest.processed.size > 0 ? fullest : memory;
		forget(victim, oldestOf(victim.processed));
	}
	return true;
}

export function inFlightDelivery(memory: NodeMemory, deliveryId: string): InFlight | undefined {
	return memory.inFlight.get(keptId(deliveryId));
}

/** This process passes the delivery on now (synchronous, so of two copies only one does). */
export function passOn(memory: NodeMemory, deliveryId: string): void {
	let settle: (processed: boolean) => void = () => undefined;
	const outcome = new Promise<boolean>((resolve) => (settle = resolve));
	remember(memory.inFlight, keptId(deliveryId), { started: false, outcome, settle });
}

export function deliveryStarted(memory: NodeMemory, deliveryId: string): void {
	const entry = inFlightDelivery(memory, deliveryId);
	if (entry) entry.started = true;
}

/** The execution settled the delivery: processed (repeats are dropped) or not (a repeat runs). */
export function settleDelivery(memory: NodeMemory, deliveryId: string, processed: boolean): void {
	if (processed) markProcessed(memory, deliveryId);
	const kept = keptId(deliveryId);
	memory.inFlight.get(kept)?.settle(processed);
	memory.inFlight.delete(kept);
}

/** Resolves with undefined after `ms` (AbortSignal.timeout: no timer of the node's own). */
const after = (ms: number) =>
	new Promise<undefined>((resolve) =>
		AbortSignal.timeout(ms).addEventListener('abort', () => resolve(undefined), { once: true }),
	);

/**
 * What became of a delivery in flight; undefined when still unknown. A repeat waits 2 s for the
 * execution to begin (n8n starts it at once or never), then 4 s for it to settle.
 */
export async function outcomeOf(entry: InFlight): Promise<boolean | undefined> {
	const early = await Promise.race([entry.outcome, after(2_000)]);
	if (early !== undefined || !entry.started) return early;
	return await Promise.race([entry.outcome, after(4_000)]);
}
