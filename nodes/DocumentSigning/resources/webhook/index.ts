import type { IDataObject, IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';

import { deferErrors } from '../../../shared/transport';
import { ANY_EVENT, eventLabel, WEBHOOK_EVENTS } from '../../../shared/vocabulary';
import { extraBodyFieldsOption, returnAllAndLimit, showFor, simplifyField } from '../../shared/fields';
import { operation, operationProperty } from '../../shared/operation';
import { deletedResult, simplifyTo } from '../../shared/postReceive';
import { compact, invalid, requireText, withExtraBodyFields } from '../../shared/validation';

const SIMPLE_FIELDS = ['id', 'url', 'events', 'active', 'description'];

const buildWebhookBody = deferErrors(async function (this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
	const url = requireText(this, 'URL', this.getNodeParameter('url', ''));
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw invalid(this, 'URL', `"${url}" is not a valid URL`);
	}
	if (!/^https?:$/.test(parsed.protocol)) throw invalid(this, 'URL', 'must start with http:// or https://');
	const events = this.getNodeParameter('events', []) as string[];
	if (!events.length) throw invalid(this, 'Events', 'choose at least one event');
	const additional = this.getNodeParameter('additionalFields', {}) as IDataObject;
	if (typeof additional.secret === 'string' && additional.secret && additional.secret.length < 32) {
		throw invalid(this, 'Additional Fields › Secret', 'must be at least 32 characters long');
	}
	const body = compact({
		url,
		events: events.includes(ANY_EVENT) ? [ANY_EVENT] : events,
		description: additional.description,
		secret: additional.secret,
	});
	options.body = withExtraBodyFields(this, body, additional.extraBodyFields);
	return options;
});

function checkId(context: IExecuteSingleFunctions, parameter: string, displayName: string): void {
	const id = requireText(context, displayName, context.getNodeParameter(parameter, ''));
	if (/[/?#\s]/.test(id)) throw invalid(context, displayName, `"${id}" is not a valid ID`);
}

const checkWebhookId = deferErrors(async function (this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
	checkId(this, 'webhookId', 'Webhook ID');
	return options;
});

const checkDeliveryIds = deferErrors(async function (this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
	checkId(this, 'webhookId', 'Webhook ID');
	checkId(this, 'deliveryId', 'Delivery ID');
	return options;
});

const DELIVERY_URL = '=/webhooks/{{ encodeURIComponent($parameter.webhookId) }}/deliveries/{{ encodeURIComponent($parameter.deliveryId) }}';

export const webhookOperations = operationProperty(
	'webhook',
	[
		operation({
			name: 'Create',
			value: 'create',
			action: 'Create a webhook',
			description: 'Have the service call a URL when events happen. To start a workflow on events, use the Document Signing Trigger instead.',
			method: 'POST',
			url: '/webhooks',
			preSend: [buildWebhookBody],
		}),
		operation({
			name: 'Delete',
			value: 'delete',
			action: 'Delete a webhook',
			description: 'Stop sending events to a webhook',
			method: 'DELETE',
			url: '=/webhooks/{{ encodeURIComponent($parameter.webhookId) }}',
			preSend: [checkWebhookId],
			postReceive: [deletedResult('webhookId')],
		}),
		operation({
			name: 'Acknowledge Delivery',
			value: 'acknowledgeDelivery',
			action: 'Acknowledge a webhook delivery',
			description:
				'Claim a delivery as processed: only the first claim succeeds (a repeat fails with HTTP 409), so a delivery received twice is processed once. The Document Signing Trigger does this by itself.',
			method: 'POST',
			url: `${DELIVERY_URL}/acknowledge`,
			preSend: [checkDeliveryIds],
		}),
		operation({
			name: 'Get Delivery',
			value: 'getDelivery',
			action: 'Get a webhook delivery',
			description: 'Get the status of one delivery: pending, received, failed or acknowledged',
			method: 'GET',
			url: DELIVERY_URL,
			preSend: [checkDeliveryIds],
		}),
		operation({
			name: 'Get Many',
			value: 'getAll',
			action: 'Get many webhooks',
			description: 'List the configured webhooks',
			method: 'GET',
			url: '/webhooks',
			postReceive: [simplifyTo(SIMPLE_FIELDS)],
		}),
	],
	'getAll',
);

export const webhookFields: INodeProperties[] = [
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'https://example.com/hooks/signing',
		description: 'Where the service POSTs each event',
		displayOptions: showFor('webhook', ['create']),
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		default: [],
		required: true,
		description: 'Which events are sent to the URL',
		displayOptions: showFor('webhook', ['create']),
		options: [
			{ name: 'Any Event', value: ANY_EVENT },
			...WEBHOOK_EVENTS.map((value) => ({ name: eventLabel(value), value })),
		],
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showFor('webhook', ['create']),
		options: [
			{ displayName: 'Description', name: 'description', type: 'string', default: '' },
			extraBodyFieldsOption,
			{
				displayName: 'Secret',
				name: 'secret',
				type: 'string',
				typeOptions: { password: true },
				default: '',
				description: 'Key used to sign deliveries (at least 32 characters). Generated by the service when left empty.',
			},
		],
	},
	{
		displayName: 'Webhook ID',
		name: 'webhookId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'wh_7d2k1p',
		description: "The webhook's ID. For a delivery: `webhookId` in the trigger's output, `webhook_id` in a delivery body.",
		displayOptions: showFor('webhook', ['delete', 'acknowledgeDelivery', 'getDelivery']),
	},
	{
		displayName: 'Delivery ID',
		name: 'deliveryId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'dlv_3k9x0q',
		description: "The delivery's ID, given as deliveryId in the trigger's output",
		displayOptions: showFor('webhook', ['acknowledgeDelivery', 'getDelivery']),
	},
	...returnAllAndLimit('webhook', 'getAll'),
	simplifyField('webhook', ['getAll']),
];
