/**
 * A small stand-in for n8n around executions that wait (Document › Send and Wait for Signature):
 * the node's execute() and webhook() run inside n8n-core's REAL WorkflowExecute and WebhookContext,
 * and a 127.0.0.1 server plays n8n's waiting-webhook endpoint, which the sandbox's deliveries reach.
 *
 * What it imitates from n8n 2.41 (packages/cli WaitingWebhooks and webhook-helpers, read from the
 * installed host):
 * - a waiting execution is stored as data (a JSON copy, as the database keeps it);
 * - `POST /webhook-waiting/<execution>/<node id>?…&signature=…`: unknown execution → 404; one that
 *   is not waiting (cancelled, finished, running) → 409; a send-and-wait node's link is checked
 *   with n8n-core's validateUrlSignature over path and query (401 when it fails); then the node's
 *   webhook() runs with the stored execution data (so customData is readable);
 * - no workflowData: n8n answers (webhookResponse, or what the node wrote) and the execution keeps
 *   waiting; workflowData: the waiting node is disabled, its input replaced by workflowData
 *   (forwardAllOutputs) and the execution runs on;
 * - the time limit: the stored execution runs on with waitTill still set, so n8n-core disables the
 *   node and passes on its stored input (execute() does not run again).
 */
import http from 'http';
import type { AddressInfo } from 'net';
import { randomUUID } from 'crypto';
import {
	validateUrlSignature,
	WAITING_TOKEN_QUERY_PARAM,
	WebhookContext,
	WorkflowExecute,
} from 'n8n-core';
import {
	Workflow,
	type INode,
	type INodeExecutionData,
	type INodeParameters,
	type INodeType,
	type IRunExecutionData,
	type IWebhookData,
	type IExecuteFunctions,
	type IWorkflowExecuteAdditionalData,
	type IWorkflowSettings,
	type NodeApiError,
} from 'n8n-workflow';

import { DocumentSigning } from '../../nodes/DocumentSigning/DocumentSigning.node';
import { executionAdditionalData, FakeResponse, hostAdditionalData, NodeTypes } from './n8nHost';
import { SOURCE_TYPE, SourceNode, sourceItems } from './n8nWorkflow';

const NODE_TYPE = 'n8n-nodes-document-signing.documentSigning';
export const WAIT_NODE_NAME = 'Document Signing';
export const WAIT_NODE_ID = 'wait-node-1';
const AGAIN_NODE_NAME = 'Again';
const AGAIN_TYPE = 'test.again';
const PREFILL_TYPE = 'test.prefillCustomData';

/**
 * A loop's end, as Loop Over Items plays it: output 0 (back to the wait) until the wait has run
 * `times` times, then output 1 (done). `times` comes from the node's parameter.
 */
class AgainNode implements INodeType {
	description = {
		displayName: 'Again',
		name: AGAIN_TYPE,
		group: ['transform'],
		version: 1,
		description: 'Loops back to the wait',
		defaults: { name: AGAIN_NODE_NAME },
		inputs: ['main'],
		outputs: ['main', 'main'],
		properties: [{ displayName: 'Times', name: 'times', type: 'number', default: 1 }],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const times = this.getNodeParameter('times', 0) as number;
		const runIndex = Number(this.getWorkflowDataProxy(0).$runIndex);
		const items = this.getInputData();
		return runIndex + 1 < times ? [items, []] : [[], items];
	}
}

/** Sets `count` custom data keys of the execution before the wait (a workflow's own custom data). */
class PrefillNode implements INodeType {
	description = {
		displayName: 'Prefill',
		name: PREFILL_TYPE,
		group: ['transform'],
		version: 1,
		description: 'Sets custom data',
		defaults: { name: 'Prefill' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [{ displayName: 'Count', name: 'count', type: 'number', default: 0 }],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const count = this.getNodeParameter('count', 0) as number;
		for (let index = 0; index < count; index++) this.customData.set(`own_${index}`, 'x');
		return [this.getInputData()];
	}
}

const documentSigning = new DocumentSigning();
/**
 * The gate as n8n 2.41 makes it (n8n/dist/tool-generation/hitl-tools.js): the node's own code,
 * with n8n's required Message parameter added in front of the node's parameters.
 */
function reviewGate(nodeType: DocumentSigning): INodeType {
	const description = {
		...nodeType.description,
		properties: [
			{ displayName: 'Message', name: 'message', type: 'string' as const, default: '' },
			...nodeType.description.properties,
		],
	};
	return Object.create(nodeType, { description: { value: description } }) as INodeType;
}

/** The type n8n 2.41 gives the human-review gate it generates from the node (docs/ai-agents.md). */
export const REVIEW_GATE_TYPE = `${NODE_TYPE}HitlTool`;
const nodeTypes = new NodeTypes({
	[SOURCE_TYPE]: new SourceNode(),
	[AGAIN_TYPE]: new AgainNode(),
	[PREFILL_TYPE]: new PrefillNode(),
	[NODE_TYPE]: documentSigning,
	[REVIEW_GATE_TYPE]: reviewGate(documentSigning),
});

/** n8n-core's own DI container and InstanceSettings (it ships them nested), as the node sees them. */
function hmacSignatureSecret(): string {
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- resolved at run time, from n8n-core's folder
	const { Container } = require(
		require.resolve('@n8n/di', { paths: [require.resolve('n8n-core')] }),
	) as { Container: { get<T>(type: unknown): T } };
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { InstanceSettings } = require('n8n-core') as { InstanceSettings: unknown };
	return Container.get<{ hmacSignatureSecret: string }>(InstanceSettings).hmacSignatureSecret;
}

export type ExecutionStatus = 'waiting' | 'running' | 'success' | 'error' | 'cancelled';

export interface CallRecord {
	status: number;
	body: unknown;
	resumed: boolean;
}

export class WaitingExecution {
	status: ExecutionStatus = 'running';
	/** The stored execution data (a JSON copy, as in n8n's database). */
	data!: IRunExecutionData;
	/** The Document Signing node's output in the latest run (before the wait, or after it). */
	items: INodeExecutionData[] = [];
	/** Its error output's items (On Error › Continue (using error output)). */
	errorItems: INodeExecutionData[] = [];
	/** How often the node after the wait (the loop's end) ran, and with which items. */
	after: INodeExecutionData[][] = [];
	error?: NodeApiError & { description?: string; httpCode?: string };
	/** How often webhook() returned workflowData. */
	resumes = 0;
	readonly calls: CallRecord[] = [];
	/** When a run that follows a resume or timeout finished. */
	finished?: Promise<void>;

	constructor(
		readonly id: string,
		readonly parameters: INodeParameters,
		readonly shape: WorkflowShape,
	) {}

	get waitTill(): Date | undefined {
		const value = this.data?.waitTill as unknown;
		return value === undefined || value === null ? undefined : new Date(value as string);
	}

	/** customData the node set (execution metadata). */
	get customData(): Record<string, string> {
		return (this.data?.resultData.metadata ?? {}) as Record<string, string>;
	}
}

export interface RunOptions {
	parameters: INodeParameters;
	items?: INodeExecutionData[];
	continueOnFail?: boolean;
	/** The node's On Error setting (overrides continueOnFail). */
	onError?: INode['onError'];
	/** How many times one execution runs the wait (a loop back from the node after it); default 1. */
	loops?: number;
	/** Custom data keys the workflow sets before the wait. */
	customDataKeys?: number;
	/** Workflow settings; default `{}` (Execution Order v0, as n8n reads a workflow without one). */
	settings?: IWorkflowSettings;
	/** The Document Signing node's version; default 1. */
	typeVersion?: number;
}

/** The workflow around the wait: Source → Prefill → Document Signing → Again (↺ Document Signing). */
interface WorkflowShape {
	onError?: INode['onError'];
	loops: number;
	customDataKeys: number;
	settings: IWorkflowSettings;
	typeVersion: number;
}

/** One workflow (Source → Document Signing) on one stand-in n8n instance. */
export class WaitingHost {
	readonly executions = new Map<string, WaitingExecution>();
	private server!: http.Server;
	readonly workflowId: string;

	constructor(
		private readonly credentials: { baseUrl: string; apiKey: string },
		workflowId?: string,
		/** The Document Signing node's type: the node's own, or the review gate's. */
		private readonly nodeType: string = NODE_TYPE,
	) {
		this.workflowId = workflowId ?? `wf-${randomUUID().slice(0, 8)}`;
	}

	async start(): Promise<void> {
		this.server = http.createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				void this.handle(req, Buffer.concat(chunks)).then(
					({ status, body }) =>
						res
							.writeHead(status, { 'Content-Type': 'application/json' })
							.end(JSON.stringify(body ?? {})),
					(error) => res.writeHead(500).end(String(error)),
				);
			});
		});
		await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
	}

	async close(): Promise<void> {
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	get origin(): string {
		return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
	}

	private nodes(parameters: INodeParameters, runId: string, shape: WorkflowShape): INode[] {
		const node = (name: string, type: string, position: number, extra: Partial<INode>): INode => ({
			id: name === WAIT_NODE_NAME ? WAIT_NODE_ID : name.toLowerCase(),
			name,
			type,
			typeVersion: 1,
			position: [position * 200, 0],
			parameters: {},
			...extra,
		});
		return [
			node('Source', SOURCE_TYPE, 0, { parameters: { run: runId } }),
			node('Prefill', PREFILL_TYPE, 1, { parameters: { count: shape.customDataKeys } }),
			node(WAIT_NODE_NAME, this.nodeType, 2, {
				typeVersion: shape.typeVersion,
				parameters: structuredClone(parameters),
				credentials: { documentSigningApi: { id: 'cred-1', name: 'Sandbox' } },
				...(shape.onError ? { onError: shape.onError } : {}),
			}),
			node(AGAIN_NODE_NAME, AGAIN_TYPE, 3, { parameters: { times: shape.loops } }),
		];
	}

	private workflow(nodes: INode[], shape: WorkflowShape): Workflow {
		return new Workflow({
			id: this.workflowId,
			name: 'Send and Wait test',
			nodes,
			connections: {
				Source: { main: [[{ node: 'Prefill', type: 'main', index: 0 }]] },
				Prefill: { main: [[{ node: WAIT_NODE_NAME, type: 'main', index: 0 }]] },
				[WAIT_NODE_NAME]: { main: [[{ node: AGAIN_NODE_NAME, type: 'main', index: 0 }]] },
				[AGAIN_NODE_NAME]: { main: [[{ node: WAIT_NODE_NAME, type: 'main', index: 0 }], []] },
			},
			active: false,
			nodeTypes,
			staticData: {},
			settings: shape.settings,
		});
	}

	private additionalData(executionId: string, nodes: INode[]): IWorkflowExecuteAdditionalData {
		return executionAdditionalData(() => ({ ...this.credentials }), executionId, nodes, {
			mode: 'manual',
			workflowId: this.workflowId,
			webhookBaseUrl: `${this.origin}/webhook`,
		});
	}

	private record(execution: WaitingExecution, data: IRunExecutionData): void {
		execution.data = JSON.parse(JSON.stringify(data)) as IRunExecutionData;
		const nodeRuns = execution.data.resultData.runData[WAIT_NODE_NAME] ?? [];
		const last = nodeRuns[nodeRuns.length - 1];
		execution.items = (last?.data?.main?.[0] ?? []) as INodeExecutionData[];
		execution.errorItems = (last?.data?.main?.[1] ?? []) as INodeExecutionData[];
		execution.after = (execution.data.resultData.runData[AGAIN_NODE_NAME] ?? []).map(
			(run) =>
				[...(run.data?.main?.[0] ?? []), ...(run.data?.main?.[1] ?? [])] as INodeExecutionData[],
		);
		execution.error = (last?.error ?? execution.data.resultData.error) as WaitingExecution['error'];
		execution.status = execution.data.waitTill ? 'waiting' : execution.error ? 'error' : 'success';
	}

	/** Runs the workflow until it ends or waits. */
	async run({
		parameters,
		items = [{ json: {} }],
		continueOnFail = false,
		onError,
		loops = 1,
		customDataKeys = 0,
		settings = {},
		typeVersion = 1,
	}: RunOptions): Promise<WaitingExecution> {
		const id = String(Math.floor(Math.random() * 1e9));
		const runId = randomUUID();
		sourceItems.set(runId, items);
		const shape: WorkflowShape = {
			onError: onError ?? (continueOnFail ? 'continueRegularOutput' : undefined),
			loops,
			customDataKeys,
			settings,
			typeVersion,
		};
		const execution = new WaitingExecution(id, parameters, shape);
		this.executions.set(id, execution);
		const nodes = this.nodes(parameters, runId, shape);
		const workflow = this.workflow(nodes, shape);
		try {
			const run = await new WorkflowExecute(this.additionalData(id, nodes), 'manual').run({
				workflow,
				startNode: workflow.getNode('Source')!,
			});
			this.record(execution, run.data);
		} catch (error) {
			execution.status = 'error';
			execution.error = error as WaitingExecution['error'];
		} finally {
			sourceItems.delete(runId);
		}
		return execution;
	}

	/** The time limit passes: n8n runs the stored execution on with waitTill still set. */
	async timeOut(execution: WaitingExecution): Promise<void> {
		if (execution.status !== 'waiting')
			throw new Error(`execution ${execution.id} is ${execution.status}`);
		await this.continueRun(execution, execution.data);
	}

	/** Cancelled in n8n: no node is told; later calls to its URL are answered 409. */
	cancel(execution: WaitingExecution): void {
		execution.status = 'cancelled';
	}

	/** Still inside execute() in n8n (its webhook registered, not yet saved as waiting): calls are answered 409 "running already". */
	markRunning(execution: WaitingExecution): void {
		execution.status = 'running';
	}

	/** Deleted in n8n: later calls to its URL are answered 404. */
	delete(execution: WaitingExecution): void {
		this.executions.delete(execution.id);
	}

	private async continueRun(execution: WaitingExecution, data: IRunExecutionData): Promise<void> {
		execution.status = 'running';
		const runId = randomUUID();
		const nodes = this.nodes(execution.parameters, runId, execution.shape);
		const run = await new WorkflowExecute(
			this.additionalData(execution.id, nodes),
			'manual',
			data,
		).processRunExecutionData(this.workflow(nodes, execution.shape));
		this.record(execution, run.data);
	}

	/** One call to the waiting-webhook endpoint, as n8n's WaitingWebhooks handles it. */
	/** While true, every call is answered 503 before n8n looks at it (an n8n that is down). */
	unavailable = false;
	/** While set, every call is answered with it before n8n looks at it (a proxy in front of n8n). */
	proxyAnswer: { status: number; body: unknown } | undefined;
	/** Every request this stand-in received, answered or not. */
	requests = 0;

	private async handle(
		req: http.IncomingMessage,
		rawBody: Buffer,
	): Promise<{ status: number; body: unknown }> {
		this.requests++;
		if (this.unavailable) return { status: 503, body: { message: 'unavailable' } };
		if (this.proxyAnswer) return this.proxyAnswer;
		const url = new URL(req.url ?? '/', this.origin);
		const match = /^\/webhook-waiting\/([^/]+)\/([^/]+)$/.exec(url.pathname);
		if (!match || req.method !== 'POST')
			return { status: 404, body: { message: 'not a waiting webhook' } };
		const execution = this.executions.get(match[1]);
		if (!execution)
			return { status: 404, body: { message: `The execution "${match[1]}" does not exist.` } };
		const token = url.searchParams.get(WAITING_TOKEN_QUERY_PARAM);
		const sendAndWait =
			decodeURIComponent(match[2]) === WAIT_NODE_ID &&
			execution.parameters.operation === 'sendAndWait';
		if (!sendAndWait || !token || !validateUrlSignature(token, url, hmacSignatureSecret()))
			return { status: 401, body: { error: 'Invalid token' } };
		// n8n 2.41's answers (WaitingWebhooks), as the service's deliveries meet them (the node reads
		// none): a run still going, one that ended in an error (a cancel records one), one that ended well.
		if (execution.status === 'running')
			return {
				status: 409,
				body: { code: 409, message: `The execution "${execution.id}" is running already.` },
			};
		if (execution.status === 'error' || execution.status === 'cancelled')
			return {
				status: 409,
				body: { code: 409, message: `The execution "${execution.id}" has finished with error.` },
			};
		// n8n renders its send-and-wait-no-action-required template (n8n/templates).
		if (execution.status === 'success')
			return {
				status: 200,
				body: '<!DOCTYPE html><html><head><title>No action required</title></head><body>No action required</body></html>',
			};

		const nodes = this.nodes(execution.parameters, 'webhook', execution.shape);
		const workflow = this.workflow(nodes, execution.shape);
		const node = workflow.getNode(WAIT_NODE_NAME)!;
		const additionalData = hostAdditionalData(
			() => ({ ...this.credentials }),
			{},
			`${this.origin}/webhook`,
		);
		let parsed: unknown = {};
		try {
			parsed = JSON.parse(rawBody.toString('utf8'));
		} catch {
			parsed = {};
		}
		const headers = Object.fromEntries(
			Object.entries(req.headers).map(([key, value]) => [key.toLowerCase(), value]),
		);
		additionalData.httpRequest = {
			method: 'POST',
			headers,
			rawBody,
			body: parsed,
			params: {},
			query: Object.fromEntries(url.searchParams),
		} as unknown as IWorkflowExecuteAdditionalData['httpRequest'];
		const res = new FakeResponse();
		additionalData.httpResponse = res as unknown as IWorkflowExecuteAdditionalData['httpResponse'];
		const webhookData: IWebhookData = {
			httpMethod: 'POST',
			node: WAIT_NODE_NAME,
			path: WAIT_NODE_ID,
			webhookDescription: documentSigning.description.webhooks![0],
			workflowId: this.workflowId,
			workflowExecuteAdditionalData: additionalData,
		};
		// The stored data, as n8n loads it per call: what one call changes does not reach the next.
		const data = JSON.parse(JSON.stringify(execution.data)) as IRunExecutionData;
		const context = new WebhookContext(
			workflow,
			node,
			additionalData,
			'webhook',
			webhookData,
			[],
			data,
		);
		let outcome: CallRecord;
		let result;
		try {
			result = await documentSigning.webhook.call(context);
		} catch (error) {
			// n8n resumes the execution with the error recorded.
			execution.status = 'error';
			execution.error = error as WaitingExecution['error'];
			outcome = { status: 500, body: { message: String(error) }, resumed: false };
			execution.calls.push(outcome);
			return outcome;
		}
		if (result.workflowData === undefined) {
			outcome = result.noWebhookResponse
				? { status: res.statusCode, body: res.body, resumed: false }
				: {
						status: 200,
						body: result.webhookResponse ?? { message: 'Webhook call received' },
						resumed: false,
					};
			execution.calls.push(outcome);
			return outcome;
		}
		execution.resumes++;
		data.waitTill = undefined;
		const entry = data.executionData!.nodeExecutionStack[0];
		entry.node.disabled = true;
		entry.data.main = result.workflowData;
		entry.metadata = { ...entry.metadata, forwardAllOutputs: true };
		execution.status = 'running';
		execution.finished = this.continueRun(execution, data);
		outcome = {
			status: 200,
			body: result.webhookResponse ?? { message: 'Workflow was started' },
			resumed: true,
		};
		execution.calls.push(outcome);
		return outcome;
	}
}
