import type { IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';

import { DOCUMENT_STATUSES } from '../../../shared/vocabulary';
import {
	capitalise,
	checkOutputFileField,
	filtersCollection,
	outputFileField,
	queryChoiceFilter,
	queryFilter,
	resourceLocator,
	returnAllAndLimit,
	showFor,
	simplifyField,
	searchListPaging,
} from '../../shared/fields';
import { operation, operationProperty, showForPathParameter } from '../../shared/operation';
import { deletedResult, downloadedFile, simplifyTo } from '../../shared/postReceive';
import { invalid, optionalDate } from '../../shared/validation';
import { buildDocumentBody, documentCreateFields } from './create';
import { sendAndWaitFields, sendAndWaitOperation } from './sendAndWait/description';

// signature_request_id: what Signing Request → Get Status and Send Reminder need next (an AI
// agent reading a found document has nothing else to go on).
const SIMPLE_FIELDS = [
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

const checkListFilters = async function (
	this: IExecuteSingleFunctions,
	options: IHttpRequestOptions,
) {
	const filters = this.getNodeParameter('filters', {}) as {
		created_after?: string;
		created_before?: string;
	};
	const after = optionalDate(this, 'Filters › Created After', filters.created_after);
	const before = optionalDate(this, 'Filters › Created Before', filters.created_before);
	if (after && before && after > before)
		throw invalid(this, 'Filters › Created After', 'must be before Created Before');
	return options;
};

export const documentOperations = operationProperty(
	'document',
	[
		operation({
			name: 'Create',
			value: 'create',
			action: 'Create a document and send it for signing',
			description:
				'Create a document from a file or a template and send it to its signers, unless saved as a draft. Returns the document: ID, status, signers, signing link, signature_request_id.',
			method: 'POST',
			path: '/documents',
			preSend: [buildDocumentBody],
		}),
		operation({
			name: 'Delete',
			value: 'delete',
			action: 'Delete a document',
			description: 'Delete a document; a document still out for signing is cancelled first',
			method: 'DELETE',
			path: '/documents/{documentId}',
			postReceive: [deletedResult('documentId')],
		}),
		operation({
			name: 'Download',
			value: 'download',
			action: 'Download a document file',
			description: 'Download the original file, the signed PDF or the audit trail as binary data',
			method: 'GET',
			path: '/documents/{documentId}',
			preSend: [checkOutputFileField],
			postReceive: [downloadedFile('version', 'binaryPropertyName')],
		}),
		sendAndWaitOperation,
		operation({
			name: 'Get',
			value: 'get',
			action: 'Get a document',
			description:
				'Get a document by ID with its status, signers, signing link and signature_request_id',
			method: 'GET',
			path: '/documents/{documentId}',
			postReceive: [simplifyTo(SIMPLE_FIELDS)],
		}),
		operation({
			name: 'Get Many',
			value: 'getAll',
			action: 'Get many documents',
			description:
				'List documents, newest first, filtered by name, status or creation date. Each comes with its ID, status, signers and signature_request_id.',
			method: 'GET',
			path: '/documents',
			list: true,
			preSend: [checkListFilters],
			postReceive: [simplifyTo(SIMPLE_FIELDS)],
		}),
	],
	'create',
);

export const documentFields: INodeProperties[] = [
	...sendAndWaitFields.slice(0, 2),
	...documentCreateFields,
	...sendAndWaitFields.slice(2),
	resourceLocator({
		name: 'documentId',
		displayName: 'Document',
		description: 'The document to use',
		searchListMethod: 'searchDocuments',
		idPlaceholder: 'doc_8f3k2j',
		url: { placeholder: 'https://app.example.com/sign/doc_8f3k2j', pathSegment: 'documents|sign' },
		displayOptions: showForPathParameter(documentOperations, 'documentId'),
	}),
	...searchListPaging(showForPathParameter(documentOperations, 'documentId')),
	{
		displayName: 'Version',
		name: 'version',
		type: 'options',
		default: 'signed',
		description: 'Which file of the document to download',
		displayOptions: showFor('document', ['download']),
		options: [
			{
				name: 'Audit Trail',
				value: 'auditTrail',
				description: 'Who did what and when, as a PDF (available at any time)',
			},
			{ name: 'Original', value: 'original', description: 'The file as it was uploaded' },
			{
				name: 'Signed',
				value: 'signed',
				description: 'The signed PDF, once every signer has signed',
			},
		],
	},
	outputFileField('document', ['download']),
	...returnAllAndLimit('document', 'getAll'),
	{
		...filtersCollection('document', 'getAll'),
		options: [
			queryFilter('Created After', 'created_after', 'dateTime'),
			queryFilter('Created Before', 'created_before', 'dateTime'),
			queryFilter('Name Contains', 'q'),
			queryChoiceFilter('Status', 'status', DOCUMENT_STATUSES, capitalise, 'pending'),
		],
	},
	simplifyField('document', ['get', 'getAll']),
];
