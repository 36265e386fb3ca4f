import type {
	IDisplayOptions,
	IExecuteSingleFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INodeProperties,
	INodePropertyOptions,
	PreSendAction,
} from 'n8n-workflow';

import { deferErrors } from './deferredErrors';
import { showFor } from './fields';
import type { OutputStep } from './postReceive';
import { sendListRequests, sendRequest } from './routedRequest';
import { requireId } from './validation';

/**
 * One entry of an Operation dropdown with its whole request. `{parameter}` path segments are
 * filled from that ID parameter, checked and encoded, before anything is sent; preSend errors are
 * deferred (deferredErrors.ts). n8n's routing engine has no retry hook, so `paginate: true` hands
 * each request to the transport (routedRequest.ts) via the operation's
 * `requestOperations.pagination` (n8n merges it over the node's).
 */

/** How each ID parameter is named in error messages (as the user sees it in the editor). */
export const ID_PARAMETER_LABELS: Record<string, string> = {
	documentId: 'Document',
	signingRequestId: 'Signing Request ID',
	templateId: 'Template',
	teamMemberId: 'Team Member',
	webhookId: 'Webhook ID',
	deliveryId: 'Delivery ID',
};

const PLACEHOLDER = /\{(\w+)\}/g;

/** The parameters a path takes its IDs from: `/webhooks/{webhookId}` → ['webhookId']. */
function pathParameters(path: string): string[] {
	return [...path.matchAll(PLACEHOLDER)].map((match) => match[1]);
}

/**
 * Where the field of an ID parameter shows: with each operation of a resource's Operation dropdown
 * whose path takes `{parameter}`, so an operation shows the IDs it needs by its path alone.
 */
export function showForPathParameter(
	operations: INodeProperties,
	parameter: string,
	extra: IDisplayOptions['show'] = {},
): IDisplayOptions {
	const taking = (operations.options as INodePropertyOptions[])
		.filter((option) =>
			pathParameters(String(option.routing?.request?.url ?? '')).includes(parameter),
		)
		.map((option) => String(option.value));
	return showFor(String(operations.displayOptions?.show?.resource?.[0]), taking, extra);
}

/** A preSend step that fills the path's ID segments, so the request URL never comes from elsewhere. */
function fillPath(path: string): PreSendAction {
	return async function (this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
		options.url = path.replace(PLACEHOLDER, (_match, parameter: string) =>
			encodeURIComponent(requireId(this, parameter, ID_PARAMETER_LABELS[parameter] ?? parameter)),
		);
		return options;
	};
}

export interface OperationSpec {
	name: string;
	value: string;
	action: string;
	description: string;
	method: IHttpRequestMethods;
	/** Path under the Base URL, e.g. `/documents/{documentId}`. */
	path: string;
	/** Steps that check input and build the body; their errors are deferred. */
	preSend?: PreSendAction[];
	/** Steps from the response to the output items; a list's run on each page's records. */
	postReceive?: OutputStep[];
	binaryResponse?: boolean;
	/** A list of records, read page by page up to Return All / Limit (fields.ts: returnAllAndLimit). */
	list?: boolean;
}

export function operation({
	name,
	value,
	action,
	description,
	method,
	path,
	preSend = [],
	postReceive = [],
	binaryResponse = false,
	list = false,
}: OperationSpec): INodePropertyOptions {
	const steps = [...(pathParameters(path).length ? [fillPath(path)] : []), ...preSend].map(
		deferErrors,
	);
	return {
		name,
		value,
		action,
		description,
		routing: {
			request: {
				method,
				// The template itself (not an expression): fillPath sets the real path before sending,
				// and the description shows which path each operation requests.
				url: path,
				...(binaryResponse ? { encoding: 'arraybuffer', json: false } : {}),
			},
			send: { paginate: true, ...(steps.length ? { preSend: steps } : {}) },
			operations: { pagination: list ? sendListRequests : sendRequest },
			...(postReceive.length ? { output: { postReceive } } : {}),
		},
	};
}

/** The Operation dropdown of a resource; its options sorted by name, as n8n asks. */
export function operationProperty(
	resource: string,
	options: INodePropertyOptions[],
	defaultValue: string,
): INodeProperties {
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options: [...options].sort((a, b) => a.name.localeCompare(b.name)),
		default: defaultValue,
	};
}
