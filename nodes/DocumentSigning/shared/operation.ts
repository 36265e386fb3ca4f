import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INodeProperties,
	INodePropertyOptions,
	PreSendAction,
} from 'n8n-workflow';

import { deferErrors } from './deferredErrors';
import { resourceLocator, searchListPaging, showFor } from './fields';
import type { OutputStep } from './postReceive';
import { sendListRequests, sendRequest } from './routedRequest';
import { requireId } from './validation';

/**
 * An Operation dropdown entry with its whole request: `{parameter}` path segments are filled from
 * that ID parameter, checked and encoded; the transport is routedRequest.ts.
 */

interface IdField {
	/** As the editor shows it, and as error messages name it. */
	displayName: string;
	description: string;
	placeholder: string;
	/** A resource locator searching this method (else a plain text field). */
	searchListMethod?: string;
	url?: { placeholder: string; pathSegment: string };
}

/** The field of each ID parameter an operation's path takes. */
const ID_FIELDS: Record<string, IdField> = {
	documentId: {
		displayName: 'Document',
		description: 'The document to use',
		placeholder: 'doc_8f3k2j',
		searchListMethod: 'searchDocuments',
		url: { placeholder: 'https://app.example.com/sign/doc_8f3k2j', pathSegment: 'documents|sign' },
	},
	signingRequestId: {
		displayName: 'Signing Request ID',
		description:
			"The signing request's ID, e.g. from a document's signature_request_id or a trigger event",
		placeholder: 'sr_4k2m9q',
	},
	templateId: {
		displayName: 'Template',
		description: 'The template to update',
		placeholder: 'tpl_2b7x0d',
		searchListMethod: 'searchTemplates',
	},
	teamMemberId: {
		displayName: 'Team Member',
		description: 'The team member whose role changes',
		placeholder: 'usr_5h1c8v',
		searchListMethod: 'searchTeamMembers',
	},
	webhookId: {
		displayName: 'Webhook ID',
		description:
			"The webhook's ID. For a delivery: `webhookId` in the trigger's output, `webhook_id` in a delivery body.",
		placeholder: 'wh_7d2k1p',
	},
	deliveryId: {
		displayName: 'Delivery ID',
		description: "The delivery's ID, given as deliveryId in the trigger's output",
		placeholder: 'dlv_3k9x0q',
	},
};

export const ID_PARAMETER_LABELS: Record<string, string> = Object.fromEntries(
	Object.entries(ID_FIELDS).map(([parameter, field]) => [parameter, field.displayName]),
);

const PLACEHOLDER = /\{(\w+)\}/g;

/** The parameters a path takes its IDs from: `/webhooks/{webhookId}` → ['webhookId']. */
function pathParameters(path: string): string[] {
	return [...path.matchAll(PLACEHOLDER)].map((match) => match[1]);
}

/** The ID fields of a resource's operations, each shown with exactly those whose path takes it. */
export function idFields(operations: INodeProperties): INodeProperties[] {
	const options = operations.options as INodePropertyOptions[];
	const resource = String(operations.displayOptions?.show?.resource?.[0]);
	const parametersOf = (option: INodePropertyOptions) =>
		pathParameters(String(option.routing?.request?.url ?? ''));
	const names = [...new Set(options.flatMap(parametersOf))];
	return names.flatMap((name): INodeProperties[] => {
		const { displayName, description, placeholder, searchListMethod, url } = ID_FIELDS[name];
		const taking = options.filter((option) => parametersOf(option).includes(name));
		const displayOptions = showFor(
			resource,
			taking.map((option) => String(option.value)),
		);
		if (!searchListMethod) {
			return [
				{
					displayName,
					name,
					type: 'string',
					default: '',
					required: true,
					placeholder,
					description,
					displayOptions,
				},
			];
		}
		return [
			resourceLocator({
				name,
				displayName,
				description,
				searchListMethod,
				idPlaceholder: placeholder,
				url,
				displayOptions,
			}),
			...searchListPaging(displayOptions),
		];
	});
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

/** A preSend step that sets the request body `build` returns. */
function sendBody(build: BodyBuilder): PreSendAction {
	return async function (this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
		options.body = await build.call(this);
		return options;
	};
}

type BodyBuilder = (this: IExecuteSingleFunctions) => IDataObject | Promise<IDataObject>;

export interface OperationSpec {
	name: string;
	value: string;
	action: string;
	description: string;
	method: IHttpRequestMethods;
	/** Path under the Base URL, e.g. `/documents/{documentId}`. */
	path: string;
	/** Steps that check input; their errors are deferred. */
	preSend?: PreSendAction[];
	/** The request body, built (and checked) after the preSend steps. */
	body?: BodyBuilder;
	/** Steps from the response to the output items; a list's run on each page's records. */
	postReceive?: OutputStep[];
	binaryResponse?: boolean;
	/** A list of records, read page by page up to Return All / Limit (fields.ts: returnAllAndLimit). */
	list?: boolean;
}

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
	const steps = [
		...(pathParameters(path).length ? [fillPath(path)] : []),
		...preSend,
		...(body ? [sendBody(body)] : []),
	].map(deferErrors);
	return {
		...option,
		routing: {
			request: {
				method,
				// The template, not an expression: fillPath sets the real path before sending.
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
