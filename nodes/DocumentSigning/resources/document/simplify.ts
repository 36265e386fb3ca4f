import { simplifyField } from '../../shared/fields';

/**
 * What Simplify keeps of a document, for Get and Get Many. signature_request_id: what Signing
 * Request → Get Status and Send Reminder need next (an AI agent reading a found document has
 * nothing else to go on).
 */
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
