import { operation } from '../../shared/operation';
import { simplifyTo } from '../../shared/postReceive';
import { SIMPLE_FIELDS } from './simplify';

export const documentGetOperation = operation({
	name: 'Get',
	value: 'get',
	action: 'Get a document',
	description:
		'Get a document by ID with its status, signers, signing link and signature_request_id',
	method: 'GET',
	path: '/documents/{documentId}',
	postReceive: [simplifyTo(SIMPLE_FIELDS)],
});
