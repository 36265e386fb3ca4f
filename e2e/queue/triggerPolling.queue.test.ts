/**
 * The Document Signing Trigger's Polling mode (Receive Events By › Polling, every minute) in n8n's
 * queue mode: Redis, PostgreSQL, n8n as a main process, 2 workers and a webhook processor, all with
 * this package installed (see ./cluster.ts). The single-process suite is e2e/triggerPolling.e2e.test.ts.
 *
 * n8n reaches the sandbox through a recording proxy of this suite (the credentials' base URL): for
 * every request it notes the time, the route, the account (by API key) and the n8n process that
 * sent it, read from the kernel (/proc/net/tcp: the client socket's inode; /proc/<pid>/fd: the
 * process that holds it). So "who polls" is observed, not inferred.
 *
 * 1. Activation (by the main process) registers nothing at the service (no webhook, no webhook
 *    request) and nothing at the webhook processor; the cron is registered on the main process.
 * 2. 30 events on 5 documents: one execution each (by event id, none twice, none missing), each
 *    enqueued by the main process and run by one of the workers, numbered and run in the audit
 *    log's order (oldest first), one after the other.
 * 3. A later poll emits nothing again.
 * 4. Deactivation leaves nothing at the service and removes the cron; a poll minute later (a second
 *    polling workflow, the marker, on another account shows it passed) nothing read the audit log
 *    for the workflow and nothing ran.
 * 5. The poll ran in exactly one process: every request n8n made to the service came from the main
 *    process; each poll minute gave one audit-log read per workflow, never two; n8n's "Executing
 *    cron" lines (debug) are in the main process's log only.
 *
 * The expected events come from the sandbox's audit log (`auditLogOf`), never hard-coded; every
 * count is of this suite's workflows only. Waits are for states, bounded: the poll is every
 * minute, at second 0. About 5 minutes (cluster start ~1 min, three poll minutes).
 *
 * Needs the package built (`npm run build`). Run:
 * `npx jest -c e2e/queue/jest.config.js e2e/queue/triggerPolling.queue.test.ts`.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import type { AuditLogEntry } from '../../contract';
import { WEBHOOK_EVENTS } from '../../nodes/shared/vocabulary';
import { startSandbox, type Sandbox } from '../../sandbox';
import type { Execution } from '../harness/n8n';
import { readIfExists } from '../harness/processes';
import { waitForState } from '../harness/waitForState';
import {
	expectedItem,
	pollingWorkflow,
	remind,
	thirtyEvents,
	TRIGGER_NAME,
	twoSigners,
} from '../harness/pollingEvents';
import { createDocument, executionItems } from '../harness/workflows';
import { startQueueCluster, type QueueCluster } from './cluster';

/** Events a poll emits: the webhook events (account changes are logged, never emitted). */
const DELIVERED = new Set<string>(WEBHOOK_EVENTS);
const EVENTS = 30;
/**
 * One poll minute, the executions it starts on the workers, and a loaded machine's slack, plus two
 * poll minutes for each of two executions whose end n8n's main may never hear of (Bull's
 * job.finished() can miss a job that ended within milliseconds; the trigger then goes on at the
 * second tick, docs/trigger.md).
 */
const POLL_PHASE_MS = 420_000;
const AUDIT_LOG_PATH = '/v1/reports/audit-log';

const FINISHED = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status);

// ---------------------------------------------------------------------------------------------
// Which process sent a request: the kernel's socket tables

/** The inode of the client end of a TCP connection from `clientPort` to `serverPort` (IPv4 or 6). */
function clientSocketInode(clientPort: number, serverPort: number): string | undefined {
	for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
		for (const line of readIfExists(table).split('\n').slice(1)) {
			const fields = line.trim().split(/\s+/);
			if (fields.length < 10) continue;
			const port = (address: string) => parseInt(address.slice(address.lastIndexOf(':') + 1), 16);
			if (port(fields[1]) === clientPort && port(fields[2]) === serverPort) return fields[9];
		}
	}
	return undefined;
}

/** Every process id, those in `first` first. */
function processIds(first: number[]): number[] {
	const all = fs
		.readdirSync('/proc')
		.filter((entry) => /^\d+$/.test(entry))
		.map(Number);
	return [...new Set([...first, ...all])];
}

/** The process holding socket `inode` open, or undefined. */
function socketOwner(inode: string, hints: number[]): number | undefined {
	const target = `socket:[${inode}]`;
	for (const pid of processIds(hints)) {
		let fds: string[];
		try {
			fds = fs.readdirSync(`/proc/${pid}/fd`);
		} catch {
			continue;
		}
		for (const fd of fds) {
			try {
				if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return pid;
			} catch {
				// closed meanwhile
			}
		}
	}
	return undefined;
}

/** A process's group (every n8n process of the cluster leads its own group). */
function processGroup(pid: number): number | undefined {
	const stat = readIfExists(`/proc/${pid}/stat`);
	const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return rest.length > 2 ? Number(rest[2]) : undefined;
}

// ---------------------------------------------------------------------------------------------
// The recording proxy between n8n and the sandbox

/** One request n8n made to the service. */
interface ServiceRequest {
	/** When it arrived and when its answer ended (ms). */
	at: number;
	done?: number;
	method: string;
	/** Path without the query, e.g. /v1/reports/audit-log */
	path: string;
	query: URLSearchParams;
	/** Whose API key it carried. */
	account: 'main' | 'marker' | 'other';
	/** The sending process and its group, from /proc (undefined: not found). */
	pid?: number;
	pgid?: number;
}

interface RecordingProxy {
	baseUrl: string;
	requests: ServiceRequest[];
	close(): Promise<void>;
}

async function startRecordingProxy(
	sandbox: Sandbox,
	accounts: { main: string; marker: string },
	hints: () => number[],
): Promise<RecordingProxy> {
	const upstream = new URL(sandbox.origin);
	const agent = new http.Agent({ keepAlive: true });
	const requests: ServiceRequest[] = [];
	const owners = new WeakMap<Socket, { pid?: number; pgid?: number }>();
	let serverPort = 0;

	const ownerOf = (socket: Socket) => {
		let owner = owners.get(socket);
		if (!owner) {
			// The connection is open while its request is read: the client's socket is in the tables.
			const inode = socket.remotePort
				? clientSocketInode(socket.remotePort, serverPort)
				: undefined;
			const pid = inode ? socketOwner(inode, hints()) : undefined;
			owner = { pid, pgid: pid === undefined ? undefined : processGroup(pid) };
			owners.set(socket, owner);
		}
		return owner;
	};

	const server = http.createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://proxy');
		const key = /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1];
		const entry: ServiceRequest = {
			at: Date.now(),
			method: req.method ?? 'GET',
			path: url.pathname,
			query: url.searchParams,
			account: key === accounts.main ? 'main' : key === accounts.marker ? 'marker' : 'other',
			...ownerOf(req.socket),
		};
		requests.push(entry);
		const forward = http.request(
			{
				host: upstream.hostname,
				port: upstream.port,
				method: req.method,
				path: req.url,
				headers: { ...req.headers, host: upstream.host },
				agent,
			},
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
				answer.on('end', () => (entry.done = Date.now()));
			},
		);
		forward.on('error', () => res.destroy());
		req.pipe(forward);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	serverPort = (server.address() as AddressInfo).port;
	return {
		baseUrl: `http://127.0.0.1:${serverPort}/v1`,
		requests,
		async close() {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
			agent.destroy();
		},
	};
}

// ---------------------------------------------------------------------------------------------

/** n8n's JSON log lines of a file whose message is `message` and that name workflow `groupId`. */
function cronLines(logFile: string, message: string, groupId: string): string[] {
	return readIfExists(logFile)
		.split('\n')
		.filter((line) => line.includes(message))
		.filter((line) => {
			try {
				const entry = JSON.parse(line) as { metadata?: { groupId?: unknown } };
				return entry.metadata?.groupId === groupId;
			} catch {
				return line.includes(groupId);
			}
		});
}

const minuteOf = (ms: number) => Math.floor(ms / 60_000);

/** When n8n wrote a line of its JSON log file (the logger's `metadata.timestamp`). */
function loggedAt(line: string | undefined): number {
	let at = NaN;
	try {
		const entry = JSON.parse(String(line)) as { metadata?: { timestamp?: unknown } };
		at = Date.parse(String(entry.metadata?.timestamp));
	} catch {
		// not a JSON line: refused below
	}
	if (Number.isNaN(at)) throw new Error(`no time in the n8n log line ${String(line)}`);
	return at;
}

describe('Document Signing Trigger, Polling, in queue mode: main + 2 workers + webhook processor', () => {
	let sandbox: Sandbox;
	let proxy: RecordingProxy;
	let cluster: QueueCluster;
	let apiKey: string;
	let markerApiKey: string;
	let workflowId: string;
	let markerId: string;
	const webhookNodeId = randomUUID();
	/** Audit-log entry ids from before activation (never to run). */
	let before = new Set<string>();
	/** The 30 entries, oldest first. */
	let expected: AuditLogEntry[] = [];
	/** Bounds of the activation (its reads are the starting cursor's, not a poll's). */
	const activation = { from: 0, to: 0 };
	let lastFinished = 0;
	let deactivatedAt = 0;
	let bravoRequest = '';
	/** The 30 executions with their data, by id. */
	let runs: Execution[] = [];
	const suiteStarted = Date.now();

	/** The sandbox's entries of emitted kinds not in `known`, oldest first (the log's order). */
	const newEntries = (known: Set<string>): AuditLogEntry[] =>
		sandbox.store
			.auditLogOf(apiKey)
			.reverse()
			.filter((entry) => DELIVERED.has(entry.event) && !known.has(entry.id));

	/** The cluster's n8n processes by pid. */
	const processNames = (): Map<number, string> => {
		const names = new Map<number, string>();
		if (!cluster) return names;
		if (cluster.main.pid !== undefined) names.set(cluster.main.pid, 'main');
		for (const p of [...cluster.workers, ...cluster.webhookProcessors])
			if (p.pid !== undefined) names.set(p.pid, p.name);
		return names;
	};

	/** The n8n process that sent a request ("main", "worker-0", …; a child by its group). */
	const sender = (request: ServiceRequest): string => {
		const names = processNames();
		if (request.pid === undefined) return 'unknown';
		const own = names.get(request.pid);
		if (own) return own;
		const group = request.pgid === undefined ? undefined : names.get(request.pgid);
		return group ? `${group} (child ${request.pid})` : `pid ${request.pid}`;
	};

	const auditReads = (account: ServiceRequest['account']) =>
		proxy.requests.filter(
			(request) =>
				request.account === account && request.method === 'GET' && request.path === AUDIT_LOG_PATH,
		);

	/**
	 * Executions of a workflow as the database has them, each read by id. n8n's list leaves out an
	 * execution its main process still holds as running, and it holds one for good when Bull's
	 * job.finished() missed its end (POLL_PHASE_MS): the list would show 29 of 30.
	 */
	const executionsOf = async (id: string, includeData: boolean): Promise<Execution[]> => {
		if (!/^[A-Za-z0-9]+$/.test(id)) throw new Error(`unexpected workflow id ${id}`);
		const rows = await cluster.sql(
			`SELECT id FROM execution_entity WHERE "workflowId" = '${id}' ORDER BY id`,
		);
		const ids = rows.split('\n').filter((row) => /^\d+$/.test(row.trim()));
		return await Promise.all(
			ids.map(
				async (executionId) =>
					await cluster.main.api<Execution>(
						'GET',
						`/executions/${executionId.trim()}?includeData=${String(includeData)}`,
					),
			),
		);
	};

	/** Oldest first, by id (n8n numbers executions as it creates them). */
	const byId = (list: Execution[]) => [...list].sort((a, b) => Number(a.id) - Number(b.id));

	/** The poll's own lines of the main process's log, for failure messages. */
	const pollLog = () =>
		readIfExists(cluster.main.logFile)
			.split('\n')
			.filter((line) => /Document Signing Trigger|poll|cron/i.test(line))
			.slice(-15)
			.join('\n');

	/** Waits (bounded) for an audit-log read of `account` that began after `after` and was answered. */
	async function waitForRead(account: ServiceRequest['account'], after: number, what: string) {
		return await waitForState(
			async () => auditReads(account).find((r) => r.at > after && r.done !== undefined),
			(read) => read !== undefined,
			{
				timeoutMs: POLL_PHASE_MS,
				intervalMs: 500,
				describe: () =>
					`no audit-log read of the ${account} account after ${new Date(after).toISOString()} (${what}) within ${POLL_PHASE_MS} ms\n--- poll lines of the main log ---\n${pollLog()}`,
			},
		);
	}

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0 });
		// Accounts of their own: only this suite's documents and events in them.
		({ apiKey } = sandbox.createAccount());
		({ apiKey: markerApiKey } = sandbox.createAccount());
		proxy = await startRecordingProxy(sandbox, { main: apiKey, marker: markerApiKey }, () => [
			...processNames().keys(),
		]);
		cluster = await startQueueCluster({
			workers: 2,
			webhookProcessors: 1,
			sandboxBaseUrl: proxy.baseUrl,
			// "Registered cron" and "Executing cron" are n8n's debug lines.
			logLevel: 'debug',
			beforeStart: async (main) => {
				const [credentialId, markerCredentialId] = await main.importCredentials([
					main.documentSigningCredential({ apiKey, name: 'Sandbox (queue polling)' }),
					main.documentSigningCredential({
						apiKey: markerApiKey,
						name: 'Marker account (queue polling)',
					}),
				]);
				workflowId = await main.importWorkflow(
					pollingWorkflow(
						'queue e2e: poll for document events',
						{ id: credentialId, name: 'Sandbox (queue polling)' },
						webhookNodeId,
					),
				);
				markerId = await main.importWorkflow(
					pollingWorkflow(
						'queue e2e: poll marker',
						{ id: markerCredentialId, name: 'Marker account (queue polling)' },
						randomUUID(),
					),
				);
			},
		});
		process.stdout.write(
			`queue polling: cluster started in ${Math.round((Date.now() - suiteStarted) / 1000)} s\n`,
		);
	});

	afterAll(async () => {
		process.stdout.write(
			`queue polling: suite wall time ${Math.round((Date.now() - suiteStarted) / 1000)} s\n`,
		);
		await cluster?.dispose();
		await proxy?.close();
		await sandbox?.close();
	});

	it('activation (main process) registers nothing at the service or the webhook processor; the cron is on the main process', async () => {
		// Before activation: a sent document (its events must never run).
		await createDocument(sandbox, apiKey, twoSigners('before-activation'));
		before = new Set(sandbox.store.auditLogOf(apiKey).map((entry) => entry.id));
		expect(newEntries(new Set())).toHaveLength(3);

		activation.from = Date.now();
		const status = await cluster.main.activate(workflowId);
		const marker = await cluster.main.activate(markerId);
		activation.to = Date.now();

		expect(status.status).toBe('published');
		expect(status.triggers.map((trigger) => trigger.errorMessage)).toEqual([null]);
		expect(marker.status).toBe('published');
		// Nothing at the service: no webhook, no webhook request, no webhook event in its log.
		expect(sandbox.store.webhooksOf(apiKey)).toEqual([]);
		expect(sandbox.store.webhooksOf(markerApiKey)).toEqual([]);
		expect(proxy.requests.filter((request) => request.path.includes('/webhooks'))).toEqual([]);
		expect(
			Object.keys(sandbox.stats().routes).filter((route) => route.includes('/webhooks')),
		).toEqual([]);
		// Nothing at the webhook processor's production URL of the node.
		const production = await fetch(cluster.productionWebhookUrl(`${webhookNodeId}/webhook`), {
			method: 'POST',
			body: '{}',
			signal: AbortSignal.timeout(15_000),
		});
		expect(production.status).toBe(404);
		// The activation read the audit log (the starting cursor) from the main process.
		const activationReads = auditReads('main').filter((read) => read.at <= activation.to);
		expect(activationReads.length).toBeGreaterThan(0);
		expect(new Set(activationReads.map(sender))).toEqual(new Set(['main']));
		// n8n registered the schedule on the main process, the leader, and on no other.
		await waitForState(
			async () => cronLines(cluster.main.logFile, 'Registered cron', workflowId),
			(lines) => lines.length === 1,
			{
				timeoutMs: 30_000,
				intervalMs: 500,
				describe: (lines) =>
					`"Registered cron" lines for ${workflowId} in the main log: ${JSON.stringify(lines)}`,
			},
		);
		for (const p of [...cluster.workers, ...cluster.webhookProcessors])
			expect({
				process: p.name,
				lines: [
					...cronLines(p.instance.logFile, 'Registered cron', workflowId),
					...cronLines(p.instance.logFile, 'Skipped cron registration', workflowId),
				],
			}).toEqual({ process: p.name, lines: [] });
	});

	it(
		'30 events on 5 documents: exactly one execution each (by event id), none from before activation',
		async () => {
			const made = await thirtyEvents(sandbox, apiKey);
			bravoRequest = made[1].signature_request_id as string;

			// Counted from the service's log (webhook events after activation, oldest first).
			expected = newEntries(before);
			expect(expected).toHaveLength(EVENTS);
			expect(new Set(expected.map((entry) => entry.document_id))).toEqual(
				new Set(made.map((document) => document.id)),
			);

			const finished = await waitForState(
				async () => await executionsOf(workflowId, false),
				(list) => list.length >= EVENTS && list.every(FINISHED),
				{
					timeoutMs: POLL_PHASE_MS,
					intervalMs: 1_000,
					describe: (list) =>
						`${list?.filter(FINISHED).length ?? 0} of ${EVENTS} executions of ${workflowId} finished after ${POLL_PHASE_MS} ms ` +
						`(${list?.length ?? 0} exist)\n--- poll lines of the main log ---\n${pollLog()}`,
				},
			);
			lastFinished = Math.max(...finished.map((run) => Date.parse(String(run.stoppedAt))));
			runs = byId(await executionsOf(workflowId, true));

			// Exactly one per event: nothing twice, nothing missing, nothing from before activation.
			expect(runs).toHaveLength(EVENTS);
			expect(runs.map((run) => ({ status: run.status, mode: run.mode }))).toEqual(
				runs.map(() => ({ status: 'success', mode: 'trigger' })),
			);
			expect(runs.map((run) => executionItems(run, TRIGGER_NAME).length)).toEqual(
				runs.map(() => 1),
			);
			const items = runs.map((run) => executionItems(run, TRIGGER_NAME)[0]);
			const ids = items.map((item) => item.eventId as string);
			expect(new Set(ids).size).toBe(EVENTS);
			expect(ids.filter((id) => before.has(id))).toEqual([]);
			expect(new Set(ids)).toEqual(new Set(expected.map((entry) => entry.id)));
			// Each with the event and the document as the service has it (whatever the order).
			const byEvent = new Map(items.map((item) => [item.eventId as string, item]));
			expect(expected.map((entry) => byEvent.get(entry.id))).toEqual(expected.map(expectedItem));
		},
		POLL_PHASE_MS + 60_000,
	);

	it('each execution was enqueued by the main process and ran on exactly one worker, once', () => {
		expect(runs).toHaveLength(EVENTS);
		const mainLog = readIfExists(cluster.main.logFile);
		expect(runs.filter((run) => !mainLog.includes(`Enqueued execution ${run.id} `))).toEqual([]);
		const byWorker = cluster.executionsByWorker();
		const workersPerRun = runs.map(
			(run) => Object.values(byWorker).filter((started) => started.includes(run.id)).length,
		);
		const startsPerRun = runs.map(
			(run) =>
				Object.values(byWorker)
					.flat()
					.filter((started) => started === run.id).length,
		);
		const perWorker = Object.fromEntries(
			Object.entries(byWorker).map(([worker, started]) => [
				worker,
				runs.filter((run) => started.includes(run.id)).length,
			]),
		);
		process.stdout.write(`queue polling: executions per worker ${JSON.stringify(perWorker)}\n`);
		expect({ workersPerRun, startsPerRun }).toEqual({
			workersPerRun: runs.map(() => 1),
			startsPerRun: runs.map(() => 1),
		});
	});

	// Each emit waits for the execution before it, so PostgreSQL's concurrent inserts and the two
	// workers cannot reorder them (docs/trigger.md, "Polling").
	it('the executions are numbered and run in event order, each with its event’s id and time', () => {
		expect(runs).toHaveLength(EVENTS);
		const items = runs.map((run) => executionItems(run, TRIGGER_NAME)[0]);
		expect(items.map((item) => item.eventId)).toEqual(expected.map((entry) => entry.id));
		expect(items.map((item) => item.timestamp)).toEqual(expected.map((entry) => entry.created_at));
		for (let index = 1; index < runs.length; index++)
			expect(Date.parse(String(runs[index].startedAt))).toBeGreaterThanOrEqual(
				Date.parse(String(runs[index - 1].stoppedAt)),
			);
	});

	it(
		'a later poll (the next minute) emits nothing again',
		async () => {
			const read = await waitForRead('main', lastFinished, 'the poll after the executions');
			// Its answer was read; anything it emitted would be an execution by now. Checked again a
			// poll minute later (deactivation test), when any emit of this poll has long been recorded.
			expect(read?.query.get('from')).toBeTruthy();
			const after = await executionsOf(workflowId, false);
			expect(after.length).toBe(EVENTS);
		},
		POLL_PHASE_MS + 30_000,
	);

	it(
		'deactivation leaves nothing at the service, removes the cron, and no poll runs afterwards',
		async () => {
			const status = await cluster.main.deactivate(workflowId);
			deactivatedAt = Date.now();

			expect(status.status).toBe('not_published');
			expect(sandbox.store.webhooksOf(apiKey)).toEqual([]);
			expect(proxy.requests.filter((request) => request.path.includes('/webhooks'))).toEqual([]);
			// n8n removes the schedule by workflow ("Deregistered all crons") or by node ("Deregistered crons").
			await waitForState(
				async () => cronLines(cluster.main.logFile, 'Deregistered', workflowId),
				(lines) => lines.length === 1,
				{
					timeoutMs: 30_000,
					intervalMs: 500,
					describe: (lines) =>
						`"Deregistered … crons" lines for ${workflowId} in the main log: ${JSON.stringify(lines)}\n--- poll lines of the main log ---\n${pollLog()}`,
				},
			);

			// An event after the deactivation, then a poll minute: the marker's next read shows the
			// minute passed, at which a poll of this workflow would have read the audit log too.
			await remind(sandbox, apiKey, bravoRequest);
			expect(newEntries(before)).toHaveLength(EVENTS + 1);
			await waitForRead('marker', deactivatedAt, 'the marker after the deactivation');

			expect(auditReads('main').filter((read) => read.at > deactivatedAt)).toEqual([]);
			const after = await executionsOf(workflowId, false);
			expect(after).toHaveLength(EVENTS);
			expect(after.every(FINISHED)).toBe(true);
			expect(sandbox.store.webhooksOf(apiKey)).toEqual([]);

			await cluster.main.deactivate(markerId);
		},
		POLL_PHASE_MS + 60_000,
	);

	it('the poll ran in exactly one process: the main one, once a minute', () => {
		// Every request n8n made to the service, by sending process and route.
		const bySender: Record<string, Record<string, number>> = {};
		for (const request of proxy.requests) {
			const route = `${request.method} ${request.path.replace(/\/[a-z]+_[0-9a-f]{20}(?=\/|$)/g, '/:id')}`;
			const counts = (bySender[sender(request)] ??= {});
			counts[route] = (counts[route] ?? 0) + 1;
		}
		// A workflow's reads up to n8n's "Registered cron" for it are its starting cursor's (trigger()
		// registers the schedule after them); every later one is a poll's. (A window around both
		// activations would hide a poll of the first workflow made while the second activates.)
		const registeredAt = (account: ServiceRequest['account']) =>
			loggedAt(
				cronLines(
					cluster.main.logFile,
					'Registered cron',
					account === 'marker' ? markerId : workflowId,
				)[0],
			);
		// One audit-log read per poll minute per workflow, never two (a second poller would read at
		// the same second 0 with the same cursor).
		const ticks = (account: ServiceRequest['account']) => {
			const minutes = new Map<
				number,
				Array<{ sender: string; minute: number; second: number; from: string }>
			>();
			for (const read of auditReads(account)) {
				if (read.at <= registeredAt(account)) continue;
				const list = minutes.get(minuteOf(read.at)) ?? [];
				list.push({
					sender: sender(read),
					minute: minuteOf(read.at),
					second: Math.round((read.at % 60_000) / 100) / 10,
					from: String(read.query.get('from')),
				});
				minutes.set(minuteOf(read.at), list);
			}
			return [...minutes.values()];
		};
		const mainTicks = ticks('main');
		const markerTicks = ticks('marker');
		const executingCron = Object.fromEntries(
			[
				['main', cluster.main.logFile] as const,
				...[...cluster.workers, ...cluster.webhookProcessors].map(
					(p) => [p.name, p.instance.logFile] as const,
				),
			].map(([name, file]) => [name, cronLines(file, 'Executing cron', workflowId).length]),
		);
		const atActivation = (account: ServiceRequest['account']) =>
			auditReads(account)
				.filter((read) => read.at <= registeredAt(account))
				.map(sender);
		process.stdout.write(
			`queue polling: requests to the service by process ${JSON.stringify(bySender)}\n` +
				`queue polling: audit-log reads at activation ${JSON.stringify({ workflow: atActivation('main'), marker: atActivation('marker') })}\n` +
				`queue polling: audit-log reads per poll minute, workflow ${JSON.stringify(mainTicks)}\n` +
				`queue polling: audit-log reads per poll minute, marker ${JSON.stringify(markerTicks)}\n` +
				`queue polling: "Executing cron" lines for the workflow by process ${JSON.stringify(executingCron)}\n` +
				`queue polling: executions whose end n8n never reported (the poll went on without it): ${
					readIfExists(cluster.main.logFile)
						.split('\n')
						.filter((line) => line.includes('has not reported the end of the last execution'))
						.length
				}\n`,
		);

		// Every request to the service came from the main process; no worker or webhook processor
		// sent any (the workers' execute() passes the polled items on).
		expect(Object.keys(bySender)).toEqual(['main']);
		// The workflow polled at least twice (the events, then nothing new), one read each minute.
		expect(mainTicks.length).toBeGreaterThanOrEqual(2);
		expect(mainTicks.map((tick) => tick.length)).toEqual(mainTicks.map(() => 1));
		expect(markerTicks.map((tick) => tick.length)).toEqual(markerTicks.map(() => 1));
		// Each read soon after second 0 of its minute: n8n's cron, not something else.
		expect(mainTicks.flat().filter((read) => read.second > 30)).toEqual([]);
		// The cursor only moves forward.
		const froms = mainTicks.flat().map((read) => Date.parse(read.from));
		expect(froms).toEqual([...froms].sort((a, b) => a - b));
		// n8n ran the schedule on the main process only: every poll minute has its "Executing cron"
		// line there. A tick while the poll still runs (it waits for each execution) reads nothing.
		const cronMinutes = new Set(
			cronLines(cluster.main.logFile, 'Executing cron', workflowId).map((line) =>
				minuteOf(loggedAt(line)),
			),
		);
		const readMinutes = mainTicks.map((tick) => tick[0].minute);
		expect(readMinutes.filter((minute) => !cronMinutes.has(minute))).toEqual([]);
		expect(executingCron.main).toBeGreaterThanOrEqual(mainTicks.length);
		expect(executingCron).toEqual({
			main: executingCron.main,
			...Object.fromEntries(
				[...cluster.workers, ...cluster.webhookProcessors].map((p) => [p.name, 0]),
			),
		});
	});
});
