/**
 * The /v1 request pipeline. Order matters and is part of the contract:
 *
 * 1. failure injection (before any work, so a retry is always safe)
 * 2. route (404 / 405)  3. API key (401)  4. rate limit (429)  5. role (403)
 * 6. body: size (413), then JSON (400 invalid_json)  7. Idempotency-Key (replay / 409)
 * 8. the handler; its ApiErrors become error bodies, anything else a 500.
 */
import type { IncomingMessage, ServerResponse } from 'http';

import { LIMITS } from '../contract';
import type { ApiContext, ApiHandler, Services } from './context';
import { dialectErrorReply, dialectReply, stringIds } from './dialects';
import { decideFault } from './faults';
import {
	ApiError,
	clientIp,
	readBody,
	sendReply,
	sendReplyWhileDraining,
	type Reply,
	type RequestTarget,
} from './http';
import { newId } from './ids';
import { requestFingerprint, type IdempotencyStore } from './idempotency';
import { allowed } from './permissions';
import type { RateLimiter } from './rateLimit';
import type { Router } from './router';
import type { StatsCounter } from './stats';
import { removeExpiredWebhooks } from './webhookExpiry';

export interface ApiDeps {
	router: Router<ApiHandler>;
	services: Services;
	stats: StatsCounter;
	limiter: RateLimiter;
	/** The random numbers of the fault decisions (faults.ts: faultRandom). */
	random: () => number;
	idempotency: IdempotencyStore;
	/** Called with unexpected errors (the CLI logs them; tests stay quiet). */
	onError: (error: unknown) => void;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export async function handleApi(
	req: IncomingMessage,
	res: ServerResponse,
	target: RequestTarget,
	deps: ApiDeps,
): Promise<void> {
	const { services, stats } = deps;
	const requestId = newId('request');
	const headers: Record<string, string> = { 'X-Request-Id': requestId };
	// One dialect for the whole request, even if it is switched meanwhile.
	const dialect = services.config().dialect;
	const errorReply = (error: ApiError) => dialectErrorReply(error, requestId, dialect);
	const send = (reply: Reply) => {
		stats.status(reply.status);
		sendReply(res, reply, headers);
	};
	const fail = (error: ApiError) => send(errorReply(error));
	stats.requests++;

	// 1. Injected faults happen before anything is read or changed.
	const fault = decideFault(services.config(), deps.random);
	if (fault?.kind === 'reset') {
		stats.resets++;
		req.socket.destroy();
		return;
	}
	if (fault?.kind === 'fail') {
		stats.injectedFailures++;
		req.resume();
		const code = fault.status === 500 ? 'internal_error' : 'unavailable';
		fail(
			new ApiError(fault.status, code, `Injected failure (sandbox failureRate): ${fault.status}`),
		);
		return;
	}

	services.lifecycle.expireDue();
	removeExpiredWebhooks(services);

	// 2. Route.
	const method = req.method ?? 'GET';
	const resolution = withoutDeliveryEndpoints(dialect.deliveryEndpoints, target.segments)
		? ({ kind: 'not_found' } as const)
		: deps.router.resolve(method, target.segments);
	if (resolution.kind !== 'found') {
		stats.route('unmatched');
		req.resume();
		if (resolution.kind === 'not_found')
			return fail(new ApiError(404, 'not_found', `No route ${method} ${target.pathname}`));
		return fail(
			new ApiError(
				405,
				'method_not_allowed',
				`${method} is not allowed on ${target.pathname}`,
				undefined,
				undefined,
				{
					Allow: resolution.allow.join(', '),
				},
			),
		);
	}
	const { route, params } = resolution;
	stats.route(`${route.method} ${route.pattern}`);

	// 3. API key.
	const match = BEARER.exec(req.headers.authorization ?? '');
	const key = match ? services.store.authenticate(match[1]) : undefined;
	if (!key) {
		req.resume();
		const message = match ? 'Unknown API key' : 'Missing API key: send Authorization: Bearer <key>';
		return fail(
			new ApiError(401, 'unauthorized', message, undefined, undefined, {
				'WWW-Authenticate': 'Bearer',
			}),
		);
	}

	// 4. Rate limit, per key.
	const rate = deps.limiter.take(key.key);
	if (rate) {
		headers['X-RateLimit-Limit'] = String(rate.limit);
		headers['X-RateLimit-Remaining'] = String(rate.remaining);
		if (!rate.allowed) {
			stats.rateLimited++;
			req.resume();
			return fail(
				new ApiError(
					429,
					'rate_limited',
					`Too many requests; retry after ${rate.retryAfterSeconds} s`,
					undefined,
					undefined,
					{
						'Retry-After': String(rate.retryAfterSeconds),
						'X-RateLimit-Reset-After': rate.resetAfterSeconds.toFixed(3),
					},
				),
			);
		}
	}

	// 5. Role.
	if (!allowed(key.role, route.handler.permission)) {
		req.resume();
		return fail(
			new ApiError(
				403,
				'forbidden',
				`A ${key.role} may not ${method} ${route.pattern.replace(/^\/v1/, '')}`,
			),
		);
	}

	// 6. Body (only POST and PUT carry one; others are drained and ignored).
	let raw = Buffer.alloc(0);
	if (method === 'POST' || method === 'PUT') {
		const result = await readBody(req, LIMITS.maxBodyBytes);
		if (result.kind === 'aborted') return;
		if (result.kind === 'too_large') {
			stats.status(413);
			const error = new ApiError(
				413,
				'payload_too_large',
				`Request body over ${LIMITS.maxBodyBytes} bytes`,
			);
			sendReplyWhileDraining(req, res, errorReply(error), headers);
			return;
		}
		raw = result.raw;
	} else {
		req.resume();
	}

	const account = services.store.account(key.accountId);
	const user = services.store.userOfKey(key);
	const execute = async (): Promise<Reply> => {
		try {
			const ctx: ApiContext = {
				services,
				account,
				key,
				params,
				pathname: target.pathname,
				query: target.query,
				dialect,
				body:
					method === 'POST' || method === 'PUT'
						? requestBody(parseJson(raw), dialect.ids)
						: undefined,
				by: { actor: { type: 'api_key', email: user?.email ?? null }, ip: clientIp(req) },
			};
			let reply = await route.handler.handle(ctx);
			if (method === 'DELETE' && reply.status === 204 && dialect.deleteAnswer === 200) {
				reply = { status: 200, headers: reply.headers, body: { id: params.id, deleted: true } };
			}
			return dialectReply(reply, dialect);
		} catch (error) {
			if (error instanceof ApiError) return errorReply(error);
			deps.onError(error);
			return errorReply(new ApiError(500, 'internal_error', 'The sandbox failed unexpectedly'));
		}
	};

	// 7. Idempotency, on every POST that carries a key.
	const idempotencyKey = req.headers['idempotency-key'];
	if (method === 'POST' && idempotencyKey !== undefined) {
		const keyValue = Array.isArray(idempotencyKey) ? idempotencyKey.join(',') : idempotencyKey;
		if (keyValue.length < 1 || keyValue.length > LIMITS.maxIdempotencyKeyLength) {
			return fail(
				new ApiError(
					400,
					'validation_error',
					`Idempotency-Key must be 1 to ${LIMITS.maxIdempotencyKeyLength} characters`,
					'Idempotency-Key',
				),
			);
		}
		try {
			const fingerprint = requestFingerprint(method, target.pathname, raw);
			send(await deps.idempotency.run(account.id, keyValue, fingerprint, execute));
		} catch (error) {
			if (error instanceof ApiError) return fail(error);
			throw error;
		}
		return;
	}

	// 8. Handler.
	send(await execute());
}

/** With numeric ids, the numbers a client sends back (`document_id: 1004`) become the stored decimal strings. */
function requestBody(body: unknown, ids: 'prefixed' | 'numeric'): unknown {
	return ids === 'numeric' ? stringIds(body) : body;
}

/** `/v1/webhooks/{id}/deliveries[/…]` when the dialect has no delivery endpoints: no such route. */
function withoutDeliveryEndpoints(enabled: boolean, segments: string[]): boolean {
	return (
		!enabled && segments.length >= 4 && segments[1] === 'webhooks' && segments[3] === 'deliveries'
	);
}

/** Empty body = `{}` (bodies are optional on some POSTs); a UTF-8 BOM is tolerated. */
function parseJson(raw: Buffer): unknown {
	const text = raw.toString('utf8').replace(/^\uFEFF/, '');
	if (text.trim() === '') return {};
	try {
		return JSON.parse(text);
	} catch {
		throw new ApiError(400, 'invalid_json', 'The request body is not valid JSON');
	}
}
