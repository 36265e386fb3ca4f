/** The results of a run as markdown tables (stdout) and as JSON (bench/results/latest.json). */
import type { BulkResult } from '../scenarios/bulk';
import type { BurstResult, BurstRow } from '../scenarios/burst';
import type { PollResult } from '../scenarios/poll';
import {
	STALL_TARGET_MS,
	type PollCatchUpResult,
	type PollCatchUpRow,
} from '../scenarios/pollCatchUp';
import type { ReturnAllResult } from '../scenarios/returnAll';
import type { SendAndWaitResult } from '../scenarios/sendAndWait';
import { renderSendAndWaitBatch, type SendAndWaitBatchResult } from '../scenarios/sendAndWaitBatch';
import type { TriggerResult } from '../scenarios/trigger';
import type { WebhookCatchUpResult } from '../scenarios/webhookCatchUp';
import type { MachineInfo } from './machine';
import { mib, round, seconds } from './stats';

export interface BenchResults {
	generatedAt: string;
	machine: MachineInfo;
	args: Record<string, unknown>;
	totalMs: number;
	bulk?: BulkResult;
	returnAll?: ReturnAllResult;
	trigger?: TriggerResult;
	/** The same deliveries to n8n's plain Webhook node. */
	triggerBaseline?: TriggerResult;
	/** The same deliveries to n8n's Webhook node at version 1 (it takes the trigger's isolate). */
	triggerBaselineV1?: TriggerResult;
	triggerV1?: TriggerResult;
	/** Both again in an n8n on its legacy expression engine (bench/run.ts, triggerWithLegacyEngine). */
	triggerLegacyEngine?: { trigger: TriggerResult; baseline: TriggerResult };
	burst?: BurstResult;
	sendAndWait?: SendAndWaitResult;
	/** Send and Wait with N items: one execution, N documents, one wait (issue 56). */
	sendAndWaitBatch?: SendAndWaitBatchResult;
	/** The trigger's Polling mode, with the same trigger in Webhook mode for comparison. */
	poll?: PollResult;
	/** Polling catching up an audit-log backlog, in this process (issue 47). */
	pollCatchUp?: PollCatchUpResult;
	/** Webhook mode's catch-up after n8n was down (issue 55). */
	webhookCatchUp?: WebhookCatchUpResult;
}

export interface TargetCheck {
	name: string;
	target: string;
	actual: string;
	met: boolean;
}

export function targets(results: BenchResults): TargetCheck[] {
	const checks: TargetCheck[] = [];
	const a = results.bulk?.rows.find((row) => row.key === 'a');
	if (a) {
		checks.push({
			name: 'bulk (a) time',
			target: '<= 1.15x (c)',
			actual: `${round(a.ratioToFloor)}x`,
			met: a.ratioToFloor <= 1.15,
		});
		// Issue 38's bound: n8n's declarative engine alone measured about 1.27x the floor.
		checks.push({
			name: 'bulk (a) time, within the declarative engine',
			target: '<= 1.30x (c)',
			actual: `${round(a.ratioToFloor)}x`,
			met: a.ratioToFloor <= 1.3,
		});
		const batched = results.bulk?.rows.find((row) => row.key === 'b2');
		if (batched)
			checks.push({
				name: 'bulk (a) time against the hand-batched HTTP Request node (b2)',
				target: '<= 1.0x',
				actual: `${round(a.wallMs / batched.wallMs)}x`,
				met: a.wallMs <= batched.wallMs,
			});
		checks.push({
			name: 'bulk (a) lost / duplicated',
			target: '0 / 0',
			actual: `${a.lost} / ${a.duplicated}`,
			met: a.lost === 0 && a.duplicated === 0,
		});
	}
	const r = results.returnAll;
	if (r) {
		checks.push({
			name: 'return all requests',
			target: `${r.minimumRequests} (minimum)`,
			actual: String(r.node.requests),
			met: r.node.requests === r.minimumRequests,
		});
		checks.push({
			name: 'return all time',
			target: '<= 1.2x raw',
			actual: `${round(r.ratio)}x`,
			met: r.ratio <= 1.2,
		});
		checks.push({
			name: 'return all items',
			target: String(r.documents),
			actual: String(r.node.items),
			met: r.node.items === r.documents,
		});
	}
	const t = results.trigger;
	if (t) {
		checks.push({
			name: 'trigger executed / duplicates',
			target: `${t.options.events} / 0`,
			actual: `${t.executed} / ${t.duplicates}`,
			met: t.executed === t.options.events && t.duplicates === 0,
		});
	}
	// Issue 49's goals: on the default engine against the Webhook node of the same isolate cost
	// (version 1); on the legacy engine, without isolates, against today's Webhook node. On the
	// default engine no node but n8n's own Webhook node avoids the isolate: its row shows the gap.
	const cpuPairs: Array<
		[string, TriggerResult | undefined, TriggerResult | undefined, string, number]
	> = [
		[
			'trigger n8n CPU per event',
			t,
			results.triggerBaselineV1,
			"n8n's Webhook node version 1",
			1.1,
		],
		[
			'trigger n8n CPU per event, legacy expression engine',
			results.triggerLegacyEngine?.trigger,
			results.triggerLegacyEngine?.baseline,
			"n8n's Webhook node",
			1.25,
		],
	];
	for (const [name, trigger, baseline, against, goal] of cpuPairs) {
		if (!trigger || !baseline) continue;
		const ratio = trigger.n8nCpuMsPerEvent / baseline.n8nCpuMsPerEvent;
		checks.push({
			name,
			target: `<= ${goal}x ${against}`,
			actual: `${round(ratio)}x`,
			met: ratio <= goal,
		});
	}
	const b = results.burst;
	if (b) {
		for (const row of b.rows.filter((x) => x.receiver === 'trigger')) {
			checks.push({
				name: `burst ${row.setup}: trigger executed / duplicates`,
				target: `${row.events} / 0`,
				actual: `${row.executed} / ${row.duplicates}`,
				met: row.executed === row.events && row.duplicates === 0,
			});
			checks.push({
				name: `burst ${row.setup}: trigger delivery attempts per event`,
				target: '<= 1.1',
				actual: String(round(row.attemptsPerEvent)),
				met: row.attemptsPerEvent <= 1.1,
			});
		}
		for (const [setup, ratio] of Object.entries(b.triggerToWebhook)) {
			checks.push({
				name: `burst ${setup}: trigger time to last execution`,
				target: "<= 1.25x n8n's Webhook node",
				actual: `${round(ratio)}x`,
				met: ratio <= 1.25,
			});
		}
		if (b.twoWorkersToOne !== undefined) {
			checks.push({
				name: 'burst queue: trigger events/s, 2 workers / 1 worker',
				target: '>= 1.6x',
				actual: `${round(b.twoWorkersToOne)}x`,
				met: b.twoWorkersToOne >= 1.6,
			});
		}
	}
	for (const row of results.sendAndWait?.rows ?? []) {
		checks.push({
			name: `send and wait (${row.setup}): resumed exactly once`,
			target: `${row.waits} / 0 wrong`,
			actual: `${row.resumed} / ${row.wrongResumes}`,
			met: row.resumed === row.waits && row.wrongResumes === 0,
		});
		checks.push({
			name: `send and wait (${row.setup}): last completion -> last resume`,
			target: '<= 60 s',
			actual: `${round(row.lastCompletionToLastResumeMs / 1000)} s`,
			met: !row.timedOut && row.lastCompletionToLastResumeMs <= 60_000,
		});
	}
	const p = results.poll;
	if (p) {
		checks.push({
			name: 'poll: executed / duplicates',
			target: `${p.expected} / 0`,
			actual: `${p.executed} / ${p.duplicates}`,
			met: !p.timedOut && p.executed === p.expected && p.duplicates === 0,
		});
		checks.push({
			name: 'poll: requests per idle poll',
			target: '1',
			actual: String(round(p.idle.requestsPerPoll)),
			met: p.idle.requests.every((count) => count === 1),
		});
		checks.push({
			name: `poll: event -> execution start, max (Poll Every ${p.pollMinutes} min)`,
			target: `<= ${seconds(p.latencyTargetMs, 0)} s`,
			actual: `${seconds(p.latencyMs.max, 1)} s`,
			met: p.latencyMs.max <= p.latencyTargetMs,
		});
	}
	const webhookCatchUp = results.webhookCatchUp;
	if (webhookCatchUp) {
		checks.push({
			name: 'webhook catch-up: requests per idle catch-up',
			target: '<= 1',
			actual: `${round(webhookCatchUp.idle.requestsPerCatchUp)}`,
			met: webhookCatchUp.idle.requestsPerCatchUp <= 1,
		});
		checks.push({
			name: `webhook catch-up: ${webhookCatchUp.missed} events missed while n8n was down, each run once, n8n start -> the last one's execution ended`,
			target: 'each once, within one catch-up (60 s) of n8n ready',
			actual: `${webhookCatchUp.caughtUp} of ${webhookCatchUp.missed} (${webhookCatchUp.executions} executions); ${seconds(webhookCatchUp.startToLastMissedMs)} s (${seconds(webhookCatchUp.readyToLastMissedMs)} s after ready)`,
			met:
				webhookCatchUp.caughtUp === webhookCatchUp.missed &&
				webhookCatchUp.executions === webhookCatchUp.missed &&
				webhookCatchUp.readyToLastMissedMs <= 60_000,
		});
	}
	for (const row of results.pollCatchUp?.rows ?? []) {
		const what = `poll catch-up ${row.entries.toLocaleString('en-US')}${row.oversizedPage ? ' at one instant, one page' : ''}`;
		if (row.kind === 'catch-up') {
			checks.push({
				name: `${what}: polls to emit every entry`,
				target: `<= ${row.pollTarget} (ceil(N / 2000) + 2)`,
				actual: `${row.polls}${row.ended === 'caught up' ? '' : ` (${row.ended}, ${row.emitted} emitted)`}`,
				met: row.withinPollTarget,
			});
			checks.push({
				name: `${what}: duplicates / oldest first`,
				target: '0 / yes',
				actual: `${row.duplicates} / ${row.oldestFirst ? 'yes' : 'no'}`,
				met: row.duplicates === 0 && row.oldestFirst,
			});
		} else if (row.kind === 'crowd') {
			checks.push({
				name: `poll of ${row.entries.toLocaleString('en-US')} entries at one instant (ids of 200 characters): static data written per emit, largest`,
				target: 'constant (not growing with the ids at the instant)',
				actual: `${row.staticDataPerEmitMax.toLocaleString('en-US')} characters (${row.staticDataWritten.toLocaleString('en-US')} over the poll)`,
				met: row.staticDataPerEmitMax < 10_000,
			});
		} else {
			checks.push({
				name: `${what}: longest event-loop stall`,
				target: `<= ${STALL_TARGET_MS} ms`,
				actual: `${round(row.maxStallMs, 0)} ms`,
				met: row.maxStallMs <= STALL_TARGET_MS,
			});
		}
	}
	return checks;
}

const s = (ms: number | null | undefined) =>
	ms === null || ms === undefined || !Number.isFinite(ms) ? '–' : `${seconds(ms)} s`;

export function renderMarkdown(results: BenchResults): string {
	const out: string[] = [];
	const bulk = results.bulk;
	if (bulk) {
		const { options } = bulk;
		out.push(
			`### 1. Bulk send: ${options.items} items -> Document Create, sandbox limit ${options.requestsPerSecond} requests/s (burst ${options.burst}, 429 + Retry-After + X-RateLimit-Reset-After)`,
			'',
			'| contender | wall time | ratio to (c) | created | lost | duplicated | requests | 429s | retries | n8n RSS before -> peak | result |',
			'|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
		);
		for (const row of bulk.rows) {
			const result =
				row.executionStatus === 'success'
					? 'success'
					: `${row.executionStatus}: ${row.error ?? ''}`;
			out.push(
				`| ${row.contender} | ${s(row.wallMs)} | ${round(row.ratioToFloor)}x | ${row.created} | ${row.lost} | ${row.duplicated} | ${row.requests} | ${row.rateLimited} | ${row.retries} | ${row.rssPeakBytes === undefined ? '–' : `${mib(row.rssBeforeBytes!)} -> ${mib(row.rssPeakBytes)} MiB`} | ${result.replace(/\|/g, '/')} |`,
			);
		}
		const a = bulk.rows.find((row) => row.key === 'a');
		out.push(
			'',
			`n8n wall time = the execution's startedAt -> stoppedAt from n8n's executions API (Webhook and Split Out nodes included)${a?.nodeMs ? `; the Document Signing node alone: ${s(a.nodeMs)}` : ''}. (c) is timed in the bench process. No client can beat (items - burst) / rate = ${s(bulk.theoreticalFloorMs)}. Counts come from the sandbox.`,
			'',
		);
	}
	const r = results.returnAll;
	if (r) {
		out.push(
			`### 2. Return All: ${r.documents} documents -> Document Get Many (Return All)`,
			'',
			'| | requests | minimum ceil(N / page) | wall time | ratio to raw | items | n8n RSS before -> peak |',
			'|---|---:|---:|---:|---:|---:|---:|',
			`| Document Signing node | ${r.node.requests} | ${r.minimumRequests} | ${s(r.node.wallMs)} (node ${s(r.node.nodeMs)}) | ${round(r.ratio)}x (node ${round(r.nodeRatio)}x) | ${r.node.items} | ${mib(r.node.rssBeforeBytes)} -> ${mib(r.node.rssPeakBytes)} MiB (+${mib(r.node.rssPeakBytes - r.node.rssBeforeBytes)}) |`,
			`| HTTP Request node + Pagination option (cursor) | ${r.httpRequest.requests} | ${r.minimumRequests} | ${s(r.httpRequest.wallMs)} (node ${s(r.httpRequest.nodeMs)}) | ${round(r.httpRequest.ratio)}x | ${r.httpRequest.records} records in ${r.httpRequest.requests} page items | – |`,
			`| raw paging loop | ${r.raw.requests} | ${r.minimumRequests} | ${s(r.raw.wallMs)} | 1x | ${r.raw.records} | – |`,
			'',
			`Page size ${r.pageSize} (the API's maximum). Raw = the faster of two runs (${r.raw.runsMs.map((ms) => s(ms)).join(', ')}), one before and one after n8n's. RSS of the n8n main process, sampled every 50 ms.`,
			'',
		);
	}
	const t = results.trigger;
	if (t) {
		const row = (label: string, x: TriggerResult) =>
			`| ${label} | ${x.delivered} | ${x.executed} | ${x.duplicates} | ${x.redeliveries} | ${x.failedDeliveries} | ${round(x.latencyMs.median, 0)} ms | ${round(x.latencyMs.p95, 0)} ms | ${round(x.latencyMs.max, 0)} ms | ${round(x.endToEndMs.median, 0)} / ${round(x.endToEndMs.p95, 0)} ms | ${round(x.n8nCpuMsPerEvent, 0)} ms |`;
		out.push(
			`### 3. Trigger: ${t.options.events} events delivered by the sandbox (${t.options.eventsPerSecond} events/s) -> executions`,
			'',
			'| receiver | delivered | executed | duplicates | redeliveries | failed deliveries | latency median | latency p95 | latency max | to execution end median / p95 | n8n CPU per event |',
			'|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
			row('Document Signing Trigger (version 2, the default)', t),
		);
		if (results.triggerV1) out.push(row('Document Signing Trigger, version 1', results.triggerV1));
		if (results.triggerBaseline)
			out.push(row("n8n's Webhook node (no verification, no dedup)", results.triggerBaseline));
		if (results.triggerBaselineV1)
			out.push(row("n8n's Webhook node, version 1", results.triggerBaselineV1));
		const legacy = results.triggerLegacyEngine;
		if (legacy)
			out.push(
				row('Document Signing Trigger, legacy expression engine', legacy.trigger),
				row("n8n's Webhook node, legacy expression engine", legacy.baseline),
			);
		out.push(
			'',
			"Latency = the delivery's first attempt (sandbox) -> the execution's startedAt (n8n), matched by delivery id. Redeliveries: the sandbox retries a delivery not answered 2xx within 10 s (1 s, 2 s, 4 s, … up to 8 attempts).",
			'',
			"On its default expression engine (vm), n8n 2.41 takes an expression isolate for the webhook phase of every request to any node type but its own Webhook node (live-webhooks.js, webhookPhaseNeedsIsolate), and one more for every execution. The legacy-engine rows (a second n8n with N8N_EXPRESSION_ENGINE=legacy) leave isolates out: what remains is the trigger's own cost (verification, the claim at the service).",
			'',
		);
	}
	if (results.burst) out.push(...renderBurst(results.burst));
	if (results.sendAndWait) out.push(...renderSendAndWait(results.sendAndWait));
	if (results.sendAndWaitBatch) out.push(...renderSendAndWaitBatch(results.sendAndWaitBatch));
	if (results.poll) out.push(...renderPoll(results.poll));
	if (results.pollCatchUp) out.push(...renderPollCatchUp(results.pollCatchUp));
	const checks = targets(results);
	if (checks.length) {
		out.push('### Targets', '', '| check | target | actual | met |', '|---|---|---|---|');
		for (const check of checks)
			out.push(
				`| ${check.name} | ${check.target} | ${check.actual} | ${check.met ? 'yes' : '**no**'} |`,
			);
	}
	return out.join('\n');
}

export function renderJson(results: BenchResults): string {
	return `${JSON.stringify({ ...results, targets: targets(results) }, (_key, value) => (typeof value === 'number' && !Number.isInteger(value) ? round(value, 3) : value), 2)}\n`;
}

const RECEIVER_LABEL = {
	trigger: 'Document Signing Trigger',
	webhook: "n8n's Webhook node",
} as const;

function renderBurst(burst: BurstResult): string[] {
	const { options } = burst;
	const out = [
		`### 4. Burst: ${options.events} \`document.signed\` events queued at once, at most ${options.concurrencyPerUrl || 'unbounded'} deliveries in flight per webhook URL`,
		'',
		'| setup | receiver | time to last execution | events/s | attempts per event | redeliveries | failed deliveries | executions | executed | duplicates | n8n CPU per event |',
		'|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
	];
	const cell = (row: BurstRow) =>
		`| ${row.setup} | ${RECEIVER_LABEL[row.receiver]} | ${s(row.timeToLastExecutionMs)}${row.timedOut ? ' (bound reached)' : ''} | ${round(row.eventsPerSecond, 1)} | ${round(row.attemptsPerEvent)} | ${row.redeliveries} | ${row.failedDeliveries} | ${row.executions}${row.failedExecutions ? ` (${row.failedExecutions} failed)` : ''} | ${row.executed} | ${row.duplicates} | ${round(row.n8nCpuMsPerEvent, 0)} ms |`;
	out.push(...burst.rows.map(cell), '');
	const ratios = Object.entries(burst.triggerToWebhook).map(
		([setup, ratio]) => `${setup} ${round(ratio)}x`,
	);
	if (ratios.length)
		out.push(`Trigger / Webhook node, time to last execution: ${ratios.join(', ')}.`);
	if (burst.twoWorkersToOne !== undefined)
		out.push(
			`Queue mode, trigger events/s with 2 workers / 1 worker: ${round(burst.twoWorkersToOne)}x.`,
		);
	out.push(
		'',
		"Where the time goes (medians: first delivery attempt -> execution startedAt; startedAt -> stoppedAt; the receiver's answer per attempt):",
		'',
	);
	for (const row of burst.rows) {
		const { profile } = row;
		out.push(
			`- ${row.setup}, ${RECEIVER_LABEL[row.receiver]}: ${round(profile.firstAttemptToStartMs, 0)} ms to start, ${round(profile.startToStopMs, 0)} ms to run, answer ${round(profile.answerMs, 0)} ms per attempt`,
		);
	}
	const problems = burst.rows.flatMap((row) => [
		...(Object.keys(row.failedAttempts).length
			? [`${row.setup}, ${row.receiver}: failed attempts ${JSON.stringify(row.failedAttempts)}`]
			: []),
		...row.executionErrors.map((error) => `${row.setup}, ${row.receiver}: execution ${error}`),
	]);
	if (problems.length)
		out.push('', ...problems.map((problem) => `- ${problem.replace(/\|/g, '/')}`));
	out.push(
		'',
		"Time to last execution = the burst (all N signed in one loop) -> the latest stoppedAt of the run's executions. Attempts per event = the sandbox's delivery attempts / N (10 s to answer, retries after 1 s, 2 s, 4 s, … up to 8 attempts). Duplicates = passings of an event beyond its first (trigger: its items' deliveryId; Webhook node: body.id). n8n CPU = the n8n processes involved (regular: the one process; queue: main, workers, webhook processor) from the burst until the last execution was seen (n8n polled once a second). A few events before each burst warm n8n up and are not counted.",
		'',
	);
	return out;
}

function renderSendAndWait(result: SendAndWaitResult): string[] {
	const out = [
		`### 5. Send and Wait for Signature: ${result.options.waits} executions waiting at once, then every document completed in one loop`,
		'',
		'| setup | waiting | time to start all | resumed | wrong resumes | failed executions | deliveries per event | failed deliveries | last completion -> last resume | n8n CPU | webhooks left | still waiting, webhook gone |',
		'|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
	];
	for (const row of result.rows) {
		out.push(
			`| ${row.setup} | ${row.waiting} | ${s(row.startMs)} | ${row.resumed} | ${row.wrongResumes} | ${row.failedExecutions} | ${round(row.deliveriesPerEvent, 1)} | ${row.failedDeliveries} | ${s(row.lastCompletionToLastResumeMs)}${row.timedOut ? ' (bound reached)' : ''} | ${s(row.n8nCpuMs)} | ${row.webhooksLeft} | ${row.waitingWithoutWebhook} |`,
		);
	}
	const errors = result.rows.flatMap((row) =>
		row.executionErrors.map((error) => `- ${row.setup}: ${error.replace(/\|/g, '/')}`),
	);
	if (errors.length) out.push('', ...errors);
	out.push(
		'',
		"Document filter: the sandbox delivers a completion only to the webhook registered for that document (`document_id`). No filter: the dialect `ignores-webhook-filters`, so every completion goes to every wait's webhook still registered and each wait checks the document itself. Resumed = executions that finished with success after the completions; wrong = the node after the wait ran more than once or with another document. Deliveries per event = the sandbox's deliveries (each to one webhook) / completions. n8n CPU = the n8n process from the first completion until no execution waited.",
		'',
	);
	return out;
}

function renderPoll(p: PollResult): string[] {
	const w = p.webhook;
	const ms = (value: number) => (Number.isFinite(value) ? `${round(value, 0)} ms` : '–');
	const requests = Object.entries(p.batchRequests)
		.map(([key, count]) => `${count} × \`${key}\``)
		.join(', ');
	return [
		`### 6. Polling: ${p.expected} events (${p.documents} documents × created, requested, sent; Events \`*\`) over ${s(p.eventsSpreadMs)}, Poll Every ${p.pollMinutes} min -> executions`,
		'',
		"| receiver | events | executed | duplicates | latency median | latency p95 | latency max | poll's first read -> last execution end | n8n CPU per event |",
		'|---|---:|---:|---:|---:|---:|---:|---:|---:|',
		`| Document Signing Trigger, Polling | ${p.expected} | ${p.executed} | ${p.duplicates} | ${s(p.latencyMs.median)} | ${s(p.latencyMs.p95)} | ${s(p.latencyMs.max)} | ${s(p.firstReadToLastExecutionMs)}${p.timedOut ? ' (bound reached)' : ''} | ${ms(p.n8nCpuMsPerEvent)} |`,
		`| Document Signing Trigger, Webhook (\`document.created\`, ${w.options.eventsPerSecond} events/s) | ${w.options.events} | ${w.executed} | ${w.duplicates} | ${ms(w.latencyMs.median)} | ${ms(w.latencyMs.p95)} | ${ms(w.latencyMs.max)} | – | ${ms(w.n8nCpuMsPerEvent)} |`,
		'',
		`n8n CPU per event, polled / webhook: **${round(p.cpuRatioToWebhook)}x**. Requests per idle poll: ${round(p.idle.requestsPerPoll)} (${p.idle.requests.join(', ')} in ${p.idle.polls} polls; the sandbox answered ${p.idle.sandboxRequests} in the same window), n8n CPU ${ms(p.idle.cpuMsPerPoll)} per idle poll (${ms(p.idle.windowMs)} from 1 s before the poll minute); in as long a window at a poll minute before the workflow was active ${ms(p.idle.quietMinuteCpuMs)}, mid-minute ${ms(p.idle.backgroundCpuMs)}; ${ms(p.idle.cpuMsPerMinute)} per idle minute, polls included. The poll that passed the batch on: ${requests || 'no requests'}; its first read -> first execution start ${s(p.firstReadToFirstStartMs)}, of which ${p.beforeFirstEmit.requests} reads one after the other until ${s(p.beforeFirstEmit.ms)} (${s(p.beforeFirstEmit.answerMs)} of it waiting for answers). Activation: ${p.activationRequests} requests.`,
		'',
		`Latency = the audit entry's created_at -> its execution's startedAt (the item's eventId), target <= Poll Every + 5 s (${s(p.latencyTargetMs)}); webhook: the delivery's first attempt -> startedAt. The events were created from just after an idle poll until ${s(p.createdBeforePollMs)} before the next poll minute; each emit waits for the execution before it, so a batch passes one at a time. Polled CPU = n8n's main process from 1 s before the poll minute until every execution was seen finished (executions listed once a second), per event executed; idle time between polls is not in it. The polling credential goes through a recording proxy (requests and their times); one warm-up document (3 events) was polled first and is not counted.`,
		'',
	];
}

function renderPollCatchUp(result: PollCatchUpResult): string[] {
	const ms = (value: number) => `${round(value, 0)} ms`;
	const out = [
		`### 7. Polling catch-up: an audit-log backlog read by the trigger's Polling mode, in this process (at most ${result.options.maxPolls} polls a row)`,
		'',
		'| backlog | polls | target polls | met | ended | audit-log requests | document requests | entries served | wall time | longest poll | emitted | duplicates | oldest first | most emitted by one poll | longest event-loop stall (p99) | static data written (largest per emit) | poll after |',
		'|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---|',
	];
	for (const row of result.rows) {
		const backlog = row.oversizedPage
			? `${row.entries.toLocaleString('en-US')} at one instant, one page (\`limit\` ignored)`
			: row.kind === 'crowd'
				? `${row.entries.toLocaleString('en-US')} at one instant, ids of 200 characters`
				: `${row.entries.toLocaleString('en-US')}, 1 ms apart`;
		const met = row.kind === 'catch-up' ? (row.withinPollTarget ? 'yes' : '**no**') : '–';
		const after = row.afterwards
			? `${row.afterwards.requests} requests, ${row.afterwards.emits} emitted`
			: '–';
		out.push(
			`| ${backlog} | ${row.polls} | ${row.pollTarget} | ${met} | ${row.ended} | ${row.auditRequests.toLocaleString('en-US')} | ${row.documentRequests}${row.otherRequests ? ` (+${row.otherRequests} other)` : ''} | ${row.entriesServed.toLocaleString('en-US')} | ${s(row.wallMs)} | ${s(row.longestPollMs)} | ${row.emitted.toLocaleString('en-US')} of ${row.entries.toLocaleString('en-US')} | ${row.duplicates} | ${row.oldestFirst ? 'yes' : '**no**'} | ${row.mostEmittedByOnePoll.toLocaleString('en-US')} | ${ms(row.maxStallMs)} (${ms(row.p99StallMs)}) | ${row.staticDataWritten.toLocaleString('en-US')} (${row.staticDataPerEmitMax.toLocaleString('en-US')}) | ${after} |`,
		);
	}
	const quote = (text: string) => `"${text.replace(/\|/g, '/').replace(/\s+/g, ' ')}"`;
	const outcome = (row: PollCatchUpRow) =>
		[
			row.error ? `the last poll failed: ${quote(row.error)}` : 'no poll failed',
			...row.reported.map((message) => `reported to n8n (emitError): ${quote(message)}`),
		].join('; ');
	for (const row of result.rows.filter((one) => one.kind === 'stall'))
		out.push(
			'',
			`Stall row (${row.entries.toLocaleString('en-US')} entries at one instant in one page): longest event-loop stall **${ms(row.maxStallMs)}** (target <= ${STALL_TARGET_MS} ms: ${row.maxStallMs <= STALL_TARGET_MS ? 'met' : '**not met**'}; the audit-log server's own longest handler ${ms(row.serverMaxHandlerMs)}); ${row.emitted.toLocaleString('en-US')} of ${row.entries.toLocaleString('en-US')} emitted in ${row.polls} polls, ended: ${row.ended}; ${outcome(row)}.`,
		);
	const failures = result.rows.filter(
		(row) => row.kind === 'catch-up' && (row.error || row.reported.length),
	);
	if (failures.length)
		out.push(
			'',
			...failures.map((row) => `- ${row.entries.toLocaleString('en-US')}: ${outcome(row)}`),
		);
	out.push(
		'',
		"Each row: a fresh audit log (bench/lib/auditLogServer.ts: the contract's document events, `document_id` null, newest first, `from`/`to`/`limit` <= 100/cursor honoured, every request counted) and the trigger in n8n-core's TriggerContext over a real Workflow, activated with its cursor 1 ms before the oldest entry, then the poll it registered with n8n's scheduler ticked again and again, each tick awaited, until every entry was emitted (each execution ends on the next turn of the event loop), a poll failed or one passed nothing more on (the one-instant row: the entries past the 2,000 the cursor holds at one instant, named by the documented error). Target polls = ceil(N / 2000) + 2 (issue 47). Entries served = entries in all pages (read again across polls). Stall = the longest gap of a 1 ms interval timer over the polls, beyond its period (or `monitorEventLoopDelay({ resolution: 1 })`'s max if longer; in brackets the histogram's p99). Poll after = one more poll once caught up (expected: 1 request, 0 emitted).",
		'',
	);
	return out;
}
