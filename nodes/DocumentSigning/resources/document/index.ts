import type { INodeProperties } from 'n8n-workflow';

import { simplifyField } from '../../shared/fields';
import { idFields, operationProperty } from '../../shared/operation';
import { documentCreateFields, documentCreateOperation } from './create';
import { documentDeleteOperation } from './delete';
import { documentDownloadFields, documentDownloadOperation } from './download';
import { documentGetOperation } from './get';
import { documentGetAllFields, documentGetAllOperation } from './getAll';
import {
	sendAndWaitFields,
	sendAndWaitOperation,
	sendAndWaitSourceFields,
} from './sendAndWait/description';

export const documentOperations = operationProperty(
	'document',
	[
		documentCreateOperation,
		documentDeleteOperation,
		documentDownloadOperation,
		sendAndWaitOperation,
		documentGetOperation,
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
