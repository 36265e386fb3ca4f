import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { extraBodyFieldsOption, messageOption, optionalFields, showFor } from '../../shared/fields';
import { operation } from '../../shared/operation';
import { requestBody } from '../../shared/validation';

export const signingRequestRemindOperation = operation({
	name: 'Send Reminder',
	value: 'remind',
	action: 'Send a reminder for a signing request',
	description:
		"Remind every signer who has not signed yet. Needs the request's ID: a document's signature_request_id. Returns the request with its reminder count.",
	method: 'POST',
	path: '/signatures/{signingRequestId}/remind',
	body() {
		const reminder = this.getNodeParameter('reminderOptions', {}) as IDataObject;
		return requestBody(this, { message: reminder.message }, reminder.extraBodyFields);
	},
});

export const signingRequestRemindFields: INodeProperties[] = [
	optionalFields(
		'Options',
		'reminderOptions',
		showFor('signingRequest', ['remind']),
		[extraBodyFieldsOption, messageOption('Note added to the reminder')],
		'Add Option',
	),
];
