import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { TEMPLATE_FIELD_TYPES } from '../../../shared/vocabulary';
import {
	byName,
	extraBodyFieldsOption,
	messageOption,
	optionalFields,
	showFor,
} from '../../shared/fields';
import { capitalise } from '../../shared/listFilters';
import { operation } from '../../shared/operation';
import { requireText } from '../../shared/validation';
import { templateBody } from './templateBody';

/** Template fields offered both when creating (besides Name) and when updating. */
export const templateOptions: INodeProperties[] = [
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
							TEMPLATE_FIELD_TYPES.map((value) => ({
								name: value === 'choice' ? 'Choice From a List' : capitalise(value),
								value,
							})),
						),
					},
				],
			},
		],
	},
	messageOption('Default note to signers'),
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

export const templateCreateOperation = operation({
	name: 'Create',
	value: 'create',
	action: 'Create a template',
	description: 'Create a reusable document template',
	method: 'POST',
	path: '/templates',
	body() {
		const name = requireText(this, 'Name', this.getNodeParameter('templateName', ''));
		const fields = this.getNodeParameter('templateAdditionalFields', {}) as IDataObject;
		return { name, ...templateBody(this, fields, 'Additional Fields') };
	},
});

export const templateCreateFields: INodeProperties[] = [
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
	optionalFields(
		'Additional Fields',
		'templateAdditionalFields',
		showFor('template', ['create']),
		templateOptions,
	),
];
