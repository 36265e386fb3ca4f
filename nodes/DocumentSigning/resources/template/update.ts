import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { showFor } from '../../shared/fields';
import { operation } from '../../shared/operation';
import { invalid, requireText } from '../../shared/validation';
import { templateBody } from './templateBody';
import { templateOptions } from './templateOptions';

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

export const templateUpdateOperation = operation({
	name: 'Update',
	value: 'update',
	action: 'Update a template',
	description: 'Change some fields of a template; the others keep their values',
	method: 'PUT',
	path: '/templates/{templateId}',
	preSend: [buildUpdateBody],
});

export const templateUpdateFields: INodeProperties[] = [
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
];
