import { createHash } from 'crypto';
import type { IRun, ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ServiceBehaviourError, toNodeError, type ApiContext } from '../shared/transport';
import { EVENT_POLL_BUDGET, selectedEvents } from '../shared/vocabulary';
import type { AuditEvent } from './auditEntries';
import {
	FUTURE_TOLERANCE_MS,
	isChosen,
	planPoll,
	startingEntries,
	type PollPlan,
} from './auditEvents';
import { catchUpOf, type Decision } from './catchUp';
import { eventItemReader, newestEventItems } from './eventItems';
import {
	CursorPosition,
	MAX_AHEAD,
	MAX_IDS_AT_ONE_INSTANT,
	readCursor,
	type PollCursor,
} from './pollCursor';

/** Polling (docs/trigger.md): the service's audit log read as events, one execution per event. */

/** Failed polls in a row after which n8n's error handling is told (emitError), not only the log; a log that cannot be read as events is told at the first. */
const FAILED_POLLS_REPORTED = 3;

/**
 * n8n 2.x's emit takes a deduplication key (a fourth parameter; 1.x's takes three) and starts no
 * second execution with one (2.41.1 `trigger-execution-context.factory.js`, reclaimTombstone).
 */
const emitDeduplicates = (context: ITriggerFunctions) => context.emit.length >= 4;
const rethrow = (error: unknown) => Promise.reject(error as Error);

/** The deduplication key of each event: the workflow, the node, and the entry's id at its time. */
function deduplicationKeys(context: ITriggerFunctions) {
	const scope = [context.getWorkflow().id, context.getNode().id].join('\u0000');
	return (event: AuditEvent) =>
		'document-signing-event:' +
		createHash('sha256').update(`${scope}\u0000${event.key}`).digest('hex');
}

/** The first cursor: now, past the entries of the last few minutes. */
async function startingCursor(context: ApiContext): Promise<PollCursor> {
	const { from, events, presentMs } = await startingEntries(context);
	const position = new CursorPosition({ time: from });
	for (const event of [...events].sort((a, b) => a.ms - b.ms)) position.pass(event, presentMs);
	return position.saved();
}

const crowdedError = (time: string) =>
	new ServiceBehaviourError(
		`More than ${MAX_IDS_AT_ONE_INSTANT.toLocaleString('en-US')} audit-log entries share the time ${time}`,
		'Polling passed on the ones it could read and went on after that instant; the others were not passed on. Use Receive Events By › Webhook with this service.',
	);

/** What a poll read but did not pass on as it came, said once per poll in n8n's log. */
function logSkipped(
	context: ITriggerFunctions,
	plan: PollPlan,
	ahead: AuditEvent[],
	tooFar: number,
) {
	const where = { workflowId: context.getWorkflow().id, node: context.getNode().name };
	const warn = (message: string) =>
		context.logger.warn(`Document Signing Trigger: ${message}`, where);
	if (plan.unreadable.length > 0)
		warn(
			`audit-log entries that cannot be read as events were skipped (an entry lacks ${plan.unreadable[0].lacks.join(', ')}; fields: ${plan.unreadable[0].fields.join(', ').slice(0, 200)})`,
		);
	if (ahead.length > 0)
		warn(
			`${ahead.length} audit-log entries are dated after the service's present (the first: ${ahead[0].id.slice(0, 60)} at ${ahead[0].time}); each is passed on once and the poll goes on from the present`,
		);
	if (tooFar > 0)
		warn(
			`${tooFar} audit-log entries dated after the present wait until the present reaches them: ${MAX_AHEAD} such entries are remembered already`,
		);
}

/** Parts of a backlog one poll reads after the first, while it has passed on fewer than a read holds. */
const MORE_PARTS_PER_POLL = 10;

/**
 * One poll, one emit at a time (docs/trigger.md, "Exactly once, in order"). `awaitExecution` is
 * false when it let go of an execution; `closed` says the workflow was unpublished. `decide` is
 * Webhook mode's catch-up (catchUp.ts): an event it holds stops the walk, the cursor before it.
 */
async function pollOnce(
	context: ITriggerFunctions,
	closed: () => boolean,
	awaitExecution: (done: Promise<unknown>) => Promise<boolean>,
	decide?: (event: AuditEvent, read: AuditEvent[]) => Promise<Decision>,
): Promise<number> {
	const data = context.getWorkflowStaticData('node');
	const position = new CursorPosition(readCursor(data) ?? (await startingCursor(context)));
	const wanted = selectedEvents(context.getNodeParameter('events', []));
	// Each item is made just before its emit: the first execution need not wait for every read.
	const itemOf = eventItemReader(context);
	const deduplicationKey = deduplicationKeys(context);
	const crowded = new Set<string>();
	let emitted = 0;
	let passed = 0;
	for (let part = 0; part <= MORE_PARTS_PER_POLL; part++) {
		const plan = await planPoll(context, position);
		position.bounds = [...plan.bounds];
		position.oldestFirst = plan.oldestFirst;
		position.settle(plan.events);
		const ahead: AuditEvent[] = [];
		let tooFar = 0;
		for (const event of plan.events) {
			if (closed()) return emitted;
			if (position.passed(event)) continue;
			passed++;
			const chosen = isChosen(wanted, event);
			const before = chosen ? position.saved() : undefined;
			const step = position.pass(event, plan.ceilingMs);
			if (step === 'crowded') {
				crowded.add(event.time);
				position.skipInstant();
				continue;
			}
			if (step === 'too far ahead') tooFar++;
			if (!chosen || step === 'too far ahead') continue;
			const verdict = decide ? await decide(event, plan.events) : 'pass';
			if (verdict === 'skip') continue;
			if (verdict === 'hold') return ((data.pollCursor = before), emitted);
			if (step === 'ahead' && event.ms > plan.ceilingMs + FUTURE_TOLERANCE_MS) ahead.push(event);
			const item = await itemOf(event);
			if (decide) item.json.via = 'catchUp';
			if (closed()) return emitted;
			data.pollCursor = position.saved();
			const done = context.helpers.createDeferredPromise<IRun>();
			context.emit([[item]], undefined, done, deduplicationKey(event));
			emitted++;
			// A failed execution is n8n's to report; the event was passed on.
			if (await awaitExecution(done.promise)) continue;
			// n8n never reported this execution's end, and may never have started it: where n8n
			// deduplicates, the next poll emits the event again rather than lose it.
			if (emitDeduplicates(context)) {
				data.pollCursor = before;
				return emitted;
			}
		}
		if (plan.crowdedAt !== undefined) {
			crowded.add(new Date(plan.crowdedAt).toISOString());
			position.reach(plan.crowdedAt + 1, plan.ceilingMs);
		}
		if (plan.partDone) {
			position.bounds.shift();
			position.reach(plan.reach, plan.ceilingMs);
		}
		data.pollCursor = position.saved();
		logSkipped(context, plan, ahead, tooFar);
		const more = plan.partDone && position.bounds.length > 0;
		if (!more || passed >= EVENT_POLL_BUDGET.records) break;
	}
	// Never silent: n8n's error handling hears of a crowded instant at once (not the catch-up's).
	if (!decide)
		for (const time of crowded)
			context.emitError(toNodeError(context.getNode(), crowdedError(time)));
	return emitted;
}

/** The trigger's trigger(): polls (a manual run fetches the newest), or catches up (catchUp.ts). */
export async function startPolling(this: ITriggerFunctions): Promise<ITriggerResponse> {
	const data = this.getWorkflowStaticData('node');
	const polling = this.getNodeParameter('receiveEventsBy', 'webhook') === 'polling';
	const minutes = Number(this.getNodeParameter(polling ? 'pollMinutes' : 'catchUp', 1));
	if (!polling && (minutes === 0 || this.getMode() === 'manual')) {
		// Catch-up off: the next one starts from its activation (a manual run keeps what was read).
		if (this.getMode() !== 'manual') for (const key of ['pollCursor', 'catchUp']) delete data[key];
		return {};
	}
	if (this.getMode() === 'manual') {
		const wanted = () => selectedEvents(this.getNodeParameter('events', []));
		return {
			manualTriggerFunction: async () => this.emit([await newestEventItems(this, wanted())]),
		};
	}
	if (!Number.isInteger(minutes) || minutes < 1 || minutes > 60)
		throw new NodeOperationError(
			this.getNode(),
			'Poll Every (Minutes) must be a whole number from 1 to 60',
			{ description: `It is ${String(minutes).slice(0, 40)}.` },
		);
	const catchUp = polling ? undefined : catchUpOf(this);
	// The catch-up's start is saved with the activation, so a restart reads from it.
	if (!readCursor(data))
		data.pollCursor = await startingCursor(this).catch(catchUp?.failed ?? rethrow);

	let running = false;
	let closed = false;
	let failures = 0;
	// n8n may never report an execution's end (queue mode: Bull's job.finished() can miss a job that
	// ended within milliseconds), so a tick that finds the same wait pending since the last lets go.
	let pending: { release: () => void; seenByTick: boolean } | undefined;
	const awaitExecution = async (done: Promise<unknown>) => {
		const ended = await new Promise<boolean>((resolve) => {
			pending = { release: () => resolve(false), seenByTick: false };
			void done.catch(() => undefined).then(() => resolve(true));
		});
		pending = undefined;
		return ended;
	};
	// Never rejects: a failed poll is caught, logged and counted below.
	const tick = async () => {
		if (closed || catchUp?.isOff()) return;
		if (running) {
			if (pending?.seenByTick) {
				this.logger.warn(
					'Document Signing Trigger: n8n has not reported the end of the last execution for a whole poll interval; the poll goes on without it',
					{ workflowId: this.getWorkflow().id, node: this.getNode().name },
				);
				pending.release();
			} else if (pending) pending.seenByTick = true;
			return;
		}
		running = true;
		try {
			await pollOnce(this, () => closed, awaitExecution, catchUp?.decide);
			failures = 0;
		} catch (error) {
			// The catch-up never fails the workflow: n8n's error workflow would re-register the webhook.
			if (catchUp) return catchUp.failed(error);
			failures++;
			const nodeError = toNodeError(this.getNode(), error);
			this.logger.warn(
				`Document Signing Trigger: the poll failed (${failures} in a row), trying again at the next poll: ${nodeError.message}`,
				{ workflowId: this.getWorkflow().id, node: this.getNode().name },
			);
			// A log that cannot be read as events is no passing failure: n8n hears of it at once.
			const lasting = error instanceof ServiceBehaviourError;
			if (failures === (lasting ? 1 : FAILED_POLLS_REPORTED)) this.emitError(nodeError);
		} finally {
			running = false;
		}
	};
	const expression = minutes === 60 ? '0 0 * * * *' : `0 */${minutes} * * * *`;
	type Cron = Parameters<ITriggerFunctions['helpers']['registerCron']>[0];
	// n8n ignores what the callback returns; the tick's promise lets a host await one poll.
	this.helpers.registerCron({ expression } as Cron, () => tick());
	if (catchUp) void tick(); // Not awaited: the catch-up at activation holds nothing up.
	return {
		closeFunction: async () => {
			closed = true;
			pending?.release();
		},
	};
}
