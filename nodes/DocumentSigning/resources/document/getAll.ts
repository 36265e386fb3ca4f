import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { DOCUMENT_STATUSES } from '../../../shared/vocabulary';
import { returnAllAndLimit } from '../../shared/fields';
import {
	capitalise,
	filtersCollection,
	queryChoiceFilter,
	queryFilter,
} from '../../shared/listFilters';
import { operation } from '../../shared/operation';
import { simplifyTo } from '../../shared/postReceive';
import { invalid, optionalDate } from '../../shared/validation';
import { SIMPLE_FIELDS } from './get';

const checkListFilters = async function (
	this: IExecuteSingleFunctions,
	options: IHttpRequestOptions,
) {
	const filters = this.getNodeParameter('filters', {}) as IDataObject;
	const after = optionalDate(this, 'Filters › Created After', filters.created_after);
	const before = optionalDate(this, 'Filters › Created Before', filters.created_before);
	if (after && before && after > before)
		throw invalid(this, 'Filters › Created After', 'must be before Created Before');
	return options;
};

export const documentGetAllOperation = operation({
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many documents',
	description:
		'List documents, newest first, filtered by name, status or creation date. Each comes with its ID, status, signers and signature_request_id.',
	method: 'GET',
	path: '/documents',
	list: true,
	preSend: [checkListFilters],
	postReceive: [simplifyTo(SIMPLE_FIELDS)],
});

export const documentGetAllFields: INodeProperties[] = [
	...returnAllAndLimit('document', 'getAll'),
	filtersCollection('document', 'getAll', [
		queryFilter('Created After', 'created_after', 'dateTime'),
		queryFilter('Created Before', 'created_before', 'dateTime'),
		queryFilter('Name Contains', 'q'),
		queryChoiceFilter('Status', 'status', DOCUMENT_STATUSES, capitalise, 'pending'),
	]),
];
