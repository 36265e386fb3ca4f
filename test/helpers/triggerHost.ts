/**
 * A small stand-in for the n8n host around the Document Signing Trigger: the node's
 * webhookMethods and webhook() run inside n8n-core's REAL HookContext and WebhookContext, on a
 * real n8n-workflow Workflow, and make real HTTP requests through n8n-core's request helpers; the
 * executions they start run in n8n-core's REAL WorkflowExecute (which calls the trigger's
 * execute() with the webhook's items, as n8n does on the process that runs executions).
 *
 * What it imitates from n8n 2.41 (packages/cli, read from the installed host):
 * - activation = checkExists, then create if it said false (WebhookService.createWebhookIfNotExists);
 *   deactivation = delete. Static data is saved afterwards only if it changed (`__dataChanged`),
 *   as WorkflowStaticDataService.saveStaticData does.
 * - each incoming request builds a fresh Workflow from the SAVED static data (LiveWebhooks loads
 *   the workflow from the database per request) and saves it again if webhook() changed it, but
 *   only when the request started no execution: when one starts, WorkflowRunner.run builds another
 *   Workflow over the same static-data object (establishContextForPersistence), which clears its
 *   `__dataChanged` mark before LiveWebhooks saves, so n8n 2.41 drops the change (seen in the real
 *   n8n 2.41.1). `savesStaticDataWhenExecutionStarts` imitates an n8n that keeps it.
 * - an execution starts exactly when webhook() returns `workflowData` (executeWebhook), from a
 *   node execution stack holding the trigger and those items, over a Workflow built from the
 *   saved static data (what a queue-mode worker loads); `failStarts` imitates n8n failing to
 *   create it (answered 500, nothing runs).
 * - with responseMode onReceived n8n answers before the execution runs: `receive()` answers at
 *   once and the execution runs on; `idle()` waits for every execution started so far.
 */
import http from 'http';
import type { AddressInfo } from 'net';
import { randomUUID } from 'crypto';
import { HookContext, WebhookContext, WorkflowExecute } from 'n8n-core';
import {
	createRunExecutionData,
	Workflow,
	type ICredentialDataDecryptedObject,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type IWebhookData,
	type IWebhookResponseData,
	type IWorkflowExecuteAdditionalData,
	type NodeApiError,
	type WorkflowActivateMode,
} from 'n8n-workflow';

import * as n8nWorkflow from 'n8n-workflow';

import { DocumentSigningTrigger } from '../../nodes/DocumentSigningTrigger/DocumentSigningTrigger.node';
import {
	executionAdditionalData,
	FakeResponse,
	hostAdditionalData,
	n8nLogger,
	NodeTypes,
} from './n8nHost';

/** The trigger node type as this process loaded it. */
const THIS_PROCESS = new DocumentSigningTrigger();

export const TRIGGER_TYPE = 'n8n-nodes-document-signing.documentSigningTrigger';
export const NODE_NAME = 'Document Signing Trigger';

export interface IncomingDelivery {
	headers: Record<string, string | string[] | undefined>;
	/** Exactly the bytes received. */
	rawBody: Buffer;
}

/** One execution n8n ran for a delivery. */
export interface TriggerExecution {
	id: string;
	/** What webhook() handed to the execution. */
	received: INodeExecutionData[];
	/** The trigger's output in the execution (after execute()): what the workflow's next node gets. */
	items: INodeExecutionData[];
	error?: NodeApiError;
}

export interface DeliveryOutcome {
	/** What n8n would answer the sender. */
	status: number;
	body: unknown;
	/** Whether n8n started an execution. */
	started: boolean;
	/** The execution, running on after the answer (resolved once it finished). */
	execution?: Promise<TriggerExecution>;
	result: IWebhookResponseData;
}

export interface TriggerHostOptions {
	baseUrl: string;
	apiKey: string;
	/** n8n's public webhook base, e.g. http://127.0.0.1:5678/webhook */
	webhookBaseUrl: string;
	events: string[];
	options?: IDataObject;
	/** See the file comment; default false, as n8n 2.41 behaves. */
	savesStaticDataWhenExecutionStarts?: boolean;
	/** The node type as this n8n process loaded it; default: this test's (see inAnotherProcess). */
	trigger?: DocumentSigningTrigger;
	/** The trigger node's Continue On Fail setting. */
	continueOnFail?: boolean;
	/** The same workflow in another n8n process: pass the first host's ids. */
	workflowId?: string;
	nodeWebhookId?: string;
}

/** One workflow holding one Document Signing Trigger, and the bits of n8n that host it. */
export class TriggerHost {
	readonly trigger: DocumentSigningTrigger;
	readonly workflowId: string;
	readonly nodeWebhookId: string;
	/** What n8n has saved in its database for this workflow. */
	savedStaticData: IDataObject = {};
	parameters: IDataObject;
	credentials: ICredentialDataDecryptedObject;
	webhookBaseUrl: string;
	/** Executions that finished, in the order they finished. */
	readonly executions: TriggerExecution[] = [];
	savesStaticDataWhenExecutionStarts: boolean;
	continueOnFail: boolean;
	/** How many of the next execution starts fail (n8n could not create the execution). */
	failStarts = 0;
	/**
	 * Awaited before an execution runs (n8n's queue being slow to it), given the execution's
	 * place among this host's executions (0 for the first started): lets a test order executions.
	 */
	holdExecution: ((index: number) => Promise<void>) | undefined;
	private started = 0;
	private readonly running = new Set<Promise<TriggerExecution>>();

	constructor(options: TriggerHostOptions) {
		this.workflowId = options.workflowId ?? `wf-${randomUUID().slice(0, 8)}`;
		this.nodeWebhookId = options.nodeWebhookId ?? randomUUID();
		this.savesStaticDataWhenExecutionStarts = options.savesStaticDataWhenExecutionStarts ?? false;
		this.continueOnFail = options.continueOnFail ?? false;
		this.parameters = { events: options.events, options: options.options ?? {} };
		this.credentials = { baseUrl: options.baseUrl, apiKey: options.apiKey };
		this.webhookBaseUrl = options.webhookBaseUrl;
		this.trigger = options.trigger ?? THIS_PROCESS;
	}

	get nodeStaticData(): IDataObject {
		return (this.savedStaticData[`node:${NODE_NAME}`] ?? {}) as IDataObject;
	}

	/** The production URL n8n gives this node. */
	get webhookUrl(): string {
		return `${this.webhookBaseUrl}/${this.nodeWebhookId}/webhook`;
	}

	private node(): INode {
		return {
			id: 'trigger-node',
			name: NODE_NAME,
			type: TRIGGER_TYPE,
			typeVersion: 1,
			position: [0, 0],
			webhookId: this.nodeWebhookId,
			parameters: structuredClone(this.parameters) as INode['parameters'],
			credentials: { documentSigningApi: { id: 'cred-1', name: 'Sandbox' } },
			...(this.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
		};
	}

	/** A fresh Workflow over the saved static data, as n8n builds one per activation or request. */
	private workflow(): Workflow {
		return new Workflow({
			id: this.workflowId,
			name: 'Trigger test',
			nodes: [this.node()],
			connections: {},
			active: true,
			nodeTypes: new NodeTypes({ [TRIGGER_TYPE]: this.trigger }),
			staticData: structuredClone(this.savedStaticData),
			settings: {},
		});
	}

	private additionalData(): IWorkflowExecuteAdditionalData {
		return hostAdditionalData(() => this.credentials, {}, this.webhookBaseUrl);
	}

	private webhookData(
		workflow: Workflow,
		additionalData: IWorkflowExecuteAdditionalData,
	): IWebhookData {
		const description = this.trigger.description.webhooks![0];
		return {
			httpMethod: 'POST',
			node: NODE_NAME,
			path: `${this.nodeWebhookId}/webhook`,
			webhookDescription: description,
			workflowId: workflow.id,
			workflowExecuteAdditionalData: additionalData,
			webhookId: this.nodeWebhookId,
		};
	}

	private save(workflow: Workflow): void {
		if ((workflow.staticData as IDataObject & { __dataChanged?: boolean }).__dataChanged === true) {
			this.savedStaticData = JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject;
		}
	}

	/** Runs one lifecycle method in a real HookContext; `save: false` imitates n8n dying before it saved. */
	async runHook(
		method: 'checkExists' | 'create' | 'delete',
		{ activation = 'activate' as WorkflowActivateMode, save = true } = {},
	): Promise<boolean> {
		const workflow = this.workflow();
		const result = await this.hook(workflow, method, activation);
		if (save) this.save(workflow);
		return result;
	}

	private async hook(
		workflow: Workflow,
		method: 'checkExists' | 'create' | 'delete',
		activation: WorkflowActivateMode,
	) {
		const additionalData = this.additionalData();
		const node = workflow.getNode(NODE_NAME)!;
		const context = new HookContext(
			workflow,
			node,
			additionalData,
			'webhook',
			activation,
			this.webhookData(workflow, additionalData),
		);
		return await this.trigger.webhookMethods.default[method].call(context);
	}

	/** Activation as n8n does it: checkExists, create when needed, then save the static data. */
	async activate({
		activation = 'activate' as WorkflowActivateMode,
		save = true,
	} = {}): Promise<void> {
		const workflow = this.workflow();
		try {
			if (!(await this.hook(workflow, 'checkExists', activation)))
				await this.hook(workflow, 'create', activation);
		} finally {
			if (save) this.save(workflow);
		}
	}

	async deactivate(): Promise<void> {
		const workflow = this.workflow();
		try {
			await this.hook(workflow, 'delete', 'activate');
		} finally {
			this.save(workflow);
		}
	}

	/** One incoming request through webhook() in a real WebhookContext. */
	async receive(delivery: IncomingDelivery): Promise<DeliveryOutcome> {
		const workflow = this.workflow();
		const additionalData = this.additionalData();
		const res = new FakeResponse();
		const headers = Object.fromEntries(
			Object.entries(delivery.headers).map(([key, value]) => [key.toLowerCase(), value]),
		);
		let parsed: unknown = {};
		try {
			parsed = JSON.parse(delivery.rawBody.toString('utf8'));
		} catch {
			parsed = {};
		}
		additionalData.httpRequest = {
			method: 'POST',
			headers,
			rawBody: delivery.rawBody,
			body: parsed,
			params: {},
			query: {},
		} as unknown as IWorkflowExecuteAdditionalData['httpRequest'];
		additionalData.httpResponse = res as unknown as IWorkflowExecuteAdditionalData['httpResponse'];
		const node = workflow.getNode(NODE_NAME)!;
		const context = new WebhookContext(
			workflow,
			node,
			additionalData,
			'webhook',
			this.webhookData(workflow, additionalData),
			[],
			null,
		);
		const result = await this.trigger.webhook.call(context);

		// executeWebhook: workflowData starts an execution; otherwise n8n answers and stops.
		if (result.workflowData === undefined || this.savesStaticDataWhenExecutionStarts)
			this.save(workflow);
		if (result.workflowData === undefined) {
			if (result.noWebhookResponse)
				return { status: res.statusCode, body: res.body, started: false, result };
			return { status: 200, body: result.webhookResponse, started: false, result };
		}
		if (this.failStarts > 0) {
			this.failStarts--;
			return {
				status: 500,
				body: { code: 0, message: 'Error in workflow' },
				started: false,
				result,
			};
		}
		const execution = this.execute(result.workflowData);
		this.running.add(execution);
		void execution.finally(() => this.running.delete(execution));
		const body =
			result.webhookResponse !== undefined
				? result.webhookResponse
				: { message: 'Workflow was started' };
		return { status: 200, body, started: true, execution, result };
	}

	/** Runs one execution as n8n does for a webhook: the trigger first, with the webhook's items. */
	private async execute(workflowData: INodeExecutionData[][]): Promise<TriggerExecution> {
		// A fresh Workflow over the saved static data: what the process running the execution loads.
		const index = this.started++;
		await this.holdExecution?.(index);
		const workflow = this.workflow();
		const node = workflow.getNode(NODE_NAME)!;
		const id = randomUUID();
		const additionalData = executionAdditionalData(() => this.credentials, id, [node], {
			mode: 'webhook',
			workflowId: this.workflowId,
			webhookBaseUrl: this.webhookBaseUrl,
		});
		const runExecutionData = createRunExecutionData({
			executionData: { nodeExecutionStack: [{ node, data: { main: workflowData }, source: null }] },
		});
		const run = await new WorkflowExecute(
			additionalData,
			'webhook',
			runExecutionData,
		).processRunExecutionData(workflow);
		const nodeRun = run.data.resultData.runData[NODE_NAME]?.[0];
		const execution: TriggerExecution = {
			id,
			received: workflowData[0] ?? [],
			items: (nodeRun?.data?.main?.[0] ?? []) as INodeExecutionData[],
			error: (nodeRun?.error ?? run.data.resultData.error) as NodeApiError | undefined,
		};
		this.executions.push(execution);
		return execution;
	}

	/** Resolves once every execution started so far has finished. */
	async idle(): Promise<void> {
		while (this.running.size > 0) await Promise.allSettled([...this.running]);
	}

	/** The executions in which the trigger passed an item on (the workflow went on). */
	get processed(): TriggerExecution[] {
		return this.executions.filter((execution) => execution.items.length > 0);
	}
}

export interface Received extends IncomingDelivery {
	outcome: DeliveryOutcome;
	/** The host the request was routed to. */
	host: TriggerHost;
}

/** n8n's stand-in: routes /webhook/<node webhookId>/webhook to the host that owns it. */
export class Receiver {
	private server!: http.Server;
	readonly hosts = new Map<string, TriggerHost>();
	readonly received: Received[] = [];
	/** What reached one host: a late retry of an earlier test's delivery is not this test's. */
	receivedBy(host: TriggerHost): Received[] {
		return this.received.filter((request) => request.host === host);
	}
	/** Answer this status after the node processed the request (imitates a lost answer). */
	answerOverride: ((request: Received) => number | undefined) | undefined;
	/** Awaited before the host sees a request (the request is slow to reach n8n). */
	holdRequest: ((delivery: IncomingDelivery) => Promise<void>) | undefined;
	/** Awaited after the host processed a request, before the answer is sent (n8n is slow to answer). */
	holdAnswer: ((request: Received) => Promise<void>) | undefined;

	async start(): Promise<void> {
		this.server = http.createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				void this.handle(req, Buffer.concat(chunks), res);
			});
		});
		await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
	}

	get webhookBaseUrl(): string {
		return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhook`;
	}

	private async handle(
		req: http.IncomingMessage,
		rawBody: Buffer,
		res: http.ServerResponse,
	): Promise<void> {
		const nodeWebhookId = /^\/webhook\/([^/]+)\/webhook$/.exec(req.url ?? '')?.[1];
		const host = nodeWebhookId ? this.hosts.get(nodeWebhookId) : undefined;
		if (!host) {
			res.writeHead(404).end();
			return;
		}
		try {
			const delivery: IncomingDelivery = { headers: { ...req.headers }, rawBody };
			await this.holdRequest?.(delivery);
			const outcome = await host.receive(delivery);
			const received = { ...delivery, outcome, host };
			this.received.push(received);
			await this.holdAnswer?.(received);
			const status = this.answerOverride?.(received) ?? outcome.status;
			res
				.writeHead(status, { 'Content-Type': 'application/json' })
				.end(JSON.stringify(outcome.body ?? {}));
		} catch (error) {
			res
				.writeHead(500, { 'Content-Type': 'application/json' })
				.end(JSON.stringify({ error: String(error) }));
		}
	}

	async close(): Promise<void> {
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}
}

/** Collects what n8n's logger receives at warning level (the nodes log through n8n-core's Logger). */
export function captureWarnings(): {
	messages: string[];
	metadata: unknown[];
	restore: () => void;
} {
	const logger = n8nLogger();
	const messages: string[] = [];
	const metadata: unknown[] = [];
	const spy = jest.spyOn(logger, 'warn').mockImplementation((message: string, meta?: unknown) => {
		messages.push(message);
		metadata.push(meta);
	});
	return { messages, metadata, restore: () => spy.mockRestore() };
}

/**
 * The trigger as another n8n process loads it: the package's modules afresh (jest's isolated
 * registry; n8n-workflow stays the one n8n has), so nothing this process remembers (nodeMemory.ts)
 * is there.
 */
export function triggerOfAnotherProcess(): DocumentSigningTrigger {
	let fresh: DocumentSigningTrigger | undefined;
	jest.isolateModules(() => {
		jest.doMock('n8n-workflow', () => n8nWorkflow);
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- a second copy of the package
		const loaded = require('../../nodes/DocumentSigningTrigger/DocumentSigningTrigger.node') as {
			DocumentSigningTrigger: typeof DocumentSigningTrigger;
		};
		fresh = new loaded.DocumentSigningTrigger();
	});
	return fresh as DocumentSigningTrigger;
}

/** The same trigger in another n8n process: its own memory; n8n's database (static data) as it is now. */
export function sameTriggerElsewhere(host: TriggerHost): TriggerHost {
	const other = new TriggerHost({
		baseUrl: String(host.credentials.baseUrl),
		apiKey: String(host.credentials.apiKey),
		webhookBaseUrl: host.webhookBaseUrl,
		events: [],
		workflowId: host.workflowId,
		nodeWebhookId: host.nodeWebhookId,
		continueOnFail: host.continueOnFail,
		trigger: triggerOfAnotherProcess(),
	});
	other.parameters = structuredClone(host.parameters);
	other.savedStaticData = structuredClone(host.savedStaticData);
	return other;
}
