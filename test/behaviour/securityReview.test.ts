/**
 * The security review's findings, one `describe` each, asserting the FIXED behaviour. Every row's
 * first comment says what the code before the rewrite did (each test would have failed on it).
 *
 * Servers listen on 127.0.0.1 only. "Another origin" is a nock interceptor on a fake host
 * (http://evil.test) that must still be pending afterwards (nothing was sent there), or a second
 * counting server on another port.
 */
import { execFileSync, spawnSync } from 'child_process';
import { createHash, createHmac, randomUUID } from 'crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'fs';
import http from 'http';
import type { AddressInfo } from 'net';
import nock from 'nock';
import os from 'os';
import path from 'path';
import { parse as parseYaml } from 'yaml';
import type { IDataObject, INode } from 'n8n-workflow';

import { useSandbox, webhookSecret } from '../helpers/sandbox';
import { searchDocuments } from '../../nodes/DocumentSigning/listSearch';
import { ServiceOrigin, toNodeError } from '../../nodes/shared/transport';
import { HttpStatusError } from '../../nodes/shared/transport/errors';
import { sendWithRetries, TIME_LIMITS } from '../../nodes/shared/transport/retry';
import { LIST_WALK_BUDGET, WEBHOOK_SWEEP_BUDGET } from '../../nodes/shared/vocabulary';
import { keyCheck } from '../../nodes/shared/webhooks';
import {
	allowedDomainsFor,
	credentialKey,
	readCredentials,
} from '../../nodes/shared/transport/service';
import { signWebhookPayload } from '../../sandbox/deliverySignature';
import { PUBLISH_JOB, PUBLISH_WORKFLOW } from '../../scripts/publish-guard';
import { waitFor } from '../helpers/sandbox';
import { useInstantWaits, withRealWaits } from '../helpers/instantWaits';
import {
	startCountingServer,
	type RecordedRequest,
	type ServerAnswer,
} from '../helpers/countingServer';
import { loadOptionsContext, runDocumentSigning } from '../helpers/n8nWorkflow';
import {
	triggerOfAnotherProcess,
	TriggerHost,
	type DeliveryOutcome,
	type IncomingDelivery,
} from '../helpers/triggerHost';
import {
	deliveryBody,
	deliveryIn,
	signedDelivery,
	useDeliveryFixtures,
} from '../helpers/deliveryFixtures';

const EVIL = 'http://evil.test';
const ORIGIN = 'http://signing.test';
const API_KEY = 'sk_live_security_review_0123456789';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../helpers/instantWaits').n8nWorkflowWithInstantWaits(),
);

const sandbox = useSandbox({
	port: 0,
	host: '127.0.0.1',
	webhookRetry: { baseDelayMs: 5, maxAttempts: 2, timeoutMs: 5000 },
});

// The policy's shape is under test, not its seconds: its backoffs and 429 waits pass at once
// (withRealWaits where a test races one).
useInstantWaits();

beforeAll(() => {
	nock.disableNetConnect();
	nock.enableNetConnect('127.0.0.1');
});

afterAll(() => {
	nock.cleanAll();
	nock.enableNetConnect();
});

afterEach(() => {
	jest.restoreAllMocks();
	nock.cleanAll();
});

/** An interceptor on another origin that must never be used; `isDone()` stays false. */
function trap(origin = EVIL) {
	return nock(origin)
		.persist()
		.get(/.*/)
		.reply(200, { stolen: true })
		.post(/.*/)
		.reply(200, { stolen: true })
		.delete(/.*/)
		.reply(200, { stolen: true });
}

function expectNoKey(
	error: { message?: string; description?: string; stack?: string } | undefined | null,
) {
	expect(`${error?.message} ${error?.description} ${error?.stack}`).not.toContain(API_KEY);
}

async function withCountingServer<T>(
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

/** Document › Download of doc_1 through n8n's engine, into binary property "data". */
const downloadDocument = (baseUrl: string, version = 'signed') =>
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

/** The Logger n8n-core's contexts use (its own copy of @n8n/backend-common), with `warn` captured. */
function captureWarnings(): jest.SpyInstance {
	const logger = loadOptionsContext({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'unused' }).logger;
	return jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
}

const warned = (spy: jest.SpyInstance) =>
	spy.mock.calls.map((call) => [String(call[0]), call[1] as IDataObject | undefined] as const);

// ---------------------------------------------------------------------------------------------

describe('1. HIGH: crafted list-search page tokens', () => {
	const docs = (from: number, count: number) =>
		Array.from({ length: count }, (_, i) => ({ id: `doc_${from + i}`, name: `d${from + i}.pdf` }));
	let serverBase = '';

	// Old: a token {"kind":"url","url":…} was requested as is, with the API key, wherever it pointed.
	test.each([
		['an absolute URL on another origin', JSON.stringify({ url: `${EVIL}/steal` })],
		['a protocol-relative path', JSON.stringify({ path: '//evil.test/x' })],
		['a path outside the Base URL path', JSON.stringify({ path: '/other-prefix/x' })],
		['a path that climbs out of the Base URL path', JSON.stringify({ path: '/v1/../admin/keys' })],
		['a path that only starts like the Base URL path', JSON.stringify({ path: '/v1evil/x' })],
		['a path that climbs out with encoded dots', JSON.stringify({ path: '/v1/%2e%2e/admin' })],
		['a backslash path (read as protocol-relative)', JSON.stringify({ path: '/\\evil.test/x' })],
		['a path with a tab before a second slash', JSON.stringify({ path: '/\t/evil.test/x' })],
		['the legacy url token', JSON.stringify({ kind: 'url', url: EVIL })],
		['a path with a second key', JSON.stringify({ path: '/v1/documents', url: `${EVIL}/steal` })],
		['not JSON', 'http://evil.test/steal'],
	])('%s is refused with a clear error and nothing is sent anywhere', async (_title, token) => {
		const evil = trap();
		await withCountingServer(
			() => ({ status: 200, body: { data: docs(0, 1) } }),
			async (server) => {
				const context = loadOptionsContext({ baseUrl: server.baseUrl, apiKey: API_KEY });
				const failure = await searchDocuments.call(context, undefined, token).then(
					() => undefined,
					(error: Error & { description?: string }) => error,
				);
				expect(failure?.message).toBe('The list page token is not valid');
				expect(failure?.description).toMatch(/Reload the list/);
				expectNoKey(failure);
				expect(server.requests).toEqual([]);
			},
		);
		expect(evil.isDone()).toBe(false);
		expect(nock.pendingMocks().some((mock) => mock.includes('evil.test'))).toBe(true);
	});

	// Old: tokens were whatever the first page gave (a whole URL included); these must keep working.
	test('genuine tokens from a first page still work: cursor, page number and a same-origin next link', async () => {
		let style: 'cursor' | 'page' | 'link' = 'cursor';
		await withCountingServer(
			(request) => {
				const url = new URL(request.url, 'http://127.0.0.1');
				if (style === 'cursor') {
					return url.searchParams.get('cursor') === 'c2'
						? { status: 200, body: { data: docs(50, 2), has_more: false } }
						: { status: 200, body: { data: docs(0, 50), has_more: true, next_cursor: 'c2' } };
				}
				if (style === 'page') {
					const page = Number(url.searchParams.get('page') ?? 1);
					return {
						status: 200,
						body: { data: docs((page - 1) * 50, page === 3 ? 1 : 50), page, total_pages: 3 },
					};
				}
				if (url.searchParams.get('after') === 'doc_49')
					return { status: 200, body: { data: docs(50, 1) } };
				return {
					status: 200,
					body: { data: docs(0, 50) },
					headers: { link: `<${serverBase}/documents?after=doc_49&limit=50>; rel="next"` },
				};
			},
			async (server) => {
				serverBase = server.baseUrl;
				const context = () => loadOptionsContext({ baseUrl: server.baseUrl, apiKey: API_KEY });

				const first = await searchDocuments.call(context(), undefined);
				// `alt`: the other names the token may be read under, tried if the service repeats the page.
				expect(JSON.parse(first.paginationToken!)).toEqual({
					cursor: 'c2',
					alt: expect.arrayContaining(['page_token']),
					after: expect.stringMatching(/^[0-9a-f]{16}$/),
				});
				const second = await searchDocuments.call(context(), undefined, first.paginationToken);
				expect(second.results.map((result) => result.value)).toEqual(['doc_50', 'doc_51']);
				expect(second.paginationToken).toBeUndefined();

				style = 'page';
				const p1 = await searchDocuments.call(context(), undefined);
				expect(JSON.parse(p1.paginationToken!)).toEqual({ page: 2, after: expect.any(String) });
				const p2 = await searchDocuments.call(context(), undefined, p1.paginationToken);
				expect(JSON.parse(p2.paginationToken!)).toEqual({ page: 3, after: expect.any(String) });
				expect(
					(await searchDocuments.call(context(), undefined, p2.paginationToken)).results.map(
						(result) => result.value,
					),
				).toEqual(['doc_100']);

				style = 'link';
				const l1 = await searchDocuments.call(context(), undefined);
				// The token holds a path under the Base URL, never a whole URL.
				expect(JSON.parse(l1.paginationToken!)).toEqual({
					path: '/v1/documents?after=doc_49&limit=50',
					after: expect.any(String),
				});
				const l2 = await searchDocuments.call(context(), undefined, l1.paginationToken);
				expect(l2.results.map((result) => result.value)).toEqual(['doc_50']);
				expect(server.requests.at(-1)?.url).toBe('/v1/documents?after=doc_49&limit=50');
				expect(
					server.requests.every((request) => request.headers.authorization === `Bearer ${API_KEY}`),
				).toBe(true);
			},
		);
	});

	// Old: direct requests carried no allowedDomains, so n8n's credential restriction never applied to them.
	test("n8n's domain restriction: direct requests carry allowedDomains with the Base URL's own host", () => {
		const node = { name: 'Document Signing' } as INode;
		const restricted = readCredentials({
			baseUrl: 'https://API.Signing.test:8443/v1',
			apiKey: API_KEY,
			allowedHttpRequestDomains: 'domains',
			allowedDomains: 'example.org',
		});
		const origin = new ServiceOrigin(restricted.baseUrl, node);
		const allowed = allowedDomainsFor(restricted, origin);
		expect(allowed).toBe('api.signing.test, example.org');

		const onlyOwn = readCredentials({
			baseUrl: 'https://api.signing.test/v1',
			apiKey: API_KEY,
			allowedHttpRequestDomains: 'domains',
			allowedDomains: '  ',
		});
		expect(allowedDomainsFor(onlyOwn, new ServiceOrigin(onlyOwn.baseUrl, node))).toBe(
			'api.signing.test',
		);
		const unrestricted = readCredentials({
			baseUrl: 'https://api.signing.test/v1',
			apiKey: API_KEY,
			allowedHttpRequestDomains: 'all',
		});
		expect(
			allowedDomainsFor(unrestricted, new ServiceOrigin(unrestricted.baseUrl, node)),
		).toBeUndefined();
	});

	test('a restricted credential still reaches its own Base URL through n8n (its own host is allowed)', async () => {
		await withCountingServer(
			() => ({ status: 200, body: { data: docs(0, 1) } }),
			async (server) => {
				const credentials = {
					baseUrl: server.baseUrl,
					apiKey: API_KEY,
					allowedHttpRequestDomains: 'domains',
					allowedDomains: 'example.org',
				};
				const result = await searchDocuments.call(loadOptionsContext(credentials), undefined);
				expect(result.results.map((entry) => entry.value)).toEqual(['doc_0']);
				expect(server.requests).toHaveLength(1);
			},
		);
	});
});

// ---------------------------------------------------------------------------------------------

describe('2. MEDIUM: the key never follows cross-origin links or redirects', () => {
	const docs = (from: number, count: number) =>
		Array.from({ length: count }, (_, i) => ({ id: `doc_${from + i}` }));
	const getAll = (baseUrl = `${ORIGIN}/v1`) =>
		runDocumentSigning({
			parameters: { resource: 'document', operation: 'getAll', returnAll: true, simplify: false },
			credentials: { baseUrl, apiKey: API_KEY },
		});
	const getDocument = () =>
		runDocumentSigning({
			parameters: {
				resource: 'document',
				operation: 'get',
				documentId: { __rl: true, mode: 'id', value: 'doc_1' },
				simplify: false,
			},
			credentials: { baseUrl: `${ORIGIN}/v1`, apiKey: API_KEY },
		});

	// Old: Get Many followed any rel=next link, sending the API key to whatever host it named.
	test('a Link rel=next to another origin: the item fails naming that origin, which received nothing', async () => {
		const evil = trap();
		const own = nock(ORIGIN)
			.get('/v1/documents')
			.query(true)
			.reply(200, { data: docs(0, 100) }, { Link: `<${EVIL}/v1/documents?page=2>; rel="next"` });
		const result = await getAll();
		expect(own.isDone()).toBe(true);
		expect(result.items).toEqual([]);
		expect(result.error?.message).toContain('another origin (http://evil.test)');
		expect(result.error?.description).toMatch(/Nothing was sent to http:\/\/evil\.test/);
		expectNoKey(result.error);
		expect(JSON.stringify(result.run.data)).not.toContain(API_KEY);
		expect(evil.isDone()).toBe(false);
	});

	// Old: a body `next` URL was followed wherever it pointed.
	test('a body next URL to another origin: refused, nothing sent there', async () => {
		const evil = trap();
		nock(ORIGIN)
			.get('/v1/documents')
			.query(true)
			.reply(200, { data: docs(0, 3), next: `${EVIL}/v1/documents?cursor=x` });
		const result = await getAll();
		expect(result.error?.message).toContain('another origin (http://evil.test)');
		expectNoKey(result.error);
		expect(evil.isDone()).toBe(false);
	});

	// Old: only the host was compared (or nothing), so https → http on the same host sent the key in clear.
	test('an https → http downgrade on the same host is another origin: refused, nothing sent over http', async () => {
		const plain = trap(ORIGIN.replace('https:', 'http:'));
		nock('https://signing.test')
			.get('/v1/documents')
			.query(true)
			.reply(
				200,
				{ data: docs(0, 3) },
				{ Link: '<http://signing.test/v1/documents?page=2>; rel="next"' },
			);
		const result = await getAll('https://signing.test/v1');
		expect(result.error?.message).toContain('another origin (http://signing.test)');
		expectNoKey(result.error);
		expect(plain.isDone()).toBe(false);
	});

	test('a second counting server on another port is another origin too', async () => {
		await withCountingServer(
			() => ({ status: 200, body: { data: [{ id: 'stolen' }] } }),
			async (other) => {
				const otherOrigin = new URL(other.baseUrl).origin;
				await withCountingServer(
					() => ({
						status: 200,
						body: { data: docs(0, 2), next: `${other.baseUrl}/documents?cursor=2` },
					}),
					async (own) => {
						const result = await getAll(own.baseUrl);
						expect(result.error?.message).toContain(`another origin (${otherOrigin})`);
						expect(own.requests).toHaveLength(1);
						expect(other.requests).toEqual([]);
					},
				);
			},
		);
	});

	// Old: n8n's request helper followed redirects and carried the Authorization header along.
	test('a 307 redirect to another origin on Document › Get: error, nothing sent there', async () => {
		const evil = trap();
		nock(ORIGIN)
			.get('/v1/documents/doc_1')
			.reply(307, '', { Location: `${EVIL}/steal` });
		const result = await getDocument();
		expect(result.items).toEqual([]);
		expect(result.error?.message).toMatch(/redirect \(HTTP 307\).*it was not followed/);
		expect(result.error?.message).toContain('http://evil.test/steal');
		expectNoKey(result.error);
		expect(evil.isDone()).toBe(false);
	});

	// Old: same-origin redirects were followed (n8n's default).
	test('a same-origin 302 is refused too (redirects are never followed)', async () => {
		nock(ORIGIN)
			.get('/v1/documents/doc_1')
			.reply(302, '', { Location: `${ORIGIN}/v1/documents/doc_2` });
		const target = nock(ORIGIN).get('/v1/documents/doc_2').reply(200, { id: 'doc_2' });
		const result = await getDocument();
		expect(result.error?.message).toMatch(/redirect \(HTTP 302\)/);
		expect(result.error?.httpCode).toBe('302');
		expectNoKey(result.error);
		expect(target.isDone()).toBe(false);
	});
});

// ---------------------------------------------------------------------------------------------

describe("3. MEDIUM: one credential's 429 never stalls another", () => {
	const getAs = (baseUrl: string, apiKey: string, id: string) =>
		runDocumentSigning({
			parameters: {
				resource: 'document',
				operation: 'get',
				documentId: { __rl: true, mode: 'id', value: id },
				simplify: false,
			},
			credentials: { baseUrl, apiKey },
		});

	// Old: one gate per Base URL, so key B waited out key A's Retry-After.
	// Key A's request runs in the transport's retry loop with key A's own gate key (exactly what the
	// node uses for that credential) and a Retry-After of 60 s, so the ordering is deterministic:
	// B completes while A is still waiting, then A is cancelled. With one gate per Base URL, B would
	// sit behind A's pause and this test would time out.
	test(
		"while key A waits out a 429, key B's request on the same service completes",
		() =>
			withRealWaits(async () => {
				const keyA = `sk_a_${randomUUID()}`;
				const keyB = `sk_b_${randomUUID()}`;
				await withCountingServer(
					(request) =>
						request.headers.authorization === `Bearer ${keyA}`
							? {
									status: 429,
									headers: { 'retry-after': '60' },
									body: { error: { code: 'rate_limited', message: 'Too many requests' } },
								}
							: { status: 200, body: { id: request.url.split('/').pop() } },
					async (server) => {
						const node = { name: 'Document Signing' } as INode;
						const gateKeyA = credentialKey(
							readCredentials({ baseUrl: server.baseUrl, apiKey: keyA }),
							new ServiceOrigin(server.baseUrl, node),
						);
						const controller = new AbortController();
						let aRefused = false;
						const sendA = async () => {
							const response = await fetch(`${server.baseUrl}/documents/doc_a`, {
								headers: { Authorization: `Bearer ${keyA}` },
							});
							const body = (await response.json()) as IDataObject;
							aRefused = response.status === 429;
							if (response.status >= 400)
								throw new HttpStatusError({
									statusCode: response.status,
									headers: Object.fromEntries(response.headers),
									body,
								});
							return body;
						};
						let aSettled = false;
						const a = sendWithRetries(
							{ node, gateKey: gateKeyA, idempotent: true, abortSignal: controller.signal },
							sendA,
						).finally(() => {
							aSettled = true;
						});
						a.catch(() => undefined);
						// Until A's 429 has been received (its pause is set in the same turn it is thrown).
						await waitFor(async () => aRefused, "key A's 429");
						await new Promise((resolve) => setTimeout(resolve, 50));

						const b = await getAs(server.baseUrl, keyB, 'doc_b');
						expect(b.error).toBeUndefined();
						expect(b.items[0].json).toMatchObject({ id: 'doc_b' });
						// B is done while A is still waiting for its 429 to pass.
						expect(aSettled).toBe(false);
						expect(
							server.requests.map((request) =>
								request.headers.authorization === `Bearer ${keyA}` ? 'A' : 'B',
							),
						).toEqual(['A', 'B']);

						controller.abort();
						await expect(a).rejects.toThrow(/cancelled/);
					},
				);
			}),
		15_000,
	);

	// Through the node end to end: A's request is answered once its Retry-After has passed.
	test('key A through the node succeeds after waiting out Retry-After: 5', async () => {
		const keyA = `sk_a2_${randomUUID()}`;
		let seen = 0;
		await withCountingServer(
			() =>
				++seen === 1
					? {
							status: 429,
							headers: { 'retry-after': '5' },
							body: { error: { code: 'rate_limited', message: 'Too many requests' } },
						}
					: { status: 200, body: { id: 'doc_a' } },
			async (server) => {
				const result = await getAs(server.baseUrl, keyA, 'doc_a');
				expect(result.error).toBeUndefined();
				expect(result.items[0].json).toMatchObject({ id: 'doc_a' });
				expect(server.requests).toHaveLength(2);
			},
		);
	}, 15_000);

	// Old: a long Retry-After was honoured (the request sat there for an hour).
	test('Retry-After: 3600 fails at once, saying it asked to wait too long', async () => {
		await withCountingServer(
			() => ({
				status: 429,
				headers: { 'retry-after': '3600' },
				body: { error: { code: 'rate_limited', message: 'Too many requests' } },
			}),
			async (server) => {
				const result = await getAs(server.baseUrl, `sk_c_${randomUUID()}`, 'doc_c');
				expect(result.error?.httpCode).toBe('429');
				expect(`${result.error?.message} ${result.error?.description}`).toMatch(
					/asked to wait 3600 s, more than the 120 s/,
				);
				expect(server.requests).toHaveLength(1);
			},
		);
	});

	// Old: 429s were retried a fixed number of times whatever they asked, with no bound on the total wait.
	test("429s that never end give up once the total wait would pass the request's five minutes", async () => {
		await withCountingServer(
			() => ({
				status: 429,
				headers: { 'retry-after': '110' },
				body: { error: { code: 'rate_limited', message: 'Too many requests' } },
			}),
			async (server) => {
				const result = await getAs(server.baseUrl, `sk_d_${randomUUID()}`, 'doc_d');
				expect(result.error?.httpCode).toBe('429');
				expect(result.error?.description).toMatch(/beyond this request's limit of 300 s in all/);
				// Sent at 0, 110 and 220 s; a fourth would start past 300 s.
				expect(server.requests).toHaveLength(3);
			},
		);
	}, 10_000);

	// Old: the wait for a 429 could not be cancelled (n8n's sleep is not abortable).
	test(
		'an aborted execution stops waiting out a long 429 at once',
		() =>
			withRealWaits(async () => {
				const controller = new AbortController();
				let attempts = 0;
				const send = async () => {
					attempts++;
					if (attempts === 1) setTimeout(() => controller.abort(), 100);
					throw new HttpStatusError({
						statusCode: 429,
						headers: { 'retry-after': '60' },
						body: { message: 'slow down' },
					});
				};
				const started = Date.now();
				const outcome = sendWithRetries(
					{
						node: { name: 'Document Signing' } as INode,
						gateKey: `cancel-${randomUUID()}`,
						idempotent: true,
						abortSignal: controller.signal,
					},
					send,
				);
				await expect(outcome).rejects.toThrow(/cancelled/);
				// Far below the 60 s the service asked for: the cancel, not the wait, ended it.
				expect(Date.now() - started).toBeLessThan(30_000);
				expect(attempts).toBe(1);
			}),
		45_000,
	);

	// Old: no bound on a request's whole life (429 after 429 could hold it forever).
	test('a single 429 may ask for at most two of the five minutes', async () => {
		const askedFor = async (seconds: number) => {
			let seen = 0;
			return await withCountingServer(
				() =>
					++seen === 1
						? {
								status: 429,
								headers: { 'retry-after': String(seconds) },
								body: { error: { code: 'rate_limited', message: 'Too many requests' } },
							}
						: { status: 200, body: { id: 'doc_e' } },
				async (server) => ({
					result: await getAs(server.baseUrl, `sk_e_${randomUUID()}`, 'doc_e'),
					requests: server.requests.length,
				}),
			);
		};
		const waited = await askedFor(120);
		expect(waited.result.error).toBeUndefined();
		expect(waited.requests).toBe(2);
		const refused = await askedFor(121);
		expect(refused.result.error?.description).toMatch(/asked to wait 121 s, more than the 120 s/);
		expect(refused.requests).toBe(1);
	});
});

// ---------------------------------------------------------------------------------------------

/** n8n's stand-in: routes /webhook/<node webhookId>/webhook to the host that owns it (as in delivery.test.ts). */
class Receiver {
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

async function sendDocument(apiKey: string): Promise<void> {
	const response = await fetch(`${sandbox().baseUrl}/documents`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({
			name: 'contract.pdf',
			signers: [{ email: 'ada@example.com', name: 'Ada Lovelace' }],
		}),
	});
	expect(response.status).toBe(201);
	await sandbox().flushDeliveries();
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
let deliverySeq = 0;

function signed(
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

describe("4. MEDIUM: a copied workflow never deletes the original's webhook", () => {
	const receiverA = new Receiver();
	const receiverB = new Receiver();

	beforeAll(async () => {
		await receiverA.start();
		await receiverB.start();
	});
	afterAll(async () => {
		await receiverA.close();
		await receiverB.close();
	});

	// Old: B's activation deleted the webhook id found in its (copied) static data: A's webhook.
	test("instance B activated from a copy of A's static data: both webhooks live, each instance runs one execution per event", async () => {
		const { apiKey } = sandbox().createAccount();
		const a = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: receiverA.webhookBaseUrl,
			events: ['document.sent'],
		});
		receiverA.hosts.set(a.nodeWebhookId, a);
		await a.activate();
		const aWebhookId = String(a.nodeStaticData.webhookId);

		const b = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: receiverB.webhookBaseUrl,
			events: ['document.sent'],
			workflowId: a.workflowId,
			nodeWebhookId: a.nodeWebhookId,
		});
		b.savedStaticData = structuredClone(a.savedStaticData);
		receiverB.hosts.set(b.nodeWebhookId, b);
		const warnings = captureWarnings();
		await b.activate();

		// A's registration was forgotten by B and logged, never deleted.
		const foreign = warned(warnings).filter(([message]) =>
			/points at another address.*forgotten, not deleted/.test(message),
		);
		expect(foreign).toHaveLength(1);
		expect(foreign[0][1]).toMatchObject({
			webhookId: aWebhookId,
			storedOrigin: new URL(receiverA.webhookBaseUrl).origin,
			currentOrigin: new URL(receiverB.webhookBaseUrl).origin,
		});

		const bWebhookId = String(b.nodeStaticData.webhookId);
		expect(bWebhookId).not.toBe(aWebhookId);
		expect(
			sandbox()
				.store.webhooksOf(apiKey)
				.map((webhook) => [webhook.id, webhook.url])
				.sort(),
		).toEqual(
			[
				[aWebhookId, a.webhookUrl],
				[bWebhookId, b.webhookUrl],
			].sort(),
		);
		expect(await a.runHook('checkExists')).toBe(true);
		expect(await b.runHook('checkExists')).toBe(true);

		await sendDocument(apiKey);
		await a.idle();
		await b.idle();
		expect(a.executions).toHaveLength(1);
		expect(b.executions).toHaveLength(1);
		expect(a.processed.map((execution) => execution.items[0].json.webhookId)).toEqual([aWebhookId]);
		expect(b.processed.map((execution) => execution.items[0].json.webhookId)).toEqual([bWebhookId]);

		// Deactivating B removes B's webhook only.
		await b.deactivate();
		expect(
			sandbox()
				.store.webhooksOf(apiKey)
				.map((webhook) => webhook.id),
		).toEqual([aWebhookId]);
		expect(await a.runHook('checkExists')).toBe(true);
		expect(a.nodeStaticData.webhookId).toBe(aWebhookId);
	}, 20_000);

	// Old: deactivate deleted the stored id whatever URL it was registered for.
	test('deactivating an instance whose stored registration is on another origin forgets it (logged) and deletes nothing', async () => {
		const { apiKey } = sandbox().createAccount();
		const a = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: receiverA.webhookBaseUrl,
			events: ['document.completed'],
		});
		await a.activate();
		const copy = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: receiverB.webhookBaseUrl,
			events: ['document.completed'],
			workflowId: a.workflowId,
			nodeWebhookId: a.nodeWebhookId,
		});
		copy.savedStaticData = structuredClone(a.savedStaticData);
		const warnings = captureWarnings();
		await copy.deactivate();
		expect(
			warned(warnings).some(([message]) => /another address.*forgotten, not deleted/.test(message)),
		).toBe(true);
		expect(copy.nodeStaticData.webhookId).toBeUndefined();
		expect(
			sandbox()
				.store.webhooksOf(apiKey)
				.map((webhook) => webhook.id),
		).toEqual([a.nodeStaticData.webhookId]);
		expect(await a.runHook('checkExists')).toBe(true);
	});
});

// ---------------------------------------------------------------------------------------------

describe('5. LOW: ids "." and ".." are refused before any request', () => {
	const rl = (value: string) => ({ __rl: true, mode: 'id', value });
	const byId = '={{ $json.id }}';
	const cases: Array<[string, Record<string, unknown>, string]> = [
		[
			'Document › Get',
			{ resource: 'document', operation: 'get', documentId: rl(byId) },
			'Document',
		],
		[
			'Document › Delete',
			{ resource: 'document', operation: 'delete', documentId: rl(byId) },
			'Document',
		],
		[
			'Signing Request › Create',
			{ resource: 'signingRequest', operation: 'create', draftDocumentId: rl(byId) },
			'Document',
		],
		[
			'Signing Request › Get Status',
			{ resource: 'signingRequest', operation: 'getStatus', signingRequestId: byId },
			'Signing Request ID',
		],
		[
			'Signing Request › Remind',
			{ resource: 'signingRequest', operation: 'remind', signingRequestId: byId },
			'Signing Request ID',
		],
		[
			'Template › Update',
			{
				resource: 'template',
				operation: 'update',
				templateId: rl(byId),
				updateFields: { name: 'NDA' },
			},
			'Template',
		],
		[
			'Team Member › Update Role',
			{ resource: 'teamMember', operation: 'updateRole', teamMemberId: rl(byId), role: 'admin' },
			'Team Member',
		],
		[
			'Webhook › Delete',
			{ resource: 'webhook', operation: 'delete', webhookId: byId },
			'Webhook ID',
		],
		[
			'Webhook › Get Delivery (webhook)',
			{ resource: 'webhook', operation: 'getDelivery', webhookId: byId, deliveryId: 'dlv_1' },
			'Webhook ID',
		],
		[
			'Webhook › Get Delivery (delivery)',
			{ resource: 'webhook', operation: 'getDelivery', webhookId: 'wh_1', deliveryId: byId },
			'Delivery ID',
		],
		[
			'Webhook › Acknowledge Delivery (webhook)',
			{
				resource: 'webhook',
				operation: 'acknowledgeDelivery',
				webhookId: byId,
				deliveryId: 'dlv_1',
			},
			'Webhook ID',
		],
		[
			'Webhook › Acknowledge Delivery (delivery)',
			{
				resource: 'webhook',
				operation: 'acknowledgeDelivery',
				webhookId: 'wh_1',
				deliveryId: byId,
			},
			'Delivery ID',
		],
	];
	const table = cases.flatMap(([title, parameters, label]) =>
		['.', '..'].map((id) => [title, id, parameters, label] as const),
	);

	let server: Awaited<ReturnType<typeof startCountingServer>>;
	beforeAll(async () => {
		server = await startCountingServer((request) => ({
			status: request.method === 'DELETE' ? 204 : 200,
			body: { id: 1004, name: 'x.pdf' },
		}));
	});
	afterAll(async () => await server.close());
	beforeEach(() => {
		server.requests.length = 0;
	});

	// Old: `.`/`..` were encoded as themselves and normalised away (Get Document "." read the list; ".." another resource).
	test.each(table)(
		'%s with id "%s" → an error naming the parameter, nothing sent',
		async (_title, id, parameters, label) => {
			const result = await runDocumentSigning({
				parameters: parameters as never,
				items: [{ json: { id } }],
				credentials: { baseUrl: server.baseUrl, apiKey: API_KEY },
			});
			expect(result.error?.message).toBe(`${label}: "${id}" is not a valid ID`);
			expect(server.requests).toEqual([]);
		},
	);

	// Old: a JSON number from an expression was refused as "not a string" or sent as "[object]"-like text.
	test.each([
		[
			'Document › Get',
			{ resource: 'document', operation: 'get', documentId: rl(byId), simplify: false },
			'GET',
			'/v1/documents/1004',
		],
		[
			'Webhook › Delete',
			{ resource: 'webhook', operation: 'delete', webhookId: byId },
			'DELETE',
			'/v1/webhooks/1004',
		],
		[
			'Webhook › Get Delivery',
			{
				resource: 'webhook',
				operation: 'getDelivery',
				webhookId: byId,
				deliveryId: '={{ $json.id + 1 }}',
			},
			'GET',
			'/v1/webhooks/1004/deliveries/1005',
		],
	])('a numeric id works: %s', async (_title, parameters, method, path) => {
		const result = await runDocumentSigning({
			parameters: parameters as never,
			items: [{ json: { id: 1004 } }],
			credentials: { baseUrl: server.baseUrl, apiKey: API_KEY },
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(server.requests.map((request) => [request.method, request.url])).toEqual([
			[method, path],
		]);
	});
});

// ---------------------------------------------------------------------------------------------

describe('6. LOW: DELETE after a lost answer', () => {
	const deleteDocument = (baseUrl: string) =>
		runDocumentSigning({
			parameters: {
				resource: 'document',
				operation: 'delete',
				documentId: { __rl: true, mode: 'id', value: 'doc_1' },
			},
			credentials: { baseUrl, apiKey: API_KEY },
		});
	const notFound = {
		status: 404,
		body: { error: { code: 'not_found', message: 'No such document' } },
	};

	// Old: any 404 after a retry counted as "deleted", even when the first attempt was a 503 (which deleted nothing).
	test('503 then 404 fails with the 404, not "deleted"', async () => {
		const answers: ServerAnswer[] = [
			{ status: 503, body: { error: { code: 'unavailable', message: 'down' } } },
			notFound,
		];
		await withCountingServer(
			() => answers.shift() ?? { status: 500 },
			async (server) => {
				const result = await deleteDocument(server.baseUrl);
				expect(result.items).toEqual([]);
				expect(result.error?.httpCode).toBe('404');
				expect(result.error?.message).toBe('No such document');
				expect(server.requests.map((request) => request.method)).toEqual(['DELETE', 'DELETE']);
			},
		);
	});

	test('connection reset after sending, then 404 on the retry → { id, deleted: true }', async () => {
		const answers: ServerAnswer[] = [{ reset: true }, notFound];
		await withCountingServer(
			() => answers.shift() ?? { status: 500 },
			async (server) => {
				const result = await deleteDocument(server.baseUrl);
				expect(result.error).toBeUndefined();
				expect(result.items.map((item) => item.json)).toEqual([{ id: 'doc_1', deleted: true }]);
				expect(server.requests.map((request) => request.method)).toEqual(['DELETE', 'DELETE']);
			},
		);
	});
});

// ---------------------------------------------------------------------------------------------

/** Every string anywhere in `value`. */
function strings(value: unknown): string[] {
	if (typeof value === 'string') return [value];
	if (Array.isArray(value)) return value.flatMap(strings);
	if (typeof value === 'object' && value !== null)
		return [...Object.keys(value), ...Object.values(value).flatMap(strings)];
	return [];
}

describe('7. LOW: the webhook secret is not readable from static data', () => {
	async function activated() {
		const { apiKey } = sandbox().createAccount();
		const host = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
			events: ['document.completed'],
		});
		await host.activate();
		const webhookId = String(host.nodeStaticData.webhookId);
		const secret = webhookSecret(sandbox(), apiKey, webhookId);
		// Derived from the key (nodes/shared/webhooks.ts: derivedSecret): 64 hex characters.
		expect(secret).toMatch(/^[0-9a-f]{64}$/);
		return { host, apiKey, webhookId, secret: secret! };
	}

	// Old: static data held `webhookSecret` in clear (readable through n8n's public API).
	test('static data holds neither the stored secret nor any 64-hex value', async () => {
		const { host, secret } = await activated();
		const all = strings(host.savedStaticData);
		expect(host.savedStaticData).toEqual({
			'node:Document Signing Trigger': {
				webhookId: expect.any(String),
				// Who registered it: a hash of workflow and node ids, nothing of the key.
				webhookOwner: expect.stringMatching(/^[0-9a-f]{16}$/),
				webhookUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:5678\/webhook\//),
				webhookEvents: ['document.completed'],
				secretNonce: expect.stringMatching(/^[0-9a-f]{32}$/),
			},
		});
		expect(all.filter((text) => text.includes(secret))).toEqual([]);
		expect(all.filter((text) => /[0-9a-f]{64}/i.test(text))).toEqual([]);
		expect(JSON.stringify(host.savedStaticData)).not.toContain(secret);
	});

	// Old: the secret was in static data, so a reader could sign deliveries.
	test('deliveries signed with secrets derived from static data alone are refused 401', async () => {
		const { host, webhookId } = await activated();
		const data = host.nodeStaticData;
		const nonce = String(data.secretNonce);
		const hmac = (key: string, text: string) =>
			createHmac('sha256', key).update(text).digest('hex');
		const guesses = [
			nonce,
			hmac(nonce, ''),
			hmac(nonce, host.workflowId),
			hmac(
				nonce,
				[
					'n8n-nodes-document-signing',
					'webhook-secret',
					host.workflowId,
					'trigger-node',
					nonce,
				].join('\u0000'),
			),
			hmac(
				'',
				[
					'n8n-nodes-document-signing',
					'webhook-secret',
					host.workflowId,
					'trigger-node',
					nonce,
				].join('\u0000'),
			),
			createHash('sha256').update(nonce).digest('hex'),
			String(data.keyCheck),
			webhookId,
			...strings(data),
		];
		for (const guess of guesses) {
			const outcome = await host.receive(signed(guess, webhookId));
			expect([guess, outcome.status, outcome.started]).toEqual([guess, 401, false]);
		}
		expect(host.executions).toHaveLength(0);
	});

	// Old: another process read the secret from static data; now it recomputes it from the credential.
	test('another process with a copy of the static data and the same credential verifies; with another key it refuses with a clear warning', async () => {
		const { host, apiKey, webhookId, secret } = await activated();
		const sibling = (key: string, trigger?: TriggerHost['trigger']) => {
			const other = new TriggerHost({
				trigger,
				baseUrl: sandbox().baseUrl,
				apiKey: key,
				webhookBaseUrl: host.webhookBaseUrl,
				events: ['document.completed'],
				workflowId: host.workflowId,
				nodeWebhookId: host.nodeWebhookId,
			});
			other.savedStaticData = structuredClone(host.savedStaticData);
			return other;
		};

		const same = sibling(apiKey);
		const accepted = await same.receive(signed(secret, webhookId));
		expect(accepted.status).toBe(200);
		expect(accepted.started).toBe(true);
		expect((await accepted.execution!).received).toHaveLength(1);

		// Another process, started after the key changed: nothing of this one's memory.
		const warnings = captureWarnings();
		const otherKey = sibling('sk_another_key_entirely_0000000000', triggerOfAnotherProcess());
		const refused = await otherKey.receive(signed(secret, webhookId));
		expect(refused.status).toBe(401);
		expect(refused.started).toBe(false);
		const reasons = warned(warnings).map(([message]) => message);
		expect(
			reasons.some((message) =>
				/refused a delivery.*API key changed since the webhook was registered/.test(message),
			),
		).toBe(true);
		expect(reasons.join('\n')).not.toContain(secret);
		await same.idle();
	});
});

// ---------------------------------------------------------------------------------------------

describe('7b. LOW: a secret the service chose itself is sealed, not stored', () => {
	// Old: the service's own secret was stored in static data as is.
	test('static data holds only a sealed copy; this credential verifies with it, another key cannot open it', async () => {
		const serviceSecret = 'svc_chosen_secret_' + 'f'.repeat(40);
		let registered: IDataObject = {};
		nock(ORIGIN)
			.get('/v1/webhooks')
			.query(true)
			.reply(200, { data: [] })
			.post('/v1/webhooks', (body: IDataObject) => {
				registered = body;
				return true;
			})
			.reply(201, () => ({
				id: 'wh_svc',
				url: registered.url,
				events: registered.events,
				secret: serviceSecret,
				active: true,
			}));
		nock(ORIGIN)
			.persist()
			.post(/\/v1\/webhooks\/wh_svc\/deliveries\/[^/]+\/acknowledge/)
			.reply(200, { status: 'acknowledged' });
		const host = new TriggerHost({
			baseUrl: `${ORIGIN}/v1`,
			apiKey: API_KEY,
			webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
			events: ['document.completed'],
		});
		await host.activate();
		expect(registered.secret).not.toBe(serviceSecret);
		expect(host.nodeStaticData).toMatchObject({
			webhookId: 'wh_svc',
			sealedSecret: expect.any(String),
		});
		expect(JSON.stringify(host.savedStaticData)).not.toContain(serviceSecret);
		expect(strings(host.savedStaticData).filter((text) => /[0-9a-f]{64}/i.test(text))).toEqual([]);

		const accepted = await host.receive(signed(serviceSecret, 'wh_svc'));
		expect(accepted.status).toBe(200);
		expect(accepted.started).toBe(true);
		await host.idle();

		// Another process: nothing of this one's memory.
		const otherKey = new TriggerHost({
			trigger: triggerOfAnotherProcess(),
			baseUrl: `${ORIGIN}/v1`,
			apiKey: 'sk_another_key_entirely_1111111111',
			webhookBaseUrl: host.webhookBaseUrl,
			events: ['document.completed'],
			workflowId: host.workflowId,
			nodeWebhookId: host.nodeWebhookId,
		});
		otherKey.savedStaticData = structuredClone(host.savedStaticData);
		expect((await otherKey.receive(signed(serviceSecret, 'wh_svc'))).status).toBe(401);
	});
});

describe('8. LOW: Signature Tolerance is capped', () => {
	// Old: the tolerance was used as given, so 1e12 s turned replay protection off.
	test('with 1e12 s, a correctly signed 2-hour-old delivery is refused 401; a 30-minute-old one is accepted', async () => {
		const { apiKey } = sandbox().createAccount();
		const host = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
			events: ['document.completed'],
			options: { signatureToleranceSeconds: 1e12 },
		});
		await host.activate();
		const webhookId = String(host.nodeStaticData.webhookId);
		const secret = webhookSecret(sandbox(), apiKey, webhookId)!;

		const old = await host.receive(signed(secret, webhookId, nowSeconds() - 2 * 3600));
		expect(old.status).toBe(401);
		expect(old.started).toBe(false);
		expect(old.body).toMatchObject({ error: { code: 'invalid_signature' } });

		const recent = await host.receive(signed(secret, webhookId, nowSeconds() - 30 * 60));
		expect(recent.status).toBe(200);
		expect(recent.started).toBe(true);
		await host.idle();
		expect(host.executions).toHaveLength(1);
	});
});

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Second round (issue 22). Items 1, 8 and 10 are tested in real n8n: e2e/security.e2e.test.ts.

const routeCount = (prefix: string) =>
	Object.entries(sandbox().stats().routes)
		.filter(([key]) => key.startsWith(prefix))
		.reduce((sum, [, count]) => sum + count, 0);

function unsigned(body: Record<string, unknown>): IncomingDelivery {
	return {
		headers: { 'content-type': 'application/json' },
		rawBody: Buffer.from(JSON.stringify(body)),
	};
}

async function createDocumentIn(apiKey: string, name = 'someone-elses.pdf'): Promise<string> {
	const response = await fetch(`${sandbox().baseUrl}/documents`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({
			name,
			signers: [{ email: 'ada@example.com', name: 'Ada Lovelace' }],
		}),
	});
	expect(response.status).toBe(201);
	return String(((await response.json()) as IDataObject).id);
}

describe('22.2 MEDIUM: an unverified delivery makes the trigger act with the key only when the service confirms it', () => {
	/** A trigger with Verify Signatures off; its URL is nowhere (the tests hand deliveries to it). */
	async function unverifiedTrigger(events: string[], options: IDataObject = {}) {
		const { apiKey } = sandbox().createAccount();
		const host = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: 'http://127.0.0.1:9/webhook',
			events,
			options,
		});
		host.parameters.verifySignature = false;
		await host.activate();
		return { host, apiKey, webhookId: String(host.nodeStaticData.webhookId) };
	}

	// Old: the forged body's document was downloaded with the key and attached.
	test('a forged document.completed naming another document: refused, nothing started or fetched', async () => {
		const { host, apiKey } = await unverifiedTrigger(['document.completed'], {
			attachSignedFile: true,
		});
		const otherDocument = await createDocumentIn(apiKey);
		const before = routeCount('GET /v1/documents/');
		const outcome = await host.receive(
			unsigned({
				id: 'dlv_madeup1',
				event: 'document.completed',
				data: {
					document: {
						id: otherDocument,
						status: 'completed',
						signed_file_url: `${sandbox().baseUrl}/documents/${otherDocument}/file?version=original`,
					},
				},
			}),
		);
		expect(outcome).toMatchObject({ started: false, status: 401 });
		expect(routeCount('GET /v1/documents/') - before).toBe(0);
	});

	// Old: the claim went to the body's webhook_id, acknowledging another webhook's delivery.
	test("a forged webhook_id naming another webhook: that webhook's delivery is not acknowledged", async () => {
		const { host, apiKey } = await unverifiedTrigger(['document.sent']);
		const response = await fetch(`${sandbox().baseUrl}/webhooks`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
			body: JSON.stringify({ url: 'http://127.0.0.1:9/other-receiver', events: ['document.sent'] }),
		});
		const other = String(((await response.json()) as IDataObject).id);
		await sendDocument(apiKey);
		const victim = sandbox()
			.deliveries()
			.find((attempt) => attempt.webhookId === other)!;
		expect(victim).toMatchObject({ webhookId: other, event: 'document.sent' });

		const outcome = await host.receive(
			unsigned({ id: victim.deliveryId, event: 'document.sent', webhook_id: other, data: {} }),
		);
		await outcome.execution;
		expect(sandbox().deliveryRecord(victim.deliveryId)?.status).not.toBe('acknowledged');
		expect(sandbox().deliveryRecord(victim.deliveryId)?.acknowledged_at ?? null).toBeNull();
	});

	test("a real delivery of this trigger's own webhook is confirmed by the service and claimed as usual", async () => {
		const { host, apiKey, webhookId } = await unverifiedTrigger(['document.sent']);
		await sendDocument(apiKey);
		const own = sandbox()
			.deliveries()
			.find((attempt) => attempt.webhookId === webhookId)!;
		const outcome = await host.receive({
			headers: { 'content-type': 'application/json' },
			rawBody: Buffer.from(own.body),
		});
		const execution = await outcome.execution!;
		expect(execution.items).toHaveLength(1);
		expect(sandbox().deliveryRecord(own.deliveryId)?.status).toBe('acknowledged');
	});

	// Old: the signed body's `status: completed` was trusted and the file requested.
	test("verified too: the document's state is read from the service first; one not completed gets no file request", async () => {
		const { apiKey } = sandbox().createAccount();
		const host = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: 'http://127.0.0.1:9/webhook',
			events: ['document.completed'],
			options: { attachSignedFile: true },
			continueOnFail: true,
		});
		await host.activate();
		const webhookId = String(host.nodeStaticData.webhookId);
		const secret = webhookSecret(sandbox(), apiKey, webhookId)!;
		const pending = await createDocumentIn(apiKey);
		const raw = JSON.stringify({
			id: 'dlv_state1',
			event: 'document.completed',
			webhook_id: webhookId,
			data: { document: { id: pending, status: 'completed' } },
		});
		const before = routeCount('GET /v1/documents/:id/file');
		const outcome = await host.receive({
			headers: {
				'content-type': 'application/json',
				'x-signature': signWebhookPayload(secret, nowSeconds(), raw),
			},
			rawBody: Buffer.from(raw),
		});
		const execution = await outcome.execution!;
		expect(String(execution.items[0]?.json.attachError)).toMatch(/is (sent|pending|draft)/);
		expect(routeCount('GET /v1/documents/:id/file') - before).toBe(0);
	});
});

describe('22.3 LOW: ids and links from the service are checked like typed ids', () => {
	// Old: the record's id ".." was placed in the path and normalised away: GET /v1/file.
	test('a record id ".." from the service: refused, nothing requested with it', async () => {
		await withCountingServer(
			() => ({ status: 200, body: { id: '..', name: 'x.pdf', status: 'completed' } }),
			async (server) => {
				const result = await downloadDocument(server.baseUrl);
				expect(result.error?.message).toContain('cannot be used in a request path');
				expect(server.requests.map((request) => request.url)).toEqual(['/v1/documents/doc_1']);
			},
		);
	});

	// Old: only the origin was compared, so the key went to /admin/keys/export.
	test("a file link on the same origin but outside the Base URL's path: refused, nothing requested there", async () => {
		await withCountingServer(
			() => ({
				status: 200,
				body: {
					id: 'doc_1',
					name: 'x.pdf',
					status: 'completed',
					signed_file_url: '/admin/keys/export',
				},
			}),
			async (server) => {
				const result = await downloadDocument(server.baseUrl);
				expect(result.error?.message).toContain("outside the Base URL's path (/admin/keys/export)");
				expect(server.requests.map((request) => request.url)).toEqual(['/v1/documents/doc_1']);
			},
		);
	});
});

/** A server on 127.0.0.1 whose answers the test writes itself (sizes, hangs). */
async function withRawServer<T>(
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

describe('22.4 LOW/MED: answers are read within a size limit per kind', () => {
	const MB = 1024 * 1024;
	/** Answers `size` bytes in 64 KB chunks (JSON for the API paths, bytes for files and exports). */
	const sized =
		(size: number, sent: { bytes: number }) =>
		(req: http.IncomingMessage, res: http.ServerResponse) => {
			if (req.url?.startsWith('/v1/documents/doc_1?') || req.url === '/v1/documents/doc_1') {
				res
					.writeHead(200, { 'content-type': 'application/json' })
					.end(JSON.stringify({ id: 'doc_1', name: 'x.pdf', status: 'completed' }));
				return;
			}
			const file = req.url?.includes('/file') || req.url?.includes('/export');
			res.writeHead(200, { 'content-type': file ? 'application/pdf' : 'application/json' });
			const chunk = Buffer.alloc(64 * 1024, 0x20);
			// A file is a PDF (a signed copy must be one), from its first bytes on.
			const first = Buffer.from(chunk);
			if (file) first.write('%PDF-1.7\n');
			const write = () => {
				while (sent.bytes < size) {
					const next = sent.bytes === 0 ? first : chunk;
					sent.bytes += next.length;
					if (!res.write(next)) return void res.once('drain', write);
				}
				res.end();
			};
			write();
		};

	// Old: n8n read any answer whole (maxContentLength: Infinity).
	test('a 40 MB API answer: fails naming the 16 MB limit, and the rest is not read', async () => {
		const sent = { bytes: 0 };
		await withRawServer(sized(40 * MB, sent), async (baseUrl) => {
			const result = await runDocumentSigning({
				parameters: { resource: 'document', operation: 'getAll', returnAll: false, limit: 5 },
				credentials: { baseUrl, apiKey: API_KEY },
			});
			expect(result.error?.message).toContain('larger than the 16 MB allowed for an API response');
			expect(sent.bytes).toBeLessThan(40 * MB);
		});
	});

	test('a file over "Largest Download (MB)": fails naming the limit and the field; within it, downloaded', async () => {
		const run = (largestDownloadMb: number) =>
			withRawServer(sized(3 * MB, { bytes: 0 }), async (baseUrl) =>
				runDocumentSigning({
					parameters: {
						resource: 'document',
						operation: 'download',
						documentId: { __rl: true, mode: 'id', value: 'doc_1' },
						version: 'signed',
						binaryPropertyName: 'data',
					},
					credentials: { baseUrl, apiKey: API_KEY, largestDownloadMb } as never,
				}),
			);
		const refused = await run(2);
		expect(refused.error?.message).toContain('larger than the 2 MB allowed for a file');
		expect(refused.error?.description).toContain('Largest Download (MB)');
		const allowed = await run(4);
		expect(allowed.error).toBeUndefined();
		expect(allowed.items[0].json.fileSize).toBe(3 * MB);
	});

	test('an export over the limit: fails naming it', async () => {
		await withRawServer(sized(3 * MB, { bytes: 0 }), async (baseUrl) => {
			const result = await runDocumentSigning({
				parameters: { resource: 'report', operation: 'export', binaryPropertyName: 'data' },
				credentials: { baseUrl, apiKey: API_KEY, largestDownloadMb: 1 } as never,
			});
			expect(result.error?.message).toContain('larger than the 1 MB allowed for an export');
		});
	});
});

describe('22.5 LOW: every request and every wait ends within its bound', () => {
	const saved = { ...TIME_LIMITS };
	afterEach(() => {
		Object.assign(TIME_LIMITS, saved);
	});

	// Old: no timeout unless one was given; a service that never answers held the item forever.
	test('a service that accepts and never answers: the item fails as timed out within the bound', async () => {
		Object.assign(TIME_LIMITS, { attemptMs: 300 });
		await withRawServer(
			() => undefined,
			async (baseUrl) => {
				const started = Date.now();
				const result = await runDocumentSigning({
					parameters: {
						resource: 'document',
						operation: 'get',
						documentId: { __rl: true, mode: 'id', value: 'doc_1' },
					},
					credentials: { baseUrl, apiKey: API_KEY },
				});
				expect(result.error?.message).toBe('Could not reach the Document Signing service');
				expect(result.error?.description).toContain('ETIMEDOUT');
				// Unbounded, it would never end: any end well inside the test's own bound is the bound's.
				expect(Date.now() - started).toBeLessThan(60_000);
			},
		);
	}, 90_000);

	// Old: a request queued for a slot waited for it without any bound.
	test("a request waiting for a slot while all of its key's slots hang gives up at the request's bound", async () => {
		const gateKey = `hang-${randomUUID()}`;
		const node = { name: 'Document Signing' } as INode;
		const releases: Array<() => void> = [];
		// All 8 of the key's slots (the policy's requests in flight per credential).
		const hanging = Array.from({ length: 8 }, () =>
			sendWithRetries(
				{ node, gateKey, idempotent: true },
				() => new Promise<void>((resolve) => releases.push(resolve)),
			).catch(() => undefined),
		);
		const started = Date.now();
		// A bound of 0.5 s, as a list search sets its own (a slot's wait runs on a real timer).
		await expect(
			sendWithRetries({ node, gateKey, idempotent: true, maxTotalWaitMs: 500 }, async () => 'sent'),
		).rejects.toThrow(/No request slot for this credential came free within 0.5 s/);
		expect(Date.now() - started).toBeLessThan(60_000);
		for (const release of releases) release();
		await Promise.all(hanging);
	}, 90_000);

	// Old: a list search (no cancel signal in n8n) kept retrying 429s for up to 5 minutes.
	test('a list search under endless 429s ends within its own bound', async () => {
		Object.assign(TIME_LIMITS, { listSearchMs: 800 });
		await withCountingServer(
			() => ({
				status: 429,
				body: { error: { message: 'slow down' } },
				headers: { 'retry-after': '0.2' },
			}),
			async (server) => {
				const started = Date.now();
				await expect(
					searchDocuments.call(loadOptionsContext({ baseUrl: server.baseUrl, apiKey: API_KEY })),
				).rejects.toThrow();
				// Far below the 5 minutes a workflow's request may wait: the list search's own bound ended it.
				expect(Date.now() - started).toBeLessThan(60_000);
			},
		);
	}, 90_000);
});

describe('22.6 LOW: a repeat is recognised from signed data only, never from the unsigned X-Delivery-Id', () => {
	const { activeTrigger } = useDeliveryFixtures();

	function withoutId(): Record<string, unknown> {
		const body: Record<string, unknown> = deliveryBody();
		delete body.id;
		return body;
	}

	it('the same signed body without an id, under 3 different X-Delivery-Id values, starts 1 execution', async () => {
		const { host, secret } = await activeTrigger(['document.completed']);
		const body = withoutId();
		const outcomes = [];
		for (const deliveryId of ['dlv_header1', 'dlv_header2', 'dlv_header3']) {
			const delivery = signedDelivery(secret, body);
			delivery.headers['x-delivery-id'] = deliveryId;
			outcomes.push(await host.receive(delivery));
		}
		await host.idle();
		expect(outcomes.map((outcome) => outcome.started)).toEqual([true, false, false]);
		expect(outcomes[1].body).toMatchObject({ ignored: true, reason: 'already processed' });
		expect(host.executions).toHaveLength(1);
		expect((await outcomes[0].execution!).received[0].json.deliveryId).toBeNull();
	});

	it('Standard Webhooks: the signed webhook-id is the repeat key of a body without an id', async () => {
		const { host, secret } = await activeTrigger(['document.completed']);
		const first = await host.receive(
			deliveryIn('standard-webhooks', secret, withoutId(), nowSeconds(), 'msg_one'),
		);
		expect((await first.execution!).received[0].json.deliveryId).toBe('msg_one');
		// A retry after the first ran (the service has no record of msg_one, so this process remembers
		// it): same signed id, fresh timestamp and signature, a body that differs in a field.
		const retry = await host.receive(
			deliveryIn('standard-webhooks', secret, withoutId(), nowSeconds(), 'msg_one'),
		);
		await host.idle();
		expect(retry.started).toBe(false);
		expect(host.executions).toHaveLength(1);
	});
});

describe('22.7 LOW: repeat suppression is bounded in bytes and id length', () => {
	/** The node memory module as a new n8n process has it: nothing remembered yet. */
	const freshMemory = () => {
		let memory: typeof import('../../nodes/shared/nodeMemory') | undefined;
		jest.isolateModules(() => {
			// eslint-disable-next-line @typescript-eslint/no-require-imports -- a new process's copy
			memory = require('../../nodes/shared/nodeMemory') as typeof memory;
		});
		return memory as typeof import('../../nodes/shared/nodeMemory');
	};

	// Old: each id was kept as given: 200 one-MB ids kept 200 MB of strings.
	test('200 one-MB ids keep a few KB; a repeat of a long id is still recognised', () => {
		const { memoryOf, markProcessed, wasProcessed } = freshMemory();
		const memory = memoryOf('wf-bytes', 'node');
		const ids = Array.from({ length: 200 }, (_, index) => `${index}-${'x'.repeat(1024 * 1024)}`);
		for (const id of ids) expect(markProcessed(memory, id)).toBe(true);
		const kept = [...memory.processed.keys()].join('');
		expect(kept.length).toBeLessThan(200 * 80);
		expect(markProcessed(memory, ids[7])).toBe(false);
		expect(wasProcessed(memory, ids[199])).toBe(true);
	});

	test('ids in all, across workflow nodes, stay within the 50,000 documented', () => {
		const { memoryOf, markProcessed } = freshMemory();
		const nodes = Array.from({ length: 12 }, (_, node) => memoryOf('wf-many', `node-${node}`));
		for (const memory of nodes)
			for (let index = 0; index < 5_000; index++) markProcessed(memory, `dlv_${index}`);
		expect(nodes.reduce((sum, memory) => sum + memory.processed.size, 0)).toBe(50_000);
	});
});

describe("22.9 LOW: list searches pass only http(s) links on the credential's origin", () => {
	// Old: signing_url went to the editor as the service gave it.
	test('javascript:, data:, foreign and credential-bearing links are dropped; an own https link is kept', async () => {
		nock(ORIGIN)
			.get('/v1/documents')
			.query(true)
			.reply(200, {
				data: [
					{ id: 'doc_1', name: 'a.pdf', signing_url: 'javascript:alert(document.cookie)' },
					{ id: 'doc_2', name: 'b.pdf', signing_url: 'data:text/html,<script>alert(1)</script>' },
					{ id: 'doc_3', name: 'c.pdf', signing_url: `${EVIL}/sign/doc_3` },
					{ id: 'doc_4', name: 'd.pdf', signing_url: 'http://user:pw@signing.test/sign/doc_4' },
					{ id: 'doc_5', name: 'e.pdf', signing_url: `${ORIGIN}/sign/doc_5?token=t` },
				],
			});
		const result = await searchDocuments.call(
			loadOptionsContext({ baseUrl: `${ORIGIN}/v1`, apiKey: API_KEY }),
		);
		expect(result.results.map((entry) => entry.url)).toEqual([
			undefined,
			undefined,
			undefined,
			undefined,
			`${ORIGIN}/sign/doc_5?token=t`,
		]);
	});
});

describe("22.10 a copy of a workflow on the same n8n (same webhook URL) never removes the original's webhook", () => {
	// Old: the copy's delete step swept every webhook with its URL, which is the original's too.
	// Real n8n: e2e/security.e2e.test.ts › 10 (the copy's activation refused as "path taken").
	test("the copy's checkExists and delete leave the original's registration alone", async () => {
		const { apiKey } = sandbox().createAccount();
		const webhookBaseUrl = 'http://127.0.0.1:9/webhook';
		const original = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl,
			events: ['document.completed'],
		});
		await original.activate();
		const originalId = String(original.nodeStaticData.webhookId);
		const copy = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl,
			events: ['document.completed'],
			nodeWebhookId: original.nodeWebhookId,
		});
		copy.savedStaticData = structuredClone(original.savedStaticData);
		expect(copy.workflowId).not.toBe(original.workflowId);
		expect(copy.webhookUrl).toBe(original.webhookUrl);

		expect(await copy.runHook('checkExists')).toBe(false);
		await copy.deactivate();
		expect(
			sandbox()
				.store.webhooksOf(apiKey)
				.map((webhook) => webhook.id),
		).toEqual([originalId]);
		expect(await original.runHook('checkExists')).toBe(true);
	});
});

describe('22.11 key check: static data holds no verifier of the API key', () => {
	// Old: static data kept `keyCheck`, 64 bits of an HMAC keyed by the API key.
	test('after activation static data has no keyCheck nor any value computed from the key; a changed key is still noticed', async () => {
		const { apiKey, accountId } = sandbox().createAccount();
		const host = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: 'http://127.0.0.1:9/webhook',
			events: ['document.completed'],
		});
		await host.activate();
		const data = host.nodeStaticData;
		expect(Object.keys(data).sort()).toEqual([
			'secretNonce',
			'webhookEvents',
			'webhookId',
			'webhookOwner',
			'webhookUrl',
		]);
		// Every value in static data is the service's id, n8n's URL, the events, or a random nonce.
		const scope = {
			apiKey,
			workflowId: host.workflowId,
			nodeId: 'trigger-node',
			nonce: String(data.secretNonce),
		};
		expect(strings(data)).not.toContain(keyCheck(scope));

		expect(await host.runHook('checkExists')).toBe(true);
		// Another key of the same account: the same webhooks are visible, but the secret is not ours any more.
		host.credentials.apiKey = sandbox().createApiKey(accountId, 'admin').apiKey;
		expect(await host.runHook('checkExists')).toBe(false);
	});
});

describe('30.1 an HTML error page is read within a bound, in one pass', () => {
	const getMissingDocument = () =>
		runDocumentSigning({
			parameters: {
				resource: 'document',
				operation: 'get',
				documentId: { __rl: true, mode: 'id', value: 'doc_missing' },
				simplify: false,
			},
			credentials: { baseUrl: `${ORIGIN}/v1`, apiKey: API_KEY },
		});
	const answerWithPage = (page: string) =>
		nock(ORIGIN)
			.get('/v1/documents/doc_missing')
			.reply(404, page, { 'content-type': 'text/html; charset=utf-8' });

	// Old: three backtracking patterns ran over up to 100,000 characters of the page: 100,000 "<"
	// blocked the event loop for 10.6 s, 20,000 "<head" for 2.6 s (their time is in `npm run bench`).
	test.each([
		['100,000 "<"', '<'.repeat(100_000)],
		['20,000 "<head"', '<head'.repeat(20_000)],
		['20,000 "<title"', '<title'.repeat(20_000)],
		['20,000 unclosed "<script>"', '<script>'.repeat(20_000)],
		['30,000 "<!--"', '<!--'.repeat(30_000)],
	])(
		'a page of %s fails the item with the HTTP status and a short message',
		async (_title, page) => {
			const scope = answerWithPage(page);
			const result = await getMissingDocument();
			expect(scope.isDone()).toBe(true);
			expect(result.error?.message).toBe(
				'The service answered HTTP 404 with a web page instead of an API response',
			);
			expect(result.error?.httpCode).toBe('404');
			expect(result.error?.description?.length).toBeLessThan(700);
		},
	);

	/** The most of a page that is read. */
	const MAX_PAGE_READ = 8_000;
	/** What the error of a 404 with `page` says. */
	const pageError = (page: string) => {
		const response = { statusCode: 404, body: page, headers: {}, statusMessage: '' };
		const error = toNodeError({ name: 'Document Signing' } as INode, new HttpStatusError(response));
		return { message: error.message, description: error.description };
	};

	// Old: the title was searched for in the first 100,000 characters, whatever came before it.
	test('only the first MAX_PAGE_READ characters are read: nothing after them changes the error', async () => {
		const late = `<html>${'<head'.repeat(MAX_PAGE_READ / 5)}<title>Read too far</title><h1>Too far</h1>`;
		answerWithPage(late);
		const tooFar = await getMissingDocument();
		expect(tooFar.error?.message).toBe(
			'The service answered HTTP 404 with a web page instead of an API response',
		);
		expect(tooFar.error?.description).not.toContain('far');
		// A pathological page reads the same as its first MAX_PAGE_READ characters.
		for (const page of ['<'.repeat(100_000), '<head'.repeat(20_000), late])
			expect(pageError(page)).toEqual(pageError(page.slice(0, MAX_PAGE_READ)));
	});

	test('a usual error page is still named by its title and shows what it says', async () => {
		answerWithPage(
			`<!DOCTYPE html><html><head><title>404 Not Found</title><style>h1 { color: red }</style></head><body><h1>Not Found</h1><p>The requested URL was not found on this server.</p>${'<p>padding</p>'.repeat(2_000)}</body></html>`,
		);
		const result = await getMissingDocument();
		expect(result.error?.message).toBe(
			'The service answered HTTP 404 with a web page ("404 Not Found") instead of an API response',
		);
		expect(result.error?.description).toMatch(
			/^The page says: "Not Found The requested URL was not found on this server\. padding/,
		);
	});
});

describe('30.5 file names are plain base names, and a signed PDF or audit trail is a PDF', () => {
	const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n', 'latin1');
	const download = (version: string) => downloadDocument(`${ORIGIN}/v1`, version);
	const serve = (
		version: string,
		name: string,
		body: Buffer | string,
		headers: Record<string, string>,
	) => {
		const scope = nock(ORIGIN)
			.get('/v1/documents/doc_1')
			.reply(200, { id: 'doc_1', name, status: 'completed' });
		if (version === 'auditTrail')
			scope.get('/v1/documents/doc_1/audit-trail').query(true).reply(200, body, headers);
		else scope.get('/v1/documents/doc_1/file').query({ version }).reply(200, body, headers);
		return scope;
	};

	// Old: the record's name (or the header's, after its last "/") went into json.fileName as it
	// was, so n8n kept "../../../home/node/.n8n/nodes" as the binary's directory.
	test.each([
		{
			title: 'a name with folders',
			name: '../../../home/node/.n8n/nodes/evil.pdf',
			version: 'signed',
			expected: 'evil-signed.pdf',
		},
		{
			title: 'the original of it',
			name: '../../../home/node/.n8n/nodes/evil.pdf',
			version: 'original',
			expected: 'evil.pdf',
		},
		{
			title: 'Windows folders',
			name: '..\\..\\Windows\\evil.pdf',
			version: 'original',
			expected: 'evil.pdf',
		},
		{
			title: 'control and invisible characters',
			name: 'a\u0000b\u202e\u200b\r\n.pdf',
			version: 'original',
			expected: 'ab.pdf',
		},
		{
			title: 'a name that is only ".."',
			name: '..',
			version: 'original',
			expected: 'document-doc_1.pdf',
		},
		{
			title: 'a header name with encoded folders and a NUL',
			name: 'x.pdf',
			version: 'signed',
			disposition: "attachment; filename*=UTF-8''..%2F..%2F.n8n%2Fconfig%00",
			expected: 'config.pdf',
		},
		{
			title: 'a header name that hides its extension behind a right-to-left override',
			name: 'x.pdf',
			version: 'signed',
			disposition: "attachment; filename*=UTF-8''report%E2%80%AEfdp.exe",
			expected: 'reportfdp.exe.pdf',
		},
	])('$title: the file is named $expected', async ({ name, version, disposition, expected }) => {
		serve(version, name, PDF, {
			'Content-Type': 'application/pdf',
			...(disposition ? { 'Content-Disposition': disposition } : {}),
		});
		const result = await download(version);
		expect(result.error).toBeUndefined();
		const [item] = result.items;
		expect(item.json.fileName).toBe(expected);
		expect(item.binary?.data.fileName).toBe(expected);
		expect(item.binary?.data.directory).toBeUndefined();
	});

	// Old: a "signed PDF" served as a web page was passed on as text/html.
	test.each([
		[
			'a signed PDF that is a web page',
			'signed',
			'<!DOCTYPE html><html><body>Sign in</body></html>',
			'text/html; charset=utf-8',
			'The service\'s signed PDF is not a PDF: it came as text/html; charset=utf-8, starting "‹!DOCTYPE html›‹…"',
		],
		[
			'an audit trail that is an error text, labelled as a PDF',
			'auditTrail',
			'{"error":"storage unavailable"}',
			'application/pdf',
			'The service\'s audit trail is not a PDF: it came as application/pdf, starting "{"error":"storag…"',
		],
		[
			'an empty signed PDF',
			'signed',
			'',
			'application/pdf',
			"The service's signed PDF is not a PDF: it came as application/pdf, empty",
		],
	])('%s is refused, naming what came instead', async (_title, version, body, type, message) => {
		const scope = serve(version, 'contract.pdf', body, { 'Content-Type': type });
		const result = await download(version);
		expect(scope.isDone()).toBe(true);
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(message);
		expect(result.error?.description).toMatch(/A PDF starts with "%PDF-"/);
	});

	test('a real PDF under a vague Content-Type is passed on as application/pdf', async () => {
		serve('signed', 'contract.pdf', PDF, { 'Content-Type': 'application/octet-stream' });
		const [item] = (await download('signed')).items;
		expect(item.json).toMatchObject({
			fileName: 'contract-signed.pdf',
			mimeType: 'application/pdf',
		});
	});

	describe('Attach Signed File', () => {
		const receiver = new Receiver();
		beforeAll(async () => await receiver.start());
		afterAll(async () => await receiver.close());

		// Old: the header's name kept its control and bidi characters.
		test('the signed PDF of a document named with control and invisible characters gets a plain name', async () => {
			const { apiKey } = sandbox().createAccount();
			const host = new TriggerHost({
				baseUrl: sandbox().baseUrl,
				apiKey,
				webhookBaseUrl: receiver.webhookBaseUrl,
				events: ['document.completed'],
				options: { attachSignedFile: true },
			});
			receiver.hosts.set(host.nodeWebhookId, host);
			await host.activate();
			const id = await createDocumentIn(apiKey, 'lease\u0007\u202e.pdf');
			const row = sandbox()
				.store.documentsOf(apiKey)
				.find((document) => document.id === id)!;
			for (const signer of row.signers) sandbox().actAsSigner(id, signer.id, 'sign');
			await sandbox().flushDeliveries();
			await host.idle();
			const [execution] = host.processed;
			const file = execution.items[0].binary?.data;
			expect([file?.fileName, file?.directory, file?.mimeType]).toEqual([
				'lease-signed.pdf',
				undefined,
				'application/pdf',
			]);
		});
	});
});

describe("30.6 a path that only a server's own reading takes out of the Base URL path is refused", () => {
	// Each is on the credential's origin and, as the URL parser reads it, under /v1; a server that
	// drops ";" parameters, decodes %2F or %5C, or decodes twice reads it as a path outside /v1.
	const AMBIGUOUS = [
		['"..;" (Tomcat, Spring, Jetty drop the parameter)', '/v1/..;/admin/keys'],
		['"..;" with a parameter value', '/v1/documents/..;x=1/..;x=2/admin/keys'],
		['encoded dots with a parameter', '/v1/%2e%2e;/admin/keys'],
		['"..%2F" (an encoded slash)', '/v1/documents/..%2F..%2Fadmin/keys'],
		['"..%2f" in lower case', '/v1/documents/..%2f..%2fadmin/keys'],
		['"..%5C" (an encoded backslash)', '/v1/documents/..%5C..%5Cadmin/keys'],
		['double-encoded dots', '/v1/documents/%252e%252e/%252e%252e/admin/keys'],
		['double-encoded slash', '/v1/documents/..%252F..%252Fadmin/keys'],
		['a backslash as written', '/v1/documents\\x.pdf'],
	];
	const record = (link: string) => ({
		id: 'doc_1',
		name: 'x.pdf',
		status: 'completed',
		signed_file_url: link,
	});

	// Old: only the parsed path was compared with "/v1/", so these were requested with the key.
	test.each(AMBIGUOUS)(
		'a file link with %s: refused, nothing requested with it',
		async (_title, link) => {
			await withCountingServer(
				() => ({ status: 200, body: record(link) }),
				async (server) => {
					const result = await downloadDocument(server.baseUrl);
					expect(result.error?.message).toMatch(
						/^The service gave a file link whose path has an encoded or parameterised dot segment, an encoded slash or a backslash \(.+\); it was not followed$/,
					);
					expect(result.error?.description).toMatch(/Nothing was requested\.$/);
					expectNoKey(result.error);
					expect(server.requests.map((request) => request.url)).toEqual(['/v1/documents/doc_1']);
				},
			);
		},
	);

	test.each(AMBIGUOUS)(
		'a next-page link with %s: the list fails, nothing requested with it',
		async (_title, link) => {
			await withCountingServer(
				() => ({
					status: 200,
					body: { data: Array.from({ length: 100 }, (_, i) => ({ id: `doc_${i}` })) },
					headers: { Link: `<${link}>; rel="next"` },
				}),
				async (server) => {
					const result = await runDocumentSigning({
						parameters: {
							resource: 'document',
							operation: 'getAll',
							returnAll: true,
							simplify: false,
						},
						credentials: { baseUrl: server.baseUrl, apiKey: API_KEY },
					});
					expect(result.items).toEqual([]);
					expect(result.error?.message).toMatch(
						/^The service gave a next-page link whose path has an encoded/,
					);
					expect(server.requests).toHaveLength(1);
				},
			);
		},
	);

	test.each(AMBIGUOUS)(
		'a list-search page token with %s: refused, nothing sent',
		async (_title, path) => {
			await withCountingServer(
				() => ({ status: 200, body: { data: [] } }),
				async (server) => {
					const context = loadOptionsContext({ baseUrl: server.baseUrl, apiKey: API_KEY });
					const failure = await searchDocuments
						.call(context, undefined, JSON.stringify({ path }))
						.then(
							() => undefined,
							(error: Error) => error,
						);
					expect(failure?.message).toBe('The list page token is not valid');
					expect(server.requests).toEqual([]);
				},
			);
		},
	);

	test('links with encoded characters, ";" parameters or dots inside a name are still followed', async () => {
		const pdf = Buffer.from('%PDF-1.7\n%%EOF\n');
		for (const link of [
			'/v1/files/Lease%20%C3%BC.pdf?sig=a%2Fb',
			'/v1/storage/doc_1;version=2/signed.pdf',
			'/v1/files/v1.2..final/a.pdf',
			'/v1/files/100%25/a.pdf',
		]) {
			const requested: string[] = [];
			await withRawServer(
				(req, res) => {
					requested.push(req.url ?? '');
					if (req.url === '/v1/documents/doc_1')
						res
							.writeHead(200, { 'content-type': 'application/json' })
							.end(JSON.stringify(record(link)));
					else res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
				},
				async (baseUrl) => expect((await downloadDocument(baseUrl)).error).toBeUndefined(),
			);
			expect(requested).toEqual(['/v1/documents/doc_1', link]);
		}
	});
});

describe('30.7 publishing holds only what it needs', () => {
	interface Step {
		name?: string;
		uses?: string;
		run?: string;
		with?: Record<string, unknown>;
	}
	interface Job {
		permissions?: Record<string, string>;
		environment?: string | { name: string };
		needs?: string | string[];
		steps: Step[];
	}
	const root = path.resolve(__dirname, '../..');
	const workflowsDir = path.join(root, '.github/workflows');
	const publishText = readFileSync(path.join(root, PUBLISH_WORKFLOW), 'utf8');
	const publish = parseYaml(publishText) as { permissions?: unknown; jobs: Record<string, Job> };
	const publishJob = publish.jobs[PUBLISH_JOB];
	const stepIndex = (job: Job, match: (step: Step) => boolean) => job.steps.findIndex(match);
	const mintsToken = (job: Job) => job.permissions?.['id-token'] === 'write';

	// Old: one job held id-token: write and ran `npm test` (n8n installs, Verdaccio, real n8n,
	// Chromium), any of which could mint the token and publish with valid provenance.
	test('only the publish job may mint an OIDC token; the tests run in a job without one', () => {
		expect(publish.permissions).toEqual({});
		expect(
			Object.entries(publish.jobs)
				.filter(([, job]) => mintsToken(job))
				.map(([id]) => id),
		).toEqual([PUBLISH_JOB]);
		const testers = Object.entries(publish.jobs).filter(([, job]) =>
			job.steps.some((step) => /\bnpm (run )?test\b/.test(step.run ?? '')),
		);
		expect(testers.map(([id]) => id)).toEqual(['test']);
		expect(publish.jobs.test.permissions).toEqual({ contents: 'read' });
		expect([publishJob.needs].flat()).toContain('test');
	});

	// Old: the publishing job installed, tested and scanned; prepublishOnly linted and scanned too.
	test('the publish job checks, installs from the lockfile, builds and publishes: nothing else runs', () => {
		const commands = publishJob.steps
			.flatMap((step) => (step.run ?? '').split('\n'))
			.map((line) => line.trim())
			.filter((line) => /^(npm|npx|node|bash|yarn|pnpm)\b/.test(line));
		expect(commands).toEqual([
			'npm install --global npm@11.19.1',
			'npm ci --no-audit --no-fund',
			'npm publish --provenance --access public --ignore-scripts=false',
		]);
		const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
		expect(
			String(pkg.scripts.prepublishOnly)
				.split('&&')
				.map((part) => part.trim()),
		).toEqual(['ts-node --transpile-only scripts/publish-guard.ts', 'npm run --silent build']);
		// No cache another run wrote is restored into the job that can publish.
		expect(publishJob.steps.filter((step) => /^actions\/cache/.test(step.uses ?? ''))).toEqual([]);
		expect(publishJob.steps.filter((step) => step.with?.cache !== undefined)).toEqual([]);
		for (const job of Object.values(publish.jobs))
			for (const step of job.steps.filter((each) => /^actions\/checkout@/.test(each.uses ?? '')))
				expect(step.with?.['persist-credentials']).toBe(false);
	});

	// Old: no environment; a version tag on any commit published.
	test('the publish job runs in the protected npm environment, and first refuses a tagged commit that is not on main', () => {
		expect(publishJob.environment).toBe('npm');
		const checkout = stepIndex(publishJob, (step) => /^actions\/checkout@/.test(step.uses ?? ''));
		expect(publishJob.steps[checkout].with?.['fetch-depth']).toBe(0);
		const onMain = stepIndex(publishJob, (step) => step.name === 'The tagged commit is on main');
		// Right after the checkout: nothing is set up or installed for a commit off main.
		expect([checkout, onMain]).toEqual([0, 1]);

		// The step itself, run as the runner would, in a clone whose main does not hold `side`.
		const temp = mkdtempSync(path.join(os.tmpdir(), 'publish-on-main-'));
		try {
			const git = (cwd: string, ...args: string[]) =>
				execFileSync(
					'git',
					[
						'-c',
						'user.name=t',
						'-c',
						'user.email=t@example.test',
						'-c',
						'commit.gpgsign=false',
						...args,
					],
					{
						cwd,
						encoding: 'utf8',
					},
				).trim();
			const upstream = path.join(temp, 'upstream');
			execFileSync('git', ['init', '--quiet', '--initial-branch=main', upstream]);
			git(upstream, 'commit', '--quiet', '--allow-empty', '-m', 'first');
			const released = git(upstream, 'rev-parse', 'HEAD');
			git(upstream, 'checkout', '--quiet', '-b', 'side');
			git(upstream, 'commit', '--quiet', '--allow-empty', '-m', 'off main');
			const offMain = git(upstream, 'rev-parse', 'HEAD');
			git(upstream, 'checkout', '--quiet', 'main');
			git(upstream, 'commit', '--quiet', '--allow-empty', '-m', 'later');
			const runner = path.join(temp, 'runner');
			execFileSync('git', ['clone', '--quiet', upstream, runner]);
			const runStep = (sha: string) =>
				spawnSync('bash', ['-e', '-c', publishJob.steps[onMain].run!], {
					cwd: runner,
					encoding: 'utf8',
					env: { PATH: process.env.PATH, GITHUB_SHA: sha, GITHUB_REF_NAME: 'v9.9.9' },
				});
			const refused = runStep(offMain);
			expect(refused.status).not.toBe(0);
			expect(refused.stdout).toContain(`::error::v9.9.9 (${offMain}) is not on main`);
			expect(runStep(released).status).toBe(0);
		} finally {
			rmSync(temp, { recursive: true, force: true });
		}
	});

	// Old: actions/checkout@v4 and actions/setup-node@v4, tags their owners can move.
	test('every action of every workflow is pinned by a full commit SHA, its version in a comment', () => {
		for (const file of readdirSync(workflowsDir).filter((name) => /\.ya?ml$/.test(name))) {
			const text = readFileSync(path.join(workflowsDir, file), 'utf8');
			const jobs = Object.values((parseYaml(text) as { jobs: Record<string, Job> }).jobs);
			const used = jobs.flatMap((job) =>
				job.steps.flatMap((step) => (step.uses ? [step.uses] : [])),
			);
			expect(used.length).toBeGreaterThan(0);
			for (const uses of used)
				expect({ file, uses }).toEqual({
					file,
					uses: expect.stringMatching(/^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/),
				});
			const lines = text.split('\n').filter((line) => /^\s*(- )?uses:/.test(line));
			expect(lines).toHaveLength(used.length);
			for (const line of lines)
				expect({ file, line }).toEqual({
					file,
					line: expect.stringMatching(/@[0-9a-f]{40} # v\d+\.\d+\.\d+$/),
				});
		}
	});
});

test('forged deliveries are covered elsewhere (no rows here)', () => {
	// - test/nodes/DocumentSigningTrigger/delivery.test.ts › "forged and invalid deliveries": missing/empty/malformed
	//   header, wrong secret, tampered body and timestamp, stale and future timestamps, other schemes,
	//   wrong length, empty or missing body → 401, no execution, nothing saved; the X-Event header is
	//   never trusted; refusals while no webhook is registered; "options" (tolerance); replays.
	// - test/nodes/shared/webhookSignature.test.ts: verification in every layout; test/sandbox/deliverySignature.test.ts: the signer.
	// - reliability/realN8n.reliability.test.ts (test 3), e2e/trigger.e2e.test.ts and
	//   e2e/queue/queue-mode.queue.test.ts: forged deliveries against a real n8n (not run here).
	expect(true).toBe(true);
});

// ---------------------------------------------------------------------------------------------
// Security review 30, findings 2 and 3: every list walk is bounded, and never silently short.

/**
 * A 127.0.0.1 server whose list never ends within `pages` pages: each answer is a fresh page of
 * 100 records of about `recordBytes` bytes each with a new cursor (built as text once per page, so
 * the test costs what the node reads). After `pages` pages the list ends.
 */
async function withEndlessList<T>(
	{ pages, recordBytes }: { pages: number; recordBytes: number },
	run: (baseUrl: string, served: number[]) => Promise<T>,
): Promise<T> {
	const padding = 'x'.repeat(recordBytes);
	/** The bytes of each page served. */
	const served: number[] = [];
	const server = http.createServer((req, res) => {
		const page = served.length;
		const records = Array.from(
			{ length: 100 },
			(_, i) => `{"id":"doc_${page}_${i}","name":"d.pdf","padding":"${padding}"}`,
		);
		const next = page + 1 < pages ? `"c${page + 1}"` : 'null';
		const body = `{"data":[${records.join(',')}],"has_more":${next !== 'null'},"next_cursor":${next}}`;
		served.push(Buffer.byteLength(body));
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(body);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	try {
		return await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, served);
	} finally {
		await new Promise<void>((resolve) => server.close(() => resolve()));
	}
}

describe('30.2 a list walk has a budget of records, bytes and time; the webhook sweeps a smaller one', () => {
	// Old: a walk kept every record of up to 10,000 pages of up to 16 MB each: a service answering
	// fresh 10 MB pages ran n8n out of memory; here all 60 pages (120 MB) came back.
	test('Return All over a service answering fresh 2 MB pages stops at the list walk budget (100 MB), an error naming it, never a short list', async () => {
		await withEndlessList({ pages: 60, recordBytes: 20_000 }, async (baseUrl, served) => {
			const result = await runDocumentSigning({
				parameters: { resource: 'document', operation: 'getAll', returnAll: true, simplify: false },
				credentials: { baseUrl, apiKey: API_KEY },
			});
			expect(result.items).toEqual([]);
			expect(result.error?.message).toMatch(
				/^The list has pages of more than 100 MB; stopped there \(the list walk budget, \d+ records read\)$/,
			);
			expect(result.error?.description).toMatch(/Use Limit or filters/);
			// Stopped at the page that reached 100 MB, not one later.
			const sum = (pages: number[]) => pages.reduce((all, bytes) => all + bytes, 0);
			expect(sum(served.slice(0, -1))).toBeLessThan(LIST_WALK_BUDGET.bytes);
			expect(sum(served)).toBeGreaterThanOrEqual(LIST_WALK_BUDGET.bytes);
		});
		// 100 MB through the whole request path: seconds on an idle machine, more on a busy one.
	}, 120_000);

	test('Limit below the budget is read as asked: the budget only stops walks that would pass it', async () => {
		await withEndlessList({ pages: 60, recordBytes: 20_000 }, async (baseUrl, served) => {
			const result = await runDocumentSigning({
				parameters: {
					resource: 'document',
					operation: 'getAll',
					returnAll: false,
					limit: 250,
					simplify: false,
				},
				credentials: { baseUrl, apiKey: API_KEY },
			});
			expect(result.error).toBeUndefined();
			expect(result.items).toHaveLength(250);
			expect(served).toHaveLength(3);
		});
	}, 120_000);

	// Old: the trigger's sweep of /webhooks (on every activation and deactivation) walked the same
	// 10,000 pages, with no Limit a user could set; here it read all 200 pages, then registered.
	// A spent sweep is "cannot tell", never a failed activation (issue 37, finding 4).
	test(`the trigger's sweep of /webhooks stops at its own budget (${WEBHOOK_SWEEP_BUDGET.pages} pages), then the activation registers`, async () => {
		let listed = 0;
		await withCountingServer(
			(request) => {
				if (request.method === 'GET') {
					listed++;
					const webhooks = Array.from({ length: 100 }, (_, i) => ({
						id: `wh_${listed}_${i}`,
						url: `https://elsewhere.example/${listed}/${i}`,
						events: ['document.completed'],
					}));
					return {
						status: 200,
						body: {
							data: webhooks,
							has_more: listed < 200,
							next_cursor: listed < 200 ? `c${listed}` : null,
						},
					};
				}
				return { status: 201, body: { id: 'wh_new', url: 'x', events: ['document.completed'] } };
			},
			async (server) => {
				const host = new TriggerHost({
					baseUrl: server.baseUrl,
					apiKey: API_KEY,
					webhookBaseUrl: 'http://127.0.0.1:9/webhook',
					events: ['document.completed'],
				});
				await host.activate();
				expect(listed).toBe(WEBHOOK_SWEEP_BUDGET.pages);
				expect(server.requests.filter((request) => request.method !== 'GET')).toHaveLength(1);
				expect(host.nodeStaticData.webhookId).toBe('wh_new');
			},
		);
	});
});

describe('30.3 a guessed page that repeats is an error naming List Paging, never the end of the list', () => {
	/** A bare array of `total` records, served `size` at a time by `?p=` (a parameter nobody guesses). */
	const pagedByP =
		(total: number, size: number, record: (i: number) => IDataObject) =>
		(request: RecordedRequest) => {
			const p = Number(new URL(request.url, 'http://x').searchParams.get('p') ?? 1);
			return {
				status: 200,
				body: Array.from({ length: total }, (_, i) => record(i)).slice((p - 1) * size, p * size),
			};
		};

	// Old: page=2 brought the first page again and the node returned 100 of 250, no error.
	test('Return All over a bare array it cannot page: an error naming List Paging and the records read, no items', async () => {
		await withCountingServer(
			pagedByP(250, 100, (i) => ({ id: `doc_${i}`, name: `d${i}.pdf` })),
			async (server) => {
				const result = await runDocumentSigning({
					parameters: { resource: 'document', operation: 'getAll', returnAll: true },
					credentials: { baseUrl: server.baseUrl, apiKey: API_KEY },
				});
				expect(result.items).toEqual([]);
				expect(result.error?.message).toBe(
					'The service answered page 2, then offset 100 with records it had already sent (100 distinct records read); set List Paging to Custom in the credential to say how it pages',
				);
				expect(server.requests.map((request) => request.url)).toEqual([
					'/v1/documents?limit=100',
					'/v1/documents?limit=100&page=2',
					'/v1/documents?limit=100&offset=100',
				]);
			},
		);
	});

	// Old: the sweep read the first 100 webhooks, missed this node's stored one (the 150th) and
	// registered a second webhook beside it.
	test("the trigger's sweep over such a /webhooks list fails naming List Paging instead of missing the old registration and registering a duplicate", async () => {
		const host = new TriggerHost({
			baseUrl: 'http://127.0.0.1:9/v1',
			apiKey: API_KEY,
			webhookBaseUrl: 'http://127.0.0.1:9/webhook',
			events: ['document.completed'],
		});
		const webhook = (i: number): IDataObject => ({
			id: `wh_${i}`,
			url: i === 149 ? host.webhookUrl : `https://elsewhere.example/${i}`,
			events: ['document.completed'],
		});
		await withCountingServer(
			(request) =>
				request.method === 'GET'
					? pagedByP(150, 100, webhook)(request)
					: {
							status: 201,
							body: { id: 'wh_new', url: host.webhookUrl, events: ['document.completed'] },
						},
			async (server) => {
				host.credentials.baseUrl = server.baseUrl;
				await expect(host.activate()).rejects.toThrow(
					/set List Paging to Custom in the credential to say how it pages/,
				);
				expect(server.requests.filter((request) => request.method !== 'GET')).toEqual([]);
			},
		);
	});
});
