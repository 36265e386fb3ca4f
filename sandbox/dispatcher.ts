/**
 * Webhook delivery (docs/api-contract.md, "Webhook deliveries").
 *
 * Each event becomes one delivery per subscribed active webhook: a fixed body and delivery id,
 * POSTed with a fresh timestamp and signature on every attempt. Any 2xx within the timeout ends
 * it; anything else is retried with exponential backoff up to `maxAttempts`. Deliveries run on
 * timers, never inside the API request that caused them.
 *
 * Memory stays bounded with a dead receiver: attempts per delivery are capped, pending deliveries
 * are capped (beyond that new ones are dropped and recorded as such), and the attempt history
 * keeps only the most recent entries.
 *
 * Every delivery also has a record (status, attempts, when received and acknowledged) that a
 * receiver can claim once through `acknowledge()`; records older than the acknowledgement
 * window, or beyond MAX_DELIVERY_RECORDS, are forgotten.
 */
import http from 'http';
import https from 'https';

import { LIMITS, type WebhookDelivery, type WebhookDeliveryBody } from '../contract';
import { DELIVERY_ATTEMPT_HEADER, type WEBHOOK_EVENTS } from '../nodes/shared/vocabulary';

type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
import { deliverySignatureHeaders } from './deliverySignature';
import { Clock } from './clock';
import { DEFAULT_DIALECT, numericIds, type Dialect } from './dialects';
import { ApiError, notFound } from './http';
import type { Store, WebhookRow } from './store';

export interface WebhookRetryOptions {
	baseDelayMs: number;
	maxAttempts: number;
	timeoutMs: number;
	/** Attempts in flight to one webhook URL at once (0: no limit); the others wait their turn. */
	concurrencyPerUrl: number;
}

/**
 * The contract's schedule: 1 s, 2 s, 4 s, … up to 8 attempts, each answered within 10 s, at
 * most 10 in flight per webhook URL.
 */
export const DEFAULT_WEBHOOK_RETRY: WebhookRetryOptions = {
	baseDelayMs: 1000,
	maxAttempts: 8,
	timeoutMs: LIMITS.deliveryTimeoutSeconds * 1000,
	concurrencyPerUrl: LIMITS.deliveryConcurrencyPerUrl,
};

/** One attempt to deliver one event to one webhook, as reported by Sandbox.deliveries(). */
export interface DeliveryAttempt {
	deliveryId: string;
	webhookId: string;
	accountId: string;
	event: WebhookEvent;
	url: string;
	/** 1-based. */
	attempt: number;
	startedAt: string;
	finishedAt: string;
	/** The receiver's HTTP status, or null when there was no answer. */
	status: number | null;
	/** Network error, timeout, or why the delivery was not attempted. */
	error: string | null;
	ok: boolean;
	/** The exact body sent (identical on every attempt of a delivery). */
	body: string;
}

interface PendingDelivery {
	id: string;
	accountId: string;
	webhookId: string;
	event: WebhookEvent;
	url: string;
	body: string;
	attempts: number;
}

export const MAX_PENDING_DELIVERIES = 10_000;
export const MAX_ATTEMPT_HISTORY = 10_000;
/** Delivery records kept for acknowledgement (the oldest go first). */
export const MAX_DELIVERY_RECORDS = 50_000;
/** The `delivery-own-times` dialect: how long after its event a delivery says it was made. */
export const DISPATCH_DELAY_MS = 7_000;
/** How long a delivery can be acknowledged after it was created (the contract's 24 hours). */
export const ACKNOWLEDGE_WINDOW_MS = 24 * 60 * 60 * 1000;

interface DeliveryRecordRow {
	accountId: string;
	/** Business time, for the acknowledgement window. */
	createdAtMs: number;
	record: WebhookDelivery;
}

export class WebhookDispatcher {
	private readonly pending = new Map<string, PendingDelivery>();
	/** Scheduled attempts by delivery id, so a removed webhook's retries can be cancelled. */
	private readonly timers = new Map<string, NodeJS.Timeout>();
	private readonly inFlight = new Set<http.ClientRequest>();
	/** Attempts in flight by webhook URL, and the due attempts waiting for a free slot (FIFO). */
	private readonly inFlightByUrl = new Map<string, number>();
	private readonly waitingByUrl = new Map<string, PendingDelivery[]>();
	private readonly history: DeliveryAttempt[] = [];
	/** Every delivery's record by id, oldest first (Map insertion order). */
	private readonly records = new Map<string, DeliveryRecordRow>();
	private flushWaiters: Array<() => void> = [];
	private closed = false;
	/** No keep-alive: an idle pooled socket would keep the process (and jest) alive after close. */
	private readonly httpAgent = new http.Agent({ keepAlive: false });
	private readonly httpsAgent = new https.Agent({ keepAlive: false });
	readonly counts = { succeeded: 0, failed: 0, dropped: 0, acknowledged: 0 };

	constructor(
		private readonly store: Store,
		private readonly retry: () => WebhookRetryOptions,
		/** The business clock: the records' timestamps and the acknowledgement window. */
		private readonly clock: Pick<Clock, 'now' | 'iso'> = new Clock(),
		/** The dialect's delivery axes: numeric ids in bodies, whether deliveries are signed. */
		private readonly dialect: () => Pick<
			Dialect,
			'ids' | 'deliverySignature' | 'deliveryTimes'
		> = () => DEFAULT_DIALECT,
	) {}

	/** Queues `event` for every active webhook of the account subscribed to it (or to `*`). */
	enqueue(
		accountId: string,
		event: WebhookEvent,
		createdAt: string,
		data: WebhookDeliveryBody['data'],
	): void {
		if (this.closed) return;
		const account = this.store.accounts.get(accountId);
		if (!account) return;
		const documentId = data.document?.id ?? data.signature_request?.document_id;
		if (this.dialect().deliveryTimes === 'dispatched')
			createdAt = new Date(this.clock.now() + DISPATCH_DELAY_MS).toISOString();
		for (const webhook of account.webhooks.values()) {
			if (!subscribed(webhook, event) || !forDocument(webhook, documentId) || this.expired(webhook))
				continue;
			const id = this.store.newId('delivery');
			const body: WebhookDeliveryBody = {
				id,
				event,
				created_at: createdAt,
				webhook_id: webhook.record.id,
				data,
			};
			const delivery: PendingDelivery = {
				id,
				accountId,
				webhookId: webhook.record.id,
				event,
				url: webhook.record.url,
				body: JSON.stringify(this.dialect().ids === 'numeric' ? numericIds(body) : body),
				attempts: 0,
			};
			if (this.pending.size >= MAX_PENDING_DELIVERIES) {
				this.counts.dropped++;
				this.record(delivery, 0, {
					status: null,
					error: 'dropped: too many pending deliveries',
					ok: false,
				});
				continue;
			}
			this.pending.set(id, delivery);
			this.remember(accountId, {
				id,
				webhook_id: webhook.record.id,
				event,
				created_at: createdAt,
				payload: JSON.parse(delivery.body) as WebhookDeliveryBody,
			});
			this.schedule(delivery, 0);
		}
	}

	/** Every attempt so far (most recent MAX_ATTEMPT_HISTORY), oldest first. */
	attempts(): DeliveryAttempt[] {
		return this.history.map((attempt) => ({ ...attempt }));
	}

	get pendingCount(): number {
		return this.pending.size;
	}

	/**
	 * Resolves once no delivery is pending (all succeeded or gave up) and no attempt is still on
	 * the wire: an attempt that was in flight when its delivery was claimed still reaches the
	 * receiver, and must not land in whatever runs after the flush.
	 */
	flush(): Promise<void> {
		if (this.pending.size === 0 && this.inFlight.size === 0) return Promise.resolve();
		return new Promise((resolve) => this.flushWaiters.push(resolve));
	}

	/** Forgets history, records and pending deliveries (used by reset). */
	clear(): void {
		this.cancelAll();
		this.history.length = 0;
		this.records.clear();
		this.counts.succeeded = this.counts.failed = this.counts.dropped = this.counts.acknowledged = 0;
	}

	/**
	 * The receiver claims a delivery: the first call wins and ends its retries; every later one is
	 * a 409. Synchronous, so two claims arriving together cannot both win.
	 */
	acknowledge(accountId: string, webhookId: string, deliveryId: string): WebhookDelivery {
		this.forgetExpired();
		const row = this.records.get(deliveryId);
		if (!row || row.accountId !== accountId || row.record.webhook_id !== webhookId)
			throw notFound('delivery', 'delivery_id');
		if (row.record.acknowledged_at !== null) {
			throw new ApiError(
				409,
				'already_acknowledged',
				`Delivery ${deliveryId} was already acknowledged at ${row.record.acknowledged_at}`,
			);
		}
		row.record.status = 'acknowledged';
		row.record.acknowledged_at = this.clock.iso();
		this.counts.acknowledged++;
		const delivery = this.pending.get(deliveryId);
		if (delivery) {
			// A scheduled retry is dropped; an attempt in flight finishes and sends nothing more.
			const timer = this.timers.get(deliveryId);
			if (timer) clearTimeout(timer);
			this.timers.delete(deliveryId);
			this.finish(delivery, true);
		}
		return structuredClone(row.record);
	}

	/** A delivery's record, or undefined. */
	deliveryRecord(deliveryId: string): WebhookDelivery | undefined {
		const row = this.records.get(deliveryId);
		return row ? structuredClone(row.record) : undefined;
	}

	/**
	 * A webhook's delivery records (GET /webhooks/{id}/deliveries), oldest first, with the times
	 * they say they were made: those within the acknowledgement window and MAX_DELIVERY_RECORDS.
	 */
	deliveriesOf(
		accountId: string,
		webhookId: string,
	): Array<{ at: number; seq: number; record: WebhookDelivery }> {
		this.forgetExpired();
		const rows: Array<{ at: number; seq: number; record: WebhookDelivery }> = [];
		for (const row of this.records.values())
			if (row.accountId === accountId && row.record.webhook_id === webhookId)
				rows.push({
					at: Date.parse(row.record.created_at),
					seq: rows.length,
					record: structuredClone(row.record),
				});
		return rows;
	}

	/** A delivery's record as its account sees it (GET /webhooks/{id}/deliveries/{delivery_id}). */
	deliveryOf(accountId: string, webhookId: string, deliveryId: string): WebhookDelivery {
		this.forgetExpired();
		const row = this.records.get(deliveryId);
		if (!row || row.accountId !== accountId || row.record.webhook_id !== webhookId)
			throw notFound('delivery', 'delivery_id');
		return structuredClone(row.record);
	}

	private remember(
		accountId: string,
		fields: Pick<WebhookDelivery, 'id' | 'webhook_id' | 'event' | 'created_at' | 'payload'>,
	): void {
		this.records.set(fields.id, {
			accountId,
			createdAtMs: this.clock.now(),
			record: {
				id: fields.id,
				webhook_id: fields.webhook_id,
				event: fields.event,
				created_at: fields.created_at,
				status: 'pending',
				attempts: 0,
				received_at: null,
				acknowledged_at: null,
				payload: fields.payload,
			},
		});
		while (this.records.size > MAX_DELIVERY_RECORDS) {
			const oldest = this.records.keys().next().value;
			if (oldest === undefined) break;
			this.records.delete(oldest);
		}
	}

	private forgetExpired(): void {
		const oldestKept = this.clock.now() - ACKNOWLEDGE_WINDOW_MS;
		for (const [id, row] of this.records) {
			if (row.createdAtMs >= oldestKept) break;
			this.records.delete(id);
		}
	}

	/** Keeps the record in step with an attempt's outcome (an acknowledged record stays so). */
	private updateRecord(
		deliveryId: string,
		change: { attempted?: boolean; received?: boolean; failed?: boolean },
	): void {
		const record = this.records.get(deliveryId)?.record;
		if (!record) return;
		if (change.attempted) record.attempts++;
		if (record.status === 'acknowledged') return;
		if (change.received) {
			record.status = 'received';
			record.received_at = this.clock.iso();
		} else if (change.failed) {
			record.status = 'failed';
		}
	}

	close(): void {
		this.closed = true;
		this.cancelAll();
		this.httpAgent.destroy();
		this.httpsAgent.destroy();
	}

	/** A webhook was removed: its scheduled retries end now instead of at their next attempt. */
	cancelWebhook(webhookId: string): void {
		for (const delivery of [...this.pending.values()]) {
			const timer = this.timers.get(delivery.id);
			if (delivery.webhookId !== webhookId || !timer) continue; // in-flight attempts finish first
			clearTimeout(timer);
			this.timers.delete(delivery.id);
			this.cancel(delivery);
		}
	}

	private cancel(delivery: PendingDelivery): void {
		this.record(delivery, delivery.attempts + 1, {
			status: null,
			error: 'cancelled: webhook removed',
			ok: false,
		});
		this.finish(delivery, false);
	}

	private webhookOf(delivery: PendingDelivery): WebhookRow | undefined {
		const webhook = this.store.accounts.get(delivery.accountId)?.webhooks.get(delivery.webhookId);
		return webhook?.record.active && !this.expired(webhook) ? webhook : undefined;
	}

	/** Past its `expires_at` on the business clock (the expiry sweep removes it soon after). */
	private expired(webhook: WebhookRow): boolean {
		return (
			webhook.record.expires_at !== undefined &&
			Date.parse(webhook.record.expires_at) <= this.clock.now()
		);
	}

	private cancelAll(): void {
		for (const timer of this.timers.values()) clearTimeout(timer);
		this.timers.clear();
		for (const request of this.inFlight) request.destroy();
		this.inFlight.clear();
		this.inFlightByUrl.clear();
		this.waitingByUrl.clear();
		this.pending.clear();
		this.notifyIfIdle();
	}

	private schedule(delivery: PendingDelivery, delayMs: number): void {
		const timer = setTimeout(() => {
			this.timers.delete(delivery.id);
			this.attempt(delivery);
		}, delayMs);
		// Retries must not keep a test process or the CLI alive on their own.
		timer.unref();
		this.timers.set(delivery.id, timer);
	}

	private attempt(delivery: PendingDelivery): void {
		if (this.closed || !this.pending.has(delivery.id)) return;
		const webhook = this.webhookOf(delivery);
		if (!webhook) {
			// Removed or disabled since it was queued.
			this.cancel(delivery);
			return;
		}
		const limit = this.retry().concurrencyPerUrl;
		const busy = this.inFlightByUrl.get(delivery.url) ?? 0;
		if (limit > 0 && busy >= limit) {
			const waiting = this.waitingByUrl.get(delivery.url) ?? [];
			waiting.push(delivery);
			this.waitingByUrl.set(delivery.url, waiting);
			return;
		}
		this.inFlightByUrl.set(delivery.url, busy + 1);

		delivery.attempts++;
		this.updateRecord(delivery.id, { attempted: true });
		const attemptNumber = delivery.attempts;
		const startedAt = new Date().toISOString();
		const { timeoutMs } = this.retry();
		let settled = false;

		const done = (status: number | null, error: string | null) => {
			if (settled) return;
			settled = true;
			clearTimeout(deadline);
			this.inFlight.delete(request);
			this.releaseSlot(delivery.url);
			const ok = status !== null && status >= 200 && status < 300;
			this.record(delivery, attemptNumber, { status, error, ok, startedAt });
			if (ok) this.updateRecord(delivery.id, { received: true });
			if (this.closed || !this.pending.has(delivery.id)) {
				this.notifyIfIdle();
				return;
			}
			if (ok) this.finish(delivery, true);
			else this.retryOrGiveUp(delivery);
		};

		let request: http.ClientRequest;
		try {
			const url = new URL(delivery.url);
			const transport = url.protocol === 'https:' ? https : http;
			// Transport time, not the business clock: receivers compare `t` with their own clock.
			const signatureHeaders = deliverySignatureHeaders(
				this.dialect().deliverySignature,
				webhook.secret,
				Math.floor(Date.now() / 1000),
				delivery.id,
				delivery.body,
			);
			request = transport.request(url, {
				method: 'POST',
				agent: url.protocol === 'https:' ? this.httpsAgent : this.httpAgent,
				headers: {
					'Content-Type': 'application/json',
					'Content-Length': String(Buffer.byteLength(delivery.body)),
					'User-Agent': 'document-signing-sandbox-webhooks/1',
					...signatureHeaders,
					'x-delivery-id': delivery.id,
					'x-event': delivery.event,
					[DELIVERY_ATTEMPT_HEADER]: String(attemptNumber),
				},
			});
		} catch (error) {
			settled = true;
			this.releaseSlot(delivery.url);
			this.record(delivery, attemptNumber, {
				status: null,
				error: `invalid request: ${String(error)}`,
				ok: false,
				startedAt,
			});
			this.retryOrGiveUp(delivery);
			return;
		}

		this.inFlight.add(request);
		const deadline = setTimeout(() => {
			done(null, `timeout after ${timeoutMs} ms`);
			request.destroy();
		}, timeoutMs);
		deadline.unref();

		request.on('response', (response) => {
			// The receiver's answer body is irrelevant; drain it so the socket is released.
			response.resume();
			done(response.statusCode ?? null, null);
		});
		request.on('error', (error) => done(null, error.message || String(error)));
		request.end(delivery.body);
	}

	/** Frees one slot of `url` and starts the next attempt waiting for it, if any. */
	private releaseSlot(url: string): void {
		const busy = (this.inFlightByUrl.get(url) ?? 1) - 1;
		if (busy > 0) this.inFlightByUrl.set(url, busy);
		else this.inFlightByUrl.delete(url);
		// On the next tick: the attempt that just ended records its outcome first.
		if (this.waitingByUrl.has(url)) setImmediate(() => this.startWaiting(url));
	}

	/** Starts waiting attempts of `url` while it has free slots (skipping deliveries ended meanwhile). */
	private startWaiting(url: string): void {
		const waiting = this.waitingByUrl.get(url) ?? [];
		const limit = this.retry().concurrencyPerUrl;
		while (
			waiting.length > 0 &&
			!this.closed &&
			(limit <= 0 || (this.inFlightByUrl.get(url) ?? 0) < limit)
		) {
			this.attempt(waiting.shift()!);
		}
		if (waiting.length === 0) this.waitingByUrl.delete(url);
	}

	private retryOrGiveUp(delivery: PendingDelivery): void {
		const { baseDelayMs, maxAttempts } = this.retry();
		if (!this.webhookOf(delivery)) {
			this.cancel(delivery);
			return;
		}
		if (delivery.attempts >= maxAttempts) {
			this.finish(delivery, false);
			return;
		}
		this.schedule(delivery, baseDelayMs * 2 ** (delivery.attempts - 1));
	}

	private finish(delivery: PendingDelivery, ok: boolean): void {
		this.pending.delete(delivery.id);
		if (!ok) this.updateRecord(delivery.id, { failed: true });
		if (ok) this.counts.succeeded++;
		else this.counts.failed++;
		this.notifyIfIdle();
	}

	private notifyIfIdle(): void {
		if (this.pending.size > 0 || this.inFlight.size > 0) return;
		const waiters = this.flushWaiters;
		this.flushWaiters = [];
		for (const resolve of waiters) resolve();
	}

	private record(
		delivery: PendingDelivery,
		attempt: number,
		outcome: { status: number | null; error: string | null; ok: boolean; startedAt?: string },
	): void {
		const now = new Date().toISOString();
		this.history.push({
			deliveryId: delivery.id,
			webhookId: delivery.webhookId,
			accountId: delivery.accountId,
			event: delivery.event,
			url: delivery.url,
			attempt,
			startedAt: outcome.startedAt ?? now,
			finishedAt: now,
			status: outcome.status,
			error: outcome.error,
			ok: outcome.ok,
			body: delivery.body,
		});
		if (this.history.length > MAX_ATTEMPT_HISTORY)
			this.history.splice(0, this.history.length - MAX_ATTEMPT_HISTORY);
	}
}

/** A webhook created for one document takes only that document's events. */
function forDocument(webhook: WebhookRow, documentId: string | undefined): boolean {
	return webhook.record.document_id === undefined || webhook.record.document_id === documentId;
}

function subscribed(webhook: WebhookRow, event: WebhookEvent): boolean {
	return (
		webhook.record.active &&
		(webhook.record.events.includes('*') || webhook.record.events.includes(event))
	);
}
