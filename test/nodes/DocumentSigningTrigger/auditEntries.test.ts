/**
 * One audit-log entry read as an event (nodes/DocumentSigningTrigger/auditEntries.ts): times in
 * every form a service writes them, never in n8n's time zone, and fields found by what they hold
 * (an event only in a field named for one).
 */
import { isEvent, readEntry, timeMs } from '../../../nodes/DocumentSigningTrigger/auditEntries';

const AT = Date.parse('2026-11-28T10:00:00.123Z');

describe('timeMs', () => {
	it.each([
		['ISO UTC', '2026-11-28T10:00:00.123Z', AT],
		['ISO with an offset', '2026-11-28T11:00:00.123+01:00', AT],
		['ISO with a compact offset', '2026-11-28T11:00:00.123+0100', AT],
		['ISO with microseconds', '2026-11-28T10:00:00.123456Z', AT],
		['ISO without a zone (UTC)', '2026-11-28T10:00:00.123', AT],
		['ISO with a space, without a zone (UTC)', '2026-11-28 10:00:00.123', AT],
		['ISO naming UTC', '2026-11-28 10:00:00.123 UTC', AT],
		['a date alone (UTC midnight)', '2026-11-28', Date.parse('2026-11-28T00:00:00Z')],
		['HTTP date', 'Sat, 28 Nov 2026 10:00:00 GMT', AT - 123],
		['Unix seconds', (AT - 123) / 1000, AT - 123],
		['Unix seconds with a fraction', AT / 1000, AT],
		['Unix milliseconds', AT, AT],
		['Unix microseconds', AT * 1000, AT],
		['Unix nanoseconds as text', `${AT}000000`, AT],
		['Unix seconds as text', String((AT - 123) / 1000), AT - 123],
	])('reads %s', (_, value, expected) => {
		expect(timeMs(value)).toBe(expected);
	});

	it('reads a time without a zone as UTC whatever n8n’s time zone', () => {
		const zone = process.env.TZ;
		try {
			for (const tz of ['Asia/Tokyo', 'America/Los_Angeles', 'Europe/Berlin']) {
				process.env.TZ = tz;
				expect(timeMs('2026-11-28T10:00:00.123')).toBe(AT);
			}
		} finally {
			process.env.TZ = zone;
		}
	});

	it.each([['yesterday'], ['1'], [''], ['x'.repeat(300)], [{}], [null], [Number.NaN]])(
		'reads %p as no time',
		(value) => {
			expect(timeMs(value)).toBeUndefined();
		},
	);
});

describe('readEntry', () => {
	it('reads the contract’s entry, its identity its id at its time', () => {
		const read = readEntry({
			id: 'aud_1',
			event: 'document.signed',
			document_id: 'doc_1',
			created_at: '2026-11-28T10:00:00.123Z',
		});
		expect(read).toMatchObject({
			id: 'aud_1',
			event: 'document.signed',
			documentId: 'doc_1',
			ms: AT,
			time: '2026-11-28T10:00:00.123Z',
			key: `aud_1@${AT}`,
		});
	});

	it.each([
		[
			'{ id, action, at, target }',
			{ id: 7, action: 'document.sent', at: '2026-11-28T10:00:00.123Z', target: 'doc_9' },
		],
		[
			'a subject record that says it is a document',
			{
				id: 7,
				kind: 'audit',
				eventName: 'document.sent',
				when: AT,
				resource: { type: 'document', id: 'x9' },
			},
		],
		[
			'a document under its own name',
			{ uuid: 7, type: 'document.sent', loggedAt: AT / 1000, document: { id: 'x9' } },
		],
	])('reads %s by what the fields hold', (_, entry) => {
		const read = readEntry(entry);
		expect(isEvent(read) && read).toMatchObject({ id: '7', event: 'document.sent', ms: AT });
		const documentId = isEvent(read) ? read.documentId : undefined;
		expect(['doc_9', 'x9']).toContain(documentId);
	});

	it('prefers a known field holding one of the contract’s event names over one holding other words', () => {
		const read = readEntry({ id: 1, type: 'audit', action: 'document.completed', created_at: AT });
		expect(isEvent(read) && read.event).toBe('document.completed');
	});

	it.each([['event_name'], ['eventName'], ['activity_type'], ['actionKind'], ['EVENT_TYPE']])(
		'reads the event from a field whose name says so: %s',
		(name) => {
			const read = readEntry({ id: 1, [name]: 'document.completed', created_at: AT });
			expect(isEvent(read) && read.event).toBe('document.completed');
		},
	);

	it.each([['document_name'], ['name'], ['title'], ['description'], ['subject'], ['transaction']])(
		'never reads the event from free text: %s holding an event name is not the event',
		(name) => {
			const entry = { id: 1, created_at: AT, [name]: 'document.completed' };
			expect(readEntry({ ...entry, action: 'viewed' })).toMatchObject({ event: 'viewed' });
			expect(readEntry(entry)).toMatchObject({ lacks: ['an event name'] });
		},
	);

	it('takes no numeric id for a time', () => {
		const read = readEntry({ id: 1_700_000_000, event: 'document.completed' });
		expect(read).toEqual({ lacks: ['a time'], fields: ['id', 'event'] });
	});

	it('says what an entry lacks, bounded', () => {
		const read = readEntry({ kind: 'x'.repeat(1000), when: 'y' });
		expect(read).toEqual({
			lacks: ['an `id`', 'an event name', 'a time'],
			fields: ['kind', 'when'],
		});
	});
});
