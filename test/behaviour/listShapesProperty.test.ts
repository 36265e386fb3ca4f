/**
 * Property: whatever envelope and paging style a list answers in, Get Many (Return All and Limit,
 * through n8n's real routing engine) reads it whole or fails with an error. Never a short list.
 *
 * The services are generated from a fixed seed (deterministic, a bounded number of cases): where
 * the records sit and under which key, where the total sits (if anywhere), the paging style
 * (offset/limit or start/size echoed back, a page token under many names and read under the
 * implied or a conventional name, page numbers, a Link header) and a page-size cap. A quarter
 * also misbehave (ignore paging, state a total they never reach, stop early); those may fail, but
 * never return fewer records than asked for without an error. They are served from 127.0.0.1.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	CONVENTIONAL_TOKEN_PARAMETERS,
	tokenParameterFor,
} from '../../nodes/shared/transport/listPages';
import {
	startCountingServer,
	type RecordedRequest,
	type ServerAnswer,
} from '../helpers/countingServer';
import { runDocumentSigning } from '../helpers/n8nWorkflow';

const SEED = 24_2026;
const CASES = 60;

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

type Style = 'offset' | 'token' | 'page' | 'link';
type Misbehaviour = 'none' | 'ignores-paging' | 'total-too-high' | 'stops-early';

interface Service {
	title: string;
	records: IDataObject[];
	style: Style;
	misbehaviour: Misbehaviour;
	cap: number;
	/** Where the records are: [] for a bare array, else a key path. */
	recordsPath: string[];
	/** Where the total is ([] for none), or 'header' for X-Total-Count. */
	totalPath: string[] | 'header';
	offsetName: string;
	limitName: string;
	/** Where offset/limit are echoed ([] is the top level). */
	echoPath: string[];
	echoLimit: boolean;
	tokenPath: string[];
	/** The query parameter the service reads its token from. */
	tokenReadAs: string;
	limitNumber: number;
}

const RECORD_PATHS = [
	['data'],
	['items'],
	['documents'],
	['signature_requests'],
	['hits'],
	['value'],
	['result', 'records'],
	['payload', 'entries_v2'],
];
const TOTAL_PATHS = [
	[],
	[],
	['total'],
	['total_count'],
	['totalCount'],
	['count'],
	['totalItems'],
	['total_results'],
	['meta', 'total'],
	['pagination', 'total_count'],
	['page_info', 'totalCount'],
	['pageInfo', 'total'],
];
const OFFSETS = [
	['offset', 'limit'],
	['skip', 'take'],
	['start', 'size'],
	['from', 'size'],
	['offset', 'page_size'],
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

function generate(seed: number, index: number): Service {
	const r = random(seed * 1000 + index);
	const style = r.pick<Style>(['offset', 'offset', 'token', 'token', 'page', 'link']);
	const numeric = r.next() < 0.3;
	const total = r.pick([0, 1, r.int(2, 40), r.int(41, 130), r.int(131, 230)]);
	const records = Array.from({ length: total }, (_, i) => ({
		id: numeric ? i + 1 : `doc_${i + 1}`,
		name: `d${i + 1}.pdf`,
	}));
	const cap = r.pick([5, 10, 25, 50, 100]);
	const recordsPath = style === 'link' && r.next() < 0.5 ? [] : r.pick(RECORD_PATHS);
	let totalPath: string[] | 'header' = r.next() < 0.1 ? 'header' : r.pick(TOTAL_PATHS);
	const [offsetName, limitName] = r.pick(OFFSETS);
	const echoLimit = r.next() < 0.7;
	// Offset paging is recognised from an offset echoed with its page size or with a total.
	if (style === 'offset' && !echoLimit && (totalPath === 'header' || totalPath.length === 0))
		totalPath = ['total'];
	if (recordsPath.length === 0 && totalPath !== 'header') totalPath = [];
	const tokenKey = r.pick(TOKEN_KEYS);
	const tokenPath = [...r.pick([[], [], ['meta'], ['pagination']]), tokenKey];
	const tokenReadAs = r.pick([
		tokenParameterFor(tokenKey),
		tokenParameterFor(tokenKey),
		tokenKey,
		...CONVENTIONAL_TOKEN_PARAMETERS,
	]);
	const hasTotal = totalPath === 'header' || totalPath.length > 0;
	const misbehaviour: Misbehaviour =
		r.next() < 0.75
			? 'none'
			: r.pick<Misbehaviour>(
					hasTotal ? ['ignores-paging', 'total-too-high', 'stops-early'] : ['ignores-paging'],
				);
	const limitNumber = r.pick([1, r.int(2, 60), r.int(61, 250)]);
	const service: Service = {
		title: '',
		records,
		style,
		misbehaviour,
		cap,
		recordsPath,
		totalPath,
		offsetName,
		limitName,
		echoPath: r.pick([[], [], ['meta'], ['pagination']]),
		echoLimit,
		tokenPath,
		tokenReadAs,
		limitNumber,
	};
	const where =
		style === 'offset'
			? `${offsetName}/${limitName}${echoLimit ? '' : ' (offset only)'} at ${service.echoPath.join('.') || 'top'}`
			: style === 'token'
				? `${tokenPath.join('.')} read as ${tokenReadAs}`
				: style;
	service.title = `#${index}: ${total} ${numeric ? 'numeric' : 'text'} ids under ${recordsPath.join('.') || '(bare array)'}, total at ${totalPath === 'header' ? 'X-Total-Count' : totalPath.join('.') || 'none'}, ${where}, cap ${cap}, ${misbehaviour}, limit ${limitNumber}`;
	return service;
}

function set(target: IDataObject, path: string[], value: unknown): void {
	let holder = target;
	for (const key of path.slice(0, -1)) holder = (holder[key] ??= {}) as IDataObject;
	holder[path[path.length - 1]] = value as IDataObject[keyof IDataObject];
}

/** The answer of `service` to one request. */
function answer(service: Service, request: RecordedRequest, baseUrl: string): ServerAnswer {
	const query = new URL(request.url, 'http://x').searchParams;
	const number = (name: string) => (query.get(name) === null ? undefined : Number(query.get(name)));
	const size = Math.min(
		number(service.style === 'offset' ? service.limitName : 'limit') ?? number('limit') ?? 20,
		service.cap,
	);
	let position = 0;
	if (service.style === 'offset') position = number(service.offsetName) ?? 0;
	if (service.style === 'token' && query.get(service.tokenReadAs) !== null)
		position = Number(
			Buffer.from(query.get(service.tokenReadAs)!, 'base64url').toString().slice(4),
		);
	if (service.style === 'page') position = ((number('page') ?? 1) - 1) * size;
	if (service.style === 'link') position = number('at') ?? 0;
	if (service.misbehaviour === 'ignores-paging') position = 0;
	const page =
		service.misbehaviour === 'stops-early' && position > 0
			? []
			: service.records.slice(position, position + size);
	const end = position + page.length;
	let more = end < service.records.length;
	if (service.misbehaviour === 'stops-early' && position > 0) more = false;
	const stated = service.records.length + (service.misbehaviour === 'total-too-high' ? 7 : 0);
	if (service.misbehaviour === 'total-too-high' && service.style !== 'offset')
		more = more || end < stated;

	const headers: Record<string, string> = {};
	const body: IDataObject = {};
	if (service.totalPath === 'header') headers['X-Total-Count'] = String(stated);
	else if (service.totalPath.length > 0) set(body, service.totalPath, stated);
	if (service.style === 'offset') {
		set(body, [...service.echoPath, service.offsetName], position);
		if (service.echoLimit) set(body, [...service.echoPath, service.limitName], size);
	}
	if (service.style === 'token' && more)
		set(body, service.tokenPath, Buffer.from(`pos:${end}`).toString('base64url'));
	if (service.style === 'page')
		Object.assign(body, {
			page: Math.floor(position / size) + 1,
			total_pages: more ? Math.floor(position / size) + 2 : Math.floor(position / size) + 1,
		});
	if (service.style === 'link' && more)
		headers.Link = `<${baseUrl}/documents?at=${end}&limit=${size}>; rel="next"`;
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

test('the generated services cover every style, misbehaviour and a stated total in each place', () => {
	expect(new Set(services.map((service) => service.style)).size).toBe(4);
	expect(new Set(services.map((service) => service.misbehaviour)).size).toBe(4);
	expect(
		new Set(services.map((service) => JSON.stringify(service.totalPath))).size,
	).toBeGreaterThanOrEqual(8);
	expect(new Set(services.map((service) => service.tokenReadAs)).size).toBeGreaterThanOrEqual(6);
});

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
		])('%s: read whole, or an error; never short', async (_name, parameters, expected) => {
			const { result, requests } = await read(parameters);
			// Bounded: a page per record at worst, plus one try per conventional token name.
			expect(requests).toBeLessThanOrEqual(ids.length + CONVENTIONAL_TOKEN_PARAMETERS.length + 3);
			if (result.error) {
				// Only a service that misbehaves may make the node give up.
				expect(service.misbehaviour).not.toBe('none');
				expect(result.items).toEqual([]);
				return;
			}
			expect(result.items.map((item) => item.json.id)).toEqual(ids.slice(0, expected));
		});
	},
);
