/**
 * What the security behaviour suites under test/behaviour share: servers on 127.0.0.1 (counting,
 * raw), a trap on another origin that must never be used, n8n's webhook route for trigger hosts,
 * signed deliveries, and the warnings n8n-core's logger receives.
 */
import http from 'http';
import type { AddressInfo } from 'net';
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { signWebhookPayload } from '../../sandbox/deliverySignature';
import { startCountingServer, type RecordedRequest, type ServerAnswer } from './countingServer';
import { useInstantWaits } from './instantWaits';
import { loadOptionsContext, runDocumentSigning } from './n8nWorkflow';
import type { DeliveryOutcome, IncomingDelivery, TriggerHost } from './triggerHost';

/** The key every suite's credential carries, looked for in what must never hold it. */
export const API_KEY = 'sk_live_security_review_0123456789';

/** The Base URL's origin where nock stands in for the service. */
export const ORIGIN = 'http://signing.test';

/**
 * Each suite's frame; the suite itself still mocks n8n-workflow with n8nWorkflowWithInstantWaits
 * (jest.mock is hoisted per file). The retry policy's shape is under test, not its seconds: its
 * backoffs and 429 waits pass at once (withRealWaits where a test races one). `offline`: nock lets
 * requests reach 127.0.0.1 only.
 */
export function useSecuritySuite({ offline = false } = {}): void {
	useInstantWaits();
	if (offline) {
		beforeAll(() => {
			nock.disableNetConnect();
			nock.enableNetConnect('127.0.0.1');
		});
		afterAll(() => {
			nock.cleanAll();
			nock.enableNetConnect();
		});
	}
	afterEach(() => {
		jest.restoreAllMocks();
		if (offline) nock.cleanAll();
	});
}

export function expectNoKey(
	error: { message?: string; description?: string; stack?: string } | undefined | null,
) {
	expect(`${error?.message} ${error?.description} ${error?.stack}`).not.toContain(API_KEY);
}

/** Document › Download of doc_1 through n8n's engine, into binary property "data". */
export const downloadDocument = (baseUrl: string, version = 'signed') =>
	runDocumentSigning({
		parameters: {
			resource: 'document',
			operation: 'download',
			documentId: { __rl: true, mode: 'id', value: 'doc_1' },
			version,
			binaryPropertyName: 'data',
		},
		credentials: { baseUrl, apiKey: API_KEY },
	});

/** The other origin: nock intercepts it, nothing resolves it. */
export const EVIL = 'http://evil.test';

/** An interceptor on another origin that must never be used; `isDone()` stays false. */
export function trap(origin = EVIL) {
	return nock(origin)
		.persist()
		.get(/.*/)
		.reply(200, { stolen: true })
		.post(/.*/)
		.reply(200, { stolen: true })
		.delete(/.*/)
		.reply(200, { stolen: true });
}

export async function withCountingServer<T>(
	respond: (request: RecordedRequest) => ServerAnswer,
	run: (server: Awaited<ReturnType<typeof startCountingServer>>) => Promise<T>,
): Promise<T> {
	const server = await startCountingServer(respond);
	try {
		return await run(server);
	} finally {
		await server.close();
	}
}

/** The Logger n8n-core's contexts use (its own copy of @n8n/backend-common), with `warn` captured. */
export function captureWarnings(): jest.SpyInstance {
	const logger = loadOptionsContext({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'unused' }).logger;
	return jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
}

export const warned = (spy: jest.SpyInstance) =>
	spy.mock.calls.map((call) => [String(call[0]), call[1] as IDataObject | undefined] as const);

/** n8n's stand-in: routes /webhook/<node webhookId>/webhook to the host that owns it (as in delivery.test.ts). */
export class Receiver {
	private server!: http.Server;
	readonly hosts = new Map<string, TriggerHost>();
	readonly outcomes: DeliveryOutcome[] = [];

	async start(): Promise<void> {
		this.server = http.createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => void this.handle(req, Buffer.concat(chunks), res));
		});
		await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
	}

	get webhookBaseUrl(): string {
		return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhook`;
	}

	private async handle(
		req: http.IncomingMessage,
		rawBody: Buffer,
		res: http.ServerResponse,
	): Promise<void> {
		const host = this.hosts.get(/^\/webhook\/([^/]+)\/webhook$/.exec(req.url ?? '')?.[1] ?? '');
		if (!host) {
			res.writeHead(404).end();
			return;
		}
		try {
			const outcome = await host.receive({ headers: { ...req.headers }, rawBody });
			this.outcomes.push(outcome);
			res
				.writeHead(outcome.status, { 'Content-Type': 'application/json' })
				.end(JSON.stringify(outcome.body ?? {}));
		} catch (error) {
			res.writeHead(500).end(JSON.stringify({ error: String(error) }));
		}
	}

	async close(): Promise<void> {
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);
let deliverySeq = 0;

export function signed(
	secret: string,
	webhookId: string,
	t = nowSeconds(),
	event = 'document.completed',
): IncomingDelivery {
	const raw = JSON.stringify({
		id: `dlv_sec${Date.now().toString(36)}${(deliverySeq++).toString(36)}`,
		event,
		created_at: new Date().toISOString(),
		webhook_id: webhookId,
		data: { document: { id: 'doc_sec', name: 'contract.pdf', status: 'completed' } },
	});
	return {
		headers: {
			'content-type': 'application/json',
			'x-signature': signWebhookPayload(secret, t, raw),
		},
		rawBody: Buffer.from(raw),
	};
}

/** A server on 127.0.0.1 whose answers the test writes itself (sizes, hangs). */
export async function withRawServer<T>(
	handle: (req: http.IncomingMessage, res: http.ServerResponse) => void,
	run: (baseUrl: string) => Promise<T>,
): Promise<T> {
	const sockets = new Set<import('net').Socket>();
	const server = http.createServer(handle);
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	try {
		return await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
	} finally {
		for (const socket of sockets) socket.destroy();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	}
}
