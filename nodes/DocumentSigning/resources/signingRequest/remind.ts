import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { extraBodyFieldsOption, showFor } from '../../shared/fields';
import { operation } from '../../shared/operation';
import { compact, withExtraBodyFields } from '../../shared/validation';

const buildReminderBody = async function (
	this: IExecuteSingleFunctions,
	options: IHttpRequestOptions,
) {
	const reminder = this.getNodeParameter('reminderOptions', {}) as IDataObject;
	options.body = withExtraBodyFields(
		this,
		compact({ message: reminder.message }),
		reminder.extraBodyFields,
	);
	return options;
};

export const signingRequestRemindOperation = operation({
	name: 'Send Reminder',
	value: 'remind',
	action: 'Send a reminder for a signing request',
	description:
		"Remind every signer who has not signed yet. Needs the request's ID: a document's signature_request_id. Returns the request with its reminder count.",
	method: 'POST',
	path: '/signatures/{signingRequestId}/remind',
	preSend: [buildReminderBody],
});

export const signingRequestRemindFields: INodeProperties[] = [
	{
		displayName: 'Options',
		name: 'reminderOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: showFor('signingRequest', ['remind']),
		options: [
			extraBodyFieldsOption,
			{
				displayName: 'Message',
				name: 'message',
				type: 'string',
				typeOptions: { rows: 3 },
				default: '',
				description: 'Note added to the reminder',
			},
		],
	},
];
