import { operation } from '../../shared/operation';
import { deletedResult } from '../../shared/postReceive';

export const webhookDeleteOperation = operation({
	name: 'Delete',
	value: 'delete',
	action: 'Delete a webhook',
	description: 'Stop sending events to a webhook',
	method: 'DELETE',
	path: '/webhooks/{webhookId}',
	postReceive: [deletedResult('webhookId')],
});
