/**
 * Every list walk is bounded (records, bytes, time; the webhook sweep a smaller budget), and never
 * silently short: a guessed page that repeats is an error naming List Paging. Servers listen on
 * 127.0.0.1 only. Each test's first comment says what the code before the fix did (the test fails
 * on it).
 */
import http from 'http';
import type { AddressInfo } from 'net';
import type { IDataObject } from 'n8n-workflow';

import { LIST_WALK_BUDGET, WEBHOOK_SWEEP_BUDGET } from '../../nodes/shared/vocabulary';
import { type RecordedRequest } from '../helpers/countingServer';
import { runDocumentSigning } from '../helpers/n8nWorkflow';
import { TriggerHost } from '../helpers/triggerHost';
import { withCountingServer, useSecuritySuite, API_KEY } from '../helpers/securityKit';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../helpers/instantWaits').n8nWorkflowWithInstantWaits(),
);

useSecuritySuite();

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

describe('a list walk has a budget of records, bytes and time; the webhook sweeps a smaller one (finding 30.2)', () => {
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

describe('a guessed page that repeats is an error naming List Paging, never the end of the list (finding 30.3)', () => {
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
