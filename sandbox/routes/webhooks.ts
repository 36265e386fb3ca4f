/** /v1/webhooks: list, create (the only answer that shows the secret), delete; a delivery's record, acknowledging it. */
import {
	CreateWebhookBodySchema,
	ListWebhookDeliveriesQuerySchema,
	ListWebhooksQuerySchema,
	type WebhookRecord,
} from '../../contract';
import { created, noContent, ok, type ApiContext, type ApiHandler } from '../context';
import { notFound } from '../http';
import { randomToken } from '../ids';
import { listReply } from '../pagination';
import type { Router } from '../router';
import { validateBody, validateQuery } from '../validation';
import { documentOf, futureTimestamp } from './documents';

const listWebhooks: ApiHandler = {
	permission: 'read',
	handle(ctx) {
		const query = validateQuery(ListWebhooksQuerySchema, ctx.query);
		return listReply(ctx, 'webhooks', ctx.account.webhooks.values(), query);
	},
};

/**
 * Fields the dialect ignores altogether (not even validated): the client's `secret` with a
 * server-issued secret, `document_id` and `expires_at` when the service has no webhook filters,
 * everything but `url`, `events` and `secret` when it keeps no more.
 */
function withoutIgnoredFields(ctx: ApiContext): unknown {
	if (ctx.body === null || typeof ctx.body !== 'object' || Array.isArray(ctx.body)) return ctx.body;
	const body = ctx.body as Record<string, unknown>;
	const rest: Record<string, unknown> =
		ctx.dialect.webhookFields === 'url-events'
			? { url: body.url, events: body.events, secret: body.secret }
			: { ...body };
	if (ctx.dialect.webhookSecret !== 'client') delete rest.secret;
	if (ctx.dialect.webhookFilters === 'ignored') {
		delete rest.document_id;
		delete rest.expires_at;
	}
	return rest;
}

const createWebhook: ApiHandler = {
	permission: 'manage_account',
	handle(ctx) {
		const body = validateBody(CreateWebhookBodySchema, withoutIgnoredFields(ctx));
		const documentId =
			body.document_id === undefined
				? undefined
				: documentOf(ctx, body.document_id, 'document_id').record.id;
		const expiresAt = futureTimestamp(ctx, body.expires_at, 'expires_at') ?? undefined;
		const record: WebhookRecord = {
			id: ctx.services.store.newId('webhook'),
			url: body.url,
			events: [...body.events],
			description: body.description ?? null,
			active: true,
			created_at: ctx.services.clock.iso(),
			...(documentId === undefined ? {} : { document_id: documentId }),
			...(expiresAt === undefined ? {} : { expires_at: expiresAt }),
		};
		// 32 random bytes: the same strength as an HMAC-SHA256 key should have.
		const accountSecret =
			ctx.dialect.webhookSecret === 'account'
				? [...ctx.account.webhooks.values()][0]?.secret
				: undefined;
		const secret = body.secret ?? accountSecret ?? `whsec_${randomToken(32)}`;
		ctx.account.webhooks.set(record.id, { seq: ctx.services.store.nextSeq(), record, secret });
		if (expiresAt !== undefined) ctx.services.store.expiringWebhooks.set(record.id, ctx.account.id);
		ctx.services.events.emit({
			accountId: ctx.account.id,
			event: 'webhook.created',
			...ctx.by,
			documentId: null,
			details: {
				webhook_id: record.id,
				url: record.url,
				events: record.events,
				...(documentId === undefined ? {} : { document_id: documentId }),
			},
		});
		return created({ ...structuredClone(record), secret });
	},
};

const deleteWebhook: ApiHandler = {
	permission: 'manage_account',
	handle(ctx) {
		const row = ctx.account.webhooks.get(ctx.params.id);
		if (!row) throw notFound('webhook');
		ctx.account.webhooks.delete(row.record.id);
		ctx.services.store.expiringWebhooks.delete(row.record.id);
		ctx.services.dispatcher.cancelWebhook(row.record.id);
		ctx.services.events.emit({
			accountId: ctx.account.id,
			event: 'webhook.deleted',
			...ctx.by,
			documentId: null,
			details: { webhook_id: row.record.id, url: row.record.url },
		});
		return noContent();
	},
};

/** The caller's webhook named in the path, or 404. */
function webhookIdOf(ctx: ApiContext): string {
	const row = ctx.account.webhooks.get(ctx.params.id);
	if (!row) throw notFound('webhook');
	return row.record.id;
}

/** The webhook's deliveries made from `from` to `to` (inclusive), newest first. */
const listDeliveries: ApiHandler = {
	permission: 'read',
	handle(ctx) {
		const query = validateQuery(ListWebhookDeliveriesQuerySchema, ctx.query);
		const [fromMs, toMs] = [query.from, query.to].map((bound) =>
			bound === undefined ? undefined : Date.parse(bound),
		);
		const inRange = (record: { created_at: string }) => {
			const ms = Date.parse(record.created_at);
			return !(ms < (fromMs ?? -Infinity)) && !(ms > (toMs ?? Infinity));
		};
		const rows = ctx.services.dispatcher.deliveriesOf(ctx.account.id, webhookIdOf(ctx));
		return listReply(ctx, 'deliveries', rows, query, inRange);
	},
};

const getDelivery: ApiHandler = {
	permission: 'read',
	handle: (ctx) =>
		ok(ctx.services.dispatcher.deliveryOf(ctx.account.id, webhookIdOf(ctx), ctx.params.deliveryId)),
};

const acknowledgeDelivery: ApiHandler = {
	// Claiming a delivery makes the service stop retrying it, so a key that could claim could make a
	// receiver drop real events: the same permission as managing webhooks (whoever registered it claims).
	permission: 'manage_account',
	handle: (ctx) =>
		ok(
			ctx.services.dispatcher.acknowledge(ctx.account.id, webhookIdOf(ctx), ctx.params.deliveryId),
		),
};

export function webhookRoutes(router: Router<ApiHandler>): void {
	router
		.add('GET', '/v1/webhooks', listWebhooks)
		.add('POST', '/v1/webhooks', createWebhook)
		.add('DELETE', '/v1/webhooks/:id', deleteWebhook)
		.add('GET', '/v1/webhooks/:id/deliveries', listDeliveries)
		.add('GET', '/v1/webhooks/:id/deliveries/:deliveryId', getDelivery)
		.add('POST', '/v1/webhooks/:id/deliveries/:deliveryId/acknowledge', acknowledgeDelivery);
}
