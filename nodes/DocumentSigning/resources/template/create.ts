import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { showFor } from '../../shared/fields';
import { operation } from '../../shared/operation';
import { requireText } from '../../shared/validation';
import { templateBody } from './templateBody';
import { templateOptions } from './templateOptions';

const buildCreateBody = async function (
	this: IExecuteSingleFunctions,
	options: IHttpRequestOptions,
) {
	const name = requireText(this, 'Name', this.getNodeParameter('templateName', ''));
	const fields = this.getNodeParameter('templateAdditionalFields', {}) as IDataObject;
	options.body = { name, ...templateBody(this, fields, 'Additional Fields') };
	return options;
};

export const templateCreateOperation = operation({
	name: 'Create',
	value: 'create',
	action: 'Create a template',
	description: 'Create a reusable document template',
	method: 'POST',
	path: '/templates',
	preSend: [buildCreateBody],
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
	{
		displayName: 'Additional Fields',
		name: 'templateAdditionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showFor('template', ['create']),
		options: templateOptions,
	},
];
