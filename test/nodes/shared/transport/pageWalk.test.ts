import type { IDataObject } from 'n8n-workflow';

import { walk, walkPages } from '../../../../nodes/shared/transport/pageWalk';
import { cursorService, origin, range, record, service } from '../../../helpers/listService';
import { LIST_WALK_BUDGET, WEBHOOK_SWEEP_BUDGET } from '../../../../nodes/shared/vocabulary';

const MAX_PAGES = LIST_WALK_BUDGET.pages;

/**
 * The one page loop, against services that misbehave in every way a loop can be fooled: it must
 * end with every record once, or stop with an error naming what the service did.
 */

test('every record once across pages, and Limit returns exactly that many', async () => {
	const all = cursorService(250);
	expect(
		(await walkPages({ origin, pageSize: 100, fetchPage: all.fetchPage })).map((r) => r.id),
	).toEqual(range(0, 250).map((r) => r.id));
	const some = cursorService(250);
	expect(
		await walkPages({ origin, pageSize: 60, limit: 60, fetchPage: some.fetchPage }),
	).toHaveLength(60);
	expect(some.requests).toHaveLength(1);
});

test('a page-size cap below the one asked for: Limit N still gives N, in at most ceil(N / cap) + 2 requests', async () => {
	const capped = cursorService(1000, { cap: 25 });
	const records = await walkPages({
		origin,
		pageSize: 100,
		limit: 230,
		fetchPage: capped.fetchPage,
	});
	expect(new Set(records.map((r) => r.id)).size).toBe(230);
	expect(capped.requests.length).toBeLessThanOrEqual(Math.ceil(230 / 25) + 2);
});

test('a service ignoring the cursor (the same page again): each conventional name once, then an error naming them all', async () => {
	const ignoring = service(() => ({
		body: { data: range(0, 50), has_more: true, next_cursor: 'abc' },
	}));
	await expect(walkPages({ origin, pageSize: 100, fetchPage: ignoring.fetchPage })).rejects.toThrow(
		'The service answered the next-page cursor with records it had already sent, under each parameter name tried (`cursor`, `next_cursor`, `page_token`, `pageToken`, `token`, `continuation`, `after`)',
	);
	expect(ignoring.requests).toHaveLength(8);
	expect(ignoring.requests.slice(1).every((request) => request.cursor === 'abc')).toBe(true);
});

test('a token under a name the service does not read: the next conventional name that brings new records is kept for later pages', async () => {
	// Reads its token as `pageToken` although it calls it next_cursor.
	const reader = service((request) => {
		const start = request.cursorParam === 'pageToken' ? Number(request.cursor) : 0;
		const end = Math.min(start + 10, 25);
		return {
			body: { data: range(start, end - start), next_cursor: end < 25 ? String(end) : null },
		};
	});
	expect(await walkPages({ origin, pageSize: 10, fetchPage: reader.fetchPage })).toHaveLength(25);
	expect(reader.requests.map((request) => request.cursorParam)).toEqual([
		undefined,
		'cursor',
		'next_cursor',
		'page_token',
		'pageToken',
		'pageToken',
	]);
});

describe('a page a call (list searches)', () => {
	// Reads its token as `page_token` only, and says the list holds 100 records.
	const reader = () =>
		service((request) => {
			const start = request.cursorParam === 'page_token' ? Number(request.cursor) : 0;
			return { body: { data: range(start, 10), total: 100, next_cursor: String(start + 10) } };
		});
	/** The search's rule: a page holding the record the last one ended with repeats it. */
	const repeats = (page: Array<{ id?: unknown }>) => page.some((r) => r.id === 9);

	test("a page the caller's rule calls a repeat adds no record; the start's other names are tried, and the one that works goes on alone", async () => {
		const service = reader();
		const start = { cursor: '10', alternatives: ['next_cursor', 'page_token'] };
		const options = { origin, pageSize: 10, fetchPage: service.fetchPage, repeats };
		const { records, next } = await walk<IDataObject>({ ...options, start }, 'page');
		expect(records.map((r) => r.id)).toEqual(range(10, 10).map((r) => r.id));
		expect(service.requests.map((request) => request.cursorParam)).toEqual([
			undefined,
			'next_cursor',
			'page_token',
		]);
		expect(next).toEqual({ cursor: '20', cursorParam: 'page_token', alternatives: [] });
		// The next call starts from it: the name works at once and goes on alone again.
		const again = await walk({ ...options, start: next }, 'page');
		expect(again.next).toEqual({ cursor: '30', cursorParam: 'page_token', alternatives: [] });
		expect(service.requests).toHaveLength(4);
	});

	test('the first page: its cursor goes on with its other names; a stated total is no reason to read on', async () => {
		const first = await walk({ origin, pageSize: 10, fetchPage: reader().fetchPage }, 'page');
		expect(first.records).toHaveLength(10);
		expect(first.next).toMatchObject({ cursor: '10', cursorParam: 'cursor' });
		expect(first.next?.alternatives).toEqual(expect.arrayContaining(['next_cursor', 'page_token']));
		// A walk would guess page 2 (10 of 100 read); a call sees one page, so the page decides.
		const last = service(() => ({ body: { data: range(90, 10), total: 100 } }));
		const start = { page: 10 };
		const end = await walk({ origin, pageSize: 50, fetchPage: last.fetchPage, start }, 'page');
		expect(end).toEqual({ records: range(90, 10) });
		expect(last.requests).toHaveLength(1);
	});

	test("the caller's rule with no other name left: an error naming each name tried, and no count of a list it did not read", async () => {
		const service = reader();
		const start = { cursor: '10', alternatives: ['next_cursor'] };
		const failure = walk(
			{ origin, pageSize: 10, fetchPage: service.fetchPage, start, repeats },
			'page',
		);
		await expect(failure).rejects.toThrow(
			'The service answered the next-page cursor with records it had already sent, under each parameter name tried (`cursor`, `next_cursor`); set List Paging to Custom in the credential to say how it pages',
		);
		expect(service.requests).toHaveLength(2);
	});
});

describe('never silently short', () => {
	/** Offset paging with a page-size cap: `echo` decides what each answer says besides its records. */
	function offsetService(
		total: number,
		cap: number,
		echo: (offset: number, size: number) => Record<string, unknown>,
	) {
		return service((request) => {
			const offset = request.offset ?? 0;
			const size = Math.min(cap, 100);
			const end = Math.min(total, offset + size);
			return { body: { data: range(offset, end - offset), ...echo(offset, end - offset) } };
		});
	}

	test("the issue's case: offset and limit echoed with a total, pages capped at 50: all 124", async () => {
		const capped = offsetService(124, 50, (offset) => ({ offset, limit: 50, total: 124 }));
		expect(
			(await walkPages({ origin, pageSize: 100, fetchPage: capped.fetchPage })).map((r) => r.id),
		).toEqual(range(0, 124).map((r) => r.id));
		expect(capped.requests.map((request) => request.params)).toEqual([
			undefined,
			{ offset: 50, limit: 100 },
			{ offset: 100, limit: 100 },
		]);
	});

	test('Limit 60 against the same service: 60', async () => {
		const capped = offsetService(124, 50, (offset) => ({ offset, limit: 50, total: 124 }));
		expect(
			await walkPages({ origin, pageSize: 60, limit: 60, fetchPage: capped.fetchPage }),
		).toHaveLength(60);
	});

	test('a stated total the pages never reach: an error naming both numbers, no partial list', async () => {
		const stuck = service(() => ({ body: { data: range(0, 50), total: 124 } }));
		await expect(walkPages({ origin, pageSize: 100, fetchPage: stuck.fetchPage })).rejects.toThrow(
			'The service said the list holds 124 records, but its pages ended after 50',
		);
		const limited = service(() => ({ body: { data: range(0, 50), meta: { total_count: 124 } } }));
		await expect(
			walkPages({ origin, pageSize: 100, limit: 60, fetchPage: limited.fetchPage }),
		).rejects.toThrow('holds 124 records, but its pages ended after 50');
	});

	test('has_more false or an empty page before the total: an error, not the end', async () => {
		const early = service(() => ({ body: { data: range(0, 10), has_more: false, total: 11 } }));
		await expect(walkPages({ origin, pageSize: 10, fetchPage: early.fetchPage })).rejects.toThrow(
			'holds 11 records, but its pages ended after 10',
		);
		const empty = service((request) => ({
			body: { data: request.cursor ? [] : range(0, 3), next_cursor: 'x', totalCount: 5 },
		}));
		await expect(walkPages({ origin, pageSize: 10, fetchPage: empty.fetchPage })).rejects.toThrow(
			'holds 5 records, but its pages ended after 3',
		);
	});

	test('Limit below the total is satisfied by the Limit; a total reached ends quietly', async () => {
		const small = offsetService(30, 10, (offset) => ({ offset, total: 30 }));
		expect(await walkPages({ origin, pageSize: 10, fetchPage: small.fetchPage })).toHaveLength(30);
		expect(small.requests).toHaveLength(3);
	});
});

test("the issue's case: {data, has_more, next_url} with the page ignored: 2 requests and an error, never a duplicate", async () => {
	const ignoring = service(() => ({
		body: {
			data: range(0, 50),
			has_more: true,
			next_url: 'https://api.example.com/v1/documents?page=2',
		},
	}));
	await expect(
		walkPages({ origin, pageSize: 100, limit: 60, fetchPage: ignoring.fetchPage }),
	).rejects.toThrow(/already sent/);
	expect(ignoring.requests).toHaveLength(2);
});

test('a cursor, page or link given twice is refused even when its records are new', async () => {
	let n = 0;
	const repeating = service(() => ({ body: { data: range(n++ * 10, 10), next_cursor: 'same' } }));
	await expect(walkPages({ origin, pageSize: 10, fetchPage: repeating.fetchPage })).rejects.toThrow(
		'The service gave the next-page cursor it had already given; the list would never end',
	);
	expect(repeating.requests).toHaveLength(2);
});

test('page numbers with total_pages that the service ignores: error at page 2', async () => {
	const ignoring = service(() => ({ body: { data: range(0, 10), page: 1, total_pages: 9 } }));
	await expect(walkPages({ origin, pageSize: 10, fetchPage: ignoring.fetchPage })).rejects.toThrow(
		/page 2 with records it had already sent; it seems to ignore the `page` parameter/,
	);
});

test('a bare array with no hint is paged by number while pages are full; a full first page followed by a repeat is an error naming List Paging, after the offset was tried too', async () => {
	const bare = service(() => ({ body: range(0, 10) }));
	await expect(walkPages({ origin, pageSize: 10, fetchPage: bare.fetchPage })).rejects.toThrow(
		'The service answered page 2, then offset 10 with records it had already sent (10 distinct records read); set List Paging to Custom in the credential to say how it pages',
	);
	expect(bare.requests).toEqual([
		{},
		{ page: 2 },
		{ offset: 10, params: { offset: 10, limit: 10 } },
	]);
});

test('a bare array paged by an offset only: the guessed page repeats, the guessed offset reads on', async () => {
	const byOffset = service((request) => {
		const at = request.params?.offset ?? 0;
		return { body: range(at, Math.max(0, Math.min(10, 25 - at))) };
	});
	expect(
		(await walkPages({ origin, pageSize: 10, fetchPage: byOffset.fetchPage })).map((r) => r.id),
	).toEqual(range(0, 25).map((r) => r.id));
});

test('partly repeated pages keep only the new records', async () => {
	const overlapping = service((request) => {
		const page = request.page ?? 1;
		return { body: { data: range((page - 1) * 5, 10), page, total_pages: 3 } };
	});
	expect(
		(await walkPages({ origin, pageSize: 10, fetchPage: overlapping.fetchPage })).map((r) => r.id),
	).toEqual(range(0, 20).map((r) => r.id));
});

test('numeric and text ids are the same record for de-duplication', async () => {
	const mixed = service((request) =>
		request.cursor
			? { body: { data: [record('7'), record(8)] } }
			: { body: { data: [record(7)], next_cursor: 'x' } },
	);
	expect(
		(await walkPages({ origin, pageSize: 10, fetchPage: mixed.fetchPage })).map((r) => r.id),
	).toEqual([7, 8]);
});

test('an empty page ends the list unless the service says there is more; then its pointer is followed, a few empty pages at most', async () => {
	const ending = service((request) => ({
		body: { data: request.cursor ? [] : range(0, 3), next_cursor: 'x' },
	}));
	expect(await walkPages({ origin, pageSize: 10, fetchPage: ending.fetchPage })).toHaveLength(3);
	// Filtering after paging: empty pages that say there is more, then the rest.
	const filtering = service((request) => {
		const at = Number(request.cursor ?? 0);
		return {
			body: {
				data: at === 0 ? range(0, 3) : at === 3 ? range(3, 2) : [],
				has_more: at < 3,
				next_cursor: at < 3 ? String(at + 1) : null,
			},
		};
	});
	expect(
		(await walkPages({ origin, pageSize: 10, fetchPage: filtering.fetchPage })).map((r) => r.id),
	).toEqual(range(0, 5).map((r) => r.id));
	const endless = service((request) => ({
		body: {
			data: request.cursor ? [] : range(0, 3),
			has_more: true,
			next_cursor: `n${endless.requests.length}`,
		},
	}));
	await expect(walkPages({ origin, pageSize: 10, fetchPage: endless.fetchPage })).rejects.toThrow(
		'The service answered 3 empty pages in a row while saying there are more records',
	);
	expect(endless.requests).toHaveLength(4);
});

describe('links', () => {
	test('relative and absolute same-origin links are followed', async () => {
		const linked = service((request) => {
			if (!request.url)
				return { body: range(0, 2), headers: { Link: '</v1/documents?cursor=2>; rel="next"' } };
			if (request.url.endsWith('cursor=2'))
				return {
					body: { results: range(2, 2), next: 'https://api.example.com/v1/documents?cursor=4' },
				};
			return { body: { results: range(4, 1), next: null } };
		});
		expect(await walkPages({ origin, pageSize: 2, fetchPage: linked.fetchPage })).toHaveLength(5);
		expect(linked.requests.map((r) => r.url)).toEqual([
			undefined,
			'https://api.example.com/v1/documents?cursor=2',
			'https://api.example.com/v1/documents?cursor=4',
		]);
	});

	test.each([
		['another host', 'https://evil.example/v1/documents?cursor=2', 'https://evil.example'],
		[
			'http instead of https on the same host',
			'http://api.example.com/v1/documents?cursor=2',
			'http://api.example.com',
		],
		[
			'another port',
			'https://api.example.com:8443/v1/documents?cursor=2',
			'https://api.example.com:8443',
		],
		['a protocol-relative link', '//evil.example/steal', 'https://evil.example'],
	])(
		'a next link to %s is refused before anything is sent there',
		async (_title, link, otherOrigin) => {
			const linking = service(() => ({ body: { data: range(0, 2), next: link } }));
			await expect(
				walkPages({ origin, pageSize: 2, fetchPage: linking.fetchPage }),
			).rejects.toThrow(
				`The service gave a next-page link on another origin (${otherOrigin}); it was not followed`,
			);
			expect(linking.requests).toHaveLength(1);
		},
	);
});

test(`10,000 pages do not overflow the stack, and the absolute cap (${MAX_PAGES} pages) stops an endless list with a clear error`, async () => {
	let served = 0;
	const endless = service(() => {
		served++;
		return { body: { data: [record(served)], next_cursor: String(served) } };
	});
	await expect(walkPages({ origin, pageSize: 1, fetchPage: endless.fetchPage })).rejects.toThrow(
		`The list has more than 10,000 pages; stopped there`,
	);
	expect(served).toBe(MAX_PAGES);
});

describe('the budget: records, bytes and time, each an error naming it', () => {
	afterEach(() => jest.restoreAllMocks());
	/** A list that never ends: 100 fresh records and a new cursor per page. */
	const endless = () =>
		service((_request, index) => ({
			body: { data: range(index * 100, 100), next_cursor: `c${index + 1}` },
		}));

	test(`records: ${LIST_WALK_BUDGET.records.toLocaleString('en-US')}, then an error naming the list walk budget`, async () => {
		const list = endless();
		await expect(walkPages({ origin, pageSize: 100, fetchPage: list.fetchPage })).rejects.toThrow(
			`The list has more than 100,000 records; stopped there (the list walk budget, 100000 records read)`,
		);
		expect(list.requests).toHaveLength(LIST_WALK_BUDGET.records / 100);
	});

	test('time: checked before each further page; the webhook sweep has its own', async () => {
		let now = 1_000_000;
		// Each page takes a minute of the clock the walk reads.
		jest.spyOn(Date, 'now').mockImplementation(() => (now += 60_000));
		const list = endless();
		await expect(walkPages({ origin, pageSize: 100, fetchPage: list.fetchPage })).rejects.toThrow(
			'The list has pages that take more than 600 seconds to read; stopped there (the list walk budget',
		);
		expect(list.requests.length).toBeLessThanOrEqual(LIST_WALK_BUDGET.ms / 60_000);
		const sweep = endless();
		await expect(
			walkPages({
				origin,
				pageSize: 100,
				budget: WEBHOOK_SWEEP_BUDGET,
				fetchPage: sweep.fetchPage,
			}),
		).rejects.toThrow('stopped there (the webhook sweep budget');
		expect(sweep.requests.length).toBeLessThanOrEqual(1);
	});

	test('bytes: the answers as read, or their JSON when a page has no size', async () => {
		const big = service((_request, index) => ({
			body: {
				data: [{ id: index, padding: 'x'.repeat(1024 * 1024) }],
				next_cursor: `c${index + 1}`,
			},
		}));
		await expect(walkPages({ origin, pageSize: 100, fetchPage: big.fetchPage })).rejects.toThrow(
			'The list has pages of more than 100 MB; stopped there (the list walk budget, 100 records read)',
		);
		expect(big.requests).toHaveLength(100);
	});
});
