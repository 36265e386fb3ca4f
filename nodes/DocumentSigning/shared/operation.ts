import type { IHttpRequestMethods, INodePropertyOptions, PostReceiveAction, PreSendAction } from 'n8n-workflow';

/**
 * One entry of an Operation dropdown with its request. `paginate: true` hands every operation to
 * the transport (requestOperations.pagination), which owns retries, errors and paging.
 */
export function operation({
	name,
	value,
	action,
	description,
	method,
	url,
	preSend = [],
	postReceive = [],
	binaryResponse = false,
}: {
	name: string;
	value: string;
	action: string;
	description: string;
	method: IHttpRequestMethods;
	/** Left out when an ID parameter builds the path. */
	url?: string;
	preSend?: PreSendAction[];
	postReceive?: PostReceiveAction[];
	binaryResponse?: boolean;
}): INodePropertyOptions {
	return {
		name,
		value,
		action,
		description,
		routing: {
			request: {
				method,
				...(url ? { url } : {}),
				...(binaryResponse ? { encoding: 'arraybuffer', json: false } : {}),
			},
			send: { paginate: true, ...(preSend.length ? { preSend } : {}) },
			...(postReceive.length ? { output: { postReceive } } : {}),
		},
	};
}

export function operationProperty(resource: string, options: INodePropertyOptions[], defaultValue: string) {
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options' as const,
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options,
		default: defaultValue,
	};
}
