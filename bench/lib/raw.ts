/**
 * The floor each node is compared with: plain HTTP clients in the bench process, written the way
 * a careful engineer would for this API, with nothing n8n in between.
 */
import { randomUUID } from 'node:crypto';

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

export interface RawBulkResult {
	wallMs: number;
	requests: number;
	rateLimited: number;
	failures: number;
	created: number;
	errors: string[];
}

/**
 * Creates one document per item as fast as the rate limit allows: a client-side token bucket of
 * the same size and rate as the service's (the burst at once, then `rate` requests a second),
 * any number in flight, a 429 waited out for `X-RateLimit-Reset-After` (or `Retry-After`), 5xx
 * and dropped connections retried; every POST carries an Idempotency-Key.
 */
export async function rawBulkCreate(options: {
	baseUrl: string;
	apiKey: string;
	items: Array<{ name: string; email: string }>;
	rate: number;
	burst: number;
	maxInFlight?: number;
}): Promise<RawBulkResult> {
	const { baseUrl, apiKey, items, rate, burst } = options;
	const maxInFlight = options.maxInFlight ?? 64;
	const run = randomUUID();
	const result: RawBulkResult = {
		wallMs: 0,
		requests: 0,
		rateLimited: 0,
		failures: 0,
		created: 0,
		errors: [],
	};

	// Client-side bucket, mirrored on the service's.
	let tokens = burst;
	let updated = performance.now();
	let pausedUntil = 0;
	const takeToken = async (): Promise<void> => {
		for (;;) {
			const now = performance.now();
			if (now < pausedUntil) {
				await sleep(pausedUntil - now);
				continue;
			}
			tokens = Math.min(burst, tokens + ((now - updated) / 1000) * rate);
			updated = now;
			if (tokens >= 1) {
				tokens -= 1;
				return;
			}
			await sleep(Math.max(1, ((1 - tokens) / rate) * 1000));
		}
	};

	const createOne = async (index: number): Promise<void> => {
		const item = items[index];
		const body = JSON.stringify({
			name: item.name,
			signers: [{ email: item.email, name: 'Bulk Signer' }],
		});
		for (let attempt = 1; attempt <= 100; attempt++) {
			await takeToken();
			result.requests++;
			let response: Response;
			try {
				response = await fetch(`${baseUrl}/documents`, {
					method: 'POST',
					headers: {
						authorization: `Bearer ${apiKey}`,
						'content-type': 'application/json',
						'idempotency-key': `raw-${run}-${index}`,
					},
					body,
				});
			} catch {
				result.failures++;
				await sleep(Math.min(2000, 50 * 2 ** attempt));
				continue;
			}
			await response.arrayBuffer();
			if (response.status === 201) {
				result.created++;
				return;
			}
			if (response.status === 429) {
				result.rateLimited++;
				const wait =
					Number(
						response.headers.get('x-ratelimit-reset-after') ??
							response.headers.get('retry-after') ??
							1,
					) * 1000;
				pausedUntil = Math.max(pausedUntil, performance.now() + wait);
				tokens = 0;
				continue;
			}
			if (response.status >= 500) {
				result.failures++;
				await sleep(Math.min(2000, 50 * 2 ** attempt));
				continue;
			}
			result.errors.push(`item ${index}: HTTP ${response.status}`);
			return;
		}
		result.errors.push(`item ${index}: gave up`);
	};

	const started = performance.now();
	let next = 0;
	const worker = async () => {
		while (next < items.length) await createOne(next++);
	};
	await Promise.all(Array.from({ length: Math.min(maxInFlight, items.length) }, worker));
	result.wallMs = performance.now() - started;
	return result;
}

export interface RawPagingResult {
	wallMs: number;
	requests: number;
	records: number;
}

/** Reads a whole list page after page (cursor, largest page), one request at a time. */
export async function rawPageAll(options: {
	baseUrl: string;
	apiKey: string;
	path: string;
	pageSize: number;
}): Promise<RawPagingResult> {
	const started = performance.now();
	let requests = 0;
	let records = 0;
	let cursor: string | null = null;
	do {
		const url = new URL(`${options.baseUrl}${options.path}`);
		url.searchParams.set('limit', String(options.pageSize));
		if (cursor) url.searchParams.set('cursor', cursor);
		requests++;
		const response = await fetch(url, { headers: { authorization: `Bearer ${options.apiKey}` } });
		if (!response.ok) throw new Error(`GET ${url.pathname}: HTTP ${response.status}`);
		const page = (await response.json()) as { data: unknown[]; next_cursor: string | null };
		records += page.data.length;
		cursor = page.next_cursor;
	} while (cursor);
	return { wallMs: performance.now() - started, requests, records };
}

/** Creates `count` documents through the API as fast as it answers (no rate limit expected). */
export async function seedDocuments(options: {
	baseUrl: string;
	apiKey: string;
	count: number;
	concurrency?: number;
	prefix?: string;
	perSecond?: number;
}): Promise<number> {
	const { baseUrl, apiKey, count } = options;
	const prefix = options.prefix ?? 'seed';
	let next = 0;
	let created = 0;
	const started = performance.now();
	const worker = async () => {
		while (next < count) {
			const index = next++;
			if (options.perSecond) {
				const due = started + (index / options.perSecond) * 1000;
				const wait = due - performance.now();
				if (wait > 0) await sleep(wait);
			}
			const response = await fetch(`${baseUrl}/documents`, {
				method: 'POST',
				headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
				body: JSON.stringify({
					name: `${prefix}-${index}.pdf`,
					signers: [{ email: `signer${index}@example.com`, name: 'Seed Signer' }],
				}),
			});
			await response.arrayBuffer();
			if (response.status !== 201)
				throw new Error(`seeding ${prefix}-${index}: HTTP ${response.status}`);
			created++;
		}
	};
	await Promise.all(Array.from({ length: options.concurrency ?? 16 }, worker));
	return created;
}
