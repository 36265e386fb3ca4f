/**
 * What the nodes rely on in n8n-core and n8n-workflow beyond their public node interfaces
 * (docs/node-behaviour.md, "Where the nodes depend on n8n"), checked on the installed code the unit
 * suites run against (node_modules: n8n-core 2.41.1, n8n-workflow 2.41.0, the same as the
 * e2e/n8n-host host). Each test runs n8n's code, not the package's, so it fails when n8n changes.
 */
import { ScheduledTaskManager, TriggerContext } from 'n8n-core';
import { isHitlToolType, SEND_AND_WAIT_OPERATION, sleep, Workflow, type INode } from 'n8n-workflow';

import { DocumentSigningTrigger } from '../../nodes/DocumentSigningTrigger/DocumentSigningTrigger.node';
import { hostAdditionalData, NodeTypes } from '../helpers/n8nHost';
import { SOURCE_TYPE, SourceNode } from '../helpers/n8nWorkflow';

/** n8n-core's own DI container (it ships @n8n/di nested), as its contexts use it. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- resolved at run time, from n8n-core's folder
const { Container } = require(
	require.resolve('@n8n/di', { paths: [require.resolve('n8n-core')] }),
) as { Container: { set<T>(type: unknown, instance: T): void; get<T>(type: unknown): T } };

describe("polling.ts: helpers.registerCron is served by n8n-core's ScheduledTaskManager", () => {
	const NODE_NAME = 'Document Signing Trigger';
	const TRIGGER_TYPE = 'n8n-nodes-document-signing.documentSigningTrigger';
	let manager: ScheduledTaskManager;

	beforeEach(() => {
		const logger = {
			scoped: () => logger,
			debug: () => undefined,
			info: () => undefined,
			warn: () => undefined,
			error: () => undefined,
		};
		// A leader instance, as a single n8n main is; no periodic log.
		manager = new (ScheduledTaskManager as unknown as new (
			...args: unknown[]
		) => ScheduledTaskManager)({ isLeader: true, instanceRole: 'leader' }, logger, {
			activeInterval: 0,
		});
		Container.set(ScheduledTaskManager, manager);
	});
	afterEach(() => {
		manager.deregisterGroup({ type: 'workflow', id: 'wf-cron' });
	});

	function triggerContext() {
		const node: INode = {
			id: 'trigger-node',
			name: NODE_NAME,
			type: TRIGGER_TYPE,
			typeVersion: 2,
			position: [0, 0],
			parameters: { events: ['*'], receiveEventsBy: 'polling', pollMinutes: 5, options: {} },
			credentials: { documentSigningApi: { id: 'cred-1', name: 'Sandbox' } },
		};
		const workflow = new Workflow({
			id: 'wf-cron',
			name: 'cron',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes: new NodeTypes({ [TRIGGER_TYPE]: new DocumentSigningTrigger() }),
			// A cursor already saved, so activation sends no request.
			staticData: {
				[`node:${NODE_NAME}`]: { pollCursor: { time: new Date().toISOString(), ids: [] } },
			},
			settings: {},
		});
		// No scheduling functions given: n8n 2.41.1's cli gives none to any trigger but the Schedule
		// Trigger (schedule-trigger-job-registrar.js, interceptsNode), so TriggerContext's default serves.
		return new TriggerContext(
			workflow,
			workflow.getNode(NODE_NAME)!,
			hostAdditionalData(() => ({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' })),
			'trigger',
			'activate',
			() => undefined,
			() => undefined,
		);
	}

	it("registers the trigger's poll as a cron of its workflow and node", async () => {
		const context = triggerContext();
		const trigger = new DocumentSigningTrigger();
		const response = await trigger.trigger.call(context);
		const group = { type: 'workflow', id: 'wf-cron' } as const;
		expect(manager.getTargetIds(group)).toEqual(['trigger-node']);
		await response.closeFunction?.();
	});

	it('ticks a registered cron on its schedule', async () => {
		const context = triggerContext();
		const ticks: unknown[] = [];
		context.helpers.registerCron({ expression: '* * * * * *' } as never, () => ticks.push(1));
		await new Promise((resolve) => setTimeout(resolve, 2300));
		expect(ticks.length).toBeGreaterThanOrEqual(1);
	});
});

describe('polling.ts: the 4th argument of emit reaches n8n-core', () => {
	it("TriggerContext exposes the host's emit itself, so its length is the host's", () => {
		const node: INode = {
			id: 'n',
			name: 'N',
			type: SOURCE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		};
		const workflow = new Workflow({
			id: 'wf-emit',
			nodes: [node],
			connections: {},
			active: false,
			nodeTypes: new NodeTypes({ [SOURCE_TYPE]: new SourceNode() }),
		});
		// Four parameters, as n8n 2.41.1's cli declares it.
		const emit = (data: unknown, response?: unknown, done?: unknown, key?: string) =>
			void [data, response, done, key];
		const context = new TriggerContext(
			workflow,
			node,
			hostAdditionalData(() => ({})),
			'trigger',
			'activate',
			emit,
		);
		// Not wrapped: `emit.length >= 4` reads the cli's function (test/n8nContract/cli.test.ts).
		expect(context.emit).toBe(emit);
		expect(context.emit.length).toBe(4);
	});
});

describe('Send and Wait: the operation n8n recognises', () => {
	it("SEND_AND_WAIT_OPERATION is 'sendAndWait'", () => {
		// n8n's waiting webhooks and its review-gate generator compare the node's Operation to it.
		expect(SEND_AND_WAIT_OPERATION).toBe('sendAndWait');
	});

	it("isHitlToolType recognises the review gate n8n generates (type + 'HitlTool')", () => {
		expect(isHitlToolType('n8n-nodes-document-signing.documentSigningHitlTool')).toBe(true);
		expect(isHitlToolType('n8n-nodes-document-signing.documentSigningTool')).toBe(false);
		expect(isHitlToolType('n8n-nodes-document-signing.documentSigning')).toBe(false);
	});
});

describe("request.ts and requestGate.ts: n8n-workflow's sleep", () => {
	it('sleep(0) gives the event loop a turn (a timer queued before it runs first)', async () => {
		let timerRan = false;
		setTimeout(() => {
			timerRan = true;
		}, 0);
		await sleep(0);
		expect(timerRan).toBe(true);
	});

	it('sleep(ms) waits about ms', async () => {
		const start = Date.now();
		await sleep(120);
		expect(Date.now() - start).toBeGreaterThanOrEqual(100);
	});
});
