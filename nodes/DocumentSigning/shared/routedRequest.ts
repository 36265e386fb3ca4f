import {
	NodeOperationError,
	type DeclarativeRestApiSettings,
	type IDataObject,
	type IExecutePaginationFunctions,
	type IN8nHttpFullResponse,
	type INode,
	type INodeExecutionData,
} from 'n8n-workflow';

import { MAX_PAGE_SIZE } from '../../shared/vocabulary';
import {
	checkAnswer,
	deriveIdempotencyKey,
	safeRequestSettings,
	sendWithRetries,
	serviceClient,
	toNodeError,
	walkPages,
	type ServiceClient,
} from '../../shared/transport';
import { TIME_LIMITS, type AnswerKind } from '../../shared/transport/bounds';
import { headerValue } from '../../shared/transport/headers';
import { pageQuery, type PageRequest } from '../../shared/transport/pageWalk';
import { extractRecords, readListPaging, type ListPaging } from '../../shared/transport/listPages';
import { readAnswer } from '../../shared/transport/request';
import type { Attempt } from '../../shared/transport/retry';
import { deferredError } from './deferredErrors';

/**
 * `requestOperations.pagination` of the action node. n8n's routing engine starts every item's
 * request at once and has no retry hook of its own; given as a function, this hook owns the
 * request loop. So every operation's request passes here: input errors held back by preSend,
 * the credential's origin, the Idempotency-Key, retries, error mapping and every page of a list.
 */

/**
 * The service client of one node run, shared by its items: n8n reads and decrypts the credential
 * on every getCredentials() call, so a per-item read would cost a database query per item. Keyed
 * by the run's execute data (one object for all its items), so it goes with the run.
 */
const clientsByRun = new WeakMap<object, Promise<ServiceClient>>();

function runClient(context: IExecutePaginationFunctions): Promise<ServiceClient> {
	const run = context.getExecuteData?.();
	if (!run) return serviceClient(context);
	let client = clientsByRun.get(run);
	if (!client) {
		client = serviceClient(context);
		// A failed read is not kept: the next item reads again and reports its own error.
		client.catch(() => clientsByRun.delete(run));
		clientsByRun.set(run, client);
	}
	return client;
}

/** The node's run index: n8n-core's context carries it; older ones answer through an expression. */
function runIndexOf(context: IExecutePaginationFunctions, itemIndex: number): number {
	const known = (context as { runIndex?: unknown }).runIndex;
	return typeof known === 'number'
		? known
		: (context.evaluateExpression('{{ $runIndex }}', itemIndex) as number);
}

/** The List Paging override of a list operation (automatic: none), checked before any request. */
function listPagingOf(context: IExecutePaginationFunctions): ListPaging {
	if (context.getNodeParameter('listPaging', 'automatic') !== 'custom') return {};
	try {
		return readListPaging(context.getNodeParameter('listPagingSettings', {}));
	} catch (error) {
		// readListPaging throws only ListPagingInputError, whose message names the setting.
		throw new NodeOperationError(context.getNode(), (error as Error).message, {
			itemIndex: context.getItemIndex(),
		});
	}
}

function listSettings(
	context: IExecutePaginationFunctions,
): { limit?: number; paging: ListPaging } | undefined {
	const returnAll = context.getNodeParameter('returnAll', false) as boolean;
	if (returnAll) return { paging: listPagingOf(context) };
	const limit = Number(context.getNodeParameter('limit', 0));
	return limit > 0 ? { limit, paging: listPagingOf(context) } : undefined;
}

export async function executeRoutedRequest(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	const itemIndex = this.getItemIndex();
	const node = this.getNode();
	const pair = (items: INodeExecutionData[]) =>
		items.map((item) => ({ ...item, pairedItem: { item: itemIndex } }));

	// Before anything else: under the legacy execution order nothing this call does reaches the agent.
	const orderProblem = legacyOrderToolCall(this, node);
	if (orderProblem) throw orderProblem;

	try {
		const inputError = deferredError(requestData.options);
		if (inputError) throw inputError;

		const client = await runClient(this);
		const options = requestData.options;
		const method = String(options.method ?? 'GET').toUpperCase();
		Object.assign(
			options,
			{ baseURL: client.origin.baseUrl, ignoreHttpStatusErrors: true },
			safeRequestSettings(client.allowedDomains),
		);
		options.headers = options.headers ?? {};
		// The path comes from the node's own description; anything absolute must still be the service's.
		if (options.url && !options.url.startsWith('/'))
			options.url = client.origin.followable(options.url, client.origin.baseUrl, 'a request URL');
		const idempotencyKey = headerValue(options.headers, 'idempotency-key');
		if (method === 'POST' && !idempotencyKey) {
			const runIndex = runIndexOf(this, itemIndex);
			options.headers['Idempotency-Key'] = deriveIdempotencyKey(
				this.getExecutionId(),
				this.getWorkflow().id,
				node.id ?? node.name,
				runIndex,
				itemIndex,
			);
		}

		const list = listSettings(this);
		const paging = list?.paging ?? {};
		const binary = options.encoding === 'arraybuffer';
		const expectJson = !binary && method !== 'DELETE';
		const kind: AnswerKind = !binary
			? 'json'
			: /\/reports\/export$/.test(String(options.url ?? ''))
				? 'export'
				: 'file';
		// Read as a stream and counted (bounds.ts): n8n would otherwise read any answer whole.
		options.encoding = 'stream';
		options.timeout = TIME_LIMITS.attemptMs;
		const observed = { retriedAfterLostAnswer: false };
		let lastAnswer: IN8nHttpFullResponse | undefined;
		// The first output step checks every answer before the operation's own steps see it.
		requestData.postReceive.unshift({
			data: { parameterValue: undefined },
			actions: [
				async function checkStatus(_items, response) {
					await readAnswer(response, kind, client);
					// A DELETE whose first attempt went through but whose answer was lost finds nothing the
					// second time: that is the outcome the user asked for. Never after a 5xx: that attempt failed.
					const deletedEarlier =
						method === 'DELETE' && response.statusCode === 404 && observed.retriedAfterLostAnswer;
					if (!deletedEarlier) checkAnswer(response, { expectJson });
					lastAnswer = response;
					return list
						? extractRecords(response.body, paging).map((json) => ({ json }))
						: [{ json: response.body as IDataObject }];
				},
			],
		});

		const settings = {
			node,
			gateKey: client.gateKey,
			// Every POST carries an Idempotency-Key (above), so every request is safe to repeat.
			idempotent: true,
			itemIndex,
			abortSignal: this.getExecutionCancelSignal?.(),
			observed,
		};
		const send = async ({ signal }: Attempt) => {
			options.abortSignal = signal;
			return await this.makeRoutingRequest(requestData);
		};
		if (!list) return pair(await sendWithRetries(settings, send));

		const query = { ...(options.qs ?? {}) };
		const path = options.url;
		const pageSize = Math.min(MAX_PAGE_SIZE, list.limit ?? MAX_PAGE_SIZE);
		const items = await walkPages<INodeExecutionData>({
			origin: client.origin,
			limit: list.limit,
			paging,
			pageSize,
			fetchPage: async (request: PageRequest) => {
				if (request.url) {
					// The next link carries the whole query.
					options.url = request.url;
					options.qs = {};
				} else {
					options.url = path;
					options.qs = { ...query, ...pageQuery(request, pageSize, paging) };
				}
				const pageItems = await sendWithRetries(settings, send);
				const answer = lastAnswer as IN8nHttpFullResponse;
				return {
					answer,
					requestUrl: request.url ?? client.origin.urlOf(String(path ?? '')),
					items: pageItems,
				};
			},
		});
		return pair(items);
	} catch (error) {
		const nodeError = toNodeError(node, error, itemIndex);
		if (this.continueOnFail()) {
			return [
				{ json: { error: nodeError.message }, error: nodeError, pairedItem: { item: itemIndex } },
			];
		}
		if (answersErrorsToAgent(node)) {
			return [{ json: toolErrorAnswer(nodeError), pairedItem: { item: itemIndex } }];
		}
		throw nodeError;
	}
}

/**
 * A tool call from n8n's AI Agent 3 in a workflow whose Execution Order is not v1. The agent asks
 * the engine to run its tools (an engine request; the engine adds the call's `toolCallId` to the
 * tool's input item) and resumes when they have run, but the legacy order v0 queues the agent
 * ahead of its tools: it reads an empty result (`""`) and the tool runs afterwards, unseen. So the
 * call is refused, unsent, with the fix. AI Agent 2 runs its tools itself, in any order.
 */
function legacyOrderToolCall(
	context: IExecutePaginationFunctions,
	node: INode,
): NodeOperationError | undefined {
	if (!node.type.endsWith('Tool')) return undefined;
	const order = context.getWorkflowSettings?.()?.executionOrder;
	if (order === 'v1') return undefined;
	const input = context.getInputData?.()?.json;
	if (typeof input?.toolCallId !== 'string') return undefined;
	return legacyOrderError(node, context.getItemIndex());
}

/** The refusal of a tool call (or of a review gate's) under the legacy Execution Order v0. */
export function legacyOrderError(node: INode, itemIndex: number): NodeOperationError {
	return new NodeOperationError(
		node,
		'This workflow\'s Execution Order must be "v1 (recommended)" for an AI Agent to read this tool\'s results',
		{
			itemIndex,
			description:
				'Under the legacy order the AI Agent reads an empty result before its tools run. Nothing was sent. Set Workflow Settings → Execution Order to "v1 (recommended)", which n8n gives every new workflow.',
		},
	);
}

/**
 * Whether a failure is the agent's tool result rather than the workflow's end: the node runs as an
 * AI Agent's tool (n8n gives the tool variant of a `usableAsTool` node the type name + `Tool`) and
 * the user did not choose "Stop Workflow" on error. n8n 2.x's AI Agent 3 does the same for any
 * tool; its version 2 (and n8n 1.x) would hand the model an empty result instead of the error.
 */
function answersErrorsToAgent(node: INode): boolean {
	return node.type.endsWith('Tool') && node.onError !== 'stopWorkflow';
}

/** What the model reads when a call failed: the error, and how to fix it when the node knows. */
function toolErrorAnswer(error: {
	message: string;
	description?: string | null;
	httpCode?: string | null;
}): IDataObject {
	return {
		error: error.message,
		...(error.description && error.description !== error.message
			? { hint: error.description }
			: {}),
		...(error.httpCode ? { httpCode: error.httpCode } : {}),
	};
}
