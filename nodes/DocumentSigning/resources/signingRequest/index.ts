import type { INodeProperties } from 'n8n-workflow';

import { simplifyField } from '../../shared/fields';
import { idFields, operation, operationProperty } from '../../shared/operation';
import { simplifyTo } from '../../shared/postReceive';
import { signingRequestCreateFields, signingRequestCreateOperation } from './create';
import { signingRequestRemindFields, signingRequestRemindOperation } from './remind';

export const signingRequestOperations = operationProperty(
	'signingRequest',
	[
		signingRequestCreateOperation,
		operation({
			name: 'Get Status',
			value: 'getStatus',
			action: 'Get the status of a signing request',
			description:
				"Get where a signing request stands and which signers have signed. Needs the request's ID: a document's signature_request_id.",
			method: 'GET',
			path: '/signatures/{signingRequestId}',
			postReceive: [
				simplifyTo(
					'id document_id status signers reminders_sent last_reminded_at expires_at'.split(' '),
				),
			],
		}),
		signingRequestRemindOperation,
	],
	'create',
);

export const signingRequestFields: INodeProperties[] = [
	...signingRequestCreateFields,
	...idFields(signingRequestOperations),
	...signingRequestRemindFields,
	simplifyField('signingRequest', ['getStatus']),
];
