import type { INodeProperties } from 'n8n-workflow';

import { showForPathParameter } from '../../shared/operation';

/** Webhook ID and Delivery ID, each shown with every operation whose path takes it. */
export function webhookIdFields(operations: INodeProperties): INodeProperties[] {
	return [
		{
			displayName: 'Webhook ID',
			name: 'webhookId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'wh_7d2k1p',
			description:
				"The webhook's ID. For a delivery: `webhookId` in the trigger's output, `webhook_id` in a delivery body.",
			displayOptions: showForPathParameter(operations, 'webhookId'),
		},
		{
			displayName: 'Delivery ID',
			name: 'deliveryId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'dlv_3k9x0q',
			description: "The delivery's ID, given as deliveryId in the trigger's output",
			displayOptions: showForPathParameter(operations, 'deliveryId'),
		},
	];
}
