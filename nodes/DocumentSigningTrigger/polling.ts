import { createHash } from 'crypto';
import type { INodeExecutionData, IRun, ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { toNodeError, type ApiContext } from '../shared/transport';
import { ANY_EVENT } from '../shared/vocabulary';
import {
	advance,
	chosenEvents,
	eventItemReader,
	newEvents,
	oldestFirst,
	readCursor,
	readLog,
	startingCursor,
	type PollCursor,
} from './auditEvents';
import { selectedEvents } from './registration';

/** Polling (docs/trigger.md): the service's audit log read as events, one execution per event. */

/** Failed polls in a row after which n8n's error handling is told (emitError), not only the log. */
export const FAILED_POLLS_REPORTED = 3;

/**
 * n8n 2.x's emit takes a deduplication key (a fourth parameter; 1.x's takes three) and starts no
 * second execution with one (2.41.1 `trigger-execution-context.factory.js`, reclaimTombstone).
 */
const emitDeduplicates = (context: ITriggerFunctions) => context.emit.length >= 4;

const deduplicationKey = (context: ITriggerFunctions, eventId: string) =>
	'document-signing-event:' +
	createHash('sha256')
		.update([context.getWorkflow().id, context.getNode().id, eventId].join('\u0000'))
		.digest('hex');

/**
 * One poll, one emit at a time (docs/trigger.md, "Exactly once, in order"). `awaitExecution` is
 * false when it let go of an execution; `closed` says the workflow was unpublished.
 */
export async function pollOnce(
	context: ITriggerFunctions,
	closed: () => boolean = () => false,
	awaitExecution: (done: Promise<unknown>) => Promise<boolean> = async (done) => {
		await done.catch(() => undefined);
		return true;
	},
): Promise<number> {
	const data = context.getWorkflowStaticData('node');
	const cursor = readCursor(data) ?? (await startingCursor(context));
	const { events, cursor: next } = await newEvents(context, cursor);
	const chosen = new Set(
		chosenEvents(selectedEvents(context.getNodeParameter('events', [])), events),
	);
	// Each item is made just before its emit: the first execution need not wait for every read.
	const itemOf = eventItemReader(context);
	let position: PollCursor = cursor;
	let emitted = 0;
	for (const event of events) {
		if (closed()) return emitted;
		const before = position;
		position = { ...advance(position, event), oldestFirst: next.oldestFirst };
		if (!chosen.has(event)) continue;
		const item = await itemOf(event);
		if (closed()) return emitted;
		data.pollCursor = position;
		const done = context.helpers.createDeferredPromise<IRun>();
		context.emit([[item]], undefined, done, deduplicationKey(context, event.id));
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
	data.pollCursor = next;
	return emitted;
}

/** The trigger's trigger(): in Polling mode, polls on n8n's schedule (a manual run fetches the newest). */
export async function startPolling(this: ITriggerFunctions): Promise<ITriggerResponse> {
	const data = this.getWorkflowStaticData('node');
	if (this.getNodeParameter('receiveEventsBy', 'webhook') !== 'polling') {
		delete data.pollCursor;
		return {};
	}
	if (this.getMode() === 'manual') {
		const wanted = () => selectedEvents(this.getNodeParameter('events', []));
		return {
			manualTriggerFunction: async () => this.emit([await newestEventItems(this, wanted())]),
		};
	}
	const minutes = Number(this.getNodeParameter('pollMinutes', 1));
	if (!Number.isInteger(minutes) || minutes < 1 || minutes > 60)
		throw new NodeOperationError(
			this.getNode(),
			'Poll Every (Minutes) must be a whole number from 1 to 60',
			{ description: `It is ${String(minutes).slice(0, 40)}.` },
		);
	if (!readCursor(data)) data.pollCursor = await startingCursor(this);

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
	const tick = async () => {
		if (closed) return;
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
			await pollOnce(this, () => closed, awaitExecution);
			failures = 0;
		} catch (error) {
			failures++;
			const nodeError = toNodeError(this.getNode(), error);
			this.logger.warn(
				`Document Signing Trigger: the poll failed (${failures} in a row), trying again at the next poll: ${nodeError.message}`,
				{ workflowId: this.getWorkflow().id, node: this.getNode().name },
			);
			if (failures === FAILED_POLLS_REPORTED) this.emitError(nodeError);
		} finally {
			running = false;
		}
	};
	const expression = minutes === 60 ? '0 0 * * * *' : `0 */${minutes} * * * *`;
	type Cron = Parameters<ITriggerFunctions['helpers']['registerCron']>[0];
	this.helpers.registerCron({ expression } as Cron, () => void tick());
	return {
		closeFunction: async () => {
			closed = true;
			pending?.release();
		},
	};
}

/** Polling's manual run: the newest chosen event among the latest entries, as the item a poll gives. */
export async function newestEventItems(
	context: ApiContext,
	wanted: string[],
): Promise<INodeExecutionData[]> {
	const qs = wanted.length === 1 && wanted[0] !== ANY_EVENT ? { event: wanted[0] } : {};
	const { events: latest } = await readLog(context, -Infinity, qs, 1);
	const newest = chosenEvents(wanted, oldestFirst(latest)).at(-1);
	if (!newest)
		throw new NodeOperationError(context.getNode(), 'No matching event in the audit log yet', {
			description: `None of the latest ${latest.length} audit-log entries is one of the chosen events. Make one happen (for example, create a document), then fetch again.`,
		});
	return [await eventItemReader(context)(newest)];
}
