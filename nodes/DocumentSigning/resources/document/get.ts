import { operation } from '../../shared/operation';
import { simplifyTo } from '../../shared/postReceive';

/** What Simplify keeps of a document (Get and Get Many); signature_request_id is what Signing Request needs next. */
export const SIMPLE_FIELDS =
	'id name status signers signing_url signature_request_id fields created_at expires_at completed_at'.split(
		' ',
	);

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
