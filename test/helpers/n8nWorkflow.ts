/**
 * Runs our nodes inside n8n-core's real workflow engine (WorkflowExecute → RoutingNode), so the
 * routing engine, expression resolution, parameter handling, continueOnFail and pairedItem are
 * n8n's own. Only the host around it is small: an in-memory node-type registry, credentials held
 * in plain objects, and a credentials helper that applies the credential's `authenticate` block.
 */
import { randomUUID } from 'crypto';
import { LoadOptionsContext, WorkflowExecute } from 'n8n-core';
import {
	Workflow,
	type IExecuteFunctions,
	type INode,
	type INodeExecutionData,
	type INodeParameters,
	type INodeType,
	type IRun,
	type NodeApiError,
} from 'n8n-workflow';

import { executionAdditionalData, NodeTypes } from './n8nHost';
import { DocumentSigning } from '../../nodes/DocumentSigning/DocumentSigning.node';

export const SOURCE_TYPE = 'test.source';
export const NODE_TYPE = 'n8n-nodes-document-signing.documentSigning';

/** Items handed to the source node of each run, by run id. */
export const sourceItems = new Map<string, INodeExecutionData[]>();

/** The workflow's first node: emits the items a test gives it (with any binary data). */
export class SourceNode implements INodeType {
	description = {
		displayName: 'Source',
		name: SOURCE_TYPE,
		group: ['input'],
		version: 1,
		description: 'Emits test items',
		defaults: { name: 'Source' },
		inputs: [],
		outputs: ['main'],
		properties: [{ displayName: 'Run', name: 'run', type: 'string', default: '' }],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions) {
		const run = this.getNodeParameter('run', 0) as string;
		return [sourceItems.get(run) ?? []];
	}
}

/** The tool variant n8n generates for an AI Agent (same node, type name + `Tool`). */
export const TOOL_NODE_TYPE = `${NODE_TYPE}Tool`;

const nodeTypes = new NodeTypes({
	[SOURCE_TYPE]: new SourceNode(),
	[NODE_TYPE]: new DocumentSigning(),
	[TOOL_NODE_TYPE]: new DocumentSigning(),
});

/** The credential's fields as n8n decrypts them: Base URL, API key, and any others (List Paging, …). */
export type TestCredentials = { baseUrl: string; apiKey: string } & Record<string, string>;

const makeAdditionalData = (credentials: TestCredentials, executionId: string, nodes: INode[]) =>
	executionAdditionalData(() => ({ ...credentials }), executionId, nodes);

export interface RunNodeOptions {
	parameters: INodeParameters;
	items?: INodeExecutionData[];
	credentials: TestCredentials;
	continueOnFail?: boolean;
	/** The node's On Error setting (overrides continueOnFail). */
	onError?: INode['onError'];
	/** Run the node as the AI Agent tool variant (type name + `Tool`). */
	asTool?: boolean;
	/** Workflow settings; default `{}` (Execution Order v0, as n8n reads a workflow without one). */
	settings?: Record<string, unknown>;
	executionId?: string;
	/** The Document Signing node's version; default 1. */
	typeVersion?: number;
}

export interface RunNodeResult {
	/** Output items of the Document Signing node (empty when it failed). */
	items: INodeExecutionData[];
	/** The error that stopped the node, when it stopped. */
	error?: NodeApiError & { httpCode?: string; description?: string; message: string };
	run: IRun;
}

/** Executes Source → Document Signing once, as n8n's manual run would, and returns the node's output. */
export async function runDocumentSigning(options: RunNodeOptions): Promise<RunNodeResult> {
	const runId = randomUUID();
	sourceItems.set(runId, options.items ?? [{ json: {} }]);
	const executionId = options.executionId ?? randomUUID();
	const source: INode = {
		id: 'source',
		name: 'Source',
		type: SOURCE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: { run: runId },
	};
	const node: INode = {
		id: 'signing',
		name: 'Document Signing',
		type: options.asTool ? TOOL_NODE_TYPE : NODE_TYPE,
		typeVersion: options.typeVersion ?? 1,
		position: [200, 0],
		parameters: options.parameters,
		credentials: { documentSigningApi: { id: 'cred-1', name: 'Sandbox' } },
		...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
		...(options.onError ? { onError: options.onError } : {}),
	};
	const workflow = new Workflow({
		id: 'wf-test',
		name: 'test',
		nodes: [source, node],
		connections: { Source: { main: [[{ node: 'Document Signing', type: 'main', index: 0 }]] } },
		active: false,
		nodeTypes,
		staticData: {},
		settings: options.settings ?? {},
	});
	const additionalData = makeAdditionalData(options.credentials, executionId, [source, node]);

	try {
		let run: IRun;
		try {
			run = await new WorkflowExecute(additionalData, 'manual').run({
				workflow,
				startNode: source,
			});
		} catch (error) {
			// n8n refuses to start a workflow whose nodes have parameter issues.
			return {
				items: [],
				error: error as RunNodeResult['error'],
				run: undefined as unknown as IRun,
			};
		}
		const nodeRun = run.data.resultData.runData['Document Signing']?.[0];
		const items = (nodeRun?.data?.main?.[0] ?? []) as INodeExecutionData[];
		const error = (nodeRun?.error ?? run.data.resultData.error) as RunNodeResult['error'];
		return { items, error, run };
	} finally {
		sourceItems.delete(runId);
	}
}

/** n8n-core's real context for a node's list searches ("From list" of resource locators). */
export function loadOptionsContext(
	credentials: TestCredentials,
	parameters: INodeParameters = {},
	typeVersion = 1,
): LoadOptionsContext {
	const node: INode = {
		id: 'signing',
		name: 'Document Signing',
		type: NODE_TYPE,
		typeVersion,
		position: [0, 0],
		parameters,
		credentials: { documentSigningApi: { id: 'cred-1', name: 'Sandbox' } },
	};
	const workflow = new Workflow({
		id: 'wf-test',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes,
		staticData: {},
		settings: {},
	});
	// The editor sends the node's current parameters with every search, as here.
	const additionalData = {
		...makeAdditionalData(credentials, randomUUID(), [node]),
		currentNodeParameters: parameters,
	};
	return new LoadOptionsContext(workflow, node, additionalData, 'parameters.documentId');
}
