import {
	deliveryStarted,
	forgetAllDeliveries,
	inFlightDelivery,
	markProcessed,
	MAX_IN_FLIGHT,
	outcomeOf,
	passOn,
	settleDelivery,
	MAX_REMEMBERED_DELIVERIES,
	REMEMBER_MS,
	scopeKey,
	wasProcessed,
} from '../../../nodes/DocumentSigningTrigger/recentDeliveries';

beforeEach(() => forgetAllDeliveries());

test('the first mark wins; a repeat of the same delivery in the same workflow node does not', () => {
	const scope = scopeKey('wf1', 'node1');
	expect(wasProcessed(scope, 'dlv_1')).toBe(false);
	expect(markProcessed(scope, 'dlv_1')).toBe(true);
	expect(markProcessed(scope, 'dlv_1')).toBe(false);
	expect(wasProcessed(scope, 'dlv_1')).toBe(true);
	// Another workflow (or node) keeps its own memory.
	expect(markProcessed(scopeKey('wf2', 'node1'), 'dlv_1')).toBe(true);
});

test('ids are forgotten after the window, and the memory is bounded', () => {
	const scope = scopeKey('wf1', 'node1');
	markProcessed(scope, 'old', 0);
	expect(wasProcessed(scope, 'old', REMEMBER_MS + 1)).toBe(false);
	for (let i = 0; i <= MAX_REMEMBERED_DELIVERIES; i++) markProcessed(scope, `dlv_${i}`, 1);
	expect(wasProcessed(scope, 'dlv_0', 2)).toBe(false);
	expect(wasProcessed(scope, `dlv_${MAX_REMEMBERED_DELIVERIES}`, 2)).toBe(true);
});

describe('deliveries in flight (passed on, their claim not settled yet)', () => {
	const scope = scopeKey('wf1', 'node1');

	test('a copy waiting on one sees how its execution settled it: processed (then remembered) or not', async () => {
		passOn(scope, 'dlv_a');
		deliveryStarted(scope, 'dlv_a');
		const waiting = outcomeOf(inFlightDelivery(scope, 'dlv_a')!);
		settleDelivery(scope, 'dlv_a', true);
		expect(await waiting).toBe(true);
		expect(inFlightDelivery(scope, 'dlv_a')).toBeUndefined();
		expect(wasProcessed(scope, 'dlv_a')).toBe(true);

		passOn(scope, 'dlv_b');
		const failed = outcomeOf(inFlightDelivery(scope, 'dlv_b')!);
		settleDelivery(scope, 'dlv_b', false);
		expect(await failed).toBe(false);
		expect(wasProcessed(scope, 'dlv_b')).toBe(false);
		expect(inFlightDelivery(scopeKey('wf2', 'node1'), 'dlv_a')).toBeUndefined();
	});

	test(`at most ${MAX_IN_FLIGHT.toLocaleString('en-US')} at once; the oldest is dropped first`, () => {
		for (let i = 0; i <= MAX_IN_FLIGHT; i++) passOn(scope, `dlv_${i}`);
		expect(inFlightDelivery(scope, 'dlv_0')).toBeUndefined();
		// Still passed on, not yet started by their executions.
		expect(inFlightDelivery(scope, 'dlv_1')).toMatchObject({ started: false });
		expect(inFlightDelivery(scope, `dlv_${MAX_IN_FLIGHT}`)).toMatchObject({ started: false });
	});
});
