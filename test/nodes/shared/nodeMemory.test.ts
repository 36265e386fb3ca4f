/**
 * nodes/shared/nodeMemory.ts: what one process remembers of a workflow node. Each test takes fresh
 * workflow nodes (memoryOf of new ids), as the memory is the process's own.
 */
import { randomUUID } from 'crypto';

import {
	deliveryStarted,
	inFlightDelivery,
	markProcessed,
	memoryOf,
	outcomeOf,
	passOn,
	remember,
	settleDelivery,
	wasProcessed,
} from '../../../nodes/shared/nodeMemory';

const freshNode = () => memoryOf(`wf-${randomUUID()}`, 'node1');

test('a workflow node keeps one memory; another node its own', () => {
	const workflowId = `wf-${randomUUID()}`;
	expect(memoryOf(workflowId, 'node1')).toBe(memoryOf(workflowId, 'node1'));
	expect(memoryOf(workflowId, 'node2')).not.toBe(memoryOf(workflowId, 'node1'));
});

test('the first mark wins; a repeat of the same delivery in the same workflow node does not', () => {
	const memory = freshNode();
	expect(wasProcessed(memory, 'dlv_1')).toBe(false);
	expect(markProcessed(memory, 'dlv_1')).toBe(true);
	expect(markProcessed(memory, 'dlv_1')).toBe(false);
	expect(wasProcessed(memory, 'dlv_1')).toBe(true);
	// Another workflow (or node) keeps its own memory.
	expect(markProcessed(freshNode(), 'dlv_1')).toBe(true);
});

/** The bounds nodeMemory.ts documents: 10,000 ids per workflow node, 50,000 in all, for a day. */
const PER_NODE = 10_000;
const IN_ALL = 50_000;
const DAY_MS = 24 * 60 * 60 * 1000;

test('ids are forgotten after a day, and a node keeps at most 10,000', () => {
	const memory = freshNode();
	const now = jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
	try {
		markProcessed(memory, 'old');
		now.mockReturnValue(1_000_000 + DAY_MS);
		expect(wasProcessed(memory, 'old')).toBe(true);
		now.mockReturnValue(1_000_000 + DAY_MS + 1);
		expect(wasProcessed(memory, 'old')).toBe(false);
		for (let i = 0; i <= PER_NODE; i++) markProcessed(memory, `dlv_${i}`);
		expect(wasProcessed(memory, 'dlv_0')).toBe(false);
		expect(wasProcessed(memory, 'dlv_1')).toBe(true);
		expect(wasProcessed(memory, `dlv_${PER_NODE}`)).toBe(true);
	} finally {
		now.mockRestore();
	}
});

test('a bounded map forgets its oldest entry first', () => {
	const map = new Map<number, number>();
	for (let i = 0; i <= 1_000; i++) remember(map, i, i);
	expect(map.has(0)).toBe(false);
	expect(map.size).toBe(1_000);
	// Remembering an entry again makes it the newest.
	remember(map, 1, 1);
	remember(map, 1_001, 1_001);
	expect(map.has(1)).toBe(true);
	expect(map.has(2)).toBe(false);
});

describe('the ids of all nodes together', () => {
	/** A module of its own: the count in all is the process's. */
	const fresh = () => {
		type NodeMemoryModule = typeof import('../../../nodes/shared/nodeMemory');
		let loaded: NodeMemoryModule | undefined;
		jest.isolateModules(() => {
			loaded = jest.requireActual<NodeMemoryModule>('../../../nodes/shared/nodeMemory');
		});
		return loaded!;
	};

	test('a node dropped as least recently used takes its ids out of the count: 1,001 quiet nodes at the bound lose none to each other', () => {
		const memory = fresh();
		// 1,000 nodes (the most kept) of 50 ids each: exactly the 50,000 kept in all.
		const quiet = Array.from({ length: 1_000 }, (_, node) => memory.memoryOf('wf', `n${node}`));
		quiet.forEach((node, index) => {
			for (let i = 0; i < 50; i++) memory.markProcessed(node, `dlv_${index}_${i}`);
		});
		expect(quiet.reduce((sum, node) => sum + node.processed.size, 0)).toBe(IN_ALL);
		// A new node drops the least recently used one, n0, with its 50 ids: room for 50 more.
		const newcomer = memory.memoryOf('wf', 'new');
		for (let i = 0; i < 50; i++) memory.markProcessed(newcomer, `dlv_new_${i}`);
		expect(newcomer.processed.size).toBe(50);
		expect(quiet.slice(1).every((node) => node.processed.size === 50)).toBe(true);
		// One more id is over the bound: the fullest node when it last grew forgets its oldest.
		memory.markProcessed(newcomer, 'dlv_new_50');
		expect(newcomer.processed.size).toBe(50);
		expect(quiet.slice(1).every((node) => node.processed.size === 50)).toBe(true);
	});

	test('a delivery is marked without visiting the other nodes (the count in all is kept, not summed)', () => {
		const memory = fresh();
		const nodes = Array.from({ length: 1_000 }, (_, node) => memory.memoryOf('wf', `n${node}`));
		nodes.forEach((node, index) => memory.markProcessed(node, `dlv_${index}`));
		const values = jest.spyOn(Map.prototype, 'values');
		const entries = jest.spyOn(Map.prototype, 'entries');
		try {
			for (let i = 0; i < 100; i++) memory.markProcessed(nodes[i], `dlv_more_${i}`);
			expect(values).not.toHaveBeenCalled();
			expect(entries).not.toHaveBeenCalled();
		} finally {
			values.mockRestore();
			entries.mockRestore();
		}
	});
});

describe('deliveries in flight (passed on, their claim not settled yet)', () => {
	test('a copy waiting on one sees how its execution settled it: processed (then remembered) or not', async () => {
		const memory = freshNode();
		passOn(memory, 'dlv_a');
		deliveryStarted(memory, 'dlv_a');
		const waiting = outcomeOf(inFlightDelivery(memory, 'dlv_a')!);
		settleDelivery(memory, 'dlv_a', true);
		expect(await waiting).toBe(true);
		expect(inFlightDelivery(memory, 'dlv_a')).toBeUndefined();
		expect(wasProcessed(memory, 'dlv_a')).toBe(true);

		passOn(memory, 'dlv_b');
		const failed = outcomeOf(inFlightDelivery(memory, 'dlv_b')!);
		settleDelivery(memory, 'dlv_b', false);
		expect(await failed).toBe(false);
		expect(wasProcessed(memory, 'dlv_b')).toBe(false);
		expect(inFlightDelivery(freshNode(), 'dlv_a')).toBeUndefined();
	});

	test('a node keeps at most 1,000 at once; the oldest is dropped first', () => {
		const memory = freshNode();
		for (let i = 0; i <= 1_000; i++) passOn(memory, `dlv_${i}`);
		expect(inFlightDelivery(memory, 'dlv_0')).toBeUndefined();
		// Still passed on, not yet started by their executions.
		expect(inFlightDelivery(memory, 'dlv_1')).toMatchObject({ started: false });
		expect(inFlightDelivery(memory, 'dlv_1000')).toMatchObject({ started: false });
	});
});
