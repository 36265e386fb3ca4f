/**
 * The Document Signing Trigger's Polling mode end to end: a real n8n (the pinned one, headless)
 * with this package, the sandbox as the service, and a workflow whose trigger has Receive Events By
 * › Polling every minute for any event (`*`). The service cannot reach n8n: n8n's webhook URL is a
 * closed port, so only polling can start anything.
 *
 * - Activating registers nothing at the service (no webhook, no webhook request) and nothing at
 *   n8n's webhook URL; events from before the activation never start an execution.
 * - 30 events on 5 documents start exactly one execution each, oldest first, each item with the
 *   event, its id and time, and the document (signer, signing request) as the service has it.
 * - Events while n8n is stopped start exactly one execution each once n8n is back, and none of the
 *   earlier events runs again.
 * - A manual run (the editor's, POST /rest/workflows/{id}/run) of an inactive copy gives the newest
 *   event.
 * - Deactivating leaves nothing at the service, and no poll runs afterwards: a marker workflow
 *   polling a second sandbox shows that a poll minute passed, while the first sandbox saw no read
 *   of its audit log and the workflow no execution.
 * - A published trigger in Webhook mode switched to Polling and published again: its webhook is
 *   removed at the service, and the next event arrives by polling.
 * - On an account with nothing in its log before activation, the first poll gives a new
 *   document's events (the service records all three in one millisecond) oldest first, and a
 *   manual run there gives the newest of them, document.sent.
 *
 * The expected executions are counted from the sandbox's audit log (`auditLogOf`), never
 * hard-coded; every count is of this suite's workflows only. Each wait is for a state (an
 * execution count), bounded by POLL_PHASE_MS: the poll is every minute, at second 0.
 *
 * Needs the package built (`npm run build`). About 4 minutes (at most about 8): four waits for a
 * poll minute and one restart of n8n.
 */
import { randomUUID } from 'node:crypto';

import type { AuditLogEntry } from '../contract';
import { WEBHOOK_EVENTS } from '../nodes/shared/vocabulary';
import { startSandbox, type Sandbox } from '../sandbox';
import { createN8n, type Execution, type N8nInstance } from './harness/n8n';
import {
	expectedItem,
	pollingWorkflow,
	remind,
	thirtyEvents,
	TRIGGER_NAME,
	twoSigners,
} from './harness/pollingEvents';
import { waitForState } from './harness/waitForState';
import {
	createDocument,
	executionItems,
	importWorkflows,
	type WorkflowJson,
} from './harness/workflows';

/** Events a poll emits: the webhook events (account changes are logged, never emitted). */
const DELIVERED = new Set<string>(WEBHOOK_EVENTS);
/** One poll minute, the executions it starts and a loaded machine's slack. */
const POLL_PHASE_MS = 150_000;
/** A test that waits for one poll minute. */
const ONE_POLL_TEST_MS = POLL_PHASE_MS + 60_000;
/** n8n's webhook URL: a closed port, so a webhook registered by mistake could deliver nothing. */
const UNREACHABLE_WEBHOOK_URL = 'http://127.0.0.1:9/';
const AUDIT_READS = 'GET /v1/reports/audit-log';

const FINISHED = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status);

/** An event as `<event> <id> @ <time>`: orders compared this way show the times on failure. */
const entryLabel = (entry: AuditLogEntry) => `${entry.event} ${entry.id} @ ${entry.created_at}`;
const itemLabel = (item: Record<string, any>) =>
	`${item.event} ${item.eventId} @ ${item.timestamp}`;

describe('Document Signing Trigger, Receive Events By › Polling, in a real n8n', () => {
	let sandbox: Sandbox;
	/** The marker workflow's service: its audit-log reads are not the main workflow's. */
	let markerSandbox: Sandbox;
	let n8n: N8nInstance;
	let apiKey: string;
	let markerApiKey: string;
	let workflowId: string;
	let manualCopyId: string;
	let markerId: string;
	let markerManualCopyId: string;
	const webhookNodeId = randomUUID();
	/** Audit-log entry ids the trigger must never emit (from before activation) or emitted already. */
	let seen = new Set<string>();
	/** The entries the workflow has run so far, oldest first. */
	const ran: AuditLogEntry[] = [];
	let documents: Array<Record<string, any>> = [];

	/** The sandbox's entries of emitted kinds not in `known`, oldest first (the log's order). */
	const newEntries = (known: Set<string>, service = sandbox, key = apiKey): AuditLogEntry[] =>
		service.store
			.auditLogOf(key)
			.reverse()
			.filter((entry) => DELIVERED.has(entry.event) && !known.has(entry.id));

	/**
	 * The entries after the last ones taken, now expected to run: recorded at once, so a failed
	 * test leaves the next one the right expectations. Returns those before them too.
	 */
	const takeNewEntries = () => {
		const earlier = [...ran];
		const taken = newEntries(seen);
		ran.push(...taken);
		taken.forEach((entry) => seen.add(entry.id));
		return { earlier, taken };
	};

	const auditReads = () => sandbox.stats().routes[AUDIT_READS] ?? 0;

	/** The poll's own lines of n8n's log (failed polls are logged there), for failure messages. */
	const pollLog = () =>
		n8n
			.logText()
			.split('\n')
			.filter((line) => /Document Signing Trigger|poll/i.test(line))
			.slice(-15)
			.join('\n');

	/** Waits (bounded) until `count` executions of the workflow exist and all have finished. */
	async function waitForRuns(id: string, count: number): Promise<Execution[]> {
		await waitForState(
			() => n8n.executions({ workflowId: id, includeData: false, limit: 250 }),
			(runs) => runs.length >= count && runs.every(FINISHED),
			{
				timeoutMs: POLL_PHASE_MS,
				intervalMs: 1000,
				describe: (runs) =>
					`${runs?.length ?? 0} of ${count} executions of workflow ${id} after ${POLL_PHASE_MS} ms ` +
					`(${JSON.stringify(runs?.map((run) => run.status))})\n--- poll lines of n8n's log ---\n${pollLog()}`,
			},
		);
		return await runsOf(id);
	}

	/** The workflow's executions with their data, oldest first (by id: n8n numbers them in order). */
	async function runsOf(id: string): Promise<Execution[]> {
		const runs = await n8n.executions({ workflowId: id, includeData: true, limit: 250 });
		return runs.sort((a, b) => Number(a.id) - Number(b.id));
	}

	/** Each execution's trigger output: one item each. */
	function itemsOf(runs: Execution[]): Array<Record<string, any>> {
		expect(runs.map((run) => executionItems(run, TRIGGER_NAME).length)).toEqual(runs.map(() => 1));
		return runs.map((run) => executionItems(run, TRIGGER_NAME)[0]);
	}

	/**
	 * The executions' items (oldest execution first) against the audit log: the earlier events
	 * unchanged (none ran again), each new event once with the item users read, then the order:
	 * by execution id, the order n8n started them in, the new events oldest first (times never go
	 * back; at one time, the service's order). Compared as `<event> <id> @ <time>`.
	 */
	function expectNewRuns(
		items: Array<Record<string, any>>,
		earlier: AuditLogEntry[],
		expected: AuditLogEntry[],
	): void {
		const before = items.slice(0, earlier.length);
		const fresh = items.slice(earlier.length);
		expect(before.map((item) => item.eventId).sort()).toEqual(
			earlier.map((entry) => entry.id).sort(),
		);
		expect(fresh.map((item) => item.eventId).sort()).toEqual(
			expected.map((entry) => entry.id).sort(),
		);
		const byId = new Map(fresh.map((item) => [item.eventId, item]));
		expect(expected.map((entry) => byId.get(entry.id))).toEqual(expected.map(expectedItem));
		expect(fresh.map(itemLabel)).toEqual(expected.map(entryLabel));
	}

	/**
	 * A manual run as the editor's "Execute workflow" from the trigger starts it
	 * (POST /rest/workflows/{id}/run); resolves with the finished execution.
	 */
	async function runManually(id: string): Promise<Execution> {
		const started = await n8n.rest<{ executionId?: string; waitingForWebhook?: boolean }>(
			'POST',
			`/rest/workflows/${id}/run`,
			{ triggerToStartFrom: { name: TRIGGER_NAME } },
		);
		// No "waiting for a test webhook": Polling mode has no webhook, test or production.
		expect(started).toEqual({ executionId: expect.any(String) });
		return await waitForState(
			() => n8n.api<Execution>('GET', `/executions/${started.executionId}?includeData=true`),
			FINISHED,
			{
				timeoutMs: 60_000,
				intervalMs: 500,
				describe: (last) => `manual execution not finished: ${JSON.stringify(last?.status)}`,
			},
		);
	}

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0 });
		markerSandbox = await startSandbox({ port: 0 });
		// Accounts of their own: only this suite's documents and events in them.
		({ apiKey } = sandbox.createAccount());
		({ apiKey: markerApiKey } = markerSandbox.createAccount());

		n8n = await createN8n({
			sandboxBaseUrl: sandbox.baseUrl,
			env: {
				N8N_WEBHOOK_URL: UNREACHABLE_WEBHOOK_URL,
				EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
			},
		});
		const [credentialId, markerCredentialId] = await n8n.importCredentials([
			n8n.documentSigningCredential({ apiKey, name: 'Sandbox (polling e2e)' }),
			n8n.documentSigningCredential({
				apiKey: markerApiKey,
				baseUrl: markerSandbox.baseUrl,
				name: 'Marker sandbox (polling e2e)',
			}),
		]);
		const credential = { id: credentialId, name: 'Sandbox (polling e2e)' };
		const markerCredential = { id: markerCredentialId, name: 'Marker sandbox (polling e2e)' };
		[workflowId, manualCopyId, markerId, markerManualCopyId] = await importWorkflows(n8n, [
			pollingWorkflow('e2e: poll for document events', credential, webhookNodeId),
			pollingWorkflow('e2e: poll for document events (manual copy)', credential),
			pollingWorkflow('e2e: poll marker', markerCredential),
			pollingWorkflow('e2e: poll marker (manual copy)', markerCredential),
		]);
		await n8n.start();
	});

	afterAll(async () => {
		await n8n?.dispose();
		await sandbox?.close();
		await markerSandbox?.close();
	});

	it(
		'activation registers nothing at the service; events from before it never start an execution',
		async () => {
			// Before activation: a sent document, one signer has opened it.
			const early = await createDocument(sandbox, apiKey, twoSigners('before-activation'));
			sandbox.actAsSigner(early.id, early.signers[0].id, 'view');
			documents = [early];
			seen = new Set(sandbox.store.auditLogOf(apiKey).map((entry) => entry.id));
			expect(newEntries(new Set()).map((entry) => entry.event)).toEqual([
				'document.created',
				'signature.requested',
				'document.sent',
				'document.viewed',
			]);

			const status = await n8n.activate(workflowId);

			expect(status.status).toBe('published');
			expect(status.triggers.map((trigger) => trigger.errorMessage)).toEqual([null]);
			// Nothing at the service: no webhook, no webhook request, no webhook event in its log.
			expect(sandbox.store.webhooksOf(apiKey)).toEqual([]);
			expect(
				Object.entries(sandbox.stats().routes).filter(([route]) => route.includes('/webhooks')),
			).toEqual([]);
			expect(
				sandbox.store.auditLogOf(apiKey).filter((entry) => entry.event.startsWith('webhook.')),
			).toEqual([]);
			// And nothing at n8n's production webhook URL of the node.
			const production = await fetch(n8n.productionWebhookUrl(`${webhookNodeId}/webhook`), {
				method: 'POST',
				body: '{}',
				signal: AbortSignal.timeout(15_000),
			});
			expect(production.status).toBe(404);

			// "Nothing from before" without waiting on a clock: an event after activation is the
			// sentinel. Once its execution is there, the poll that found it has run, and any execution
			// of the earlier events would be there too.
			await remind(sandbox, apiKey, early.signature_request_id);
			const { taken: sentinel } = takeNewEntries();
			expect(sentinel.map((entry) => entry.event)).toEqual(['signature.reminded']);

			const runs = await waitForRuns(workflowId, 1);

			expect(runs.map((run) => ({ status: run.status, mode: run.mode }))).toEqual([
				{ status: 'success', mode: 'trigger' },
			]);
			expect(itemsOf(runs)).toEqual(sentinel.map(expectedItem));
		},
		ONE_POLL_TEST_MS,
	);

	it(
		'30 events on 5 documents start exactly one execution each, oldest first, with the event and the document',
		async () => {
			const made = await thirtyEvents(sandbox, apiKey);
			const [alpha, , , delta] = made;
			documents.push(...made);

			const { earlier, taken: expected } = takeNewEntries();
			// Counted from the service's log; the plan above makes 30.
			expect(expected.length).toBeGreaterThanOrEqual(30);
			expect(new Set(expected.map((entry) => entry.document_id))).toEqual(
				new Set(made.map((document) => document.id)),
			);

			const runs = await waitForRuns(workflowId, ran.length);

			expect(runs).toHaveLength(ran.length);
			expect(runs.map((run) => ({ status: run.status, mode: run.mode }))).toEqual(
				runs.map(() => ({ status: 'success', mode: 'trigger' })),
			);
			const items = itemsOf(runs);
			expectNewRuns(items, earlier, expected);
			// The document as the service has it at the poll: alpha completed, delta gone (its id only).
			const alphaDone = items.find(
				(item) => item.event === 'document.completed' && item.data.document.id === alpha.id,
			);
			expect(alphaDone?.data.document).toEqual(
				expect.objectContaining({ id: alpha.id, status: 'completed' }),
			);
			const deltaDeleted = items.find(
				(item) => item.event === 'document.deleted' && item.data.document.id === delta.id,
			);
			expect(deltaDeleted?.data.document).toEqual({ id: delta.id });
		},
		ONE_POLL_TEST_MS,
	);

	it(
		'events while n8n is stopped start exactly one execution each after it starts again, and no earlier event runs again',
		async () => {
			const [, , bravo, , , echo] = documents;

			await n8n.stop();
			// 10 events while n8n is down: a new document both sign (8), echo and bravo reminded.
			const foxtrot = await createDocument(sandbox, apiKey, twoSigners('foxtrot'));
			sandbox.actAsSigner(foxtrot.id, foxtrot.signers[0].id, 'sign');
			sandbox.actAsSigner(foxtrot.id, foxtrot.signers[1].id, 'sign');
			await remind(sandbox, apiKey, echo.signature_request_id);
			await remind(sandbox, apiKey, bravo.signature_request_id);
			documents.push(foxtrot);
			const { earlier, taken: expected } = takeNewEntries();
			expect(expected).toHaveLength(10);

			await n8n.start();
			const runs = await waitForRuns(workflowId, ran.length);

			expect(runs).toHaveLength(ran.length);
			expect(runs.every((run) => run.status === 'success' && run.mode === 'trigger')).toBe(true);
			// None of the earlier events again, the new ones once each, oldest first.
			expectNewRuns(itemsOf(runs), earlier, expected);
		},
		ONE_POLL_TEST_MS + 120_000,
	);

	it('a manual run of an inactive copy (the editor’s Execute) gives the newest event', async () => {
		const [newest] = sandbox.store.auditLogOf(apiKey).filter((entry) => DELIVERED.has(entry.event));
		expect(newest.event).toBe('signature.reminded');
		const runsBefore = (await n8n.executions({ workflowId, includeData: false })).length;

		const execution = await runManually(manualCopyId);

		expect({ status: execution.status, mode: execution.mode }).toEqual({
			status: 'success',
			mode: 'manual',
		});
		expect(executionItems(execution, TRIGGER_NAME)).toEqual([expectedItem(newest)]);
		// The manual run registered nothing and started nothing else.
		expect(sandbox.store.webhooksOf(apiKey)).toEqual([]);
		expect((await n8n.executions({ workflowId, includeData: false })).length).toBe(runsBefore);
	});

	it(
		'deactivating leaves nothing at the service, and events afterwards start nothing',
		async () => {
			const [, , bravo] = documents;
			// The main workflow has been reading the audit log (so the counter below sees its reads).
			expect(auditReads()).toBeGreaterThan(0);
			// The marker: a second workflow polling another service, so that its executions show a poll
			// minute has passed without its reads counting as the main workflow's.
			expect((await n8n.activate(markerId)).status).toBe('published');

			const status = await n8n.deactivate(workflowId);

			expect(status.status).toBe('not_published');
			expect(sandbox.store.webhooksOf(apiKey)).toEqual([]);
			const readsAfter = auditReads();
			const runsAfter = (await n8n.executions({ workflowId, includeData: false })).length;

			// Events for both after the deactivation: one on the main account, a new document at the
			// marker's service.
			await remind(sandbox, apiKey, bravo.signature_request_id);
			expect(newEntries(seen)).toHaveLength(1);
			await createDocument(markerSandbox, markerApiKey, twoSigners('marker'));
			const markerEntries = newEntries(new Set(), markerSandbox, markerApiKey);
			expect(markerEntries).toHaveLength(3);

			// Absence cannot be polled for; the marker's executions are the bound: once they are
			// there, a poll minute has passed after the events, at which a poll of the main workflow
			// would have read the first sandbox's audit log (its first request) and started an
			// execution.
			await waitForRuns(markerId, markerEntries.length);

			expect(auditReads()).toBe(readsAfter);
			expect((await n8n.executions({ workflowId, includeData: false })).length).toBe(runsAfter);
			expect(sandbox.store.webhooksOf(apiKey)).toEqual([]);
			// Nothing was ever delivered by the service; no poll failed; the key stayed out of the logs.
			expect(sandbox.deliveries()).toEqual([]);
			expect(n8n.logText()).not.toMatch(/the poll failed/);
			expect(n8n.logText()).not.toContain(apiKey);
		},
		ONE_POLL_TEST_MS,
	);

	it("on an account with nothing in its log before activation, the first poll gives a new document's events oldest first", async () => {
		// The marker's account was empty at its activation; its first poll read exactly the three
		// events of one document creation, which the service records in one millisecond (almost
		// always: three clock reads in a row), so their times alone cannot order them.
		const entries = newEntries(new Set(), markerSandbox, markerApiKey);
		expect(entries.map((entry) => entry.event)).toEqual([
			'document.created',
			'signature.requested',
			'document.sent',
		]);
		const runs = await runsOf(markerId);
		expect(runs).toHaveLength(entries.length);
		expectNewRuns(itemsOf(runs), [], entries);
	});

	it('a manual run on that account gives its newest event, document.sent', async () => {
		// The account's whole log is the one document creation (one millisecond): the newest
		// entry, the service's first, is document.sent.
		const [newest] = markerSandbox.store.auditLogOf(markerApiKey);
		expect(newest.event).toBe('document.sent');

		const execution = await runManually(markerManualCopyId);

		expect({ status: execution.status, mode: execution.mode }).toEqual({
			status: 'success',
			mode: 'manual',
		});
		expect(executionItems(execution, TRIGGER_NAME)).toEqual([expectedItem(newest)]);
	});

	it(
		'a published Webhook trigger switched to Polling: its webhook is removed at the service, and events arrive by polling',
		async () => {
			const { apiKey: switchKey } = sandbox.createAccount();
			const [credentialId] = await n8n.importCredentials([
				n8n.documentSigningCredential({ apiKey: switchKey, name: 'Sandbox (switch e2e)' }),
			]);
			const credential = { id: credentialId, name: 'Sandbox (switch e2e)' };
			const webhookMode = pollingWorkflow('e2e: switched to polling', credential);
			webhookMode.nodes[0].parameters = { events: ['document.sent'], options: {} };
			const [switchedId] = await importWorkflows(n8n, [webhookMode]);
			await n8n.activate(switchedId);
			expect(sandbox.store.webhooksOf(switchKey)).toHaveLength(1);

			// What a user does in the editor: Receive Events By › Polling, then publish again.
			const saved = await n8n.api<WorkflowJson>('GET', `/workflows/${switchedId}`);
			const nodes = saved.nodes.map((node) =>
				node.name === TRIGGER_NAME
					? {
							...node,
							parameters: { ...node.parameters, receiveEventsBy: 'polling', pollMinutes: 1 },
						}
					: node,
			);
			await n8n.api('PUT', `/workflows/${switchedId}`, {
				name: saved.name,
				nodes,
				connections: saved.connections,
				settings: saved.settings,
			});
			await n8n.activate(switchedId);
			expect(sandbox.store.webhooksOf(switchKey)).toEqual([]);

			const document = await createDocument(sandbox, switchKey, {
				name: 'switched.pdf',
				signers: [{ email: 'ann+switch@example.com', name: 'Ann Example' }],
			});
			await waitForRuns(switchedId, 1);
			const runs = await runsOf(switchedId);
			expect(runs).toHaveLength(1);
			expect(executionItems(runs[0], TRIGGER_NAME)).toEqual([
				expect.objectContaining({
					event: 'document.sent',
					data: expect.objectContaining({
						document: expect.objectContaining({ id: document.id }),
					}),
				}),
			]);
			await n8n.deactivate(switchedId);
			expect(sandbox.store.webhooksOf(switchKey)).toEqual([]);
		},
		POLL_PHASE_MS + 60_000,
	);
});
