/**
 * Shared helpers for the sandbox contract tests: a sandbox per test file, an axios client that
 * never throws on status, a real webhook receiver on 127.0.0.1, and a minimal HTML form reader
 * that drives the signing pages the way a browser would (read the form, post its fields).
 */
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import http from 'http';
import type { AddressInfo } from 'net';
import type { z } from 'zod';

import { ErrorBodySchema } from '../../contract';
import { startSandbox, type Sandbox, type StartOptions } from '../../sandbox';

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
	return axios.create({ baseURL: `${sandbox.origin}/__sandbox`, validateStatus: () => true, httpAgent: new http.Agent({ keepAlive: false }) });
}

/** Parses with the contract schema; on failure the message shows the issues and the data. */
export function expectSchema<S extends z.ZodTypeAny>(schema: S, data: unknown): z.output<S> {
	const result = schema.safeParse(data);
	if (!result.success) {
		throw new Error(`Response does not match the contract:\n${JSON.stringify(result.error.issues, null, 2)}\nData: ${JSON.stringify(data, null, 2).slice(0, 4000)}`);
	}
	return result.data;
}

export function expectError(response: AxiosResponse, status: number, code: string, field?: string): void {
	expect({ status: response.status, body: response.data }).toMatchObject({ status, body: { error: { code } } });
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

/** Polls until `check` returns a value other than undefined/false; fails after `timeoutMs`. */
export async function waitFor<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined && value !== false) return value;
		if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
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

// ---------------------------------------------------------------------------------------------
// Signing pages, driven like a browser
// ---------------------------------------------------------------------------------------------

export interface Page {
	status: number;
	html: string;
	url: string;
}

export async function getPage(url: string): Promise<Page> {
	const response = await fetch(url, { redirect: 'follow' });
	return { status: response.status, html: await response.text(), url: response.url };
}

function decodeEntities(value: string): string {
	return value
		.replace(/&quot;/g, '"')
		.replace(/&#39;/g, "'")
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/&amp;/g, '&');
}

/** The form that holds the button with `buttonId`: its action and hidden fields. */
export function findForm(html: string, buttonId: string): { action: string; fields: Record<string, string> } | undefined {
	for (const match of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
		const [, attributes, inner] = match;
		if (!inner.includes(`id="${buttonId}"`)) continue;
		const action = /action="([^"]*)"/.exec(attributes)?.[1];
		if (!action) return undefined;
		const fields: Record<string, string> = {};
		for (const input of inner.matchAll(/<input\b[^>]*type="hidden"[^>]*>/g)) {
			const name = /name="([^"]*)"/.exec(input[0])?.[1];
			const value = /value="([^"]*)"/.exec(input[0])?.[1];
			if (name) fields[name] = decodeEntities(value ?? '');
		}
		return { action: decodeEntities(action), fields };
	}
	return undefined;
}

/**
 * Submits the form holding `buttonId` on `page` with extra `fields`, following the redirect like
 * a browser. Fails if the page has no such button.
 */
export async function submit(page: Page, buttonId: string, fields: Record<string, string> = {}): Promise<Page> {
	const form = findForm(page.html, buttonId);
	if (!form) throw new Error(`No form with button #${buttonId} on ${page.url}:\n${page.html}`);
	const target = new URL(form.action, page.url).toString();
	const response = await fetch(target, {
		method: 'POST',
		headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
		body: new URLSearchParams({ ...form.fields, ...fields }).toString(),
		redirect: 'follow',
	});
	return { status: response.status, html: await response.text(), url: response.url };
}

export function textOf(html: string, id: string): string | undefined {
	const match = new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(html);
	return match ? decodeEntities(match[1].replace(/<[^>]+>/g, '')).trim() : undefined;
}
