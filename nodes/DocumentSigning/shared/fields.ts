import type {
	IDisplayOptions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { ID_PATTERN } from '../../shared/ids';
import { listPagingMode, listPagingSettings } from '../../shared/listPaging';
import { requireText } from './validation';

/** Options in alphabetical order of their names, as n8n asks (lists built from the vocabulary are not). */
export function byName<T extends { name: string }>(options: T[]): T[] {
	return [...options].sort((a, b) => a.name.localeCompare(b.name));
}

export function showFor(
	resource: string,
	operations: string[],
	extra: IDisplayOptions['show'] = {},
): IDisplayOptions {
	return { show: { resource: [resource], operation: operations, ...extra } };
}

/** Return All / Limit / List Paging of a `list: true` operation (read by routedRequest.ts). */
export function returnAllAndLimit(resource: string, operation: string): INodeProperties[] {
	const displayOptions = showFor(resource, [operation]);
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
			displayOptions,
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: showFor(resource, [operation], { returnAll: [false] }),
		},
		...searchListPaging(displayOptions, 'How the node reads the pages of this list'),
	];
}

/** List Paging of node version 1 (by default of a From List); version 2 reads the credential's. */
export function searchListPaging(
	displayOptions: IDisplayOptions,
	description = 'How the node reads the pages of the list under From List',
): INodeProperties[] {
	// Every caller's displayOptions are showFor's: `show` only.
	const show = { ...displayOptions.show, '@version': [1] };
	return [
		{ ...listPagingMode(description), displayOptions: { show } },
		{
			displayName: 'List Paging Settings',
			name: 'listPagingSettings',
			type: 'collection',
			placeholder: 'Add Setting',
			default: {},
			displayOptions: { show: { ...show, listPaging: ['custom'] } },
			options: listPagingSettings(),
		},
	];
}

export function emailField(description: string): INodeProperties {
	return {
		displayName: 'Email',
		name: 'email',
		type: 'string',
		placeholder: 'name@email.com',
		default: '',
		required: true,
		description,
	};
}

export function simplifyField(resource: string, operations: string[]): INodeProperties {
	return {
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description: 'Whether to return a simplified version of the response instead of the raw data',
		displayOptions: showFor(resource, operations),
	};
}

export function outputFileField(resource: string, operations: string[]): INodeProperties {
	return {
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the output binary field to put the file in',
		displayOptions: showFor(resource, operations),
	};
}

export async function checkOutputFileField(
	this: IExecuteSingleFunctions,
	options: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	requireText(this, 'Put Output File in Field', this.getNodeParameter('binaryPropertyName', ''));
	return options;
}

/** Lets users send body fields the node does not know yet; merged last, so it wins. */
export const extraBodyFieldsOption: INodeProperties = {
	displayName: 'Extra Body Fields (JSON)',
	name: 'extraBodyFields',
	type: 'json',
	default: '{}',
	description:
		'More fields to send in the request body, as a JSON object. They are merged over the fields above, so use this for options the node does not offer yet.',
};

export function optionalFields(
	displayName: string,
	name: string,
	displayOptions: IDisplayOptions,
	options: INodeProperties[],
	placeholder = 'Add Field',
): INodeProperties {
	return {
		displayName,
		name,
		type: 'collection',
		placeholder,
		default: {},
		displayOptions,
		options,
	};
}

export function messageOption(description: string): INodeProperties {
	return {
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		description,
	};
}

export function resourceLocator({
	name,
	displayName,
	description,
	searchListMethod,
	idPlaceholder,
	url,
	displayOptions,
	required = true,
}: {
	name: string;
	displayName: string;
	description: string;
	searchListMethod: string;
	idPlaceholder: string;
	/** Adds a By URL mode taking the ID from links whose path has `/<segment>/<id>`. */
	url?: { placeholder: string; pathSegment: string };
	/** Left out for an option of a collection, which the collection shows. */
	displayOptions?: IDisplayOptions;
	required?: boolean;
}): INodeProperties {
	const link = `https?://.+/(?:${url?.pathSegment})/`;
	return {
		displayName,
		name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		...(required ? { required } : {}),
		description,
		...(displayOptions ? { displayOptions } : {}),
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod, searchable: true, searchFilterRequired: false },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: idPlaceholder,
				// The same check as requireId (shared/ids.ts), so the editor flags what the node refuses.
				validation: [
					{ type: 'regex', properties: { regex: ID_PATTERN, errorMessage: 'Not a valid ID' } },
				],
			},
			...(url
				? [
						{
							displayName: 'By URL',
							name: 'url',
							type: 'string' as const,
							placeholder: url.placeholder,
							validation: [
								{
									type: 'regex' as const,
									properties: { regex: `${link}[^/?#]+.*`, errorMessage: 'Not a valid URL' },
								},
							],
							extractValue: { type: 'regex' as const, regex: `${link}([^/?#]+)` },
						},
					]
				: []),
		],
	};
}
