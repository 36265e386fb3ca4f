/**
 * Small builders of n8n workflow JSON for the end-to-end tests: a Manual Trigger, Code, Set and
 * file nodes, the Document Signing node with a credential reference, and linear chains of them.
 * Plus readers of run data that keep the binary part of items (nodeOutput in ./n8n keeps json
 * only) and of the shipped examples/.
 *
 * Nothing here depends on jest or on a running n8n.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { Sandbox } from '../../sandbox';
import {
	CREDENTIAL_TYPE,
	NODE_TYPE,
	TRIGGER_NODE_TYPE,
	newId,
	type Execution,
	type N8nInstance,
	type NodeRun,
	type RunData,
} from './n8n';

export const EXAMPLES_DIR = path.resolve(__dirname, '..', '..', 'examples');

/** The credential every shipped example refers to (one import with this id makes them all work). */
export const SANDBOX_CREDENTIAL = {
	id: 'documentSigningSandbox',
	name: 'Document Signing (sandbox)',
} as const;

export interface CredentialRef {
	id: string;
	name: string;
}

export interface WorkflowNode {
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, CredentialRef>;
	webhookId?: string;
	continueOnFail?: boolean;
	onError?: 'continueRegularOutput' | 'continueErrorOutput' | 'stopWorkflow';
	executeOnce?: boolean;
	alwaysOutputData?: boolean;
	[key: string]: unknown;
}

export interface WorkflowJson {
	id?: string;
	name: string;
	nodes: WorkflowNode[];
	connections: Record<
		string,
		{ main: Array<Array<{ node: string; type: 'main'; index: number }>> }
	>;
	settings?: Record<string, unknown>;
	[key: string]: unknown;
}

/** `{ documentSigningApi: { id, name } }`, as a node's `credentials`. */
export function credentialsRef(credential: CredentialRef): Record<string, CredentialRef> {
	return { [CREDENTIAL_TYPE]: { id: credential.id, name: credential.name } };
}

/** A resource-locator value in "By ID" mode; `value` may be an expression (`={{ $json.id }}`). */
export function byId(value: string): { __rl: true; mode: 'id'; value: string } {
	return { __rl: true, mode: 'id', value };
}

/** Any node, at [0, 0] (`chain` lays nodes out); the other builders are made of this one. */
export function node(
	name: string,
	type: string,
	typeVersion: number,
	parameters: Record<string, unknown>,
	extra: Partial<WorkflowNode> = {},
): WorkflowNode {
	return { id: randomUUID(), name, type, typeVersion, position: [0, 0], parameters, ...extra };
}

export function manualTrigger(name = 'Start'): WorkflowNode {
	return node(name, 'n8n-nodes-base.manualTrigger', 1, {});
}

/** A Code node (JavaScript, run once for all items unless `eachItem`). */
export function codeNode(
	name: string,
	jsCode: string,
	options: { eachItem?: boolean } = {},
): WorkflowNode {
	return node(name, 'n8n-nodes-base.code', 2, {
		mode: options.eachItem ? 'runOnceForEachItem' : 'runOnceForAllItems',
		language: 'javaScript',
		jsCode,
	});
}

/** A Set ("Edit Fields") node; values starting with `=` are expressions. */
export function setNode(
	name: string,
	fields: Record<string, string | number | boolean>,
	options: { includeOtherFields?: boolean } = {},
): WorkflowNode {
	return node(name, 'n8n-nodes-base.set', 3.4, {
		mode: 'manual',
		includeOtherFields: options.includeOtherFields ?? false,
		assignments: {
			assignments: Object.entries(fields).map(([fieldName, value]) => ({
				id: randomUUID(),
				name: fieldName,
				value,
				type:
					typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'boolean' : 'string',
			})),
		},
		options: {},
	});
}

/** "Read/Write Files from Disk" reading files matching `fileSelector` into binary field `data`. */
export function readFilesNode(name: string, fileSelector: string): WorkflowNode {
	return node(name, 'n8n-nodes-base.readWriteFile', 1, {
		operation: 'read',
		fileSelector,
		options: {},
	});
}

/** "Read/Write Files from Disk" writing binary field `dataPropertyName` to `fileName` (may be an expression). */
export function writeFileNode(
	name: string,
	fileName: string,
	dataPropertyName = 'data',
): WorkflowNode {
	return node(name, 'n8n-nodes-base.readWriteFile', 1, {
		operation: 'write',
		fileName,
		dataPropertyName,
		options: {},
	});
}

/** "Extract from File" parsing the CSV in binary field `binaryPropertyName` into one item per row. */
export function extractCsvNode(name: string, binaryPropertyName = 'data'): WorkflowNode {
	return node(name, 'n8n-nodes-base.extractFromFile', 1, {
		operation: 'csv',
		binaryPropertyName,
		options: {},
	});
}

/** The Document Signing node with the given parameters (resource, operation, ...). */
export function signingNode(
	name: string,
	parameters: Record<string, unknown>,
	options: {
		credential: CredentialRef;
		continueOnFail?: boolean;
		executeOnce?: boolean;
		/** The node's version (default 1, what saved workflows have). */
		typeVersion?: number;
	},
): WorkflowNode {
	return node(name, NODE_TYPE, options.typeVersion ?? 1, parameters, {
		credentials: credentialsRef(options.credential),
		...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
		...(options.executeOnce ? { executeOnce: true } : {}),
	});
}

/** The Document Signing Trigger for `events`; its production webhook path is `<webhookId>/webhook`. */
export function triggerNode(
	name: string,
	options: {
		events: string[];
		credential: CredentialRef;
		webhookId?: string;
		options?: Record<string, unknown>;
		/** Further top-level parameters, e.g. `verifySignature`. */
		parameters?: Record<string, unknown>;
		typeVersion?: number;
	},
): WorkflowNode {
	return node(
		name,
		TRIGGER_NODE_TYPE,
		options.typeVersion ?? 2,
		{ events: options.events, ...options.parameters, options: options.options ?? {} },
		{
			webhookId: options.webhookId ?? randomUUID(),
			credentials: credentialsRef(options.credential),
		},
	);
}

/** Connects `from` (output 0) to `to` (input 0). */
export function connect(
	workflow: Pick<WorkflowJson, 'connections'>,
	from: string,
	to: string,
): void {
	const outputs = (workflow.connections[from] ??= { main: [[]] });
	outputs.main[0] ??= [];
	outputs.main[0].push({ node: to, type: 'main', index: 0 });
}

/** A workflow whose nodes run one after the other, laid out left to right. */
export function chain(name: string, nodes: WorkflowNode[]): WorkflowJson {
	const workflow: WorkflowJson = {
		name,
		nodes: [],
		connections: {},
		settings: { executionOrder: 'v1' },
	};
	nodes.forEach((entry, index) => {
		workflow.nodes.push({ ...entry, position: [index * 220, 0] });
		if (index > 0) connect(workflow, nodes[index - 1].name, entry.name);
	});
	return workflow;
}

/**
 * Imports several workflows with ONE `n8n import:workflow` (a file holding an array), saving the
 * few seconds each CLI start costs. Workflows without an id get one. Resolves with the ids, in
 * order. Imported workflows are inactive.
 */
export async function importWorkflows(
	n8n: N8nInstance,
	workflows: WorkflowJson[],
): Promise<string[]> {
	const now = new Date().toISOString();
	const entries = workflows.map((workflow) => ({
		settings: {},
		createdAt: now,
		updatedAt: now,
		...workflow,
		id: workflow.id || newId(),
		active: false,
	}));
	const dir = path.join(n8n.userFolder, 'imports');
	fs.mkdirSync(dir, { recursive: true });
	const file = path.join(dir, `workflows-${Date.now()}-${newId()}.json`);
	fs.writeFileSync(file, JSON.stringify(entries, null, 2));
	try {
		const result = await n8n.runCli(['import:workflow', `--input=${file}`]);
		if (result.code !== 0) {
			throw new Error(
				`n8n import:workflow failed (exit ${result.code ?? result.signal}):\n${result.stderr.split('\n').slice(-20).join('\n')}`,
			);
		}
	} finally {
		fs.rmSync(file, { force: true });
	}
	return entries.map((entry) => entry.id);
}

// ---------------------------------------------------------------------------------------------
// Run data

export interface OutputItem {
	json: Record<string, any>;
	binary?: Record<
		string,
		{
			mimeType?: string;
			fileName?: string;
			fileExtension?: string;
			fileSize?: string;
			id?: string;
			data?: string;
			[key: string]: unknown;
		}
	>;
	error?: unknown;
	pairedItem?: unknown;
	[key: string]: unknown;
}

/** Every run of a node (throws, naming the nodes that ran, when it did not run). */
export function nodeRuns(run: Pick<RunData, 'data'>, nodeName: string): NodeRun[] {
	const runs = run.data.resultData.runData[nodeName];
	if (!runs?.length) {
		const ran = Object.keys(run.data.resultData.runData).join(', ') || 'none';
		throw new Error(`node "${nodeName}" did not run (nodes that ran: ${ran})`);
	}
	return runs;
}

/** The items (json and binary) of a node's first run, first output. */
export function nodeItems(
	run: Pick<RunData, 'data'>,
	nodeName: string,
	outputIndex = 0,
): OutputItem[] {
	return (nodeRuns(run, nodeName)[0].data?.main?.[outputIndex] ?? []) as OutputItem[];
}

/**
 * The items (json) of a node's first run, first output, in an execution read from the public API;
 * none when the node did not run or passed nothing on (a trigger whose claim another execution won).
 */
export function executionItems(
	execution: Pick<Execution, 'data'>,
	nodeName: string,
): Array<Record<string, any>> {
	return (execution.data?.resultData.runData[nodeName]?.[0]?.data?.main?.[0] ?? []).map(
		(item) => item.json as Record<string, any>,
	);
}

/** One item of the Document Signing Trigger's output. */
export interface TriggerItem {
	event: string;
	deliveryId: string;
	timestamp: string;
	webhookId: string;
	data: { document?: Record<string, any>; signer?: Record<string, any> };
}

/** The trigger's one output item of an execution (throws unless there is exactly one). */
export function triggerItem(
	execution: Execution,
	triggerName = 'Document Signing Trigger',
): TriggerItem {
	const runs = execution.data?.resultData.runData[triggerName];
	const items = runs?.[0]?.data?.main?.[0] ?? [];
	if (items.length !== 1)
		throw new Error(`execution ${execution.id}: expected 1 trigger item, got ${items.length}`);
	return items[0].json as TriggerItem;
}

// ---------------------------------------------------------------------------------------------
// The sandbox, directly

/** POSTs `body` to `urlPath` on the sandbox's API as `apiKey`'s account; resolves with the answer's JSON, fails on a status other than 2xx. */
export async function sandboxPost(
	sandbox: Pick<Sandbox, 'baseUrl'>,
	apiKey: string,
	urlPath: string,
	body: unknown,
): Promise<any> {
	const response = await fetch(`${sandbox.baseUrl}${urlPath}`, {
		method: 'POST',
		headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
		body: JSON.stringify(body),
		signal: AbortSignal.timeout(10_000),
	});
	if (!response.ok) throw new Error(`POST ${urlPath}: ${response.status} ${await response.text()}`);
	return await response.json();
}

/** POST /documents on the sandbox's API as `apiKey`'s account (the body as the API takes it). */
export async function createDocument(
	sandbox: Sandbox,
	apiKey: string,
	body: Record<string, unknown>,
): Promise<Record<string, any>> {
	const response = await fetch(`${sandbox.baseUrl}/documents`, {
		method: 'POST',
		headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
		body: JSON.stringify(body),
		signal: AbortSignal.timeout(10_000),
	});
	const json = (await response.json()) as Record<string, any>;
	if (response.status !== 201)
		throw new Error(`POST /documents: HTTP ${response.status} ${JSON.stringify(json)}`);
	return json;
}

// ---------------------------------------------------------------------------------------------
// Examples

/** The file names in examples/, sorted. */
export function exampleFiles(): string[] {
	return fs
		.readdirSync(EXAMPLES_DIR)
		.filter((file) => file.endsWith('.json'))
		.sort();
}

/** One shipped example, parsed. */
export function loadExample(fileName: string): WorkflowJson {
	return JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, fileName), 'utf8')) as WorkflowJson;
}
