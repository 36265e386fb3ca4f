/**
 * What n8n's routing engine does that the node's one hook into it relies on (docs/node-behaviour.md,
 * "Where the nodes depend on n8n"). Each test runs a small declarative probe node, not ours,
 * through n8n-core's real engine (the pinned version in package.json), so it fails when n8n changes
 * the behaviour, not when the node does.
 */
import { createServer, type Server } from 'http';
import type { AddressInfo } from 'net';
import { WorkflowExecute } from 'n8n-core';
import {
	Workflow,
	type DeclarativeRestApiSettings,
	type IExecutePaginationFunctions,
	type IHttpRequestOptions,
	type INode,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { executionAdditionalData, NodeTypes } from '../helpers/n8nHost';
import { SOURCE_TYPE, SourceNode, sourceItems } from '../helpers/n8nWorkflow';

const PROBE_TYPE = 'test.routingProbe';

interface ProbeSettings {
	baseURL?: string;
	paginate: boolean;
	pagination?: (requestData: DeclarativeRestApiSettings.ResultOptions) => INodeExecutionData[];
	preSend?: (options: IHttpRequestOptions) => IHttpRequestOptions;
	postReceive?: (items: INodeExecutionData[]) => INodeExecutionData[];
}

function probeNode(settings: ProbeSettings): INodeType {
	const routing = {
		request: { method: 'GET', url: '/things' },
		send: {
			paginate: settings.paginate,
			...(settings.preSend
				? { preSend: [async (options: IHttpRequestOptions) => settings.preSend!(options)] }
				: {}),
		},
		...(settings.pagination
			? {
					operations: {
						pagination: async function (
							this: IExecutePaginationFunctions,
							requestData: DeclarativeRestApiSettings.ResultOptions,
						) {
							return settings.pagination!(requestData);
						},
					},
				}
			: {}),
		...(settings.postReceive
			? {
					output: {
						postReceive: [async (items: INodeExecutionData[]) => settings.postReceive!(items)],
					},
				}
			: {}),
	};
	return {
		description: {
			displayName: 'Routing Probe',
			name: PROBE_TYPE,
			group: ['transform'],
			version: 1,
			description: 'A declarative node that records what the engine does',
			defaults: { name: 'Probe' },
			inputs: ['main'],
			outputs: ['main'],
			requestDefaults: { baseURL: settings.baseURL ?? 'http://127.0.0.1:9', json: true },
			properties: [
				{
					displayName: 'Operation',
					name: 'operation',
					type: 'options',
					noDataExpression: true,
					options: [{ name: 'Get', value: 'get', routing }],
					default: 'get',
				},
			],
		} as unknown as INodeTypeDescription,
	};
}

/** Source (with `items`) → probe, run once by n8n-core's engine; the probe's output and error. */
async function runProbe(
	settings: ProbeSettings,
	items: INodeExecutionData[],
	continueOnFail = false,
) {
	const run = `probe-${Math.random()}`;
	sourceItems.set(run, items);
	const source: INode = {
		id: 'source',
		name: 'Source',
		type: SOURCE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: { run },
	};
	const probe: INode = {
		id: 'probe',
		name: 'Probe',
		type: PROBE_TYPE,
		typeVersion: 1,
		position: [200, 0],
		parameters: { operation: 'get' },
		...(continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
	};
	const workflow = new Workflow({
		id: 'wf-probe',
		name: 'probe',
		nodes: [source, probe],
		connections: { Source: { main: [[{ node: 'Probe', type: 'main', index: 0 }]] } },
		active: false,
		nodeTypes: new NodeTypes({
			[SOURCE_TYPE]: new SourceNode(),
			[PROBE_TYPE]: probeNode(settings),
		}),
		staticData: {},
		settings: { executionOrder: 'v1' },
	});
	try {
		const result = await new WorkflowExecute(
			executionAdditionalData(() => ({}), 'probe-execution', [source, probe]),
			'manual',
		).run({ workflow, startNode: source });
		const nodeRun = result.data.resultData.runData.Probe?.[0];
		return {
			items: (nodeRun?.data?.main?.[0] ?? []) as INodeExecutionData[],
			error: nodeRun?.error,
		};
	} finally {
		sourceItems.delete(run);
	}
}

let server: Server;
let requests = 0;
let baseURL: string;

beforeAll(async () => {
	server = createServer((_request, response) => {
		requests++;
		response.setHeader('Content-Type', 'application/json');
		response.end(JSON.stringify([{ n: 1 }, { n: 2 }]));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
	await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("n8n's routing engine, as the node's one hook (routedRequest.ts) relies on it", () => {
	test('with send.paginate and a pagination function, the engine hands over the request it built (preSend applied), sends nothing and runs no output step: the function sends, and runs them itself', async () => {
		const before = requests;
		const handed: DeclarativeRestApiSettings.ResultOptions[] = [];
		let outputStepRuns = 0;
		const { items, error } = await runProbe(
			{
				baseURL,
				paginate: true,
				preSend: (options) => ({ ...options, qs: { ...(options.qs ?? {}), built: 'yes' } }),
				pagination: (requestData) => {
					handed.push(requestData);
					return [{ json: { from: 'pagination' } }];
				},
				postReceive: (received) => {
					outputStepRuns++;
					return received;
				},
			},
			[{ json: {} }, { json: {} }],
		);
		expect(error).toBeUndefined();
		expect(handed).toHaveLength(2);
		expect(handed[0].options.url).toBe('/things');
		expect(handed[0].options.qs).toMatchObject({ built: 'yes' });
		// The output steps are handed over, not run.
		expect(handed[0].postReceive).toHaveLength(1);
		expect(outputStepRuns).toBe(0);
		expect(requests - before).toBe(0);
		expect(items.map((item) => item.json)).toEqual([
			{ from: 'pagination' },
			{ from: 'pagination' },
		]);
	});

	test('without output steps, an array response becomes one item per element (what the hook does too)', async () => {
		const before = requests;
		const { items } = await runProbe({ baseURL, paginate: false }, [{ json: {} }]);
		expect(requests - before).toBe(1);
		expect(items.map((item) => item.json)).toEqual([{ n: 1 }, { n: 2 }]);
	});

	test('a preSend error (a bad input) ends the node as an API error with HTTP code "none", so the node gives n8n preSend steps that do nothing and runs the real ones in its hook, which reports their errors as the input errors they are, or as an AI Agent\'s tool answer (inHook, routedRequest.ts)', async () => {
		const before = requests;
		const { items, error } = await runProbe(
			{
				baseURL,
				paginate: true,
				preSend: () => {
					throw new Error('Signers: the email is not valid');
				},
				pagination: () => [{ json: { sent: true } }],
			},
			[{ json: {} }],
		);
		expect(items).toEqual([]);
		expect(error).toMatchObject({ message: 'Signers: the email is not valid', httpCode: 'none' });
		expect(requests - before).toBe(0);
	});
});
