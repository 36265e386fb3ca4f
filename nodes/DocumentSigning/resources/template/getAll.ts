import { filtersCollection, queryFilter } from '../../shared/listFilters';
import { simpleList } from '../../shared/operation';

export const { operation: templateGetAllOperation, fields: templateGetAllFields } = simpleList(
	'template',
	{ action: 'Get many templates', description: 'List templates', path: '/templates' },
	'id name description document_name signer_roles fields updated_at'.split(' '),
	[filtersCollection('template', 'getAll', [queryFilter('Name Contains', 'q')])],
);
