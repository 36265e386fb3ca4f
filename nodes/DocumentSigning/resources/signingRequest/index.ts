import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import {
	extraBodyFieldsOption,
	resourceLocator,
	showFor,
	signersField,
	simplifyField,
	searchListPaging,
} from '../../shared/fields';
import { operation, operationProperty, showForPathParameter } from '../../shared/operation';
import { simplifyTo } from '../../shared/postReceive';
import {
	compact,
	invalid,
	optionalDate,
	readSigners,
	requireId,
	withExtraBodyFields,
} from '../../shared/validation';

const SIMPLE_FIELDS = [
	'id',
	'document_id',
	'status',
	'signers',
	'reminders_sent',
	'last_reminded_at',
	'expires_at',
];

const buildRequestBody = async function (
	this: IExecuteSingleFunctions,
	options: IHttpRequestOptions,
) {
	const documentId = requireId(this, 'draftDocumentId', 'Document');
	const additional = this.getNodeParameter('signingRequestAdditionalFields', {}) as IDataObject;
	const expiresAt = optionalDate(this, 'Additional Fields › Expires At', additional.expires_at);
	if (expiresAt && Date.parse(expiresAt) <= Date.now())
		throw invalid(this, 'Additional Fields › Expires At', 'must be in the future');
	const body = compact({
		document_id: documentId,
		signers: readSigners(this, { required: false, parameter: 'requestSigners' }),
		message: additional.message,
		expires_at: expiresAt,
	});
	options.body = withExtraBodyFields(this, body, additional.extraBodyFields);
	return options;
};

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

export const signingRequestOperations = operationProperty(
	'signingRequest',
	[
		operation({
			name: 'Create',
			value: 'create',
			action: 'Send a draft document for signing',
			description: 'Send a draft document to its signers',
			method: 'POST',
			path: '/signatures/request',
			preSend: [buildRequestBody],
		}),
		operation({
			name: 'Get Status',
			value: 'getStatus',
			action: 'Get the status of a signing request',
			description:
				"Get where a signing request stands and which signers have signed. Needs the request's ID: a document's signature_request_id.",
			method: 'GET',
			path: '/signatures/{signingRequestId}',
			postReceive: [simplifyTo(SIMPLE_FIELDS)],
		}),
		operation({
			name: 'Send Reminder',
			value: 'remind',
			action: 'Send a reminder for a signing request',
			description:
				"Remind every signer who has not signed yet. Needs the request's ID: a document's signature_request_id. Returns the request with its reminder count.",
			method: 'POST',
			path: '/signatures/{signingRequestId}/remind',
			preSend: [buildReminderBody],
		}),
	],
	'create',
);

export const signingRequestFields: INodeProperties[] = [
	resourceLocator({
		name: 'draftDocumentId',
		displayName: 'Document',
		description: 'The draft document to send',
		searchListMethod: 'searchDocuments',
		idPlaceholder: 'doc_8f3k2j',
		displayOptions: showFor('signingRequest', ['create']),
	}),
	...searchListPaging(showFor('signingRequest', ['create'])),
	signersField('signingRequest', ['create'], {
		name: 'requestSigners',
		required: false,
		description: "Who signs. Leave empty to use the document's own signers.",
	}),
	{
		displayName: 'Additional Fields',
		name: 'signingRequestAdditionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showFor('signingRequest', ['create']),
		options: [
			{
				displayName: 'Expires At',
				name: 'expires_at',
				type: 'dateTime',
				default: '',
				description: 'When signing closes',
			},
			extraBodyFieldsOption,
			{
				displayName: 'Message',
				name: 'message',
				type: 'string',
				typeOptions: { rows: 3 },
				default: '',
				description: 'Note shown to signers in the invitation',
			},
		],
	},
	{
		displayName: 'Signing Request ID',
		name: 'signingRequestId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'sr_4k2m9q',
		description:
			"The signing request's ID, e.g. from a document's signature_request_id or a trigger event",
		displayOptions: showForPathParameter(signingRequestOperations, 'signingRequestId'),
	},
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
	simplifyField('signingRequest', ['getStatus']),
];
