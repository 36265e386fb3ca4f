import { simpleList } from '../../shared/operation';

export const { operation: webhookGetAllOperation, fields: webhookGetAllFields } = simpleList(
	'webhook',
	{ action: 'Get many webhooks', description: 'List the configured webhooks', path: '/webhooks' },
	['id', 'url', 'events', 'active', 'description'],
);
