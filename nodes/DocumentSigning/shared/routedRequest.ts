import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeExecutionData,
	NodeApiError,
	PreSendAction,
} from 'n8n-workflow';

import { MAX_PAGE_SIZE } from '../../shared/vocabulary';
import {
	deriveIdempotencyKey,
	sendChecked,
	serviceClient,
	toNodeError,
	walkPages,
	extractRecords,
	listPagingFor,
	readListPaging,
	pageQuery,
} from '../../shared/transport';
import { legacyOrderError } from './agentTool';
import { invalid } from './validation';

/**
 * The one hook into n8n's routing engine (n8n-core 2.41 routing-node.js): every operation's
 * `routing.operations.pagination`. What it works around:
 * - with `send.paginate` the engine sends nothing (`makeRequest`): the hook sends the request,
 *   retried, read as a counted stream, to the credential's origin (a `baseURL` expression in
 *   `requestDefaults` is resolved twice per item);
 * - then no output step runs: the hook runs them, an array body without steps as one item each;
 * - a preSend error ends the node as an API error of HTTP code "none": n8n is given `inHook`
 *   steps, which do nothing, and the hook runs the real ones;
 * - a tool's failure reaches AI Agent 2 (and n8n 1.x) as an empty result: the hook returns it;
 * - every parameter is resolved twice per item, shown or not: names are unique across resources
 *   (but for Operation, the list fields, Simplify, the output file).
 */

/** A preSend step as n8n is given it: nothing then; the hook runs `step` (see above). */
export function inHook(step: PreSendAction): PreSendAction {
	return Object.assign(async (options: IHttpRequestOptions) => options, { step });
}

async function routedRequest(
	context: IExecutePaginationFunctions,
	{ options: built, preSend, postReceive }: DeclarativeRestApiSettings.ResultOptions,
	list: boolean,
): Promise<INodeExecutionData[]> {
	const itemIndex = context.getItemIndex();
	const node = context.getNode();
	const pairedItem = { item: itemIndex };
	const isTool = node.type.endsWith('Tool');
	// AI Agent 3's tool call (its item carries `toolCallId`) under Execution Order v0 would be read
	// as an empty result and run unseen afterwards: refused unsent. AI Agent 2 runs tools itself.
	if (
		isTool &&
		context.getWorkflowSettings?.()?.executionOrder !== 'v1' &&
		typeof context.getInputData?.()?.json?.toolCallId === 'string'
	)
		throw legacyOrderError(node, itemIndex);
	try {
		let options = built as IHttpRequestOptions;
		// Each is an `inHook` step, as operation() gives every one.
		for (const { step } of preSend as Array<PreSendAction & { step: PreSendAction }>)
			options = await step.call(context, options);
		const client = await serviceClient(context);
		// Every POST carries an Idempotency-Key, so every request is safe to repeat.
		let idempotencyKey: string | undefined;
		if (options.method === 'POST') {
			const key = [context.getExecutionId(), context.getWorkflow().id, node.id ?? node.name];
			const runIndex = context.getWorkflowDataProxy(itemIndex).$runIndex as number;
			idempotencyKey = deriveIdempotencyKey(...key, runIndex, itemIndex);
		}
		options.baseURL = client.origin.baseUrl;
		const send = async () =>
			await sendChecked(context, client, options, {
				// The one binary response is Report › Export's.
				kind: options.encoding === 'arraybuffer' ? 'export' : 'json',
				idempotencyKey,
				itemIndex,
				abortSignal: context.getExecutionCancelSignal?.(),
				deletedIfGone: true,
			});
		const output = async (records: IDataObject[], response: IN8nHttpFullResponse) => {
			let items: INodeExecutionData[] = records.map((json) => ({ json }));
			for (const { actions } of postReceive)
				for (const action of actions)
					if (typeof action === 'function') items = await action.call(context, items, response);
			return items;
		};

		let items: INodeExecutionData[];
		if (!list) {
			const response = await send();
			const { body } = response;
			const records = Array.isArray(body) && !postReceive.length ? body : [body];
			items = await output(records as IDataObject[], response);
		} else {
			// Checked before any request: a bad Limit or List Paging is the user's to fix.
			const returnAll = context.getNodeParameter('returnAll', false) as boolean;
			const limit = returnAll ? undefined : Number(context.getNodeParameter('limit', 50));
			if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) {
				const problem = `must be a whole number of 1 or more, not ${String(limit)}`;
				throw invalid(context, 'Limit', problem);
			}
			const own = readListPaging(
				context.getNodeParameter('listPaging', 'automatic'),
				context.getNodeParameter('listPagingSettings', {}),
				node,
				itemIndex,
			);
			const paging = listPagingFor(own, client.decrypted, node, itemIndex);
			const query = { ...options.qs };
			const path = String(options.url);
			const pageSize = Math.min(MAX_PAGE_SIZE, limit ?? MAX_PAGE_SIZE);
			items = await walkPages<INodeExecutionData>({
				origin: client.origin,
				limit,
				paging,
				pageSize,
				fetchPage: async (request) => {
					// A next link carries the whole query.
					options.url = request.url ?? path;
					options.qs = request.url ? {} : { ...query, ...pageQuery(request, pageSize, paging) };
					const response = await send();
					return {
						response,
						requestUrl: request.url ?? client.origin.urlOf(path),
						items: await output(extractRecords(response.body, paging), response),
					};
				},
			});
		}
		return items.map((item) => ({ ...item, pairedItem }));
	} catch (error) {
		const nodeError = toNodeError(node, error, itemIndex);
		if (context.continueOnFail())
			return [{ json: { error: nodeError.message }, error: nodeError, pairedItem }];
		// A tool not set to stop the workflow: the failure is the model's to read.
		if (isTool && node.onError !== 'stopWorkflow') {
			const { message, description, httpCode } = nodeError as Partial<NodeApiError>;
			const hint = description && description !== message ? { hint: description } : {};
			return [{ json: { error: message, ...hint, ...(httpCode ? { httpCode } : {}) }, pairedItem }];
		}
		throw nodeError;
	}
}

/** `routing.operations.pagination`: one request, or (`list: true`) pages until Return All or Limit. */
const hook = (list: boolean) =>
	async function (
		this: IExecutePaginationFunctions,
		requestData: DeclarativeRestApiSettings.ResultOptions,
	): Promise<INodeExecutionData[]> {
		return await routedRequest(this, requestData, list);
	};
export const sendRequest = hook(false);
export const sendListRequests = hook(true);
