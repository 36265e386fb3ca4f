import type { INodeProperties } from 'n8n-workflow';

import { idFields, operationProperty } from '../../shared/operation';
import { templateCreateFields, templateCreateOperation } from './create';
import { templateGetAllFields, templateGetAllOperation } from './getAll';
import { templateUpdateFields, templateUpdateOperation } from './update';

export const templateOperations = operationProperty(
	'template',
	[templateCreateOperation, templateGetAllOperation, templateUpdateOperation],
	'getAll',
);

export const templateFields: INodeProperties[] = [
	...templateCreateFields,
	...idFields(templateOperations),
	...templateUpdateFields,
	...templateGetAllFields,
];
