/**
 * One activation of the Document Signing Trigger in Polling mode, as n8n runs it: n8n-core's REAL
 * TriggerContext over a real Workflow (its static data observed as n8n observes it); n8n's
 * scheduler and emit are recorded, so a test runs a poll when it wants one: it ticks the callback
 * the trigger registered with n8n's scheduler, the only way n8n runs a poll.
 */
import { TriggerContext } from 'n8n-core';
import {
	Workflow,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type ITriggerFunctions,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { DocumentSigningTrigger } from '../../nodes/DocumentSigningTrigger/DocumentSigningTrigger.node';
import { hostAdditionalData, NodeTypes, tickCollectingPollFailures } from './n8nHost';
import type { Sandbox } from '../../sandbox';
import { waitFor } from './sandbox';
import { NODE_NAME, TRIGGER_TYPE } from './triggerHost';

const trigger = new DocumentSigningTrigger();

export interface Emitted {
	item: INodeExecutionData;
	deduplicationKey?: string;
}

/** One activation of a polling trigger, as n8n runs it: static data carried over from `saved`. */
export class PollingHost {
	readonly emitted: Emitted[] = [];
	/** The static data as n8n serialises it with each emit (it saves static data on every emit). */
	readonly savedAtEmits: string[] = [];
	readonly errors: Error[] = [];
	/** What the trigger registered with n8n's scheduler; n8n ignores what `onTick` returns. */
	readonly crons: Array<{ expression: string; onTick: () => unknown }> = [];
	/** Calls of emit, each one event (an emit n8n deduplicates or never starts included). */
	private emits = 0;
	holdExecutions = false;
	readonly heldExecutions: Array<() => void> = [];
	/**
	 * The first emit of each event gets an execution whose end n8n never reports: one that `ran`
	 * (queue mode's missed job.finished()), or one n8n `never started`.
	 */
	unreported?: 'ran' | 'never started';
	private readonly stalled = new Set<string>();
	/** Deduplication keys of the executions n8n has (2.x starts no second one with a key). */
	private readonly executions = new Set<string>();
	readonly workflow: Workflow;
	readonly context: ITriggerFunctions;

	constructor(
		service: Pick<Sandbox, 'baseUrl'>,
		private readonly apiKey: string,
		parameters: IDataObject = {},
		saved: IDataObject = {},
		mode: WorkflowExecuteMode = 'trigger',
		/** 2: n8n 2.x's emit, which takes a deduplication key; 1: 1.x's, which takes three parameters. */
		generation: 1 | 2 = 2,
	) {
		const node: INode = {
			id: 'trigger-node',
			name: NODE_NAME,
			type: TRIGGER_TYPE,
			typeVersion: 2,
			position: [0, 0],
			parameters: { events: ['*'], receiveEventsBy: 'polling', options: {}, ...parameters },
			credentials: { documentSigningApi: { id: 'cred-1', name: 'Sandbox' } },
		};
		this.workflow = new Workflow({
			id: 'wf-polling',
			name: 'Polling test',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes: new NodeTypes({ [TRIGGER_TYPE]: trigger }),
			staticData: structuredClone(saved),
			settings: {},
		});
		this.context = new TriggerContext(
			this.workflow,
			this.workflow.getNode(NODE_NAME)!,
			hostAdditionalData(() => ({ baseUrl: service.baseUrl, apiKey: this.apiKey })),
			mode,
			'activate',
			generation === 2
				? (data, response, done, deduplicationKey) => this.emit(data, done, deduplicationKey, true)
				: (data, response, done, ...rest: unknown[]) =>
						this.emit(data, done, rest[0] as string | undefined, false),
			(error) => this.errors.push(error),
			undefined,
			{
				registerCron: (cron: { expression: string }, onTick: () => void) =>
					this.crons.push({ expression: cron.expression, onTick }),
			} as never,
		);
	}

	private emit(
		data: INodeExecutionData[][],
		done: Parameters<ITriggerFunctions['emit']>[2],
		deduplicationKey: string | undefined,
		deduplicates: boolean,
	) {
		this.emits++;
		this.savedAtEmits.push(JSON.stringify(this.workflow.staticData));
		const key = String(deduplicationKey);
		// n8n 2.x: an execution with this key exists, so the emit starts nothing and is done.
		if (deduplicates && this.executions.has(key)) return done?.resolve(undefined as never);
		if (this.unreported && !this.stalled.has(key)) {
			this.stalled.add(key);
			if (this.unreported === 'never started') return;
			this.executions.add(key);
			for (const item of data[0]) this.emitted.push({ item, deduplicationKey });
			return;
		}
		this.executions.add(key);
		for (const item of data[0]) this.emitted.push({ item, deduplicationKey });
		// n8n settles `done` when the execution has ended; `holdExecutions` lets a test hold it.
		const finish = () => done?.resolve(undefined as never);
		if (this.holdExecutions) this.heldExecutions.push(finish);
		else finish();
	}

	async activate() {
		return await trigger.trigger.call(this.context);
	}

	/**
	 * One tick of n8n's scheduler, after activate(), awaited: the promise the trigger's callback
	 * returns (n8n ignores it). The emits made while it ran, one per event passed on (also one n8n
	 * deduplicates or never starts). A tick that finds a poll running or the workflow unpublished
	 * returns at once. The trigger catches a failed poll and logs it (n8n's scheduler hears of no
	 * error): here the tick then rejects with that warning, so that no test reads a failed poll as
	 * one that found nothing.
	 */
	async poll(): Promise<number> {
		if (this.crons.length !== 1)
			throw new Error(`${this.crons.length} polls scheduled: activate() in Polling mode first`);
		const before = this.emits;
		const failures = await tickCollectingPollFailures(() => this.crons[0].onTick());
		if (failures.length > 0) throw new Error(failures.join('\n'));
		return this.emits - before;
	}

	/** n8n's scheduler ticking (as minutes passing would) until `reached`, bounded. */
	async tickUntil(reached: () => boolean, what: string) {
		await waitFor(() => {
			if (reached()) return true;
			this.crons[0].onTick();
			return false;
		}, what);
	}

	/** What n8n would have saved (it saves static data with every emit and after activation). */
	saved(): IDataObject {
		return JSON.parse(JSON.stringify(this.workflow.staticData)) as IDataObject;
	}

	get events(): IDataObject[] {
		return this.emitted.map(({ item }) => item.json);
	}
}
