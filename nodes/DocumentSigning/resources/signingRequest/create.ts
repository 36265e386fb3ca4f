import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import {
	extraBodyFieldsOption,
	resourceLocator,
	searchListPaging,
	showFor,
} from '../../shared/fields';
import { operation } from '../../shared/operation';
import { signersField } from '../../shared/signers';
import {
	compact,
	invalid,
	optionalDate,
	readSigners,
	requireId,
	withExtraBodyFields,
} from '../../shared/validation';

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

export const signingRequestCreateOperation = operation({
	name: 'Create',
	value: 'create',
	action: 'Send a draft document for signing',
	description: 'Send a draft document to its signers',
	method: 'POST',
	path: '/signatures/request',
	preSend: [buildRequestBody],
});

export const signingRequestCreateFields: INodeProperties[] = [
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
];
