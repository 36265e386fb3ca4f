import type { INodeProperties } from 'n8n-workflow';

import { checkOutputFileField, outputFileField, showFor } from '../../shared/fields';
import { operation } from '../../shared/operation';
import { downloadedFile } from '../../shared/postReceive';

export const documentDownloadOperation = operation({
	name: 'Download',
	value: 'download',
	action: 'Download a document file',
	description: 'Download the original file, the signed PDF or the audit trail as binary data',
	method: 'GET',
	path: '/documents/{documentId}',
	preSend: [checkOutputFileField],
	postReceive: [downloadedFile],
});

export const documentDownloadFields: INodeProperties[] = [
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
];
