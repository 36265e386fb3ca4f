/** Audit-log entries read as events (nodes/DocumentSigningTrigger/auditEvents.ts): names, bounds, order. */
import {
	oldestFirst,
	readEntry,
	type PolledEvent,
} from '../../../nodes/DocumentSigningTrigger/auditEvents';

describe('reading audit-log entries as events', () => {
	const event = (id: string, time: string): PolledEvent => ({
		id,
		event: 'document.sent',
		time,
		ms: Date.parse(time),
		entry: {},
	});

	it('reads other names for the event, its time and its document', () => {
		expect(
			readEntry({ id: 7, type: 'document.sent', occurred_at: '2026-11-27T10:00:00Z' }),
		).toMatchObject({
			id: '7',
			event: 'document.sent',
			ms: Date.parse('2026-11-27T10:00:00Z'),
		});
		expect(readEntry({ id: 'a', action: 'document.sent', timestamp: 1_795_000_000 }).ms).toBe(
			1_795_000_000_000,
		);
	});

	it('says clearly what an entry lacks, with a bounded list of the fields it has', () => {
		expect(() => readEntry({ id: 'a', kind: 'x', when: 'y' })).toThrow(
			/cannot be read as events: an entry has no an event name .*, no a time/,
		);
		const long = readEntry.bind(undefined, {
			id: 'a',
			event: 'x'.repeat(100_000),
			created_at: '2026-11-27T10:00:00Z',
		});
		expect(long).toThrow(/no an event name/);
	});

	it('orders newest-first and oldest-first lists oldest first, keeping the service’s order at one time', () => {
		const a = event('a', '2026-11-27T10:00:00Z');
		const b = event('b', '2026-11-27T10:00:01Z');
		const c = event('c', '2026-11-27T10:00:01Z');
		const d = event('d', '2026-11-27T10:00:02Z');
		expect(oldestFirst([d, c, b, a]).map((one) => one.id)).toEqual(['a', 'b', 'c', 'd']);
		expect(oldestFirst([a, b, c, d]).map((one) => one.id)).toEqual(['a', 'b', 'c', 'd']);
	});
});
