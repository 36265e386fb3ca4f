/**
 * One credential's 429 (and its Retry-After) holds back that credential's requests only, never
 * another key's on the same service. Servers listen on 127.0.0.1 only. Each test's first comment
 * says what the code before the fix did (the test fails on it).
 */
import { randomUUID } from 'crypto';
import type { IDataObject, INode } from 'n8n-workflow';

import { ServiceOrigin } from '../../nodes/shared/transport';
import { HttpStatusError } from '../../nodes/shared/transport/errors';
import { sendWithRetries } from '../../nodes/shared/transport/retry';
import { credentialKey, readCredentials } from '../../nodes/shared/transport/service';
import { waitFor } from '../helpers/sandbox';
import { withRealWaits } from '../helpers/instantWaits';
import { runDocumentSigning } from '../helpers/n8nWorkflow';
import { withCountingServer, useSecuritySuite } from '../helpers/securityKit';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../helpers/instantWaits').n8nWorkflowWithInstantWaits(),
);

useSecuritySuite();

describe("one credential's 429 never stalls another (finding 3)", () => {
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
