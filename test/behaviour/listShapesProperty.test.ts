/**
 * Property: whatever envelope and paging style a list answers in, Get Many (Return All and Limit,
 * through n8n's real routing engine) reads it whole or fails with an error naming the records
 * read (and the total, when one was stated). Never a short list.
 *
 * The services are generated from a fixed seed (deterministic, a bounded number of cases). Each
 * puts its evidence wherever it likes: the records at the top, or one or two levels down under
 * any key; the total (if any) at the top, one or two levels down, or in a header; the paging
 * style's evidence the same way: an offset and a page size under names of its own (echoed back
 * and read under those names only, some counting from 1), a page token under many names in the
 * body or a header (read under the implied or a conventional name), page numbers, or a next link
 * (a Link header or a body key), and a page-size cap. Some page by a parameter nobody could guess
 * and show nothing (their pages hold what was asked for, or a total says more): those may fail
 * but never come back short. A fifth also misbehave (ignore
 * paging, state a total they never reach, stop early); those may fail too. Served from 127.0.0.1.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	startCountingServer,
	type RecordedRequest,
	type ServerAnswer,
} from '../helpers/countingServer';
import { readListPage } from '../../nodes/shared/transport/listPages';
import { runDocumentSigning } from '../helpers/n8nWorkflow';

/** Names services commonly read a page token under: the node tries them when the implied one is ignored. */
const CONVENTIONAL_TOKEN_PARAMETERS = [
	'cursor',
	'page_token',
	'pageToken',
	'token',
	'continuation',
	'after',
];
/** The query parameter the node sends a token under first, for a token under `key`. */
const tokenParameterFor = (key: string) =>
	readListPage({ body: { data: [{ id: 1 }], [key]: 't' } }, {}, { pageSize: 1 }).ways[0]
		.cursorParam as string;

const SEED = 31_2026;
const CASES = 120;

/** mulberry32: a small deterministic generator, so every run tests the same services. */
function random(seed: number) {
	let state = seed >>> 0;
	const next = () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	return {
		next,
		int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
		pick: <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)],
	};
}

type Style = 'offset' | 'token' | 'page' | 'link' | 'unguessable';
type Misbehaviour = 'none' | 'ignores-paging' | 'total-too-high' | 'stops-early';
/** Where a piece of evidence sits: a key path in the body, or a header's name. */
type Place = { path: string[] } | { header: string };

interface Service {
	title: string;
	records: IDataObject[];
	style: Style;
	misbehaviour: Misbehaviour;
	cap: number;
	/** Where the records are: [] for a bare array, else a key path. */
	recordsPath: string[];
	/** Where the total is, if anywhere. */
	total?: Place;
	offsetName: string;
	limitName: string;
	/** Offsets count from 1 (`startIndex`). */
	oneBased: boolean;
	/** The page size is also read from `limit` (else only from its own name). */
	readsLimit: boolean;
	/** Where offset and page size are echoed (a container path; [] is the top level; in headers for a bare array). */
	echoAt: string[];
	echoLimit: boolean;
	token: Place;
	/** The query parameter the service reads its token from. */
	tokenReadAs: string;
	/** Where page numbers sit (a container path). */
	pagesAt: string[];
	/** Where the next link sits: a Link header, or a body key path. */
	link: Place;
	limitNumber: number;
}

/** Containers at the top level, one level down and two levels down, under any key. */
const CONTAINERS = [
	[],
	[],
	['meta'],
	['pagination'],
	['paging_state'],
	['response', 'page_info'],
	['envelope', 'state'],
	['result', 'window'],
];
const RECORD_PATHS = [
	['data'],
	['items'],
	['documents'],
	['signature_requests'],
	['hits'],
	['value'],
	['result', 'records'],
	['payload', 'entries_v2'],
	['envelope', 'content', 'documents'],
	['response', 'body', 'rows_v3'],
];
const TOTAL_KEYS = [
	'total',
	'total_count',
	'totalCount',
	'count',
	'totalItems',
	'total_results',
	'totalElements',
	'numFound',
];
const TOTAL_HEADERS = ['X-Total-Count', 'X-Total', 'X-Total-Results'];
/** Offset and page-size names as services state them. */
const OFFSETS = [
	['offset', 'limit'],
	['skip', 'take'],
	['start', 'size'],
	['from', 'size'],
	['offset', 'page_size'],
	['startAt', 'maxResults'],
	['startIndex', 'itemsPerPage'],
	['firstResult', 'maxResults'],
	['pageOffset', 'pageLength'],
	['resultOffset', 'resultsPerPage'],
	['position', 'rows'],
	['start_index', 'per_page'],
];
const TOKEN_KEYS = [
	'next_cursor',
	'nextCursor',
	'next_page_token',
	'nextPageToken',
	'NextToken',
	'next_marker',
	'continuation',
	'continuationToken',
];
const TOKEN_HEADERS = [
	'X-Next-Cursor',
	'X-Next-Page-Token',
	'X-Continuation-Token',
	'X-Next-Token',
];
const LINK_KEYS = ['next', 'next_url', 'nextLink', 'next_page_url'];

const placeText = (place: Place | undefined) =>
	place === undefined ? 'none' : 'header' in place ? place.header : place.path.join('.');
/** The key a header is read as (X-Next-Page-Token → next_page_token). */
const headerKey = (header: string) => header.toLowerCase().replace(/^x-/, '').replace(/-/g, '_');

function generate(seed: number, index: number): Service {
	const r = random(seed * 1000 + index);
	const style = r.pick<Style>([
		'offset',
		'offset',
		'token',
		'token',
		'page',
		'link',
		'unguessable',
	]);
	const numeric = r.next() < 0.3;
	const count = r.pick([0, 1, r.int(2, 40), r.int(41, 130), r.int(131, 230)]);
	const records = Array.from({ length: count }, (_, i) => ({
		id: numeric ? i + 1 : `doc_${i + 1}`,
		name: `d${i + 1}.pdf`,
	}));
	// Page numbers need a body to sit in.
	const recordsPath = r.next() < 0.2 && style !== 'page' ? [] : r.pick(RECORD_PATHS);
	const bare = recordsPath.length === 0;
	let total: Place | undefined =
		r.next() < 0.25
			? undefined
			: bare || r.next() < 0.2
				? { header: r.pick(TOTAL_HEADERS) }
				: { path: [...r.pick(CONTAINERS), r.pick(TOTAL_KEYS)] };
	const [offsetName, limitName] = r.pick(OFFSETS);
	const echoLimit = r.next() < 0.7;
	// An offset is known from its page size or a total stated beside it.
	if (style === 'offset' && !echoLimit && total === undefined)
		total = bare ? { header: 'X-Total-Count' } : { path: ['total'] };
	const tokenKey = r.pick(TOKEN_KEYS);
	const token: Place =
		bare || r.next() < 0.25
			? { header: r.pick(TOKEN_HEADERS) }
			: { path: [...r.pick(CONTAINERS), tokenKey] };
	const key = 'header' in token ? headerKey(token.header) : tokenKey;
	const tokenReadAs = r.pick([
		tokenParameterFor(key),
		tokenParameterFor(key),
		key,
		...CONVENTIONAL_TOKEN_PARAMETERS,
	]);
	const misbehaviour: Misbehaviour =
		style === 'unguessable' || r.next() < 0.8
			? 'none'
			: r.pick<Misbehaviour>(
					total ? ['ignores-paging', 'total-too-high', 'stops-early'] : ['ignores-paging'],
				);
	const service: Service = {
		title: '',
		records,
		style,
		misbehaviour,
		// A page shorter than asked that says nothing else is the last one (docs/api-contract.md):
		// a service showing nothing never serves fewer records than asked unless it states a total.
		cap: style === 'unguessable' && !total ? 100 : r.pick([5, 10, 25, 50, 100]),
		recordsPath,
		total,
		offsetName,
		limitName,
		oneBased: /^start_?index$/i.test(offsetName),
		readsLimit: r.next() < 0.5,
		echoAt: bare ? [] : r.pick(CONTAINERS),
		echoLimit,
		token,
		tokenReadAs,
		pagesAt: bare ? [] : r.pick(CONTAINERS),
		link:
			bare || r.next() < 0.5
				? { header: 'Link' }
				: { path: [...r.pick(CONTAINERS), r.pick(LINK_KEYS)] },
		limitNumber: r.pick([1, r.int(2, 60), r.int(61, 250)]),
	};
	const where =
		style === 'offset'
			? `${offsetName}/${limitName}${echoLimit ? '' : ' (offset only)'}${service.oneBased ? ' from 1' : ''} at ${service.echoAt.join('.') || 'top'}${service.readsLimit ? '' : ', no `limit`'}`
			: style === 'token'
				? `${placeText(token)} read as ${tokenReadAs}`
				: style === 'page'
					? `page at ${service.pagesAt.join('.') || 'top'}`
					: style === 'link'
						? `link in ${placeText(service.link)}`
						: 'pages by `p`, no hint';
	service.title = `#${index}: ${count} ${numeric ? 'numeric' : 'text'} ids under ${recordsPath.join('.') || '(bare array)'}, total at ${placeText(total)}, ${where}, cap ${service.cap}, ${misbehaviour}, limit ${service.limitNumber}`;
	return service;
}

function set(target: IDataObject, path: string[], value: unknown): void {
	let holder = target;
	for (const key of path.slice(0, -1)) holder = (holder[key] ??= {}) as IDataObject;
	holder[path[path.length - 1]] = value as IDataObject[keyof IDataObject];
}

function put(body: IDataObject, headers: Record<string, string>, place: Place, value: unknown) {
	if ('header' in place) headers[place.header] = String(value);
	else set(body, place.path, value);
}

/** The answer of `service` to one request. */
function answer(service: Service, request: RecordedRequest, baseUrl: string): ServerAnswer {
	const query = new URL(request.url, 'http://x').searchParams;
	const number = (name: string) => (query.get(name) === null ? undefined : Number(query.get(name)));
	const offsetStyle = service.style === 'offset';
	const size = Math.min(
		(offsetStyle ? number(service.limitName) : undefined) ??
			(service.readsLimit || !offsetStyle ? number('limit') : undefined) ??
			20,
		service.cap,
	);
	const base = service.oneBased ? 1 : 0;
	let position = 0;
	if (offsetStyle) position = (number(service.offsetName) ?? base) - base;
	if (service.style === 'token' && query.get(service.tokenReadAs) !== null)
		position = Number(
			Buffer.from(query.get(service.tokenReadAs)!, 'base64url').toString().slice(4),
		);
	if (service.style === 'page') position = ((number('page') ?? 1) - 1) * size;
	if (service.style === 'link') position = number('at') ?? 0;
	if (service.style === 'unguessable') position = ((number('p') ?? 1) - 1) * size;
	if (service.misbehaviour === 'ignores-paging') position = 0;
	const page =
		service.misbehaviour === 'stops-early' && position > 0
			? []
			: service.records.slice(position, position + size);
	const end = position + page.length;
	let more = end < service.records.length;
	if (service.misbehaviour === 'stops-early' && position > 0) more = false;
	const stated = service.records.length + (service.misbehaviour === 'total-too-high' ? 7 : 0);
	if (service.misbehaviour === 'total-too-high' && !offsetStyle) more = more || end < stated;

	const headers: Record<string, string> = {};
	const body: IDataObject = {};
	if (service.total) put(body, headers, service.total, stated);
	if (offsetStyle) {
		// A bare array has no body to echo in: a header of the same name.
		const echo = (name: string): Place =>
			service.recordsPath.length === 0
				? { header: `X-${name}` }
				: { path: [...service.echoAt, name] };
		put(body, headers, echo(service.offsetName), position + base);
		if (service.echoLimit) put(body, headers, echo(service.limitName), size);
	}
	if (service.style === 'token' && more)
		put(body, headers, service.token, Buffer.from(`pos:${end}`).toString('base64url'));
	if (service.style === 'page') {
		const current = Math.floor(position / size) + 1;
		set(body, [...service.pagesAt, 'page'], current);
		set(body, [...service.pagesAt, 'total_pages'], more ? current + 1 : current);
	}
	if (service.style === 'link' && more)
		put(
			body,
			headers,
			service.link,
			'header' in service.link
				? `<${baseUrl}/documents?at=${end}&limit=${size}>; rel="next"`
				: `${baseUrl}/documents?at=${end}&limit=${size}`,
		);
	if (service.recordsPath.length === 0) return { status: 200, body: page, headers };
	set(body, service.recordsPath, page);
	return { status: 200, body, headers };
}

let current: Service | undefined;
let server: Awaited<ReturnType<typeof startCountingServer>>;

beforeAll(async () => {
	server = await startCountingServer((request) => answer(current!, request, server.baseUrl));
});
afterAll(async () => {
	await server.close();
});

const services = Array.from({ length: CASES }, (_, index) => generate(SEED, index));

test('the generated services cover every style and misbehaviour, and put each kind of evidence at the top, one and two levels down and in headers', () => {
	expect(new Set(services.map((service) => service.style)).size).toBe(5);
	expect(new Set(services.map((service) => service.misbehaviour)).size).toBe(4);
	const depths = (places: Array<Place | undefined>) =>
		new Set(
			places.map((place) => (!place ? 'none' : 'header' in place ? 'header' : place.path.length)),
		);
	expect(depths(services.map((service) => service.total))).toEqual(
		new Set(['none', 'header', 1, 2, 3]),
	);
	const tokens = services.filter((service) => service.style === 'token');
	expect(depths(tokens.map((service) => service.token))).toEqual(new Set(['header', 1, 2, 3]));
	expect(new Set(services.map((service) => service.recordsPath.length))).toEqual(
		new Set([0, 1, 2, 3]),
	);
	const offsets = services.filter((service) => service.style === 'offset');
	expect(new Set(offsets.map((service) => service.echoAt.length))).toEqual(new Set([0, 1, 2]));
	expect(new Set(offsets.map((service) => service.offsetName)).size).toBeGreaterThanOrEqual(8);
	expect(offsets.some((service) => service.oneBased && !service.readsLimit)).toBe(true);
	expect(new Set(tokens.map((service) => service.tokenReadAs)).size).toBeGreaterThanOrEqual(6);
});

/** What an error must say: the records read, and the total when one was stated. */
const NAMES_NUMBERS =
	/holds (\d+) records, but its pages ended after \d+|\(\d+ distinct records read\)/;

describe.each(services.map((service) => [service.title, service] as const))(
	'%s',
	(_title, service) => {
		const read = async (parameters: IDataObject) => {
			current = service;
			const before = server.requests.length;
			const result = await runDocumentSigning({
				parameters: { resource: 'document', operation: 'getAll', simplify: false, ...parameters },
				credentials: { baseUrl: server.baseUrl, apiKey: 'sk_test_property' },
			});
			return { result, requests: server.requests.length - before };
		};
		const ids = (service.records as IDataObject[]).map((record) => record.id);

		test.each([
			['Return All', { returnAll: true }, ids.length],
			[
				'Limit',
				{ returnAll: false, limit: service.limitNumber },
				Math.min(service.limitNumber, ids.length),
			],
		])(
			'%s: read whole, or an error naming the numbers; never short',
			async (_name, parameters, expected) => {
				const { result, requests } = await read(parameters);
				// Bounded: a page per record at worst, plus one try per conventional token name.
				expect(requests).toBeLessThanOrEqual(ids.length + CONVENTIONAL_TOKEN_PARAMETERS.length + 3);
				if (result.error) {
					// Only a service that misbehaves, or shows no way to a page it will serve, may make
					// the node give up; and then it says how many records it read (of how many).
					expect(service.misbehaviour !== 'none' || service.style === 'unguessable').toBe(true);
					expect(result.items).toEqual([]);
					const message = result.error.message;
					expect(message).toMatch(NAMES_NUMBERS);
					const stated = ids.length + (service.misbehaviour === 'total-too-high' ? 7 : 0);
					if (service.total) expect(message).toContain(`holds ${stated} records`);
					return;
				}
				expect(result.items.map((item) => item.json.id)).toEqual(ids.slice(0, expected));
			},
		);
	},
);
