/**
 * Polling's reading of the audit log (nodes/DocumentSigningTrigger/auditEvents.ts, pollCursor.ts)
 * when the log is outside input that may be wrong, hostile or huge: issue 47's findings, one test
 * each, against a small service that lists what the test writes (test/helpers/auditLogService.ts).
 * The trigger runs in n8n-core's REAL TriggerContext (test/helpers/pollingHost.ts).
 */
import type { IDataObject } from 'n8n-workflow';

import { MAX_BOUNDS } from '../../../nodes/DocumentSigningTrigger/auditEvents';
import { MAX_IDS_AT_ONE_INSTANT } from '../../../nodes/DocumentSigningTrigger/pollCursor';
import { EVENT_POLL_BUDGET } from '../../../nodes/shared/vocabulary';
import { AuditLogService, contractEntry } from '../../helpers/auditLogService';
import { PollingHost } from '../../helpers/pollingHost';
import { captureWarnings, NODE_NAME } from '../../helpers/triggerHost';

const KEY = 'sk_test_audit_log_0000000000';
/** The tests of thousands of entries: minutes on a machine at load 12, as the other heavy walks get. */
const HEAVY_TEST_MS = 120_000;
/** Polls a test makes at most while waiting for a state (each poll reads what is there). */
const MAX_POLLS = 40;

describe('Polling a hostile or careless audit log (issue 47)', () => {
	let service: AuditLogService;
	beforeEach(async () => {
		service = await new AuditLogService().start();
	});
	afterEach(async () => {
		await service.stop();
	});

	const ids = (host: PollingHost) => host.events.map((json) => String(json.eventId));
	const cursorOf = (host: PollingHost) =>
		(host.saved()[`node:${NODE_NAME}`] as { pollCursor: IDataObject }).pollCursor;
	/** Polls until a poll passes nothing new on (bounded); the number of polls made. */
	const pollUntilQuiet = async (host: PollingHost) => {
		for (let polls = 1; polls <= MAX_POLLS; polls++) if ((await host.poll()) === 0) return polls;
		throw new Error(`still passing events on after ${MAX_POLLS} polls`);
	};
	const add = (...entries: IDataObject[]) => {
		service.entries.push(...entries);
		return entries.map((entry) => String(entry.id));
	};
	const now = () => Date.now();

	it('finding 1: an entry dated 2099 is passed on once, logged, and never stops the events after it', async () => {
		const host = new PollingHost(service, KEY);
		await host.activate();
		const warnings = captureWarnings();
		try {
			const before = add(contractEntry(now() - 2000), contractEntry(now() - 1000));
			const [future] = add(contractEntry(Date.parse('2099-01-01T00:00:00Z')));
			await host.poll();
			expect(ids(host)).toEqual([...before, future]);
			expect(warnings.messages.join('\n')).toMatch(/dated after the service's present/);
			expect(Date.parse(String(cursorOf(host).time))).toBeLessThan(now() + 10 * 60_000);

			const after = add(...[1, 2, 3, 4, 5].map(() => contractEntry(now())));
			await pollUntilQuiet(host);
			// After a restart from the saved cursor, nothing comes twice.
			const restarted = new PollingHost(service, KEY, {}, host.saved());
			await restarted.activate();
			await pollUntilQuiet(restarted);
			expect(ids(host)).toEqual([...before, future, ...after]);
			expect(restarted.emitted).toEqual([]);
		} finally {
			warnings.restore();
		}
	});

	it('finding 1: an entry dated 2099 when the workflow is published never holds back the events after it', async () => {
		add(contractEntry(Date.parse('2099-01-01T00:00:00Z')));
		const host = new PollingHost(service, KEY);
		await host.activate();
		const later = add(...[1, 2, 3].map(() => contractEntry(now())));
		await pollUntilQuiet(host);
		expect(ids(host)).toEqual(later);
	});

	it.each([
		['seconds', (ms: number) => Math.floor(ms / 1000) + 1],
		['milliseconds', (ms: number) => ms],
		['microseconds', (ms: number) => ms * 1000],
		['nanoseconds', (ms: number) => `${ms}000000`],
	])(
		'finding 1: a numeric time in %s is read by its size, not as a date far ahead',
		async (_, as) => {
			const host = new PollingHost(service, KEY);
			await host.activate();
			const at = now();
			service.options.timeOf = (entry) =>
				Number(String(entry.created_at).slice(0, 13).padEnd(13, '0'));
			const [numeric] = add(contractEntry(at, 'document.completed', { created_at: as(at) }));
			await host.poll();
			const later = add(
				contractEntry(now() + 1000, 'document.completed', { created_at: now() + 1000 }),
			);
			await pollUntilQuiet(host);
			expect(ids(host)).toEqual([numeric, ...later]);
			expect(Math.abs(Date.parse(String(host.events[0].timestamp)) - at)).toBeLessThan(2000);
		},
	);

	it(
		'finding 2: more entries at one instant than one read holds, oldest first: the documented error, and the events after them come',
		async () => {
			service.options.order = 'oldest-first';
			const host = new PollingHost(service, KEY);
			await host.activate();
			const instant = now();
			const crowd = add(
				...Array.from({ length: MAX_IDS_AT_ONE_INSTANT + 500 }, () =>
					contractEntry(instant, 'document.viewed', { document_id: null }),
				),
			);
			const later = add(...[1, 2, 3].map((n) => contractEntry(instant + n)));
			await pollUntilQuiet(host);
			const passed = ids(host);
			expect(new Set(passed).size).toBe(passed.length);
			expect(passed.filter((id) => crowd.includes(id))).toHaveLength(MAX_IDS_AT_ONE_INSTANT);
			expect(passed.slice(-3)).toEqual(later);
			expect(host.errors.map((error) => error.message)).toEqual([
				`More than ${MAX_IDS_AT_ONE_INSTANT.toLocaleString('en-US')} audit-log entries share the time ${new Date(instant).toISOString()}`,
			]);
			expect(cursorOf(host).count).toBeLessThanOrEqual(MAX_IDS_AT_ONE_INSTANT);
		},
		HEAVY_TEST_MS,
	);

	it('finding 2: a log listed oldest first that ignores `from` gives every new event once, oldest first', async () => {
		Object.assign(service.options, { order: 'oldest-first', honoursFrom: false });
		add(...Array.from({ length: 30 }, (_, n) => contractEntry(now() - 3_600_000 + n)));
		const host = new PollingHost(service, KEY);
		await host.activate();
		const first = add(...[1, 2, 3, 4, 5].map(() => contractEntry(now())));
		await pollUntilQuiet(host);
		const second = add(contractEntry(now() + 5));
		await pollUntilQuiet(host);
		expect(ids(host)).toEqual([...first, ...second]);
	});

	it('finding 3: an entry whose document cannot be read (403, 501, a malformed id; 404 deleted since) is passed on, marked, and never blocks the events after it', async () => {
		const host = new PollingHost(service, KEY);
		await host.activate();
		const statuses: Record<string, number> = { doc_forbidden: 403, doc_gone: 404, doc_broken: 501 };
		service.options.document = (id) => ({ status: statuses[id] ?? 200, body: { id, signers: [] } });
		const at = now();
		const bad = add(
			contractEntry(at, 'document.completed', { document_id: 'doc_forbidden' }),
			contractEntry(at + 1, 'document.completed', { document_id: 'doc_gone' }),
			contractEntry(at + 2, 'document.completed', { document_id: 'doc_broken' }),
			contractEntry(at + 3, 'document.completed', { document_id: 'doc with space' }),
		);
		const good = add(contractEntry(at + 4), contractEntry(at + 5));
		await pollUntilQuiet(host);
		expect(ids(host)).toEqual([...bad, ...good]);
		const marks = host.events.map((json) => json.unreadable as IDataObject[] | undefined);
		// Deleted since (404): the contract's deleted document, its id and no mark.
		expect(marks.slice(0, 3).map((mark) => mark?.[0].httpCode)).toEqual([403, undefined, 501]);
		expect(host.events[1].data).toEqual({ document: { id: 'doc_gone' } });
		expect(marks[3]?.[0]).toMatchObject({ record: 'document', id: 'doc with space' });
		expect(marks.slice(4)).toEqual([undefined, undefined]);
		expect(host.events[0].data).toEqual({ document: { id: 'doc_forbidden' } });
		expect(host.errors).toEqual([]);
	});

	it(
		'finding 4: a newest-first backlog of 10,000 entries comes whole, once, oldest first, in at most ceil(N / budget) + 2 polls and linear requests',
		async () => {
			const size = 10_000;
			const start = now() - 60 * 60_000;
			const backlog = add(
				...Array.from({ length: size }, (_, n) =>
					contractEntry(start + n, 'document.viewed', { document_id: null }),
				),
			);
			const saved = {
				[`node:${NODE_NAME}`]: { pollCursor: { time: new Date(start - 1).toISOString(), ids: [] } },
			};
			const host = new PollingHost(service, KEY, {}, saved);
			await host.activate();
			const reads = service.logReads;
			const polls = await pollUntilQuiet(host);
			expect(ids(host)).toEqual(backlog);
			// The last poll passed nothing on: it is the one that found the log caught up.
			expect(polls - 1).toBeLessThanOrEqual(Math.ceil(size / EVENT_POLL_BUDGET.records) + 2);
			// Each entry is read about twice (once narrowing, once passed on), 100 to a page.
			expect(service.logReads - reads).toBeLessThanOrEqual((2.2 * size) / 100 + 2 * polls);
		},
		HEAVY_TEST_MS,
	);

	it(
		'finding 5: 20,000 entries at one instant in one oversized page keep the cursor bounded and say so',
		async () => {
			service.options.pageSize = Infinity;
			const host = new PollingHost(service, KEY);
			await host.activate();
			const instant = now();
			add(
				...Array.from({ length: 20_000 }, () =>
					contractEntry(instant, 'document.viewed', { document_id: null }),
				),
			);
			const later = add(contractEntry(instant + 1, 'document.viewed', { document_id: null }));
			await pollUntilQuiet(host);
			expect(host.emitted).toHaveLength(MAX_IDS_AT_ONE_INSTANT + 1);
			expect(ids(host).at(-1)).toEqual(later[0]);
			expect(host.errors).toHaveLength(1);
			expect(JSON.stringify(host.saved()).length).toBeLessThan(10_000);
		},
		HEAVY_TEST_MS,
	);

	it('finding 6: times without a zone are UTC, whatever n8n’s time zone', async () => {
		const zone = process.env.TZ;
		process.env.TZ = 'Asia/Tokyo';
		try {
			service.options.timeOf = (entry) => Date.parse(`${String(entry.created_at)}Z`);
			const zoneless = (at: number) =>
				contractEntry(at, 'document.completed', {
					created_at: new Date(at).toISOString().slice(0, -1),
				});
			const host = new PollingHost(service, KEY);
			await host.activate();
			const events = add(zoneless(now()), zoneless(now() + 1));
			await pollUntilQuiet(host);
			expect(ids(host)).toEqual(events);
			expect(host.events[0].timestamp).toMatch(/Z$/);
		} finally {
			process.env.TZ = zone;
		}
	});

	it('finding 7: an entry id used again at a new time is a new event; the same entry read twice is one', async () => {
		const host = new PollingHost(service, KEY);
		await host.activate();
		const at = now();
		add(contractEntry(at, 'document.completed', { id: 'aud_reused' }));
		await host.poll();
		add(contractEntry(at + 1000, 'document.completed', { id: 'aud_reused' }));
		// A page that lists the first one twice.
		service.entries.push({ ...service.entries[0] });
		await pollUntilQuiet(host);
		expect(ids(host)).toEqual(['aud_reused', 'aud_reused']);
		expect(new Set(host.emitted.map((one) => one.deduplicationKey)).size).toBe(2);
	});

	it('finding 9: entries named { id, action, at, target }, oldest first, `from` ignored, are read by principle', async () => {
		Object.assign(service.options, {
			order: 'oldest-first',
			honoursFrom: false,
			timeOf: (entry: IDataObject) => Date.parse(String(entry.at)),
		});
		const bare = (at: number, action: string, target: string | null) => {
			const { id } = contractEntry(at);
			return { id, action, at: new Date(at).toISOString(), target } as IDataObject;
		};
		add(bare(now() - 3_600_000, 'document.created', 'doc_old'));
		const host = new PollingHost(service, KEY);
		await host.activate();
		const events = add(
			bare(now(), 'document.created', 'doc_new'),
			bare(now() + 1, 'template.created', null),
			bare(now() + 2, 'document.sent', 'doc_new'),
		);
		await pollUntilQuiet(host);
		expect(ids(host)).toEqual([events[0], events[2]]);
		expect(host.events.map((json) => json.event)).toEqual(['document.created', 'document.sent']);
		expect(host.events[0].data).toMatchObject({ document: { id: 'doc_new' } });
	});

	it('finding 9: a log that cannot be read as events is told to n8n’s error handling at the first failed poll', async () => {
		const host = new PollingHost(service, KEY);
		await host.activate();
		service.options.honoursFrom = false;
		add({ id: 'e1', kind: 'x', when: 'y' });
		const warnings = captureWarnings();
		try {
			host.crons[0].onTick();
			await host.tickUntil(() => host.errors.length > 0, 'the error reported');
			expect(host.errors[0].message).toMatch(
				/cannot be read as events: an entry lacks an event name, a time/,
			);
			expect(
				warnings.messages.filter((message) => message.includes('the poll failed')),
			).toHaveLength(1);
		} finally {
			warnings.restore();
		}
	});
});

describe('Polling: an entry dated ahead, a backlog of any length (issue 54, findings 1 and 6)', () => {
	let service: AuditLogService;
	beforeEach(async () => {
		service = await new AuditLogService().start();
	});
	afterEach(async () => {
		await service.stop();
	});

	const ids = (host: PollingHost) => host.events.map((json) => String(json.eventId));
	const add = (...entries: IDataObject[]) => {
		service.entries.push(...entries);
		return entries.map((entry) => String(entry.id));
	};
	const pollUntilQuiet = async (host: PollingHost) => {
		for (let polls = 1; polls <= MAX_POLLS; polls++) if ((await host.poll()) === 0) return polls;
		throw new Error(`still passing events on after ${MAX_POLLS} polls`);
	};
	const FOUR_MINUTES = 4 * 60_000;

	it.each([
		["n8n's clock (no `Date` header)", () => undefined],
		[
			'a `Date` header 50 minutes ahead of the log',
			() => new Date(Date.now() + 50 * 60_000).toUTCString(),
		],
	])(
		'finding 1, %s: a chosen entry dated 4 minutes ahead never hides the entries logged after it with earlier times; each comes once',
		async (_, date) => {
			service.options.date = date;
			const host = new PollingHost(service, KEY, { events: ['document.completed'] });
			await host.activate();
			const [ahead] = add(contractEntry(Date.now() + FOUR_MINUTES));
			await host.poll();
			const later = add(...[1, 2, 3].map(() => contractEntry(Date.now())));
			await pollUntilQuiet(host);
			expect(ids(host)).toEqual([ahead, ...later]);
			// Restarted from what n8n saved: nothing again, and the next ones still come.
			const restarted = new PollingHost(service, KEY, {}, host.saved());
			await restarted.activate();
			const last = add(contractEntry(Date.now()));
			await pollUntilQuiet(restarted);
			expect(ids(restarted)).toEqual(last);
		},
	);

	it('finding 1: an entry dated 4 minutes ahead when the workflow is published never hides the entries logged after it', async () => {
		add(contractEntry(Date.now() + FOUR_MINUTES));
		const host = new PollingHost(service, KEY);
		await host.activate();
		const later = add(...[1, 2, 3].map(() => contractEntry(Date.now())));
		await pollUntilQuiet(host);
		expect(ids(host)).toEqual(later);
	});

	it('finding 6: a newest-first backlog that needs more than MAX_BOUNDS parts catches up against a service that honours `to`, its bounds kept bounded', async () => {
		// Pages of 2 make a read 40 entries.
		service.options.pageSize = 2;
		const start = Date.now() - 60 * 60_000;
		const backlog = add(
			...Array.from({ length: 120 }, (_, n) =>
				contractEntry(start + n, 'document.viewed', { document_id: null }),
			),
		);
		// As a backlog of about 2,000,000 entries leaves it: every part above this one has its bound.
		const bounds = Array.from({ length: MAX_BOUNDS }, (_, n) =>
			new Date(start + 1000 + n).toISOString(),
		);
		const saved = {
			[`node:${NODE_NAME}`]: { pollCursor: { time: new Date(start - 1).toISOString(), bounds } },
		};
		const host = new PollingHost(service, KEY, {}, saved);
		await host.activate();
		for (let polls = 0; host.emitted.length < backlog.length && polls < MAX_POLLS; polls++)
			await host.poll();
		expect(ids(host)).toEqual(backlog);
		const cursor = (host.saved()[`node:${NODE_NAME}`] as { pollCursor: IDataObject }).pollCursor;
		expect((cursor.bounds as string[]).length).toBeLessThanOrEqual(MAX_BOUNDS);
	});

	it('finding 6: a service that ignores `to` with a backlog longer than a read still fails the poll, saying so', async () => {
		Object.assign(service.options, { pageSize: 2, honoursFrom: false });
		const host = new PollingHost(service, KEY);
		await host.activate();
		add(
			...Array.from({ length: 120 }, (_, n) =>
				contractEntry(Date.now() + n - 1000, 'document.viewed', { document_id: null }),
			),
		);
		await expect(host.poll()).rejects.toThrow(/ignores `to`/);
	});
});
