/**
 * The Document Signing Trigger's Polling mode against a hostile or careless audit log (issue 47),
 * in a real n8n whose own zone is Asia/Tokyo (`TZ`, `GENERIC_TIMEZONE`), so a time read in n8n's
 * zone instead of UTC is 9 hours off. Six sandboxes, one per case, each with its dialect, and six
 * workflows published side by side in one n8n, each polling its own sandbox every minute for any
 * event (`*`). The service cannot reach n8n (n8n's webhook URL is a closed port):
 *
 * - a. the contract's dialect, with an entry dated 2099 in the log before the workflow is
 *   published: it runs at most once and never holds back the real events after it;
 * - b. `audit-zoneless`: every time in UTC without a zone, read in n8n's zone at the reader's peril;
 * - c. `foreign-documents-forbidden`: an entry naming another account's document (`GET
 *   /documents/{id}` answers 403), logged after publishing and before the real events: it runs
 *   once, marked unreadable, and never holds back the real events after it;
 * - d. `audit-bare+audit-oldest-first+audit-ignores-from`: entries as `{ id, action, at, target }`,
 *   listed oldest first, `from` and `to` ignored;
 * - f. the contract's dialect behind a gateway that answers one document with its sign-in page (200,
 *   HTML), named by a completed entry logged after publishing and before the real events: it runs
 *   once, marked unreadable, and never holds back the real events after it;
 * - g. the contract's dialect, with a completed entry dated 4 minutes ahead, logged with the first
 *   real event: it runs once, and the real events logged after it with earlier times all run.
 *
 * Each case gets 12 real events (4 documents created and sent), then, while n8n is stopped, 5
 * more (a document, two reminders); n8n starts again on the same user folder. Every real event
 * must start exactly one execution of its case's workflow, in the log's order. The expected
 * events are counted from each sandbox's audit log (`auditLogOf`), never hard-coded, and compared
 * by event id. All cases share each wait for a poll minute: one wait per phase, for a state (each
 * workflow's executions hold every expected event, all finished), bounded by POLL_PHASE_MS; a case
 * that does not get there fails in its own test, with what its workflow ran and the poll's lines
 * of n8n's log.
 *
 * n8n runs with its durable scheduler's flags on (DURABLE_SCHEDULER below, off by default in
 * 2.41.1), the path n8n is moving its Schedule Trigger and polling nodes to; e2e/triggerPolling
 * runs with n8n's defaults. Both must give each event once, across the restart.
 *
 * Needs the package built (`npm run build`). About 4 minutes when every case passes: one n8n start,
 * two poll minutes and one restart.
 */
import type { AuditLogEntry } from '../contract';
import { WEBHOOK_EVENTS } from '../nodes/shared/vocabulary';
import { startSandbox, type Sandbox } from '../sandbox';
import { startRewritingProxy } from '../test/helpers/rewritingProxy';
import { createN8n, type Execution, type N8nInstance } from './harness/n8n';
import { pollingWorkflow, remind, TRIGGER_NAME, twoSigners } from './harness/pollingEvents';
import { waitForState } from './harness/waitForState';
import { createDocument, executionItems, importWorkflows } from './harness/workflows';

/** Events a poll emits: the webhook events (account changes are logged, never emitted). */
/** n8n 2.41's durable scheduler, with polling triggers and durable cursors (all off by default). */
const DURABLE_SCHEDULER = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_SCHEDULER_TRIGGER_NODE_MODE: 'new',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
};
const DELIVERED = new Set<string>(WEBHOOK_EVENTS);
/** One poll minute, the executions it starts (four workflows at once) and a loaded machine's slack. */
const POLL_PHASE_MS = 150_000;
/** n8n's webhook URL: a closed port, so nothing the service sends could reach n8n. */
const UNREACHABLE_WEBHOOK_URL = 'http://127.0.0.1:9/';
/** n8n's own zone: 9 hours ahead of UTC, so a zone-less time read in it is 9 hours early. */
const N8N_ZONE = 'Asia/Tokyo';

const FINISHED = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status);

type CaseName = 'a' | 'b' | 'c' | 'd' | 'f' | 'g';
/** Case g: how far ahead of the present its completed entry is dated. */
const AHEAD_MS = 4 * 60_000;

/** Case f: the document a gateway in front of the service answers with its sign-in page. */
const SIGNED_OUT_DOCUMENT = 'doc_behind_sign_in';
const SIGN_IN_PAGE =
	'<!DOCTYPE html><html><head><title>Sign in</title></head><body><h1>Sign in to continue</h1></body></html>';

interface Case {
	name: CaseName;
	title: string;
	dialect: string;
	sandbox: Sandbox;
	/** The Base URL n8n's credential uses, when not the sandbox's own (case f's gateway). */
	baseUrl?: string;
	accountId: string;
	apiKey: string;
	workflowId: string;
	documents: Array<Record<string, any>>;
	/** Entries appended as given (the 2099 one, the unreadable one): not real events. */
	appended: AuditLogEntry[];
	/** The real events expected so far, oldest first (the log's order). */
	expected: AuditLogEntry[];
	/** The workflow's executions (oldest first) when the last wait ended. */
	runs: Execution[];
}

/** An item or entry as `<event> <id> @ <time>`: orders compared this way show the times on failure. */
const entryLabel = (entry: AuditLogEntry) => `${entry.event} ${entry.id} @ ${entry.created_at}`;
const itemLabel = (item: Record<string, any> | undefined) =>
	item ? `${item.event} ${item.eventId} @ ${item.timestamp}` : '(no trigger item)';

describe(`Polling a hostile audit log, in a real n8n whose zone is ${N8N_ZONE}`, () => {
	let n8n: N8nInstance;
	const cases: Case[] = [];
	const caseOf = (name: CaseName) => cases.find((one) => one.name === name)!;
	/** The wait of the current phase, shared by every case's test; resolves when it ends. */
	let phase: Promise<void> | undefined;
	const sandboxes: Sandbox[] = [];
	const gateways: Array<{ close: () => Promise<void> }> = [];

	/** The trigger's item of each execution (undefined when the trigger passed nothing on). */
	const itemsOf = (runs: Execution[]) =>
		runs.map((run) => executionItems(run, TRIGGER_NAME)[0] as Record<string, any> | undefined);

	/** The case's workflow's executions with their data, oldest first (n8n numbers them in order). */
	async function runsOf(one: Case): Promise<Execution[]> {
		const runs = await n8n.executions({
			workflowId: one.workflowId,
			includeData: true,
			limit: 250,
		});
		return runs.sort((a, b) => Number(a.id) - Number(b.id));
	}

	/** The ids a case's workflow must have run by now: its real events, and the unreadable entry. */
	const requiredIds = (one: Case) => [
		...one.expected.map((entry) => entry.id),
		...(['c', 'f', 'g'].includes(one.name) ? one.appended.map((entry) => entry.id) : []),
	];

	/** Whether the case's executions hold every required event and all have finished. */
	const settled = (one: Case, runs: Execution[]) => {
		const ran = new Set(itemsOf(runs).map((item) => item?.eventId));
		return runs.every(FINISHED) && requiredIds(one).every((id) => ran.has(id));
	};

	/**
	 * The entries of emitted kinds not yet expected and not appended, oldest first (the store lists
	 * by time, newest first), now expected to run.
	 */
	function takeNewEntries(one: Case): AuditLogEntry[] {
		const known = new Set([...one.expected, ...one.appended].map((entry) => entry.id));
		const taken = one.sandbox.store
			.auditLogOf(one.apiKey)
			.reverse()
			.filter((entry) => DELIVERED.has(entry.event) && !known.has(entry.id));
		one.expected.push(...taken);
		return taken;
	}

	/**
	 * One wait for every case: until each workflow's executions hold its expected events, all
	 * finished, or POLL_PHASE_MS passed. Never fails itself: each case's test judges its own runs.
	 */
	function startPhase(): void {
		phase = (async () => {
			try {
				await waitForState(
					async () => {
						for (const one of cases) if (!settled(one, one.runs)) one.runs = await runsOf(one);
						return cases;
					},
					(all) => all.every((one) => settled(one, one.runs)),
					{ timeoutMs: POLL_PHASE_MS, intervalMs: 2000, describe: () => 'not every case settled' },
				);
			} catch {
				// A case that did not settle fails in its own test.
			}
			for (const one of cases) one.runs = await runsOf(one);
		})();
	}

	/** The poll's lines of n8n's log for a case's workflow (failed polls are logged there). */
	const pollLog = (one: Case) =>
		n8n
			.logText()
			.split('\n')
			.filter(
				(line) => line.includes(one.workflowId) && /Document Signing Trigger|poll/i.test(line),
			)
			.slice(-8)
			.map((line) => line.slice(0, 600))
			.join('\n');

	/** What a case's workflow ran, for failure messages. */
	const ranLabels = (one: Case) =>
		one.runs.map((run, index) => `${run.status}: ${itemLabel(itemsOf(one.runs)[index])}`);

	/**
	 * Every real event so far once, in the log's order (by execution id), each execution a success;
	 * nothing ran but the real events and the case's appended entries.
	 */
	function expectEveryRealEventOnce(one: Case): void {
		const items = itemsOf(one.runs);
		const real = new Set(one.expected.map((entry) => entry.id));
		const appended = new Set(one.appended.map((entry) => entry.id));
		const context = `case ${one.name} (${one.title}); its workflow ran ${one.runs.length} executions:\n${ranLabels(one).join('\n')}\n--- poll lines of n8n's log ---\n${pollLog(one)}`;
		const byId = new Map(one.expected.map((entry) => [entry.id, entry]));
		const ranReal = items
			.filter((item) => real.has(item?.eventId))
			.map((item) => entryLabel(byId.get(item!.eventId)!));
		expect({ context, ran: ranReal }).toEqual({ context, ran: one.expected.map(entryLabel) });
		const other = items.filter((item) => !real.has(item?.eventId) && !appended.has(item?.eventId));
		expect({ context, other: other.map(itemLabel) }).toEqual({ context, other: [] });
		expect({ context, statuses: one.runs.map((run) => run.status) }).toEqual({
			context,
			statuses: one.runs.map(() => 'success'),
		});
		// The item carries the event as logged (its name; its time is the reader's business).
		for (const item of items.filter((entry) => real.has(entry?.eventId)))
			expect(item!.event).toBe(byId.get(item!.eventId)!.event);
	}

	/** How often an appended entry ran. */
	const runsOfEntry = (one: Case, entry: AuditLogEntry) =>
		itemsOf(one.runs).filter((item) => item?.eventId === entry.id);

	beforeAll(async () => {
		const specs: Array<Pick<Case, 'name' | 'title' | 'dialect'>> = [
			{ name: 'a', title: 'an entry dated 2099, logged before publishing', dialect: 'default' },
			{ name: 'b', title: 'times without a zone', dialect: 'audit-zoneless' },
			{
				name: 'c',
				title: "an entry naming another account's document (403)",
				dialect: 'foreign-documents-forbidden',
			},
			{
				name: 'd',
				title: '{ id, action, at, target }, oldest first, from ignored',
				dialect: 'audit-bare+audit-oldest-first+audit-ignores-from',
			},
			{
				name: 'f',
				title: 'a completed entry whose document answers 200 with a web page',
				dialect: 'default',
			},
			{ name: 'g', title: 'a completed entry dated 4 minutes ahead', dialect: 'default' },
		];
		for (const spec of specs) {
			const sandbox = await startSandbox({ port: 0, dialect: spec.dialect });
			sandboxes.push(sandbox);
			// An account of its own: only this case's documents and events in it.
			const { accountId, apiKey } = sandbox.createAccount();
			cases.push({
				...spec,
				sandbox,
				accountId,
				apiKey,
				workflowId: '',
				documents: [],
				appended: [],
				expected: [],
				runs: [],
			});
		}
		// Case f: everything passes through the gateway; one document is its sign-in page.
		const f = caseOf('f');
		const gateway = await startRewritingProxy(f.sandbox.origin, (request) =>
			request.path.startsWith(`/v1/documents/${SIGNED_OUT_DOCUMENT}`)
				? { status: 200, body: SIGN_IN_PAGE }
				: undefined,
		);
		gateways.push(gateway);
		f.baseUrl = gateway.baseUrl;

		n8n = await createN8n({
			env: {
				N8N_WEBHOOK_URL: UNREACHABLE_WEBHOOK_URL,
				TZ: N8N_ZONE,
				GENERIC_TIMEZONE: N8N_ZONE,
				...DURABLE_SCHEDULER,
			},
		});
		const credentialIds = await n8n.importCredentials(
			cases.map((one) =>
				n8n.documentSigningCredential({
					apiKey: one.apiKey,
					baseUrl: one.baseUrl ?? one.sandbox.baseUrl,
					name: `Sandbox (hostile polling ${one.name})`,
				}),
			),
		);
		const workflowIds = await importWorkflows(
			n8n,
			cases.map((one, index) =>
				pollingWorkflow(`e2e: hostile audit log, case ${one.name}: ${one.title}`, {
					id: credentialIds[index],
					name: `Sandbox (hostile polling ${one.name})`,
				}),
			),
		);
		cases.forEach((one, index) => (one.workflowId = workflowIds[index]));
		await n8n.start();
	});

	afterAll(async () => {
		await n8n?.dispose();
		await Promise.all(gateways.map((gateway) => gateway.close()));
		await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
	});

	it('publishes the six workflows side by side (a 2099 entry in case a’s log already); 12 events per case follow', async () => {
		const a = caseOf('a');
		a.appended.push(
			a.sandbox.appendAuditEntry(a.accountId, {
				event: 'document.created',
				created_at: '2099-01-01T00:00:00Z',
			}),
		);
		// The service lists it at the top, newest first, as a service ordering by time does.
		expect(a.sandbox.store.auditLogOf(a.apiKey)[0].id).toBe(a.appended[0].id);

		for (const one of cases) {
			const status = await n8n.activate(one.workflowId);
			expect(status.status).toBe('published');
			expect(status.triggers.map((trigger) => trigger.errorMessage)).toEqual([null]);
		}
		// Polling registers nothing at the service.
		for (const one of cases) expect(one.sandbox.store.webhooksOf(one.apiKey)).toEqual([]);

		// Case c: another account's document, named by an entry of this account's log.
		const c = caseOf('c');
		const { apiKey: otherKey } = c.sandbox.createAccount();
		const foreign = await createDocument(c.sandbox, otherKey, twoSigners('foreign'));
		const read = await fetch(`${c.sandbox.baseUrl}/documents/${foreign.id}`, {
			headers: { authorization: `Bearer ${c.apiKey}` },
			signal: AbortSignal.timeout(10_000),
		});
		expect(read.status).toBe(403);
		c.appended.push(
			c.sandbox.appendAuditEntry(c.accountId, {
				event: 'document.created',
				created_at: c.sandbox.now(),
				document_id: foreign.id,
			}),
		);

		// Case f: a completed entry naming the document the gateway answers with its sign-in page.
		const f = caseOf('f');
		const page = await fetch(`${f.baseUrl}/documents/${SIGNED_OUT_DOCUMENT}`, {
			headers: { authorization: `Bearer ${f.apiKey}` },
			signal: AbortSignal.timeout(10_000),
		});
		expect([page.status, await page.text()]).toEqual([200, SIGN_IN_PAGE]);
		f.appended.push(
			f.sandbox.appendAuditEntry(f.accountId, {
				event: 'document.completed',
				created_at: f.sandbox.now(),
				document_id: SIGNED_OUT_DOCUMENT,
			}),
		);

		// Case g: a completed entry dated 4 minutes ahead, logged with the first real event.
		const g = caseOf('g');
		g.appended.push(
			g.sandbox.appendAuditEntry(g.accountId, {
				event: 'document.completed',
				created_at: new Date(Date.parse(g.sandbox.now()) + AHEAD_MS).toISOString(),
			}),
		);

		for (const one of cases) {
			for (const name of ['alpha', 'bravo', 'charlie', 'delta'])
				one.documents.push(await createDocument(one.sandbox, one.apiKey, twoSigners(name)));
			const taken = takeNewEntries(one);
			// Counted from the service's log; the plan above makes 12.
			expect(taken.map((entry) => entry.event)).toEqual(
				one.documents.flatMap(() => ['document.created', 'signature.requested', 'document.sent']),
			);
		}
		startPhase();
	});

	describe.each(['a', 'b', 'c', 'd', 'f', 'g'] as CaseName[])('case %s', (name) => {
		it(
			'every real event runs once, oldest first',
			async () => {
				await phase;
				expectEveryRealEventOnce(caseOf(name));
			},
			POLL_PHASE_MS + 60_000,
		);
	});

	it('case a: the entry dated 2099 runs at most once', async () => {
		await phase;
		const a = caseOf('a');
		expect(runsOfEntry(a, a.appended[0]).length).toBeLessThanOrEqual(1);
	});

	it('case c: the entry naming another account’s document runs once, marked unreadable', async () => {
		await phase;
		const c = caseOf('c');
		const ran = runsOfEntry(c, c.appended[0]);
		const context = `case c's workflow ran:\n${ranLabels(c).join('\n')}\n--- poll lines ---\n${pollLog(c)}`;
		expect({ context, times: ran.length }).toEqual({ context, times: 1 });
		// Its shape is the node's to choose: somewhere it says the document was unreadable.
		expect(JSON.stringify(ran[0])).toMatch(/unreadable/);
	});

	it('case f: the completed entry whose document answers 200 with a web page runs once, marked unreadable', async () => {
		await phase;
		const f = caseOf('f');
		const ran = runsOfEntry(f, f.appended[0]);
		const context = `case f's workflow ran:\n${ranLabels(f).join('\n')}\n--- poll lines ---\n${pollLog(f)}`;
		expect({ context, times: ran.length }).toEqual({ context, times: 1 });
		expect(ran[0]).toMatchObject({
			event: 'document.completed',
			data: { document: { id: SIGNED_OUT_DOCUMENT } },
			unreadable: [{ record: 'document', id: SIGNED_OUT_DOCUMENT, httpCode: 200 }],
		});
	});

	it('case g: the completed entry dated 4 minutes ahead runs once', async () => {
		await phase;
		const g = caseOf('g');
		const ran = runsOfEntry(g, g.appended[0]);
		const context = `case g's workflow ran:\n${ranLabels(g).join('\n')}\n--- poll lines ---\n${pollLog(g)}`;
		expect({ context, times: ran.length }).toEqual({ context, times: 1 });
		expect(ran[0]).toMatchObject({ event: 'document.completed' });
	});

	it('5 more events per case while n8n is stopped; it starts again on the same user folder', async () => {
		await phase;
		await n8n.stop();
		for (const one of cases) {
			const [alpha, bravo] = one.documents;
			one.documents.push(await createDocument(one.sandbox, one.apiKey, twoSigners('echo')));
			await remind(one.sandbox, one.apiKey, alpha.signature_request_id);
			await remind(one.sandbox, one.apiKey, bravo.signature_request_id);
			expect(takeNewEntries(one).map((entry) => entry.event)).toEqual([
				'document.created',
				'signature.requested',
				'document.sent',
				'signature.reminded',
				'signature.reminded',
			]);
		}
		await n8n.start();
		startPhase();
	}, 120_000);

	describe.each(['a', 'b', 'c', 'd', 'f', 'g'] as CaseName[])(
		'case %s after the restart',
		(name) => {
			it(
				'every real event, before and while stopped, runs once, oldest first; none again',
				async () => {
					await phase;
					expectEveryRealEventOnce(caseOf(name));
				},
				POLL_PHASE_MS + 60_000,
			);
		},
	);

	it('after the restart: case f’s entry behind the sign-in page still once', async () => {
		await phase;
		const f = caseOf('f');
		expect(runsOfEntry(f, f.appended[0]).length).toBe(1);
	});

	it('after the restart: case g’s entry dated ahead still once', async () => {
		await phase;
		const g = caseOf('g');
		expect(runsOfEntry(g, g.appended[0]).length).toBe(1);
	});

	it('after the restart: case a’s 2099 entry still at most once, case c’s unreadable entry still once', async () => {
		await phase;
		const a = caseOf('a');
		const c = caseOf('c');
		expect(runsOfEntry(a, a.appended[0]).length).toBeLessThanOrEqual(1);
		expect(runsOfEntry(c, c.appended[0]).length).toBe(1);
	});
});
