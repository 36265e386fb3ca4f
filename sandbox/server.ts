/**
 * startSandbox(): wires the parts together and listens on 127.0.0.1.
 *
 *   /v1/…        the API (api.ts pipeline + routes/*)
 *   /sign/…      the signing pages (routes/signing.ts)
 *   /__sandbox/… controls for tests and tools (routes/admin.ts)
 *
 * Every request runs inside a catch-all, so no input can crash the process; timers are unref'd
 * and cleared by close() so a test run can exit.
 */
import http, { type IncomingMessage, type ServerResponse } from 'http';
import type { AddressInfo } from 'net';

import { LIMITS, type DocumentFileVersion } from '../contract';
import { handleApi, type ApiDeps } from './api';
import { Clock } from './clock';
import type { ApiHandler, Services } from './context';
import type { Sandbox, SignerAction } from './controls';
import { EventBus } from './events';
import { dialectErrorReply, parseDialect } from './dialects';
import { faultRandom } from './faults';
import { documentFile } from './files';
import { ApiError, notFound, parseTarget, sendReply } from './http';
import { IdempotencyStore } from './idempotency';
import { newId } from './ids';
import { Lifecycle } from './lifecycle';
import {
	applyPatch,
	initialConfig,
	RuntimeConfigPatchSchema,
	type RuntimeConfigPatch,
	type SandboxOptions,
} from './options';
import { Persistence } from './persistence';
import { RateLimiter } from './rateLimit';
import { Router } from './router';
import { handleAdmin } from './routes/admin';
import { documentRoutes } from './routes/documents';
import { fileRoutes } from './routes/files';
import { reportRoutes } from './routes/reports';
import { signatureRoutes } from './routes/signatures';
import { handleSigning } from './routes/signing';
import { templateRoutes } from './routes/templates';
import { userRoutes } from './routes/users';
import { webhookRoutes } from './routes/webhooks';
import { removeExpiredWebhooks } from './webhookExpiry';
import { StatsCounter } from './stats';
import { DEMO_API_KEY, Store } from './store';
import { WebhookDispatcher } from './dispatcher';

export interface StartOptions extends SandboxOptions {
	/** Called with unexpected errors (answered as 500); the CLI logs them. */
	onError?: (error: unknown) => void;
}

/** How often real time is checked for expired documents (advanceClock checks at once). */
const EXPIRY_SWEEP_MS = 1000;

export function apiRouter(): Router<ApiHandler> {
	const router = new Router<ApiHandler>();
	documentRoutes(router);
	signatureRoutes(router);
	templateRoutes(router);
	userRoutes(router);
	webhookRoutes(router);
	reportRoutes(router);
	fileRoutes(router);
	return router;
}

export async function startSandbox(options: StartOptions = {}): Promise<Sandbox> {
	if (options.host !== undefined && options.host !== '127.0.0.1') {
		throw new Error(
			'The sandbox only listens on 127.0.0.1 (its admin routes have no authentication)',
		);
	}
	let config = initialConfig(options);
	let internalErrors = 0;
	const onError = (error: unknown) => {
		internalErrors++;
		options.onError?.(error);
	};

	const clock = new Clock();
	let persistence: Persistence | undefined;
	const store = new Store(
		() => clock.iso(),
		() => persistence?.scheduleSave(),
		() => config.dialect.ids,
	);
	if (options.dataFile) {
		persistence = new Persistence(options.dataFile, store);
		persistence.load();
	}

	let origin = '';
	const dispatcher = new WebhookDispatcher(
		store,
		() => config.webhookRetry,
		clock,
		() => config.dialect,
	);
	const events = new EventBus(store, clock, dispatcher);
	const signingOrigin = () => config.publicOrigin ?? origin;
	const lifecycle = new Lifecycle(store, clock, events, signingOrigin);
	const services: Services = {
		store,
		clock,
		events,
		lifecycle,
		dispatcher,
		config: () => config,
		signingOrigin,
	};
	const stats = new StatsCounter();
	const limiter = new RateLimiter(config.rateLimit);
	let random = faultRandom(config.faultSeed);
	const idempotency = new IdempotencyStore(
		() => clock.now(),
		LIMITS.idempotencyWindowSeconds * 1000,
	);
	const apiDeps: ApiDeps = {
		router: apiRouter(),
		services,
		stats,
		limiter,
		random: () => random(),
		idempotency,
		onError,
	};

	/** Errors outside /v1 and /__sandbox (unknown paths, the catch-all) use the dialect's error body too. */
	const apiErrorReply = (error: ApiError) =>
		dialectErrorReply(error, newId('request'), config.dialect);

	const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		const target = parseTarget(req.url);
		if (!target) {
			req.resume();
			// Undecodable or absolute-form targets cannot name any resource here.
			sendReply(res, apiErrorReply(new ApiError(404, 'not_found', 'No such path')));
			return;
		}
		const first = target.segments[0];
		if (first === 'v1') return handleApi(req, res, target, apiDeps);
		if (first === 'sign') {
			stats.route(await handleSigning(req, res, target, services));
			return;
		}
		if (first === '__sandbox') return handleAdmin(req, res, target, sandbox);
		req.resume();
		if (target.segments.length === 0 && req.method === 'GET') {
			sendReply(res, {
				status: 200,
				body: {
					service: 'document-signing sandbox',
					base_url: `${origin}/v1`,
					admin: `${origin}/__sandbox`,
				},
			});
			return;
		}
		sendReply(
			res,
			apiErrorReply(new ApiError(404, 'not_found', `No route ${req.method} ${target.pathname}`)),
		);
	};

	const server = http.createServer((req, res) => {
		handle(req, res).catch((error) => {
			onError(error);
			if (!res.headersSent) {
				sendReply(
					res,
					apiErrorReply(new ApiError(500, 'internal_error', 'The sandbox failed unexpectedly')),
				);
			} else {
				res.destroy();
			}
		});
	});
	// Malformed HTTP (bad request line, header overflow): answer 400 if possible, never throw.
	server.on('clientError', (_error, socket) => {
		if (socket.writable)
			socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
		else socket.destroy();
	});

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
	origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

	const sweep = setInterval(() => {
		try {
			lifecycle.expireDue();
			removeExpiredWebhooks(services);
		} catch (error) {
			onError(error);
		}
	}, EXPIRY_SWEEP_MS);
	sweep.unref();

	let closing: Promise<void> | undefined;

	const sandbox: Sandbox = {
		origin,
		baseUrl: `${origin}/v1`,
		apiKey: DEMO_API_KEY,
		store,
		createAccount: () => store.createAccount(),
		createApiKey(accountId, role) {
			const row = store.createApiKey(accountId, role);
			return { apiKey: row.key, userId: row.userId, role: row.role };
		},
		appendAuditEntry: (accountId, entry) => events.append(accountId, entry),
		configure(patch: RuntimeConfigPatch) {
			if (patch.dialect !== undefined) parseDialect(patch.dialect); // a clear error for an unknown name
			config = applyPatch(config, RuntimeConfigPatchSchema.parse(patch));
			if (patch.rateLimit !== undefined) limiter.configure(config.rateLimit);
			if (patch.faultSeed !== undefined) random = faultRandom(config.faultSeed);
			return structuredClone(config);
		},
		config: () => structuredClone(config),
		stats: () => ({
			requests: stats.requests,
			rateLimited: stats.rateLimited,
			injectedFailures: stats.injectedFailures,
			resets: stats.resets,
			internalErrors,
			routes: { ...stats.routes },
			statuses: { ...stats.statuses },
			deliveries: { pending: dispatcher.pendingCount, ...dispatcher.counts },
		}),
		deliveries: () => dispatcher.attempts(),
		deliveryRecord: (deliveryId: string) => dispatcher.deliveryRecord(deliveryId),
		flushDeliveries: () => dispatcher.flush(),
		advanceClock(seconds: number) {
			clock.advance(seconds);
			lifecycle.expireDue();
			removeExpiredWebhooks(services);
		},
		now: () => clock.iso(),
		actAsSigner(documentId: string, signerId: string, action: SignerAction, reason?: string) {
			lifecycle.expireDue();
			removeExpiredWebhooks(services);
			const row = store.findDocument(documentId);
			if (!row) throw notFound('document');
			const ip = '127.0.0.1';
			if (action === 'view') lifecycle.view(row, signerId, ip);
			else if (action === 'sign') lifecycle.sign(row, signerId, ip, { skipAuthentication: true });
			else lifecycle.decline(row, signerId, reason ?? 'Declined', ip, { skipAuthentication: true });
			return structuredClone(row.record);
		},
		async documentFile(documentId: string, version: DocumentFileVersion = 'original') {
			const row = store.findDocument(documentId);
			if (!row) throw notFound('document');
			return documentFile(row, store.account(row.accountId), version);
		},
		reset() {
			store.reset();
			dispatcher.clear();
			idempotency.clear();
			stats.reset();
			limiter.configure(config.rateLimit);
			random = faultRandom(config.faultSeed);
			clock.reset();
			internalErrors = 0;
		},
		close() {
			closing ??= new Promise<void>((resolve) => {
				clearInterval(sweep);
				dispatcher.close();
				try {
					persistence?.close();
				} catch (error) {
					onError(error);
				}
				server.close(() => resolve());
				// Keep-alive sockets would hold close() open until they time out.
				server.closeAllConnections();
			});
			return closing;
		},
	};
	return sandbox;
}
