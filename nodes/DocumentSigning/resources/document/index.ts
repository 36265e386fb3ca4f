import type { INodeProperties } from 'n8n-workflow';

import { simplifyField } from '../../shared/fields';
import { idFields, operation, operationProperty } from '../../shared/operation';
import { deletedResult, simplifyTo } from '../../shared/postReceive';
import { documentCreateFields, documentCreateOperation } from './create';
import { documentDownloadFields, documentDownloadOperation } from './download';
import { documentGetAllFields, documentGetAllOperation, SIMPLE_FIELDS } from './getAll';
import {
	sendAndWaitFields,
	sendAndWaitOperation,
	sendAndWaitSourceFields,
} from './sendAndWait/description';

export const documentOperations = operationProperty(
	'document',
	[
		documentCreateOperation,
		operation({
			name: 'Delete',
			value: 'delete',
			action: 'Delete a document',
			description: 'Delete a document; a document still out for signing is cancelled first',
			method: 'DELETE',
			path: '/documents/{documentId}',
			postReceive: [deletedResult('documentId')],
		}),
		documentDownloadOperation,
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
		documentGetAllOperation,
	],
	'create',
);

export const documentFields: INodeProperties[] = [
	...sendAndWaitSourceFields,
	...documentCreateFields,
	...sendAndWaitFields,
	...idFields(documentOperations),
	...documentDownloadFields,
	...documentGetAllFields,
	simplifyField('document', ['get', 'getAll']),
];
