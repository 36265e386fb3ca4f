/**
 * Webhooks created with `expires_at` (docs/api-contract.md, "Webhooks"): once the business clock
 * passes it the service removes the webhook as if it had been deleted, logged as done by the system.
 */
import type { Services } from './context';
import { SYSTEM_ACTOR } from './events';

export function removeExpiredWebhooks(
	services: Pick<Services, 'store' | 'clock' | 'events' | 'dispatcher'>,
): void {
	const { store } = services;
	if (store.expiringWebhooks.size === 0) return;
	const now = services.clock.now();
	for (const [webhookId, accountId] of [...store.expiringWebhooks]) {
		const row = store.accounts.get(accountId)?.webhooks.get(webhookId);
		if (!row?.record.expires_at) {
			store.expiringWebhooks.delete(webhookId);
			continue;
		}
		if (Date.parse(row.record.expires_at) > now) continue;
		store.expiringWebhooks.delete(webhookId);
		store.account(accountId).webhooks.delete(webhookId);
		services.dispatcher.cancelWebhook(webhookId);
		services.events.emit({
			accountId,
			event: 'webhook.deleted',
			actor: SYSTEM_ACTOR,
			ip: null,
			documentId: null,
			details: { webhook_id: webhookId, url: row.record.url, reason: 'expired' },
		});
	}
}
