import { operation } from '../../shared/operation';
import { sendDateRange } from './period';

export const reportUsageOperation = operation({
	name: 'Usage',
	value: 'usage',
	action: 'Get usage statistics',
	description: 'Documents created, completed and declined, reminders and signatures in a period',
	method: 'GET',
	path: '/reports/usage',
	preSend: [sendDateRange],
});
