import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { optionalFields, resourceLocator, searchListPaging, showFor } from '../../shared/fields';
import { sendingOptions } from '../commonFields';
import { operation } from '../../shared/operation';
import { signersField } from '../../shared/signers';
import { expiresAt, readSigners, requestBody, requireId } from '../../shared/validation';

export const signingRequestCreateOperation = operation({
	name: 'Create',
	value: 'create',
	action: 'Send a draft document for signing',
	description: 'Send a draft document to its signers',
	method: 'POST',
	path: '/signatures/request',
	body() {
		const draft = this.getNodeParameter('draftDocumentId', '', { extractValue: true });
		const documentId = requireId(this, 'Document', draft);
		const additional = this.getNodeParameter('signingRequestAdditionalFields', {}) as IDataObject;
		const expires = expiresAt(this, additional.expires_at);
		const body = {
			document_id: documentId,
			signers: readSigners(this, this.getNodeParameter('requestSigners', {}), false),
			message: additional.message,
			expires_at: expires,
		};
		return requestBody(this, body, additional.extraBodyFields);
	},
});

const show = showFor('signingRequest', ['create']);

export const signingRequestCreateFields: INodeProperties[] = [
	resourceLocator({
		name: 'draftDocumentId',
		displayName: 'Document',
		description: 'The draft document to send',
		searchListMethod: 'searchDocuments',
		idPlaceholder: 'doc_8f3k2j',
		displayOptions: show,
	}),
	...searchListPaging(show),
	signersField('signingRequest', ['create'], {
		name: 'requestSigners',
		description: "Who signs. Leave empty to use the document's own signers.",
	}),
	optionalFields('Additional Fields', 'signingRequestAdditionalFields', show, [
		...sendingOptions('When signing closes'),
	]),
];
