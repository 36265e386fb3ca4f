import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { optionalFields, showFor } from '../../shared/fields';
import { operation } from '../../shared/operation';
import { requireText } from '../../shared/validation';
import { templateBody } from './templateBody';
import { templateOptions } from './templateOptions';

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
