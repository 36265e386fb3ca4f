import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { optionalFields, showFor } from '../../shared/fields';
import { operation } from '../../shared/operation';
import { invalid, requireText } from '../../shared/validation';
import { templateOptions } from './create';
import { templateBody } from './templateBody';

export const templateUpdateOperation = operation({
	name: 'Update',
	value: 'update',
	action: 'Update a template',
	description: 'Change some fields of a template; the others keep their values',
	method: 'PUT',
	path: '/templates/{templateId}',
	body() {
		const fields = this.getNodeParameter('updateFields', {}) as IDataObject;
		const body = templateBody(this, fields, 'Update Fields');
		if (fields.name !== undefined)
			body.name = requireText(this, 'Update Fields › Name', fields.name);
		if (!Object.keys(body).length)
			throw invalid(this, 'Update Fields', 'add at least one field to change');
		return body;
	},
});

export const templateUpdateFields: INodeProperties[] = [
	optionalFields(
		'Update Fields',
		'updateFields',
		showFor('template', ['update']),
		[
			...templateOptions,
			{
				displayName: 'Name',
				name: 'name',
				type: 'string',
				default: '',
				description: 'New name of the template',
			} satisfies INodeProperties,
		].sort((a, b) => a.displayName.localeCompare(b.displayName)),
	),
];
