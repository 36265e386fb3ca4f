/**
 * Where polling has reached, as n8n saves it (nodes/DocumentSigningTrigger/pollCursor.ts): what
 * n8n serialises with each emit stays the same size however many entries share one instant
 * (issue 54, finding 5), and a restart from any of those saves passes on exactly the rest.
 */
import type { IDataObject } from 'n8n-workflow';

import { AuditLogService, contractEntry } from '../../helpers/auditLogService';
import { PollingHost } from '../../helpers/pollingHost';

const KEY = 'sk_test_poll_cursor_0000000000';
/** Entries at one instant, each with an id as long as an entry's field may be read (200). */
const CROWD = 400;

describe('the poll cursor n8n saves with each emit (issue 54, finding 5)', () => {
	let service: AuditLogService;
	beforeEach(async () => {
		service = await new AuditLogService().start();
	});
	afterEach(async () => {
		await service.stop();
	});

	it('is the same size with every emit of a crowd at one instant, and a restart from any of them passes each entry once', async () => {
		const host = new PollingHost(service, KEY);
		await host.activate();
		const instant = Date.now() - 1000;
		const crowd = Array.from({ length: CROWD }, (_, n) =>
			contractEntry(instant, 'document.viewed', {
				id: `aud_${String(n).padStart(4, '0')}_${'x'.repeat(191)}`,
				document_id: null,
			}),
		);
		service.entries.push(...crowd);
		const ids = crowd.map((entry) => String(entry.id));
		await host.poll();
		expect(host.events.map((json) => json.eventId)).toEqual(ids);

		const sizes = host.savedAtEmits.map((text) => text.length);
		// Linear over the poll: no save grows with the ids passed at the instant.
		expect(Math.max(...sizes)).toBeLessThan(1_000);
		expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThan(10);

		// n8n stopped just after an emit: the restart passes on exactly the entries after it.
		for (const emitted of [1, 150, CROWD - 1]) {
			const saved = JSON.parse(host.savedAtEmits[emitted - 1]) as IDataObject;
			const restarted = new PollingHost(service, KEY, {}, saved);
			await restarted.activate();
			await restarted.poll();
			expect(restarted.events.map((json) => json.eventId)).toEqual(ids.slice(emitted));
		}
	});

	it('keeps its count at the instant through polls that only narrow a backlog too long to reach it', async () => {
		// Pages of 2: a read holds 40 entries, so one poll's 60 narrowing reads cover 2,400.
		service.options.pageSize = 2;
		// n8n 1.x: no deduplication key hides an entry passed on twice.
		const host = new PollingHost(service, KEY, {}, {}, 'trigger', 1);
		await host.activate();
		const instant = Date.now() - 60_000;
		const atInstant = [1, 2, 3].map(() =>
			contractEntry(instant, 'document.viewed', { document_id: null }),
		);
		service.entries.push(...atInstant);
		await host.poll();
		const backlog = Array.from({ length: 2_500 }, (_, n) =>
			contractEntry(instant + 1 + n, 'document.viewed', { document_id: null }),
		);
		service.entries.push(...backlog);
		// The first poll only narrows; the backlog then comes over the next ones.
		for (let polls = 0; polls < 40 && host.emitted.length < 3 + backlog.length; polls++)
			await host.poll();
		await host.poll();
		expect(host.events.map((json) => json.eventId)).toEqual(
			[...atInstant, ...backlog].map((entry) => entry.id),
		);
	}, 120_000);
});
