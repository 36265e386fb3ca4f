import type { INodeProperties } from 'n8n-workflow';

import { returnAllAndLimit, simplifyField } from '../../shared/fields';
import { filtersCollection, queryFilter } from '../../shared/listFilters';
import { operation } from '../../shared/operation';
import { simplifyTo } from '../../shared/postReceive';

const SIMPLE_FIELDS = 'id name description document_name signer_roles fields updated_at'.split(' ');

export const templateGetAllOperation = operation({
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many templates',
	description: 'List templates',
	method: 'GET',
	path: '/templates',
	list: true,
	postReceive: [simplifyTo(SIMPLE_FIELDS)],
});

export const templateGetAllFields: INodeProperties[] = [
	...returnAllAndLimit('template', 'getAll'),
	filtersCollection('template', 'getAll', [queryFilter('Name Contains', 'q')]),
	simplifyField('template', ['getAll']),
];
