import type { INodeProperties } from 'n8n-workflow';

import { operationProperty } from '../../shared/operation';
import { documentCreateFields, documentCreateOperation } from './create';
import { documentDeleteOperation } from './delete';
import { documentDownloadFields, documentDownloadOperation } from './download';
import { documentGetOperation } from './get';
import { documentGetAllFields, documentGetAllOperation } from './getAll';
import { documentIdFields } from './idFields';
import { sendAndWaitFields, sendAndWaitOperation } from './sendAndWait/description';
import { documentSimplifyField } from './simplify';

/** Document's Operation dropdown: each operation, with its fields, is the file named after its value. */
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

/** Document's fields, in the order n8n shows them. */
export const documentFields: INodeProperties[] = [
	...sendAndWaitFields.slice(0, 2),
	...documentCreateFields,
	...sendAndWaitFields.slice(2),
	...documentIdFields(documentOperations),
	...documentDownloadFields,
	...documentGetAllFields,
	documentSimplifyField,
];
