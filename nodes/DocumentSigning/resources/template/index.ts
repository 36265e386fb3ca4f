import type { INodeProperties } from 'n8n-workflow';

import { filtersCollection, queryFilter } from '../../shared/listFilters';
import { idFields, operationProperty, simpleList } from '../../shared/operation';
import { templateCreateFields, templateCreateOperation } from './create';
import { templateUpdateFields, templateUpdateOperation } from './update';

const getAll = simpleList(
	'template',
	{ action: 'Get many templates', description: 'List templates', path: '/templates' },
	'id name description document_name signer_roles fields updated_at'.split(' '),
	[filtersCollection('template', 'getAll', [queryFilter('Name Contains', 'q')])],
);

export const templateOperations = operationProperty(
	'template',
	[templateCreateOperation, getAll.operation, templateUpdateOperation],
	'getAll',
);

export const templateFields: INodeProperties[] = [
	...templateCreateFields,
	...idFields(templateOperations),
	...templateUpdateFields,
	...getAll.fields,
];
