import type { INodeProperties } from 'n8n-workflow';

import { idFields, operation, operationProperty, simpleList } from '../../shared/operation';
import { deletedResult } from '../../shared/postReceive';
import { webhookCreateFields, webhookCreateOperation } from './create';

const getAll = simpleList(
	'webhook',
	{ action: 'Get many webhooks', description: 'List the configured webhooks', path: '/webhooks' },
	['id', 'url', 'events', 'active', 'description'],
);

export const webhookOperations = operationProperty(
	'webhook',
	[
		webhookCreateOperation,
		operation({
			name: 'Delete',
			value: 'delete',
			action: 'Delete a webhook',
			description: 'Stop sending events to a webhook',
			method: 'DELETE',
			path: '/webhooks/{webhookId}',
			postReceive: [deletedResult('webhookId')],
		}),
		operation({
			name: 'Acknowledge Delivery',
			value: 'acknowledgeDelivery',
			action: 'Acknowledge a webhook delivery',
			description:
				'Claim a delivery as processed: only the first claim succeeds (a repeat fails with HTTP 409), so a delivery received twice is processed once. The Document Signing Trigger does this by itself.',
			method: 'POST',
			path: '/webhooks/{webhookId}/deliveries/{deliveryId}/acknowledge',
		}),
		operation({
			name: 'Get Delivery',
			value: 'getDelivery',
			action: 'Get a webhook delivery',
			description: 'Get the status of one delivery: pending, received, failed or acknowledged',
			method: 'GET',
			path: '/webhooks/{webhookId}/deliveries/{deliveryId}',
		}),
		getAll.operation,
	],
	'getAll',
);

export const webhookFields: INodeProperties[] = [
	...webhookCreateFields,
	...idFields(webhookOperations),
	...getAll.fields,
];
