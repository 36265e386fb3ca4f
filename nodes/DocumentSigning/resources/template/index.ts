import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { TEMPLATE_FIELD_KEY_PATTERN, TEMPLATE_FIELD_TYPES } from '../../../shared/vocabulary';
import { coerceFieldValue, MAPPER_TYPES } from '../document/templateFields';
import {
	byName,
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
import { shownInput } from '../../../shared/transport/errors';

const SIMPLE_FIELDS = [
	'id',
	'name',
	'description',
	'document_name',
	'signer_roles',
	'fields',
	'updated_at',
];

const FIELD_TYPE_LABELS: Record<(typeof TEMPLATE_FIELD_TYPES)[number], string> = {
	text: 'Text',
	number: 'Number',
	date: 'Date',
	checkbox: 'Checkbox',
	choice: 'Choice From a List',
};

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
		displayName: 'Fields',
		name: 'fields',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Field',
		default: {},
		description:
			'What each document made from the template is filled with (customer name, price, start date…), in this order. An update replaces them all.',
		options: [
			{
				displayName: 'Field',
				name: 'field',
				values: [
					{
						displayName: 'Choices',
						name: 'options',
						type: 'string',
						default: '',
						placeholder: 'Basic, Pro, Enterprise',
						description: 'The choices, separated by commas',
						displayOptions: { show: { type: ['choice'] } },
					},
					{
						displayName: 'Default Value',
						name: 'default',
						type: 'string',
						default: '',
						description:
							'Taken when a document gives no value, written as its type wants: 12000, 2026-01-15, true',
					},
					{
						displayName: 'Filled By Role',
						name: 'role',
						type: 'string',
						default: '',
						placeholder: 'Client',
						description:
							'The signer role that fills the field when signing. Leave empty to fill it when each document is created.',
					},
					{
						displayName: 'Key',
						name: 'key',
						type: 'string',
						default: '',
						required: true,
						placeholder: 'customer_name',
						description: 'How documents fill the field: a letter, then letters, digits and _',
					},
					{
						displayName: 'Label',
						name: 'label',
						type: 'string',
						default: '',
						placeholder: 'Customer name',
						description: 'What people read; the key when left empty',
					},
					{
						displayName: 'Required',
						name: 'required',
						type: 'boolean',
						default: false,
						description:
							'Whether every document must give a value (unless the field has a default or a role fills it)',
					},
					{
						displayName: 'Type',
						name: 'type',
						type: 'options',
						default: 'text',
						options: byName(
							TEMPLATE_FIELD_TYPES.map((value) => ({ name: FIELD_TYPE_LABELS[value], value })),
						),
					},
				],
			},
		],
	},
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
			`${shownInput(String(fields.document_name))} has no file extension`,
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
	const definitions =
		((fields.fields as IDataObject | undefined)?.field as IDataObject[] | undefined) ?? [];
	if (definitions.length) {
		const roleNames = body.signer_roles
			? (body.signer_roles as IDataObject[]).map((role) => String(role.role))
			: undefined;
		const keys = new Set<string>();
		body.fields = definitions.map((entry, index) => {
			const field = templateField(
				context,
				`${prefix} › Fields › Field ${index + 1}`,
				entry,
				roleNames,
			);
			const key = String(field.key).toLowerCase();
			if (keys.has(key))
				throw invalid(
					context,
					`${prefix} › Fields › Field ${index + 1} › Key`,
					`${shownInput(String(field.key))} is listed twice`,
				);
			keys.add(key);
			return field;
		});
	}
	const metadata = readMetadata(context, `${prefix} › Metadata (JSON)`, fields.metadata);
	if (metadata) body.metadata = metadata;
	return withExtraBodyFields(context, body, fields.extraBodyFields);
}

/** One entry of Fields as the API's field definition, checked as the service would. */
function templateField(
	context: IExecuteSingleFunctions,
	label: string,
	entry: IDataObject,
	roleNames: string[] | undefined,
): IDataObject {
	const key = requireText(context, `${label} › Key`, entry.key);
	if (!TEMPLATE_FIELD_KEY_PATTERN.test(key))
		throw invalid(
			context,
			`${label} › Key`,
			`${shownInput(key)} is not a key: start with a letter, then use letters, digits and _ (64 at most)`,
		);
	const type = String(entry.type ?? 'text') as (typeof TEMPLATE_FIELD_TYPES)[number];
	if (!TEMPLATE_FIELD_TYPES.includes(type))
		throw invalid(context, `${label} › Type`, `${shownInput(type)} is not a field type`);
	const field: IDataObject = compact({
		key,
		label: typeof entry.label === 'string' ? entry.label.trim() : undefined,
		type,
		required: entry.required === true || undefined,
	});
	let options: string[] = [];
	if (type === 'choice') {
		options = String(entry.options ?? '')
			.split(',')
			.map((option) => option.trim())
			.filter(Boolean);
		if (options.length === 0)
			throw invalid(context, `${label} › Choices`, 'give the choices, separated by commas');
		const twice = options.find((option, index) => options.indexOf(option) !== index);
		if (twice !== undefined)
			throw invalid(context, `${label} › Choices`, `${shownInput(twice)} is listed twice`);
		field.options = options;
	}
	if (entry.default !== undefined && entry.default !== null && entry.default !== '') {
		const result = coerceFieldValue(
			{
				type: MAPPER_TYPES[type],
				options: options.map((option) => ({ name: option, value: option })),
			},
			entry.default,
		);
		if ('problem' in result) throw invalid(context, `${label} › Default Value`, result.problem);
		field.default = result.value;
	}
	const role = typeof entry.role === 'string' ? entry.role.trim() : '';
	if (role) {
		if (roleNames && !roleNames.some((name) => name.toLowerCase() === role.toLowerCase()))
			throw invalid(
				context,
				`${label} › Filled By Role`,
				`${shownInput(role)} is not one of the Signer Roles (${roleNames.join(', ') || 'none'})`,
			);
		field.role = role;
	}
	return field;
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
