import { simplifyField } from '../../shared/fields';

/** What Simplify keeps of a document; signature_request_id is what Signing Request needs next. */
export const SIMPLE_FIELDS = [
	'id',
	'name',
	'status',
	'signers',
	'signing_url',
	'signature_request_id',
	'fields',
	'created_at',
	'expires_at',
	'completed_at',
];

export const documentSimplifyField = simplifyField('document', ['get', 'getAll']);
