import { operation } from '../../shared/operation';

export const webhookGetDeliveryOperation = operation({
	name: 'Get Delivery',
	value: 'getDelivery',
	action: 'Get a webhook delivery',
	description: 'Get the status of one delivery: pending, received, failed or acknowledged',
	method: 'GET',
	path: '/webhooks/{webhookId}/deliveries/{deliveryId}',
});
