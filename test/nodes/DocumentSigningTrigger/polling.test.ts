/**
 * Receive Events By › Polling (nodes/DocumentSigningTrigger/polling.ts) against the sandbox: the
 * trigger's trigger() and polls run in n8n-core's REAL TriggerContext over a real Workflow (its
 * static data observed as n8n observes it); n8n's scheduler and emit are recorded, so a test runs a
 * poll when it wants one. Real n8n runs the same in e2e/triggerPolling.e2e.test.ts.
 */
import http from 'http';
import type { AddressInfo } from 'net';
import { inspect } from 'util';

import type { IDataObject } from 'n8n-workflow';

import { WEBHOOK_EVENTS } from '../../../nodes/shared/vocabulary';
import type { Sandbox } from '../../../sandbox';
import { parseDialect } from '../../../sandbox/dialects';
import { PollingHost } from '../../helpers/pollingHost';
import { api, documentBody, useSandbox, waitFor } from '../../helpers/sandbox';
import { captureWarnings, NODE_NAME } from '../../helpers/triggerHost';

/** A key the service refuses; it must never show in a log or an error. */
const REVOKED = 'sk_test_revoked_0000000000';
const DELIVERED = new Set<string>(WEBHOOK_EVENTS);

/** The account's audit entries a webhook would deliver, oldest first, after the first `skip` entries. */
function deliveredSince(sandbox: Sandbox, apiKey: string, skip: number): IDataObject[] {
	const newestFirst = sandbox.store.auditLogOf(apiKey) as unknown as IDataObject[];
	return [...newestFirst]
		.reverse()
		.slice(skip)
		.filter((entry) => DELIVERED.has(String(entry.event)));
}

describe('Document Signing Trigger, Receive Events By › Polling', () => {
	const sandbox = useSandbox();
	let apiKey: string;
	const createDocuments = async (count: number) => {
		const ids: string[] = [];
		for (let index = 0; index < count; index++) {
			const { data } = await api(sandbox(), apiKey).post('/documents', documentBody());
			ids.push(String(data.id));
		}
		return ids;
	};
	const logLength = () => sandbox().store.auditLogOf(apiKey).length;

	beforeEach(() => {
		({ apiKey } = sandbox().createAccount());
	});

	it('activation schedules polls with n8n’s scheduler, registers nothing at the service and starts from now', async () => {
		await createDocuments(2);
		const host = new PollingHost(sandbox(), apiKey, { pollMinutes: 5 });
		await expect(host.activate()).resolves.toEqual({ closeFunction: expect.any(Function) });
		expect(host.crons.map((cron) => cron.expression)).toEqual(['0 */5 * * * *']);
		expect(sandbox().store.webhooksOf(apiKey)).toEqual([]);
		expect(host.saved()[`node:${NODE_NAME}`]).toMatchObject({
			pollCursor: { time: expect.any(String) },
		});

		await expect(host.poll()).resolves.toBe(0);
		expect(host.emitted).toEqual([]);
	});

	it('emits each new event as its own execution, oldest first, once, as the item a webhook gives', async () => {
		const host = new PollingHost(sandbox(), apiKey);
		await host.activate();
		const skip = logLength();
		const [first, second] = await createDocuments(2);
		const document = (await api(sandbox(), apiKey).get(`/documents/${first}`)).data;
		sandbox().actAsSigner(first, document.signers[0].id, 'sign');

		const expected = deliveredSince(sandbox(), apiKey, skip);
		expect(expected.length).toBeGreaterThanOrEqual(7);
		await expect(host.poll()).resolves.toBe(expected.length);
		expect(host.events.map((json) => json.eventId)).toEqual(expected.map((entry) => entry.id));
		expect(host.events.map((json) => json.event)).toEqual(expected.map((entry) => entry.event));
		const times = host.events.map((json) => Date.parse(String(json.timestamp)));
		expect([...times].sort((a, b) => a - b)).toEqual(times);
		for (const json of host.events) {
			expect(Object.keys(json).sort()).toEqual(['data', 'event', 'eventId', 'timestamp']);
			expect([first, second]).toContain(
				(json.data as IDataObject & { document: IDataObject }).document.id,
			);
		}
		const signed = host.events.find((json) => json.event === 'document.signed')!;
		expect(signed.data).toMatchObject({
			document: { id: first },
			signer: { id: document.signers[0].id, status: 'signed' },
		});
		const requested = host.events.find((json) => json.event === 'signature.requested')!;
		expect(requested.data).toMatchObject({ signature_request: { id: expect.any(String) } });
		// One key per workflow node and event, for n8n 2.x's deduplication of emits.
		expect(new Set(host.emitted.map((one) => one.deduplicationKey)).size).toBe(expected.length);

		await expect(host.poll()).resolves.toBe(0);
		expect(host.emitted).toHaveLength(expected.length);
	});

	it('passes events on one at a time: the next execution starts only when the one before has ended', async () => {
		const host = new PollingHost(sandbox(), apiKey);
		await host.activate();
		const skip = logLength();
		await createDocuments(1);
		const expected = deliveredSince(sandbox(), apiKey, skip);
		expect(expected.map((entry) => entry.event)).toEqual([
			'document.created',
			'signature.requested',
			'document.sent',
		]);
		host.holdExecutions = true;
		const poll = host.poll();
		for (let index = 0; index < expected.length; index++) {
			await waitFor(() => host.heldExecutions.length === index + 1, `execution ${index + 1}`);
			// Only this one was started, and the saved cursor is past exactly the events started.
			expect(host.events.map((json) => json.eventId)).toEqual(
				expected.slice(0, index + 1).map((entry) => entry.id),
			);
			// Restarted from what n8n saved with this emit, polling passes on exactly the rest.
			const restarted = new PollingHost(sandbox(), apiKey, {}, host.saved());
			await restarted.activate();
			await restarted.poll();
			expect(restarted.events.map((json) => json.eventId)).toEqual(
				expected.slice(index + 1).map((entry) => entry.id),
			);
			host.heldExecutions[index]();
		}
		await expect(poll).resolves.toBe(expected.length);
	});

	it('a key refused in the middle of a poll: the events read pass on once, their records unreadable (401); the next poll fails on the log itself and loses nothing', async () => {
		const host = new PollingHost(sandbox(), apiKey);
		await host.activate();
		const skip = logLength();
		await createDocuments(2);
		const expected = deliveredSince(sandbox(), apiKey, skip).map((entry) => entry.id);
		expect(expected).toHaveLength(6);
		host.holdExecutions = true;
		const setKey = (key: string) => ((host as unknown as { apiKey: string }).apiKey = key);
		const poll = host.poll();
		await waitFor(() => host.heldExecutions.length === 1, 'the first execution');
		// The log was read: a record refused now is that record's, not the poll's.
		setKey(REVOKED);
		host.holdExecutions = false;
		host.heldExecutions[0]();
		await expect(poll).resolves.toBe(expected.length);
		expect(host.events.map((json) => json.eventId)).toEqual(expected);
		const marks = host.events.map((json) => (json.unreadable ?? []) as IDataObject[]);
		expect(marks[0]).toEqual([]);
		// The second document is first read after the key stopped working.
		expect(marks[5].map((mark) => mark.record)).toEqual(['document']);
		expect(marks.flat().map((mark) => mark.httpCode)).toEqual(marks.flat().map(() => 401));

		// The log itself refused: the poll fails, and the next one with the key passes nothing twice.
		const warnings = captureWarnings();
		try {
			await expect(host.poll()).rejects.toThrow('Unknown API key');
			expect(warnings.messages.filter((message) => message.includes('the poll failed'))).toEqual([
				expect.stringContaining('Unknown API key'),
			]);
		} finally {
			warnings.restore();
		}
		setKey(apiKey);
		await createDocuments(1);
		await expect(host.poll()).resolves.toBe(3);
		expect(host.events.map((json) => json.eventId)).toEqual(
			deliveredSince(sandbox(), apiKey, skip).map((entry) => entry.id),
		);
	});

	it.each(['ran', 'never started'] as const)(
		'n8n 2.x: an execution whose end n8n never reports (it %s) is let go after a poll interval and its event emitted again: each event runs once, in order',
		async (unreported) => {
			const host = new PollingHost(sandbox(), apiKey);
			await host.activate();
			const skip = logLength();
			await createDocuments(2);
			const expected = deliveredSince(sandbox(), apiKey, skip);
			const warnings = captureWarnings();
			try {
				host.unreported = unreported;
				const last = Date.parse(String(expected[expected.length - 1].created_at));
				// Every entry of the log at the last event's instant (the cursor counts them all).
				const atLast = sandbox()
					.store.auditLogOf(apiKey)
					.filter((entry) => Date.parse(String(entry.created_at)) === last).length;
				const cursor = () =>
					(host.saved()[`node:${NODE_NAME}`] as { pollCursor: { time: string; count: number } })
						.pollCursor;
				// Done when the last event is behind the cursor and no poll is left waiting.
				await host.tickUntil(
					() =>
						Date.parse(cursor().time) === last &&
						cursor().count === atLast &&
						warnings.messages.filter((message) => message.includes('has not reported the end'))
							.length === expected.length,
					'the cursor past the last event',
				);
				expect(host.events.map((json) => json.eventId)).toEqual(expected.map((entry) => entry.id));
				expect(
					warnings.messages.filter((message) => message.includes('has not reported the end')),
				).toHaveLength(expected.length);
			} finally {
				warnings.restore();
			}
		},
	);

	it('n8n 1.x (no deduplication): an execution whose end n8n never reports holds the poll for at most one poll interval, and the poll goes on', async () => {
		const host = new PollingHost(sandbox(), apiKey, {}, {}, 'trigger', 1);
		await host.activate();
		const skip = logLength();
		await createDocuments(1);
		const expected = deliveredSince(sandbox(), apiKey, skip);
		const warnings = captureWarnings();
		try {
			// As n8n's queue mode may do: `done` of every execution is never settled.
			host.holdExecutions = true;
			host.crons[0].onTick();
			for (let index = 1; index < expected.length; index++) {
				await waitFor(() => host.emitted.length === index, `execution ${index}`);
				host.crons[0].onTick(); // the wait is seen pending
				expect(host.emitted).toHaveLength(index);
				host.crons[0].onTick(); // and still pending a whole interval later: the poll goes on
			}
			await waitFor(() => host.emitted.length === expected.length, 'every execution');
			expect(host.events.map((json) => json.eventId)).toEqual(expected.map((entry) => entry.id));
			expect(
				warnings.messages.filter((message) => message.includes('has not reported the end')),
			).toHaveLength(expected.length - 1);
		} finally {
			warnings.restore();
		}
	});

	it.each([2, 1] as const)(
		'n8n %s.x: stops passing events on when the workflow is unpublished in the middle of a poll',
		async (generation) => {
			const host = new PollingHost(sandbox(), apiKey, {}, {}, 'trigger', generation);
			const response = await host.activate();
			expect(response.closeFunction).toEqual(expect.any(Function));
			await createDocuments(1);
			host.holdExecutions = true;
			const poll = host.poll();
			await waitFor(() => host.heldExecutions.length === 1, 'the first execution');
			// Unpublishing: n8n calls the close function the trigger returned.
			await response.closeFunction!();
			host.holdExecutions = false;
			host.heldExecutions[0]();
			await expect(poll).resolves.toBe(1);
			expect(host.emitted).toHaveLength(1);
		},
	);

	it('passes only the chosen events, and never the account changes the audit log also records', async () => {
		const host = new PollingHost(sandbox(), apiKey, { events: ['document.completed'] });
		await host.activate();
		const [id] = await createDocuments(1);
		await api(sandbox(), apiKey)
			.post('/templates', { name: 'Not an event', content: 'x' })
			.catch(() => undefined);
		const document = (await api(sandbox(), apiKey).get(`/documents/${id}`)).data;
		for (const signer of document.signers) sandbox().actAsSigner(id, signer.id, 'sign');

		await host.poll();
		expect(host.events.map((json) => json.event)).toEqual(['document.completed']);
		expect(host.events[0].data).toMatchObject({ document: { id, status: 'completed' } });
	});

	it('after a restart, the events that happened meanwhile come once each, from the saved cursor', async () => {
		const before = new PollingHost(sandbox(), apiKey);
		await before.activate();
		await createDocuments(1);
		await before.poll();
		const firstRun = before.events.map((json) => json.eventId);
		expect(firstRun.length).toBeGreaterThan(0);

		const skip = logLength();
		await createDocuments(2);
		const after = new PollingHost(sandbox(), apiKey, {}, before.saved());
		await after.activate();
		await after.poll();
		expect(after.events.map((json) => json.eventId)).toEqual(
			deliveredSince(sandbox(), apiKey, skip).map((entry) => entry.id),
		);
		expect(after.events.some((json) => firstRun.includes(json.eventId))).toBe(false);
	});

	it('reads a backlog longer than one poll over the next polls, oldest first, none skipped or repeated', async () => {
		// Pages of 2 make the poll's 20-page budget 40 entries.
		sandbox().configure({ dialect: { maxPageSize: 2 } });
		const host = new PollingHost(sandbox(), apiKey);
		await host.activate();
		const skip = logLength();
		await createDocuments(20);
		const expected = deliveredSince(sandbox(), apiKey, skip);
		expect(expected.length).toBeGreaterThan(40);

		let polls = 0;
		while (host.emitted.length < expected.length && polls < 20) {
			await host.poll();
			polls++;
		}
		expect(host.events.map((json) => json.eventId)).toEqual(expected.map((entry) => entry.id));
		expect(polls).toBeGreaterThan(1);
		await expect(host.poll()).resolves.toBe(0);
	});

	it('a failing poll is logged with the service’s words and tried again; the third in a row goes to n8n’s error handling', async () => {
		const host = new PollingHost(sandbox(), apiKey);
		await host.activate();
		const warnings = captureWarnings();
		try {
			// The key stops working: every poll is refused.
			(host as unknown as { apiKey: string }).apiKey = REVOKED;
			for (let tick = 1; tick <= 3; tick++) {
				// n8n's error handling hears of the third failure only.
				expect(host.errors).toHaveLength(0);
				host.crons[0].onTick();
				await waitFor(
					() =>
						warnings.messages.filter((message) => message.includes('the poll failed')).length >=
						tick,
					`failed poll ${tick} logged`,
				);
			}
			expect(warnings.messages.join('\n')).toMatch(/\(3 in a row\)/);
			expect(warnings.messages.join('\n')).not.toContain(REVOKED);
			expect(host.errors).toHaveLength(1);
			expect(host.errors[0].message).not.toContain(REVOKED);
		} finally {
			warnings.restore();
		}
	});

	it('a manual run returns the newest event, also among events logged at one instant', async () => {
		const [id] = await createDocuments(1);
		const host = new PollingHost(sandbox(), apiKey, {}, {}, 'manual');
		const response = await host.activate();
		await response.manualTriggerFunction!();
		// Create logs document.created, signature.requested and document.sent at one instant.
		expect(host.events).toEqual([
			expect.objectContaining({
				event: 'document.sent',
				data: expect.objectContaining({ document: expect.objectContaining({ id }) }),
			}),
		]);
	});

	it('a manual run returns the newest chosen event at once', async () => {
		const [id] = await createDocuments(1);
		const host = new PollingHost(sandbox(), apiKey, { events: ['document.sent'] }, {}, 'manual');
		const response = await host.activate();
		await response.manualTriggerFunction!();
		expect(host.events).toHaveLength(1);
		expect(host.events[0]).toMatchObject({ event: 'document.sent', data: { document: { id } } });
		expect(host.saved()[`node:${NODE_NAME}`] ?? {}).not.toHaveProperty('pollCursor');
	});

	it.each([
		[
			'name their event and time in a way no service is known to',
			{ kind: 'x', at: 'y' },
			/lacks an event name, a time/,
		],
		[
			'have an event name too long to read',
			{ event: 'x'.repeat(100_000), created_at: '2026-11-27T10:00:00Z' },
			/lacks an event name/,
		],
	])(
		'an audit log whose entries %s fails the activation, saying what entries lack',
		async (_, fields, lack) => {
			const server = http.createServer((request, response) => {
				response.setHeader('Content-Type', 'application/json');
				const old = { id: 'e1', ...fields };
				const empty = (request.url ?? '').includes('from=');
				response.end(JSON.stringify({ data: empty ? [] : [old], has_more: false }));
			});
			await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
			try {
				const { port } = server.address() as AddressInfo;
				const host = new PollingHost({ baseUrl: `http://127.0.0.1:${port}/v1` }, 'sk_test_any');
				const activation = host.activate();
				await expect(activation).rejects.toThrow(
					/The audit log cannot be read as events: an entry lacks /,
				);
				await expect(activation).rejects.toThrow(lack);
				expect(host.crons).toEqual([]);
			} finally {
				await new Promise((resolve) => server.close(resolve));
			}
		},
	);

	it('Webhook mode with Catch Up Missed Events off schedules nothing and forgets an earlier poll cursor', async () => {
		const polling = new PollingHost(sandbox(), apiKey);
		await polling.activate();
		const host = new PollingHost(
			sandbox(),
			apiKey,
			{ receiveEventsBy: 'webhook', catchUp: 0 },
			polling.saved(),
		);
		await expect(host.activate()).resolves.toEqual({});
		expect(host.crons).toEqual([]);
		expect(host.saved()[`node:${NODE_NAME}`]).toEqual({});
	});
});

describe.each([
	'audit-oldest-first',
	'audit-renamed',
	'audit-oldest-first+audit-renamed+numeric-ids+link-header',
	'page-numbers',
])('Polling in the %s dialect', (dialectName) => {
	const sandbox = useSandbox();
	let apiKey: string;

	beforeEach(() => {
		({ apiKey } = sandbox().createAccount());
		// Pages of 2 make the poll's 20-page budget 40 entries.
		sandbox().configure({ dialect: { ...parseDialect(dialectName), maxPageSize: 2 } });
	});

	it('emits every event once, oldest first, across a backlog longer than one poll', async () => {
		const host = new PollingHost(sandbox(), apiKey);
		await host.activate();
		const skip = sandbox().store.auditLogOf(apiKey).length;
		for (let index = 0; index < 16; index++)
			await api(sandbox(), apiKey).post('/documents', documentBody());
		const expected = deliveredSince(sandbox(), apiKey, skip);
		expect(expected.length).toBeGreaterThan(40);

		for (let polls = 0; host.emitted.length < expected.length && polls < 20; polls++)
			await host.poll();
		expect(host.events.map((json) => String(json.eventId))).toEqual(
			expected.map((entry) => String(entry.id)),
		);
		expect(host.events.map((json) => json.event)).toEqual(expected.map((entry) => entry.event));
		for (const json of host.events)
			expect((json.data as { document: IDataObject }).document.id).toEqual(expect.anything());
		await expect(host.poll()).resolves.toBe(0);
	});
});

describe("Polling: a log refused in words that repeat the credential's key (#54, finding 3)", () => {
	const KEY = 'sk_live_revoked_echo_0123456789';
	const body = JSON.stringify({
		error: {
			message: `API key ${KEY} has been revoked`,
			description: `Sent with Authorization: Bearer ${KEY}`,
			details: { headers: { authorization: `Bearer ${KEY}` }, echo: JSON.stringify({ key: KEY }) },
		},
	});
	let server: http.Server;
	let baseUrl: string;
	beforeAll(async () => {
		server = http.createServer((_request, response) =>
			response.writeHead(401, { 'Content-Type': 'application/json' }).end(body),
		);
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
	});
	afterAll(async () => {
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
	});

	it('neither the failed activation, the warnings, the errors n8n hears of nor static data hold it', async () => {
		const refused = new PollingHost({ baseUrl }, KEY);
		const activation = await refused.activate().catch((error: unknown) => error);
		expect((activation as Error).message).toBe('API key [redacted] has been revoked');

		// Started from a cursor, every poll is refused by the log itself.
		const cursor = { pollCursor: { time: new Date().toISOString() } };
		const host = new PollingHost({ baseUrl }, KEY, {}, { [`node:${NODE_NAME}`]: cursor });
		await host.activate();
		const warnings = captureWarnings();
		try {
			for (let poll = 1; poll <= 3; poll++) await host.poll().catch(() => undefined);
			expect(warnings.messages).toEqual(
				[1, 2, 3].map((failures) => expect.stringContaining(`(${failures} in a row)`)),
			);
			expect(warnings.messages[0]).toMatch(/: API key \[redacted\] has been revoked$/);
			expect(host.errors).toHaveLength(1);
			const shown = [
				inspect([activation, host.errors], { depth: Infinity, showHidden: true }),
				JSON.stringify([
					activation,
					host.errors,
					host.saved(),
					warnings.messages,
					warnings.metadata,
				]),
			].join('\n');
			expect(shown).not.toContain(KEY);
		} finally {
			warnings.restore();
		}
	});
});
