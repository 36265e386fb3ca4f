import type { INodeProperties } from 'n8n-workflow';

import { idFields, operationProperty } from '../../shared/operation';
import { webhookAcknowledgeDeliveryOperation } from './acknowledgeDelivery';
import { webhookCreateFields, webhookCreateOperation } from './create';
import { webhookDeleteOperation } from './delete';
import { webhookGetAllFields, webhookGetAllOperation } from './getAll';
import { webhookGetDeliveryOperation } from './getDelivery';

export const webhookOperations = operationProperty(
	'webhook',
	[
		webhookCreateOperation,
		webhookDeleteOperation,
		webhookAcknowledgeDeliveryOperation,
		webhookGetDeliveryOperation,
		webhookGetAllOperation,
	],
	'getAll',
);

export const webhookFields: INodeProperties[] = [
	...webhookCreateFields,
	...idFields(webhookOperations),
	...webhookGetAllFields,
];
