/**
 * One place where things that happen are recorded: every event goes to the account's audit log,
 * and the ones in WEBHOOK_EVENTS are also handed to the webhook dispatcher. Tests may also log an
 * entry as given (append: any time text, never delivered), as a hostile or careless log would hold.
 */
import type { AuditActor, AuditEvent, AuditLogEntry, WebhookDeliveryBody } from '../contract';
import { WEBHOOK_EVENTS } from '../nodes/shared/vocabulary';
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

/** An audit-log entry as given to append() (the contract's field names). */
export interface RawAuditEntry {
	/** Any event name: one of the contract's, or any other text. */
	event: string;
	/** Any text: a UTC time, one without a zone, one far in the future, or no time at all. */
	created_at: string;
	/** Any text, e.g. another account's document id; null (default) for none. */
	document_id?: string | null;
	/** Default: the system, `{ type: 'system', email: null }`. */
	actor?: AuditActor;
	ip?: string | null;
	details?: Record<string, unknown>;
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
				input.event as (typeof WEBHOOK_EVENTS)[number],
				createdAt,
				structuredClone(input.data ?? {}),
			);
		}
	}

	/**
	 * Logs an entry exactly as given (its time kept as text; listed by its time, or where it was
	 * logged when the text is no time); nothing is delivered. Returns the stored entry.
	 */
	append(accountId: string, input: RawAuditEntry): AuditLogEntry {
		const account = this.store.account(accountId);
		const record = {
			id: this.store.newId('auditEntry'),
			event: input.event as AuditEvent,
			actor: { ...(input.actor ?? SYSTEM_ACTOR) },
			document_id: input.document_id ?? null,
			ip: input.ip ?? null,
			details: structuredClone(input.details ?? {}),
			created_at: input.created_at,
		};
		account.audit.push({ seq: this.store.nextSeq(), record, loggedAt: this.clock.now() });
		this.store.changed();
		return structuredClone(record);
	}
}
