/**
 * The API key never travels inside an error (issue 47, finding 8). A
 * failure of the connection itself (an untrusted TLS certificate, an answer that is not HTTP, a
 * reset, a closed port) once passed on n8n's own NodeApiError, whose hidden `cause` is the request
 * library's error: the key sat in `cause.config.headers.Authorization` and in the socket's request
 * text. Each family is run through the Document Signing node (thrown, and with Continue On Fail)
 * and through the trigger's Polling mode (the error n8n's error handling receives, emitError), and
 * everything is searched as a logger would print it (`util.inspect`, hidden properties, any depth)
 * and as n8n stores it (`JSON.stringify`). Servers listen on 127.0.0.1 only.
 */
import { execFileSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import { createServer as createHttpsServer } from 'https';
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';
import { inspect } from 'util';

import { ErrorReporter, TriggerContext } from 'n8n-core';
import { Workflow, type INode, type ITriggerFunctions, type ITriggerResponse } from 'n8n-workflow';

import { DocumentSigningTrigger } from '../../nodes/DocumentSigningTrigger/DocumentSigningTrigger.node';
import { useInstantWaits } from '../helpers/instantWaits';
import { hostAdditionalData, NodeTypes } from '../helpers/n8nHost';
import { runDocumentSigning } from '../helpers/n8nWorkflow';
import { waitFor } from '../helpers/sandbox';
import { captureWarnings, NODE_NAME, TRIGGER_TYPE } from '../helpers/triggerHost';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../helpers/instantWaits').n8nWorkflowWithInstantWaits(),
);

const API_KEY = 'sk_live_round_five_finding_eight_0123456789';

/** What a logger or n8n's database could show of `value`: no key, no Bearer, no Authorization header. */
function secretsIn(value: unknown): string[] {
	const shown = [inspect(value, { depth: Infinity, showHidden: true, maxArrayLength: Infinity })];
	shown.push(JSON.stringify(value) ?? '');
	const found: string[] = [];
	for (const text of shown)
		for (const secret of [API_KEY, 'bearer', 'authorization']) {
			const at = text.toLowerCase().indexOf(secret.toLowerCase());
			// A little of what surrounds it, not the whole (possibly huge) text.
			if (at >= 0) found.push(`${secret}: …${text.slice(Math.max(0, at - 60), at + 60)}…`);
		}
	return found;
}

/** What n8n hands its error reporter (Sentry, the log) when a node throws: the error object itself. */
function captureReported(): { errors: unknown[]; restore: () => void } {
	// n8n-core's own copy of the DI container (it ships it nested), as its workflow engine uses it.
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- resolved at run time, from n8n-core's folder
	const { Container } = require(
		require.resolve('@n8n/di', { paths: [require.resolve('n8n-core')] }),
	) as {
		Container: { get<T>(type: unknown): T };
	};
	const reporter = Container.get<{ error: (error: unknown, options?: unknown) => void }>(
		ErrorReporter,
	);
	const errors: unknown[] = [];
	const spy = jest.spyOn(reporter, 'error').mockImplementation((error: unknown) => {
		errors.push(error);
	});
	return { errors, restore: () => spy.mockRestore() };
}

interface Service {
	baseUrl: string;
	close: () => Promise<void>;
}

/** A server on 127.0.0.1 whose open connections are dropped when it closes. */
async function listen(server: Server, scheme: 'http' | 'https'): Promise<Service> {
	const sockets = new Set<Socket>();
	server.on('connection', (socket: Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `${scheme}://127.0.0.1:${port}/v1`,
		close: async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

let certificate: { key: Buffer; cert: Buffer };

/** HTTPS with a self-signed certificate made for this run: DEPTH_ZERO_SELF_SIGNED_CERT. */
const selfSignedTls = async () =>
	await listen(
		createHttpsServer(certificate, (_request, response) => response.end('{}')) as Server,
		'https',
	);

/** An answer with a space in a header name: HPE_INVALID_HEADER_TOKEN. */
const invalidHttp = async () =>
	await listen(
		createNetServer((socket) => {
			socket.on('error', () => undefined);
			socket.once('data', () =>
				socket.end('HTTP/1.1 200 OK\r\nBad Header: x\r\nContent-Length: 2\r\n\r\n{}'),
			);
		}),
		'http',
	);

/** A connection reset (RST) as soon as the request arrives: ECONNRESET. */
const resetting = async () =>
	await listen(
		createNetServer((socket) => {
			socket.on('error', () => undefined);
			socket.once('data', () => socket.resetAndDestroy());
		}),
		'http',
	);

/**
 * A port nothing listens on: ECONNREFUSED. Port 1 (a privileged port no test binds), not a port
 * just freed: under load another suite's server may take that one during the retries.
 */
const closedPort = async (): Promise<Service> => ({
	baseUrl: 'http://127.0.0.1:1/v1',
	close: async () => undefined,
});

const families: Array<[string, () => Promise<Service>, RegExp]> = [
	[
		'a self-signed TLS certificate',
		selfSignedTls,
		/TLS certificate is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\)/,
	],
	[
		'an answer that is not valid HTTP',
		invalidHttp,
		/answer is not valid HTTP \(HPE_INVALID_HEADER_TOKEN\)/,
	],
	['a reset connection', resetting, /ECONNRESET/],
	['a closed port', closedPort, /ECONNREFUSED/],
];

let tempDir: string;
// Retries of a reset connection without their real waits.
useInstantWaits();
beforeAll(() => {
	tempDir = mkdtempSync(join(tmpdir(), 'round-five-'));
	const [key, cert] = [join(tempDir, 'key.pem'), join(tempDir, 'cert.pem')];
	// Made at test time: no key material is kept in the repository.
	execFileSync(
		'openssl',
		[
			...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1'],
			...['-keyout', key, '-out', cert, '-subj', '/CN=localhost'],
		],
		{ stdio: 'ignore' },
	);
	certificate = { key: readFileSync(key), cert: readFileSync(cert) };
});
afterAll(() => {
	rmSync(tempDir, { recursive: true, force: true });
});

const getDocument = (baseUrl: string, continueOnFail: boolean) =>
	runDocumentSigning({
		parameters: {
			resource: 'document',
			operation: 'get',
			documentId: { __rl: true, mode: 'id', value: 'doc_1' },
			simplify: false,
		},
		credentials: { baseUrl, apiKey: API_KEY },
		continueOnFail,
	});

describe.each(families)(
	'a connection failure, %s: the key stays out of the error (finding 47.8)',
	(_family, start, description) => {
		let service: Service;
		beforeEach(async () => {
			service = await start();
		});
		afterEach(async () => {
			await service.close();
		});

		// Old (TLS, HTTP parser): n8n's NodeApiError passed on, its cause the request library's error
		// with the key in config.headers.Authorization and in the socket's request text.
		test('the Document Signing node: the error it throws names the failure and holds no key, header or request', async () => {
			const reported = captureReported();
			let result: Awaited<ReturnType<typeof getDocument>>;
			try {
				result = await getDocument(service.baseUrl, false);
			} finally {
				reported.restore();
			}
			expect(result.error).toBeDefined();
			// The thrown error as n8n's workflow engine received it (it stores a copy without `cause`).
			expect(reported.errors).toHaveLength(1);
			expect(secretsIn(reported.errors)).toEqual([]);
			expect(secretsIn(result.error)).toEqual([]);
			expect(secretsIn(result.run.data.resultData)).toEqual([]);
			expect(result.error!.description).toMatch(description);
		});

		test('the Document Signing node with Continue On Fail: the error item holds no key, header or request', async () => {
			const result = await getDocument(service.baseUrl, true);
			expect(result.error).toBeUndefined();
			expect(result.items).toHaveLength(1);
			const [item] = result.items;
			expect(typeof item.json.error).toBe('string');
			expect(secretsIn(item.error)).toEqual([]);
			expect(secretsIn(result.items)).toEqual([]);
			expect(secretsIn(result.run.data.resultData)).toEqual([]);
			expect((item.error as { description?: string }).description).toMatch(description);
		});

		test("the trigger's Polling mode: the error n8n's error handling receives (emitError), and the log, hold no key, header or request", async () => {
			const host = new PollingHost(service.baseUrl);
			const warnings = captureWarnings();
			let response: ITriggerResponse | undefined;
			try {
				response = await host.activate();
				// However many failed polls in a row it takes to be reported.
				await waitFor(
					() => {
						if (host.errors.length >= 1) return true;
						host.tick();
						return false;
					},
					'the failing poll reported to emitError',
					25_000,
				);
				const [error] = host.errors;
				expect(secretsIn(error)).toEqual([]);
				expect(warnings.messages.length).toBeGreaterThanOrEqual(1);
				expect(secretsIn([warnings.messages, warnings.metadata])).toEqual([]);
				expect((error as { description?: string }).description).toMatch(description);
			} finally {
				warnings.restore();
				await response?.closeFunction?.();
			}
		});
	},
);

const trigger = new DocumentSigningTrigger();

/** The trigger in Polling mode in n8n-core's real TriggerContext; its scheduler and emitError recorded. */
class PollingHost {
	readonly errors: Error[] = [];
	private readonly ticks: Array<() => void> = [];
	private readonly context: ITriggerFunctions;

	constructor(baseUrl: string) {
		const node: INode = {
			id: 'trigger-node',
			name: NODE_NAME,
			type: TRIGGER_TYPE,
			typeVersion: 2,
			position: [0, 0],
			parameters: { events: ['*'], receiveEventsBy: 'polling', pollMinutes: 1, options: {} },
			credentials: { documentSigningApi: { id: 'cred-1', name: 'Sandbox' } },
		};
		const workflow = new Workflow({
			id: 'wf-round-five',
			name: 'Polling test',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes: new NodeTypes({ [TRIGGER_TYPE]: trigger }),
			// A cursor already saved, so activation itself sends nothing.
			staticData: {
				[`node:${NODE_NAME}`]: { pollCursor: { time: new Date().toISOString(), ids: [] } },
			},
			settings: {},
		});
		this.context = new TriggerContext(
			workflow,
			workflow.getNode(NODE_NAME)!,
			hostAdditionalData(() => ({ baseUrl, apiKey: API_KEY })),
			'trigger',
			'activate',
			() => {
				throw new Error('no event was expected');
			},
			(error) => this.errors.push(error),
			undefined,
			{
				registerCron: (_cron: unknown, onTick: () => void) => this.ticks.push(onTick),
			} as never,
		);
	}

	async activate(): Promise<ITriggerResponse> {
		const response = await trigger.trigger.call(this.context);
		expect(this.ticks).toHaveLength(1);
		return response;
	}

	/** n8n's scheduler ticking, as a minute passing would. */
	tick() {
		this.ticks[0]();
	}
}
