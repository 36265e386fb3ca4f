import type { INodeProperties } from 'n8n-workflow';

import { returnAllAndLimit, simplifyField } from '../../shared/fields';
import { operation } from '../../shared/operation';
import { simplifyTo } from '../../shared/postReceive';

const SIMPLE_FIELDS = ['id', 'url', 'events', 'active', 'description'];

export const webhookGetAllOperation = operation({
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many webhooks',
	description: 'List the configured webhooks',
	method: 'GET',
	path: '/webhooks',
	list: true,
	postReceive: [simplifyTo(SIMPLE_FIELDS)],
});

export const webhookGetAllFields: INodeProperties[] = [
	...returnAllAndLimit('webhook', 'getAll'),
	simplifyField('webhook', ['getAll']),
];
