/**
 * One place where things that happen are recorded: every event goes to the account's audit log,
 * and the ones in WEBHOOK_EVENTS are also handed to the webhook dispatcher.
 */
import type { AuditActor, AuditEvent, WebhookDeliveryBody } from '../contract';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../nodes/shared/vocabulary';
import type { Clock } from './clock';
import type { Store } from './store';
import type { WebhookDispatcher } from './dispatcher';

export interface EventInput {
	accountId: string;
	event: AuditEvent;
	actor: AuditActor;
	ip: string | null;
	documentId: string | null;
	details?: Record<string, unknown>;
	/** Webhook payload `data`; copied now so later changes do not alter what was sent. */
	data?: WebhookDeliveryBody['data'];
}

const DELIVERED_EVENTS = new Set<string>(WEBHOOK_EVENTS);

export const SYSTEM_ACTOR: AuditActor = { type: 'system', email: null };

export class EventBus {
	constructor(
		private readonly store: Store,
		private readonly clock: Clock,
		private readonly dispatcher: WebhookDispatcher,
	) {}

	emit(input: EventInput): void {
		const createdAt = this.clock.iso();
		const account = this.store.account(input.accountId);
		account.audit.push({
			seq: this.store.nextSeq(),
			record: {
				id: this.store.newId('auditEntry'),
				event: input.event,
				actor: { ...input.actor },
				document_id: input.documentId,
				ip: input.ip,
				details: structuredClone(input.details ?? {}),
				created_at: createdAt,
			},
		});
		this.store.changed();
		if (DELIVERED_EVENTS.has(input.event)) {
			this.dispatcher.enqueue(
				input.accountId,
				input.event as WebhookEvent,
				createdAt,
				structuredClone(input.data ?? {}),
			);
		}
	}
}
