/**
 * /__sandbox: controls for out-of-process users (n8n e2e, `npm run dev`). No key, no rate limit,
 * no failure injection: the server only listens on 127.0.0.1.
 */
import type { IncomingMessage, ServerResponse } from 'http';
import { z } from 'zod';

import { AuditActorSchema, DocumentFileQuerySchema } from '../../contract';
import { signWebhookPayload } from '../deliverySignature';
import type { Sandbox } from '../controls';
import { ApiError, errorReply, readBody, sendReply, type Reply, type RequestTarget } from '../http';
import { newId } from '../ids';
import { RuntimeConfigPatchSchema } from '../options';
import { Router } from '../router';
import { validate } from '../validation';
import { fileReply } from './files';

const ADMIN_BODY_LIMIT = 1024 * 1024;

interface AdminContext {
	sandbox: Sandbox;
	params: Record<string, string>;
	query: Record<string, string | string[]>;
	body: unknown;
}

type AdminHandler = (ctx: AdminContext) => Reply | Promise<Reply>;

const CreateKeySchema = z.object({ role: z.enum(['admin', 'member', 'viewer']) }).strict();
const ClockSchema = z
	.object({
		advance_seconds: z
			.number()
			.min(0)
			.max(10 * 365 * 24 * 3600),
	})
	.strict();
const SignatureSchema = z
	.object({
		secret: z.string().min(1),
		body: z.string(),
		timestamp: z
			.number({ invalid_type_error: 'must be a number (Unix seconds)' })
			.refine((value) => Number.isSafeInteger(value) && value >= 0, {
				message: 'must be a non-negative safe integer (Unix seconds)',
			})
			.optional(),
	})
	.strict();
const SignerActionSchema = z
	.object({ reason: z.string().trim().min(1).max(2000).optional() })
	.strict();
/** An audit-log entry as given: any event and time text (sandbox/events.ts, RawAuditEntry). */
const AuditEntrySchema = z
	.object({
		event: z.string().min(1).max(200),
		created_at: z.string().max(200),
		document_id: z.string().min(1).max(200).nullable().optional(),
		actor: AuditActorSchema.optional(),
		ip: z.string().max(100).nullable().optional(),
		details: z.record(z.unknown()).optional(),
	})
	.strict();
const FlushSchema = z
	.object({ timeout_ms: z.number().int().min(0).max(600_000).optional() })
	.strict();

const routes = new Router<AdminHandler>()
	.add('GET', '/__sandbox', () => ({
		status: 200,
		body: {
			endpoints: [
				'POST /__sandbox/accounts',
				'POST /__sandbox/accounts/:accountId/keys {role}',
				'POST /__sandbox/accounts/:accountId/audit-log {event, created_at, document_id?, actor?, ip?, details?}',
				'GET|PUT /__sandbox/config',
				'GET /__sandbox/stats',
				'GET /__sandbox/deliveries',
				'POST /__sandbox/deliveries/flush {timeout_ms?}',
				'POST /__sandbox/reset',
				'GET|POST /__sandbox/clock {advance_seconds}',
				'POST /__sandbox/signature {secret, body, timestamp?}',
				'POST /__sandbox/documents/:documentId/signers/:signerId/(view|sign|decline) {reason?}',
				'GET /__sandbox/documents/:documentId/file?version=original|signed',
			],
		},
	}))
	.add('POST', '/__sandbox/accounts', ({ sandbox }) => {
		const { accountId, apiKey } = sandbox.createAccount();
		return { status: 201, body: { account_id: accountId, api_key: apiKey } };
	})
	.add('POST', '/__sandbox/accounts/:accountId/keys', ({ sandbox, params, body }) => {
		const { role } = validate(CreateKeySchema, body, 'body');
		let key: ReturnType<Sandbox['createApiKey']>;
		try {
			key = sandbox.createApiKey(params.accountId, role);
		} catch {
			throw new ApiError(404, 'not_found', 'No such account');
		}
		return {
			status: 201,
			body: {
				account_id: params.accountId,
				api_key: key.apiKey,
				user_id: key.userId,
				role: key.role,
			},
		};
	})
	.add('POST', '/__sandbox/accounts/:accountId/audit-log', ({ sandbox, params, body }) => {
		const entry = validate(AuditEntrySchema, body, 'body');
		let stored: ReturnType<Sandbox['appendAuditEntry']>;
		try {
			stored = sandbox.appendAuditEntry(params.accountId, entry);
		} catch {
			throw new ApiError(404, 'not_found', 'No such account');
		}
		return { status: 201, body: stored };
	})
	.add('GET', '/__sandbox/config', ({ sandbox }) => ({ status: 200, body: sandbox.config() }))
	.add('PUT', '/__sandbox/config', ({ sandbox, body }) => ({
		status: 200,
		body: sandbox.configure(validate(RuntimeConfigPatchSchema, body, 'body')),
	}))
	.add('GET', '/__sandbox/stats', ({ sandbox }) => ({ status: 200, body: sandbox.stats() }))
	.add('GET', '/__sandbox/deliveries', ({ sandbox, query }) => {
		const filters = ['deliveryId', 'webhookId', 'event', 'accountId'] as const;
		const data = sandbox
			.deliveries()
			.filter((attempt) =>
				filters.every((name) => query[name] === undefined || attempt[name] === query[name]),
			);
		return { status: 200, body: { data } };
	})
	.add('POST', '/__sandbox/deliveries/flush', async ({ sandbox, body }) => {
		const { timeout_ms: timeoutMs = 30_000 } = validate(FlushSchema, body, 'body');
		let timer: NodeJS.Timeout | undefined;
		const timedOut = new Promise<boolean>((resolve) => {
			timer = setTimeout(() => resolve(true), timeoutMs);
			timer.unref();
		});
		const finished = await Promise.race([sandbox.flushDeliveries().then(() => false), timedOut]);
		clearTimeout(timer);
		const pending = sandbox.stats().deliveries.pending;
		return { status: finished ? 504 : 200, body: { pending } };
	})
	.add('POST', '/__sandbox/reset', ({ sandbox }) => {
		sandbox.reset();
		return { status: 200, body: { api_key: sandbox.apiKey } };
	})
	.add('GET', '/__sandbox/clock', ({ sandbox }) => ({ status: 200, body: { now: sandbox.now() } }))
	.add('POST', '/__sandbox/clock', ({ sandbox, body }) => {
		const { advance_seconds: seconds } = validate(ClockSchema, body, 'body');
		sandbox.advanceClock(seconds);
		return { status: 200, body: { advanced_seconds: seconds, now: sandbox.now() } };
	})
	.add('POST', '/__sandbox/signature', ({ body }) => {
		const input = validate(SignatureSchema, body, 'body');
		const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
		return {
			status: 200,
			body: { header: signWebhookPayload(input.secret, timestamp, input.body), timestamp },
		};
	})
	.add(
		'POST',
		'/__sandbox/documents/:documentId/signers/:signerId/:action',
		({ sandbox, params, body }) => {
			const { reason } = validate(SignerActionSchema, body, 'body');
			const action = params.action;
			if (action !== 'view' && action !== 'sign' && action !== 'decline') {
				throw new ApiError(404, 'not_found', 'Action must be view, sign or decline');
			}
			if (action === 'decline' && !reason)
				throw new ApiError(400, 'validation_error', 'reason is required to decline', 'reason');
			return {
				status: 200,
				body: sandbox.actAsSigner(params.documentId, params.signerId, action, reason),
			};
		},
	);

// The same bytes and headers as GET /v1/documents/:id/file, without a key (any account).
routes.add('GET', '/__sandbox/documents/:documentId/file', async ({ sandbox, params, query }) => {
	const { version } = validate(DocumentFileQuerySchema, query, 'query');
	return fileReply(await sandbox.documentFile(params.documentId, version ?? 'original'));
});

export async function handleAdmin(
	req: IncomingMessage,
	res: ServerResponse,
	target: RequestTarget,
	sandbox: Sandbox,
): Promise<void> {
	const requestId = newId('request');
	const method = req.method ?? 'GET';
	try {
		const resolution = routes.resolve(method, target.segments);
		if (resolution.kind === 'not_found')
			throw new ApiError(404, 'not_found', `No route ${method} ${target.pathname}`);
		if (resolution.kind === 'method_not_allowed') {
			throw new ApiError(
				405,
				'method_not_allowed',
				`${method} is not allowed here`,
				undefined,
				undefined,
				{
					Allow: resolution.allow.join(', '),
				},
			);
		}
		let body: unknown = {};
		if (method === 'POST' || method === 'PUT') {
			const result = await readBody(req, ADMIN_BODY_LIMIT);
			if (result.kind === 'aborted') return;
			if (result.kind === 'too_large')
				throw new ApiError(413, 'payload_too_large', 'Admin request body too large');
			const text = result.raw.toString('utf8');
			if (text.trim() !== '') {
				try {
					body = JSON.parse(text);
				} catch {
					throw new ApiError(400, 'invalid_json', 'The request body is not valid JSON');
				}
			}
		} else {
			req.resume();
		}
		const reply = await resolution.route.handler({
			sandbox,
			params: resolution.params,
			query: target.query,
			body,
		});
		sendReply(res, reply, { 'X-Request-Id': requestId });
	} catch (error) {
		req.resume();
		const apiError =
			error instanceof ApiError
				? error
				: new ApiError(
						500,
						'internal_error',
						error instanceof Error ? error.message : String(error),
					);
		sendReply(res, errorReply(apiError, requestId), { 'X-Request-Id': requestId });
	}
}
