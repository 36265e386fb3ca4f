import type { INodeProperties } from 'n8n-workflow';

import { idFields, operationProperty } from '../../shared/operation';
import { signingRequestCreateFields, signingRequestCreateOperation } from './create';
import { signingRequestGetStatusFields, signingRequestGetStatusOperation } from './getStatus';
import { signingRequestRemindFields, signingRequestRemindOperation } from './remind';

export const signingRequestOperations = operationProperty(
	'signingRequest',
	[signingRequestCreateOperation, signingRequestGetStatusOperation, signingRequestRemindOperation],
	'create',
);

export const signingRequestFields: INodeProperties[] = [
	...signingRequestCreateFields,
	...idFields(signingRequestOperations),
	...signingRequestRemindFields,
	...signingRequestGetStatusFields,
];
