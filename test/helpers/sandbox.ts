/**
 * THE sandbox test helper, shared by the unit suites (test/), the real-n8n suites (e2e/,
 * e2e/queue/) and the reliability suite: a sandbox per test file, an axios client that never
 * throws on status, the admin API, contract-schema assertions, polling, a real webhook receiver
 * on 127.0.0.1, and a webhook's stored secret.
 */
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import http from 'http';
import type { AddressInfo } from 'net';
import type { z } from 'zod';

import { ErrorBodySchema } from '../../contract';
import { startSandbox, type Sandbox, type StartOptions } from '../../sandbox';
import type { Store } from '../../sandbox/store';

/** Starts one sandbox for the file (beforeAll) and closes it (afterAll). */
export function useSandbox(options: StartOptions = {}): () => Sandbox {
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		sandbox = await startSandbox({ onError: (error) => console.error(error), ...options });
	});
	afterAll(async () => {
		await sandbox?.close();
	});
	return () => {
		if (!sandbox) throw new Error('sandbox not started');
		return sandbox;
	};
}

/** An API client for one key; statuses are asserted by the tests, never thrown. */
export function api(sandbox: Sandbox, apiKey: string | null = sandbox.apiKey): AxiosInstance {
	return axios.create({
		baseURL: sandbox.baseUrl,
		headers: apiKey === null ? {} : { Authorization: `Bearer ${apiKey}` },
		validateStatus: () => true,
		maxBodyLength: Infinity,
		maxContentLength: Infinity,
		// A fresh connection per request keeps tests independent of keep-alive state.
		httpAgent: new http.Agent({ keepAlive: false }),
	});
}

export function admin(sandbox: Sandbox): AxiosInstance {
	return axios.create({
		baseURL: `${sandbox.origin}/__sandbox`,
		validateStatus: () => true,
		httpAgent: new http.Agent({ keepAlive: false }),
	});
}

/** Parses with the contract schema; on failure the message shows the issues and the data. */
export function expectSchema<S extends z.ZodTypeAny>(schema: S, data: unknown): z.output<S> {
	const result = schema.safeParse(data);
	if (!result.success) {
		throw new Error(
			`Response does not match the contract:\n${JSON.stringify(result.error.issues, null, 2)}\nData: ${JSON.stringify(data, null, 2).slice(0, 4000)}`,
		);
	}
	return result.data;
}

export function expectError(
	response: AxiosResponse,
	status: number,
	code: string,
	field?: string,
): void {
	expect({ status: response.status, body: response.data }).toMatchObject({
		status,
		body: { error: { code } },
	});
	const body = expectSchema(ErrorBodySchema, response.data);
	if (field !== undefined) expect(body.error.field).toBe(field);
}

export function documentBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		name: 'contract.pdf',
		signers: [
			{ email: 'ann@example.com', name: 'Ann Signer' },
			{ email: 'bob@example.com', name: 'Bob Signer' },
		],
		...overrides,
	};
}

/**
 * Polls until `check` returns a value other than undefined/false; fails after `timeoutMs` of real
 * time (performance.now: Date.now runs ahead while instantWaits.ts skips the transport's waits).
 */
export async function waitFor<T>(
	check: () => T | undefined | false | Promise<T | undefined | false>,
	what: string,
	timeoutMs = 15_000,
): Promise<T> {
	const deadline = performance.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined && value !== false) return value;
		if (performance.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

// ---------------------------------------------------------------------------------------------
// Webhook receiver
// ---------------------------------------------------------------------------------------------

export interface ReceivedRequest {
	method: string;
	headers: http.IncomingHttpHeaders;
	rawBody: Buffer;
	receivedAtSeconds: number;
}

export interface Receiver {
	url: string;
	requests: ReceivedRequest[];
	/** Statuses to answer, in order; when empty, 200. */
	queueStatuses(...statuses: number[]): void;
	close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
	const requests: ReceivedRequest[] = [];
	const statuses: number[] = [];
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			requests.push({
				method: req.method ?? '',
				headers: req.headers,
				rawBody: Buffer.concat(chunks),
				receivedAtSeconds: Math.floor(Date.now() / 1000),
			});
			res.writeHead(statuses.shift() ?? 200, { 'Content-Type': 'text/plain' });
			res.end('ok');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
		requests,
		queueStatuses: (...next) => statuses.push(...next),
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

/** Receivers started through the returned function, all closed after the file (afterAll). */
export function useReceivers(): () => Promise<Receiver> {
	const receivers: Receiver[] = [];
	afterAll(async () => {
		await Promise.all(receivers.map((receiver) => receiver.close()));
	});
	return async () => {
		const started = await startReceiver();
		receivers.push(started);
		return started;
	};
}

// ---------------------------------------------------------------------------------------------
// Stored webhook secrets
// ---------------------------------------------------------------------------------------------

/**
 * A webhook's secret as the sandbox stores it. The store view hides secrets (the API returns
 * them only on creation), so this reads the store's internal rows: read-only, test-only.
 */
export function webhookSecret(
	sandbox: Sandbox,
	apiKey: string,
	webhookId: string,
): string | undefined {
	const store = sandbox.store as unknown as Store;
	const accountId = store.accountIdOf(apiKey);
	return accountId === undefined
		? undefined
		: store.accounts.get(accountId)?.webhooks.get(webhookId)?.secret;
}
