import { operation } from '../../shared/operation';

export const webhookAcknowledgeDeliveryOperation = operation({
	name: 'Acknowledge Delivery',
	value: 'acknowledgeDelivery',
	action: 'Acknowledge a webhook delivery',
	description:
		'Claim a delivery as processed: only the first claim succeeds (a repeat fails with HTTP 409), so a delivery received twice is processed once. The Document Signing Trigger does this by itself.',
	method: 'POST',
	path: '/webhooks/{webhookId}/deliveries/{deliveryId}/acknowledge',
});
