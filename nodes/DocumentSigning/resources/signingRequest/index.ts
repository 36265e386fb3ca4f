import type { INodeProperties } from 'n8n-workflow';

import { operationProperty } from '../../shared/operation';
import { signingRequestCreateFields, signingRequestCreateOperation } from './create';
import { signingRequestGetStatusFields, signingRequestGetStatusOperation } from './getStatus';
import { signingRequestIdFields } from './idFields';
import { signingRequestRemindFields, signingRequestRemindOperation } from './remind';

/** Signing Request's Operation dropdown: each operation, with its fields, is the file named after its value. */
export const signingRequestOperations = operationProperty(
	'signingRequest',
	[signingRequestCreateOperation, signingRequestGetStatusOperation, signingRequestRemindOperation],
	'create',
);

/** Signing Request's fields, in the order n8n shows them. */
export const signingRequestFields: INodeProperties[] = [
	...signingRequestCreateFields,
	...signingRequestIdFields(signingRequestOperations),
	...signingRequestRemindFields,
	...signingRequestGetStatusFields,
];
