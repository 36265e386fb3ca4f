import type { INodeProperties } from 'n8n-workflow';

import { operationProperty } from '../../shared/operation';
import { webhookAcknowledgeDeliveryOperation } from './acknowledgeDelivery';
import { webhookCreateFields, webhookCreateOperation } from './create';
import { webhookDeleteOperation } from './delete';
import { webhookGetAllFields, webhookGetAllOperation } from './getAll';
import { webhookGetDeliveryOperation } from './getDelivery';
import { webhookIdFields } from './idFields';

/** Webhook's Operation dropdown: each operation, with its fields, is the file named after its value. */
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

/** Webhook's fields, in the order n8n shows them. */
export const webhookFields: INodeProperties[] = [
	...webhookCreateFields,
	...webhookIdFields(webhookOperations),
	...webhookGetAllFields,
];
