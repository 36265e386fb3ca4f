import type { INodeProperties } from 'n8n-workflow';

import { simplifyField } from '../../shared/fields';
import { operation } from '../../shared/operation';
import { simplifyTo } from '../../shared/postReceive';

const SIMPLE_FIELDS =
	'id document_id status signers reminders_sent last_reminded_at expires_at'.split(' ');

export const signingRequestGetStatusOperation = operation({
	name: 'Get Status',
	value: 'getStatus',
	action: 'Get the status of a signing request',
	description:
		"Get where a signing request stands and which signers have signed. Needs the request's ID: a document's signature_request_id.",
	method: 'GET',
	path: '/signatures/{signingRequestId}',
	postReceive: [simplifyTo(SIMPLE_FIELDS)],
});

export const signingRequestGetStatusFields: INodeProperties[] = [
	simplifyField('signingRequest', ['getStatus']),
];
