import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INodeProperties,
	INodePropertyOptions,
	PostReceiveAction,
	PreSendAction,
} from 'n8n-workflow';

import {
	byName,
	resourceLocator,
	returnAllAndLimit,
	searchListPaging,
	showFor,
	simplifyField,
} from './fields';
import { simplifyTo } from './postReceive';
import { inHook, sendListRequests, sendRequest } from './routedRequest';
import { requireId } from './validation';

/** The field of each ID parameter a path takes (`{documentId}`); with a search, a resource locator. */
type IdField = Omit<Parameters<typeof resourceLocator>[0], 'name' | 'searchListMethod'> & {
	searchListMethod?: string;
};
const ID_FIELDS: Record<string, IdField> = {
	documentId: {
		displayName: 'Document',
		description: 'The document to use',
		idPlaceholder: 'doc_8f3k2j',
		searchListMethod: 'searchDocuments',
		url: { placeholder: 'https://app.example.com/sign/doc_8f3k2j', pathSegment: 'documents|sign' },
	},
	signingRequestId: {
		displayName: 'Signing Request ID',
		description:
			"The signing request's ID, e.g. from a document's signature_request_id or a trigger event",
		idPlaceholder: 'sr_4k2m9q',
	},
	templateId: {
		displayName: 'Template',
		description: 'The template to update',
		idPlaceholder: 'tpl_2b7x0d',
		searchListMethod: 'searchTemplates',
	},
	teamMemberId: {
		displayName: 'Team Member',
		description: 'The team member whose role changes',
		idPlaceholder: 'usr_5h1c8v',
		searchListMethod: 'searchTeamMembers',
	},
	webhookId: {
		displayName: 'Webhook ID',
		description:
			"The webhook's ID. For a delivery: `webhookId` in the trigger's output, `webhook_id` in a delivery body.",
		idPlaceholder: 'wh_7d2k1p',
	},
	deliveryId: {
		displayName: 'Delivery ID',
		description: "The delivery's ID, given as deliveryId in the trigger's output",
		idPlaceholder: 'dlv_3k9x0q',
	},
};

const PLACEHOLDER = /\{(\w+)\}/g;
const pathParameters = (option: INodePropertyOptions) =>
	[...String(option.routing?.request?.url ?? '').matchAll(PLACEHOLDER)].map((match) => match[1]);

/** The ID fields of a resource's operations, each shown with exactly those whose path takes it. */
export function idFields(operations: INodeProperties): INodeProperties[] {
	const options = operations.options as INodePropertyOptions[];
	const resource = String(operations.displayOptions?.show?.resource?.[0]);
	return [...new Set(options.flatMap(pathParameters))].flatMap((name): INodeProperties[] => {
		const { searchListMethod, ...field } = ID_FIELDS[name];
		const taking = options
			.filter((option) => pathParameters(option).includes(name))
			.map(({ value }) => String(value));
		const displayOptions = showFor(resource, taking);
		if (searchListMethod) {
			const locator = resourceLocator({ ...field, name, searchListMethod, displayOptions });
			return [locator, ...searchListPaging(displayOptions)];
		}
		const { displayName, idPlaceholder: placeholder, description } = field;
		const plain = { displayName, name, type: 'string' as const, default: '', required: true };
		return [{ ...plain, placeholder, description, displayOptions }];
	});
}

interface OperationSpec {
	name: string;
	value: string;
	action: string;
	description: string;
	method: IHttpRequestMethods;
	/** Under the Base URL; each `{parameter}` is filled from that ID parameter, checked and encoded. */
	path: string;
	/** Steps that check input (run by the hook, routedRequest.ts). */
	preSend?: PreSendAction[];
	/** The request body, built (and checked) after the preSend steps. */
	body?: (this: IExecuteSingleFunctions) => IDataObject | Promise<IDataObject>;
	/** From the response to the output items; a list's run on each page's records. */
	postReceive?: PostReceiveAction[];
	binaryResponse?: boolean;
	/** Read page by page up to Return All / Limit (fields.ts: returnAllAndLimit). */
	list?: boolean;
}

/** An Operation dropdown entry with its whole request, sent by the hook (routedRequest.ts). */
export function operation({
	method,
	path,
	preSend = [],
	body,
	postReceive = [],
	binaryResponse = false,
	list = false,
	...option
}: OperationSpec): INodePropertyOptions {
	const steps = [...preSend];
	if (path.includes('{'))
		steps.unshift(async function (this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
			options.url = path.replace(PLACEHOLDER, (_match, parameter: string) =>
				encodeURIComponent(
					requireId(
						this,
						ID_FIELDS[parameter].displayName,
						this.getNodeParameter(parameter, '', { extractValue: true }),
					),
				),
			);
			return options;
		});
	if (body)
		steps.push(async function (this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
			options.body = await body.call(this);
			return options;
		});
	return {
		...option,
		routing: {
			// The path as written: the first step sets the real one.
			request: {
				method,
				url: path,
				...(binaryResponse ? { encoding: 'arraybuffer', json: false } : {}),
			},
			send: { paginate: true, ...(steps.length ? { preSend: steps.map(inHook) } : {}) },
			operations: { pagination: list ? sendListRequests : sendRequest },
			...(postReceive.length ? { output: { postReceive } } : {}),
		},
	};
}

/** A Get Many of every page, with `filters` if any, keeping `simpleFields` of each record under Simplify. */
export function simpleList(
	resource: string,
	spec: Pick<OperationSpec, 'action' | 'description' | 'path'>,
	simpleFields: string[],
	filters: INodeProperties[] = [],
): { operation: INodePropertyOptions; fields: INodeProperties[] } {
	return {
		operation: operation({
			name: 'Get Many',
			value: 'getAll',
			...spec,
			method: 'GET',
			list: true,
			postReceive: [simplifyTo(simpleFields)],
		}),
		fields: [
			...returnAllAndLimit(resource, 'getAll'),
			...filters,
			simplifyField(resource, ['getAll']),
		],
	};
}

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
		options: byName(options),
		default: defaultValue,
	};
}
