import {
	type DeclarativeRestApiSettings,
	type IDataObject,
	type IExecutePaginationFunctions,
	type IHttpRequestOptions,
	type IN8nHttpFullResponse,
	type INodeExecutionData,
} from 'n8n-workflow';

import { MAX_PAGE_SIZE } from '../../shared/vocabulary';
import {
	checkResponse,
	CREDENTIAL_TYPE,
	deriveIdempotencyKey,
	safeRequestSettings,
	sendAttempt,
	sendWithRetries,
	serviceClient,
	toNodeError,
	walkPages,
	type ServiceClient,
} from '../../shared/transport';
import { TIME_LIMITS, type ResponseKind } from '../../shared/transport/bounds';
import { headerValue } from '../../shared/transport/headers';
import { pageQuery } from '../../shared/transport/pageWalk';
import {
	extractRecords,
	readListPaging,
	type PageRequest,
} from '../../shared/transport/listRecords';
import { readResponse } from '../../shared/transport/request';
import type { Attempt, AttemptSettings } from '../../shared/transport/retry';
import { returnsErrorsToAgent, legacyOrderToolCall, toolErrorResult } from './agentTool';
import { deferredError } from './deferredErrors';
import { invalid } from './validation';

/**
 * The one hook into n8n's routing engine, which builds each item's request but has no retry: each
 * operation names `sendRequest` or `sendListRequests` as its `requestOperations.pagination`, which
 * n8n calls instead of sending (n8n-core routing-node.js `makeRequest`); `outputOf` then runs the
 * output steps, which the engine no longer does.
 */

/**
 * The service client of a credential, shared by an execution's items: n8n decrypts the credential
 * (a database query) on every getCredentials() call. Kept a minute at most, so an execution that
 * resumes after a wait reads the credential again.
 */
const CLIENT_REUSE_MS = 60_000;
const MAX_CLIENTS = 64;
const clients = new Map<string, { at: number; client: Promise<ServiceClient> }>();

function runClient(context: IExecutePaginationFunctions): Promise<ServiceClient> {
	const credentialId = context.getNode().credentials?.[CREDENTIAL_TYPE]?.id;
	if (!credentialId) return serviceClient(context);
	const key = `${context.getExecutionId()}\u0000${credentialId}`;
	const now = Date.now();
	const known = clients.get(key);
	if (known && now - known.at < CLIENT_REUSE_MS) return known.client;
	// Nothing decrypted stays longer than it may be used.
	for (const [oldKey, entry] of clients)
		if (now - entry.at >= CLIENT_REUSE_MS) clients.delete(oldKey);
	const client = serviceClient(context);
	// A failed read is not kept: the next item reads again and reports its own error.
	client.catch(() => clients.get(key)?.client === client && clients.delete(key));
	clients.delete(key);
	clients.set(key, { at: now, client });
	if (clients.size > MAX_CLIENTS) clients.delete(clients.keys().next().value as string);
	return client;
}

/** The node's run index, by n8n's public name for it (`$runIndex`): a loop's runs differ. */
function runIndexOf(context: IExecutePaginationFunctions, itemIndex: number): number {
	const runIndex = Number(context.getWorkflowDataProxy(itemIndex).$runIndex);
	return Number.isInteger(runIndex) ? runIndex : 0;
}

/** One item's request, ready to send: its options point at the credential's origin. */
interface RoutedRequest {
	options: DeclarativeRestApiSettings.HttpRequestOptions;
	client: ServiceClient;
	retry: AttemptSettings;
	/** Reads the response (bounded) and throws the service's error for a failed one. */
	check(response: IN8nHttpFullResponse): Promise<void>;
}

/** Prepares the item's request for `send`; any failure ends as error, error item or tool answer. */
async function routed(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	send: (request: RoutedRequest) => Promise<INodeExecutionData[]>,
): Promise<INodeExecutionData[]> {
	const itemIndex = context.getItemIndex();
	const node = context.getNode();

	// Before anything else: under the legacy execution order nothing this call does reaches the agent.
	const orderProblem = legacyOrderToolCall(context, node);
	if (orderProblem) throw orderProblem;

	try {
		const inputError = deferredError(requestData.options);
		if (inputError) throw inputError;

		const client = await runClient(context);
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
			options.headers['Idempotency-Key'] = deriveIdempotencyKey(
				context.getExecutionId(),
				context.getWorkflow().id,
				node.id ?? node.name,
				runIndexOf(context, itemIndex),
				itemIndex,
			);
		}

		const binary = options.encoding === 'arraybuffer';
		const expectJson = !binary && method !== 'DELETE';
		const kind: ResponseKind = !binary
			? 'json'
			: String(options.url ?? '').endsWith('/reports/export')
				? 'export'
				: 'file';
		// Read as a stream and counted (bounds.ts): n8n would otherwise read any response whole.
		options.encoding = 'stream';
		options.timeout = TIME_LIMITS.attemptMs;
		const observed = { retriedAfterLostResponse: false };
		const retry: AttemptSettings = {
			node,
			gateKey: client.gateKey,
			// Every POST carries an Idempotency-Key (above), so every request is safe to repeat.
			idempotent: true,
			itemIndex,
			abortSignal: context.getExecutionCancelSignal?.(),
			observed,
		};
		const check = async (response: IN8nHttpFullResponse) => {
			await readResponse(response, kind, client);
			// A DELETE whose first attempt went through but whose response was lost finds nothing the
			// second time: that is the outcome the user asked for. Never after a 5xx: that attempt failed.
			const deletedEarlier =
				method === 'DELETE' && response.statusCode === 404 && observed.retriedAfterLostResponse;
			if (!deletedEarlier) checkResponse(response, { expectJson });
		};

		const items = await send({ options, client, retry, check });
		return items.map((item) => ({ ...item, pairedItem: { item: itemIndex } }));
	} catch (error) {
		const nodeError = toNodeError(node, error, itemIndex);
		if (context.continueOnFail()) {
			return [
				{ json: { error: nodeError.message }, error: nodeError, pairedItem: { item: itemIndex } },
			];
		}
		if (returnsErrorsToAgent(node)) {
			return [{ json: toolErrorResult(nodeError), pairedItem: { item: itemIndex } }];
		}
		throw nodeError;
	}
}

/** One request as n8n's engine built it, retried, its response checked (bounded) before it is used. */
async function sendChecked(
	context: IExecutePaginationFunctions,
	{ options, client, retry, check }: RoutedRequest,
): Promise<IN8nHttpFullResponse> {
	return await sendWithRetries(retry, async ({ signal }: Attempt) => {
		const response = await sendAttempt(context, client, {
			...(options as IHttpRequestOptions),
			abortSignal: signal,
		});
		await check(response);
		return response;
	});
}

/** `requestOperations.pagination` of every operation that is not a list: one request, retried. */
export async function sendRequest(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	return await routed(this, requestData, async (request) => {
		const response = await sendChecked(this, request);
		// As n8n's engine reads a response without output steps: an array is one item per element.
		const items =
			Array.isArray(response.body) && requestData.postReceive.length === 0
				? (response.body as IDataObject[]).map((json) => ({ json }))
				: [{ json: response.body as IDataObject }];
		return await outputOf(this, requestData, items, response);
	});
}

/** Return All, or Limit: how many records the user asked for (undefined: all). */
function limitOf(context: IExecutePaginationFunctions): number | undefined {
	if (context.getNodeParameter('returnAll', false) as boolean) return undefined;
	const limit = Number(context.getNodeParameter('limit', 50));
	if (!Number.isInteger(limit) || limit < 1)
		throw invalid(context, 'Limit', `must be a whole number of 1 or more, not ${String(limit)}`);
	return limit;
}

/** `requestOperations.pagination` of a `list: true` operation: pages until Return All or Limit. */
export async function sendListRequests(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	return await routed(this, requestData, async (routedRequest) => {
		const { options, client } = routedRequest;
		// Checked before any request: a bad Limit or List Paging is the user's to fix.
		const limit = limitOf(this);
		const paging = readListPaging(
			this.getNodeParameter('listPaging', 'automatic'),
			this.getNodeParameter('listPagingSettings', {}),
			this.getNode(),
			this.getItemIndex(),
		);
		const query = { ...(options.qs ?? {}) };
		const path = options.url;
		const pageSize = Math.min(MAX_PAGE_SIZE, limit ?? MAX_PAGE_SIZE);
		return await walkPages<INodeExecutionData>({
			origin: client.origin,
			limit,
			paging,
			pageSize,
			fetchPage: async (request: PageRequest) => {
				// A next link carries the whole query.
				options.url = request.url ?? path;
				options.qs = request.url ? {} : { ...query, ...pageQuery(request, pageSize, paging) };
				const response = await sendChecked(this, routedRequest);
				const records = extractRecords(response.body, paging).map((json) => ({ json }));
				return {
					response,
					requestUrl: request.url ?? client.origin.urlOf(String(path ?? '')),
					items: await outputOf(this, requestData, records, response),
				};
			},
		});
	});
}

/** The operation's output steps (all functions), run on one page's records. */
async function outputOf(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	records: INodeExecutionData[],
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	let items = records;
	for (const { actions } of requestData.postReceive)
		for (const action of actions)
			if (typeof action === 'function') items = await action.call(context, items, response);
	return items;
}
