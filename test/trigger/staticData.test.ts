/** The duplicate-delivery guard's limits (pure: no n8n, no sandbox). */
import {
	deliveryMemorySeconds,
	forgetDeliveriesInProcess,
	MAX_RECENT_DELIVERIES,
	MAX_TRIGGERS_IN_PROCESS,
	rememberDelivery,
	rememberDeliveryInProcess,
	type TriggerStaticData,
} from '../../nodes/DocumentSigningTrigger/staticData';

const T0 = 1_800_000_000;

describe('rememberDelivery', () => {
	it('accepts a delivery id once and refuses it again within the window', () => {
		const data: TriggerStaticData = {};
		expect(rememberDelivery(data, 'dlv_a', T0, 300)).toBe(true);
		expect(rememberDelivery(data, 'dlv_a', T0 + 1, 300)).toBe(false);
		expect(rememberDelivery(data, 'dlv_b', T0 + 1, 300)).toBe(true);
		expect(Object.keys(data.recentDeliveries ?? {}).sort()).toEqual(['dlv_a', 'dlv_b']);
	});

	it('remembers ids for twice the tolerance, and never less than an hour', () => {
		expect(deliveryMemorySeconds(300)).toBe(3600);
		expect(deliveryMemorySeconds(10)).toBe(3600);
		expect(deliveryMemorySeconds(5000)).toBe(10_000);

		const data: TriggerStaticData = {};
		rememberDelivery(data, 'dlv_old', T0, 300);
		expect(rememberDelivery(data, 'dlv_old', T0 + 3600, 300)).toBe(false);
		// One second past the window the id is forgotten (and pruned from storage).
		expect(rememberDelivery(data, 'dlv_other', T0 + 3601, 300)).toBe(true);
		expect(data.recentDeliveries).not.toHaveProperty('dlv_old');
		expect(rememberDelivery(data, 'dlv_old', T0 + 3602, 300)).toBe(true);
	});

	it(`keeps at most ${MAX_RECENT_DELIVERIES} ids, dropping the oldest`, () => {
		const data: TriggerStaticData = {};
		for (let index = 0; index < MAX_RECENT_DELIVERIES + 100; index++) {
			expect(rememberDelivery(data, `dlv_${index}`, T0 + index, 300)).toBe(true);
		}
		const kept = Object.keys(data.recentDeliveries ?? {});
		expect(kept).toHaveLength(MAX_RECENT_DELIVERIES);
		expect(kept).not.toContain('dlv_0');
		expect(kept).not.toContain('dlv_99');
		expect(kept).toContain('dlv_100');
		expect(kept).toContain(`dlv_${MAX_RECENT_DELIVERIES + 99}`);
		expect(rememberDelivery(data, `dlv_${MAX_RECENT_DELIVERIES + 99}`, T0 + 700, 300)).toBe(false);
	});

	it('ignores malformed stored entries instead of failing', () => {
		const data = { recentDeliveries: { dlv_bad: 'yesterday', dlv_ok: T0 } } as unknown as TriggerStaticData;
		expect(rememberDelivery(data, 'dlv_new', T0 + 1, 300)).toBe(true);
		expect(Object.keys(data.recentDeliveries ?? {}).sort()).toEqual(['dlv_new', 'dlv_ok']);
	});
});

describe('rememberDeliveryInProcess', () => {
	beforeEach(() => forgetDeliveriesInProcess());

	it('keeps one list per trigger', () => {
		expect(rememberDeliveryInProcess('wf1|a', 'dlv_x', T0, 300)).toBe(true);
		expect(rememberDeliveryInProcess('wf1|a', 'dlv_x', T0, 300)).toBe(false);
		expect(rememberDeliveryInProcess('wf2|a', 'dlv_x', T0, 300)).toBe(true);
	});

	it('forgets everything on restart', () => {
		rememberDeliveryInProcess('wf1|a', 'dlv_x', T0, 300);
		forgetDeliveriesInProcess();
		expect(rememberDeliveryInProcess('wf1|a', 'dlv_x', T0, 300)).toBe(true);
	});

	it('applies the same window as the static data', () => {
		rememberDeliveryInProcess('wf1|a', 'dlv_x', T0, 300);
		expect(rememberDeliveryInProcess('wf1|a', 'dlv_x', T0 + 3600, 300)).toBe(false);
		expect(rememberDeliveryInProcess('wf1|a', 'dlv_y', T0 + 3601 + 3600, 300)).toBe(true);
		expect(rememberDeliveryInProcess('wf1|a', 'dlv_x', T0 + 3602 + 3600, 300)).toBe(true);
	});

	it(`keeps at most ${MAX_TRIGGERS_IN_PROCESS} triggers, dropping the least recently used`, () => {
		rememberDeliveryInProcess('first', 'dlv_x', T0, 300);
		rememberDeliveryInProcess('second', 'dlv_x', T0, 300);
		for (let index = 0; index < MAX_TRIGGERS_IN_PROCESS - 2; index++) rememberDeliveryInProcess(`t${index}`, 'dlv_x', T0, 300);
		// 'first' is used again, so 'second' is now the least recently used.
		expect(rememberDeliveryInProcess('first', 'dlv_x', T0, 300)).toBe(false);
		rememberDeliveryInProcess('one-more', 'dlv_x', T0, 300);
		expect(rememberDeliveryInProcess('first', 'dlv_x', T0, 300)).toBe(false);
		expect(rememberDeliveryInProcess('second', 'dlv_x', T0, 300)).toBe(true);
	});
});
