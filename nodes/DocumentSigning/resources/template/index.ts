import type { INodeProperties } from 'n8n-workflow';

import { operationProperty } from '../../shared/operation';
import { templateCreateFields, templateCreateOperation } from './create';
import { templateGetAllFields, templateGetAllOperation } from './getAll';
import { templateIdFields } from './idFields';
import { templateUpdateFields, templateUpdateOperation } from './update';

/** Template's Operation dropdown: each operation, with its fields, is the file named after its value. */
export const templateOperations = operationProperty(
	'template',
	[templateCreateOperation, templateGetAllOperation, templateUpdateOperation],
	'getAll',
);

/** Template's fields, in the order n8n shows them. */
export const templateFields: INodeProperties[] = [
	...templateCreateFields,
	...templateIdFields(templateOperations),
	...templateUpdateFields,
	...templateGetAllFields,
];
