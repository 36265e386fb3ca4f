import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import {
	extraBodyFieldsOption,
	filtersCollection,
	queryFilter,
	resourceLocator,
	returnAllAndLimit,
	showFor,
	simplifyField,
	searchListPaging,
} from '../../shared/fields';
import { operation, operationProperty, showForPathParameter } from '../../shared/operation';
import { simplifyTo } from '../../shared/postReceive';
import {
	compact,
	invalid,
	readMetadata,
	requireEmail,
	requireText,
	withExtraBodyFields,
} from '../../shared/validation';

const SIMPLE_FIELDS = ['id', 'name', 'description', 'document_name', 'signer_roles', 'updated_at'];

/** Template fields offered both when creating (besides Name) and when updating. */
const templateOptions: INodeProperties[] = [
	{
		displayName: 'Description',
		name: 'description',
		type: 'string',
		default: '',
		description: 'What the template is for',
	},
	{
		displayName: 'Document Name',
		name: 'document_name',
		type: 'string',
		default: '',
		placeholder: 'nda.pdf',
		description: 'Name given to documents created from the template, with its extension',
	},
	extraBodyFieldsOption,
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		description: 'Default note to signers',
	},
	{
		displayName: 'Metadata (JSON)',
		name: 'metadata',
		type: 'json',
		default: '{}',
		description: 'Your own key/value pairs',
	},
	{
		displayName: 'Signer Roles',
		name: 'signer_roles',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Role',
		default: {},
		description: 'The parties who sign documents made from this template, in signing order',
		options: [
			{
				displayName: 'Role',
				name: 'role',
				values: [
					{
						displayName: 'Fixed Signer Email',
						name: 'email',
						type: 'string',
						placeholder: 'name@email.com',
						default: '',
						description:
							'Fill the role with the same person on every document, e.g. your own signatory. Leave empty to fill it per document.',
					},
					{
						displayName: 'Fixed Signer Name',
						name: 'name',
						type: 'string',
						default: '',
						description: 'Name of the fixed signer',
					},
					{
						displayName: 'Role Name',
						name: 'role',
						type: 'string',
						default: '',
						placeholder: 'Client',
					},
				],
			},
		],
	},
];

function templateBody(
	context: IExecuteSingleFunctions,
	fields: IDataObject,
	prefix: string,
): IDataObject {
	const body = compact({
		description: fields.description,
		document_name: fields.document_name,
		message: fields.message,
	});
	if (
		typeof fields.document_name === 'string' &&
		fields.document_name &&
		!/\.[A-Za-z0-9]{1,8}$/.test(fields.document_name)
	) {
		throw invalid(
			context,
			`${prefix} › Document Name`,
			`"${fields.document_name}" has no file extension`,
		);
	}
	const roles =
		((fields.signer_roles as IDataObject | undefined)?.role as IDataObject[] | undefined) ?? [];
	if (roles.length) {
		body.signer_roles = roles.map((entry, index) => {
			const label = `${prefix} › Signer Roles › Role ${index + 1}`;
			const role: IDataObject = {
				role: requireText(context, `${label} › Role Name`, entry.role),
				order: index + 1,
			};
			const email = typeof entry.email === 'string' ? entry.email.trim() : '';
			const name = typeof entry.name === 'string' ? entry.name.trim() : '';
			if (email || name) {
				role.email = requireEmail(context, `${label} › Fixed Signer Email`, email);
				role.name = requireText(context, `${label} › Fixed Signer Name`, name);
			}
			return role;
		});
	}
	const metadata = readMetadata(context, `${prefix} › Metadata (JSON)`, fields.metadata);
	if (metadata) body.metadata = metadata;
	return withExtraBodyFields(context, body, fields.extraBodyFields);
}

const buildCreateBody = async function (
	this: IExecuteSingleFunctions,
	options: IHttpRequestOptions,
) {
	const name = requireText(this, 'Name', this.getNodeParameter('templateName', ''));
	const fields = this.getNodeParameter('templateAdditionalFields', {}) as IDataObject;
	options.body = { name, ...templateBody(this, fields, 'Additional Fields') };
	return options;
};

const buildUpdateBody = async function (
	this: IExecuteSingleFunctions,
	options: IHttpRequestOptions,
) {
	const fields = this.getNodeParameter('updateFields', {}) as IDataObject;
	const body = templateBody(this, fields, 'Update Fields');
	if (fields.name !== undefined) body.name = requireText(this, 'Update Fields › Name', fields.name);
	if (!Object.keys(body).length)
		throw invalid(this, 'Update Fields', 'add at least one field to change');
	options.body = body;
	return options;
};

export const templateOperations = operationProperty(
	'template',
	[
		operation({
			name: 'Create',
			value: 'create',
			action: 'Create a template',
			description: 'Create a reusable document template',
			method: 'POST',
			path: '/templates',
			preSend: [buildCreateBody],
		}),
		operation({
			name: 'Get Many',
			value: 'getAll',
			action: 'Get many templates',
			description: 'List templates',
			method: 'GET',
			path: '/templates',
			list: true,
			postReceive: [simplifyTo(SIMPLE_FIELDS)],
		}),
		operation({
			name: 'Update',
			value: 'update',
			action: 'Update a template',
			description: 'Change some fields of a template; the others keep their values',
			method: 'PUT',
			path: '/templates/{templateId}',
			preSend: [buildUpdateBody],
		}),
	],
	'getAll',
);

export const templateFields: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'templateName',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'Mutual NDA',
		description: 'Name of the template',
		displayOptions: showFor('template', ['create']),
	},
	{
		displayName: 'Additional Fields',
		name: 'templateAdditionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showFor('template', ['create']),
		options: templateOptions,
	},
	resourceLocator({
		name: 'templateId',
		displayName: 'Template',
		description: 'The template to update',
		searchListMethod: 'searchTemplates',
		idPlaceholder: 'tpl_2b7x0d',
		displayOptions: showForPathParameter(templateOperations, 'templateId'),
	}),
	...searchListPaging(showForPathParameter(templateOperations, 'templateId')),
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showFor('template', ['update']),
		options: [
			...templateOptions,
			{
				displayName: 'Name',
				name: 'name',
				type: 'string',
				default: '',
				description: 'New name of the template',
			} as INodeProperties,
		].sort((a, b) => a.displayName.localeCompare(b.displayName)),
	},
	...returnAllAndLimit('template', 'getAll'),
	{
		...filtersCollection('template', 'getAll'),
		options: [queryFilter('Name Contains', 'q')],
	},
	simplifyField('template', ['getAll']),
];
