import {
	forgetAllDeliveries,
	markProcessed,
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
