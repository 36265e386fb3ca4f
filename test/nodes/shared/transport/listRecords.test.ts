/**
 * nodes/shared/transport/listRecords.ts: the records of every list envelope, and the user's List
 * Paging override checked before any request.
 */
import type { INode } from 'n8n-workflow';

import { extractRecords, readListPaging } from '../../../../nodes/shared/transport/listRecords';

const records = [{ id: 'a' }, { id: 'b' }];

describe('extractRecords', () => {
	test('a bare array is the records', () => {
		expect(extractRecords(records)).toBe(records);
	});

	test.each(['data', 'items', 'results', 'records', 'entries', 'value'])(
		'the array under "%s"',
		(key) => {
			expect(extractRecords({ [key]: records, has_more: false })).toBe(records);
		},
	);

	test('the first of the known keys wins', () => {
		expect(extractRecords({ items: [{ id: 'i' }], data: records })).toBe(records);
	});

	test('a single object where a list was expected is no list: an error showing its top-level keys, never one item holding it', () => {
		expect(() => extractRecords({ id: 'x', name: 'n' })).toThrow(
			"The service's response is not a list the node can read: it holds no single array of records (top-level keys: id, name)",
		);
		expect(() => extractRecords({})).toThrow('(top-level keys: none (an empty object))');
	});

	test.each([null, undefined, '', 42, true])('%p is no list: an error', (body) => {
		expect(() => extractRecords(body)).toThrow(/not a list the node can read/);
	});

	test.each(['documents', 'signatureRequests', 'Resources', 'rows'])(
		'the one array of objects under any key ("%s"), beside any metadata',
		(key) => {
			expect(extractRecords({ [key]: records, next_page_token: 't', total: 9, tags: ['a'] })).toBe(
				records,
			);
		},
	);

	test('the one array of objects one level down', () => {
		expect(extractRecords({ result: { documents: records, count: 2 }, status: 'ok' })).toBe(
			records,
		);
	});

	test('several arrays of objects are ambiguous: an error naming the keys (several empty ones are an empty list)', () => {
		expect(() => extractRecords({ documents: records, templates: records })).toThrow(
			'(top-level keys: documents, templates)',
		);
		expect(() =>
			extractRecords({ result: { documents: records }, other: { templates: records } }),
		).toThrow(/top-level keys: result, other/);
		expect(extractRecords({ documents: [], warnings: [] })).toEqual([]);
	});

	test('the Records Path of List Paging wins; a path with no array fails naming it', () => {
		expect(
			extractRecords(
				{ data: [{ id: 'no' }], result: { docs: records } },
				{ recordsPath: 'result.docs' },
			),
		).toBe(records);
		expect(() => extractRecords({ data: records }, { recordsPath: 'result.docs' })).toThrow(
			'The list response has no array at the Records Path "result.docs" (top-level keys: data)',
		);
	});
});

describe('readListPaging', () => {
	const NODE = { name: 'Document Signing' } as INode;

	test('keeps what is set, trimmed; a leading $. of a path is dropped', () => {
		expect(
			readListPaging(
				'custom',
				{ recordsPath: ' $.result.docs ', nextTokenPath: '', offsetParameter: 'skip' },
				NODE,
			),
		).toEqual({ recordsPath: 'result.docs', offsetParameter: 'skip' });
		expect(readListPaging('custom', undefined, NODE)).toEqual({});
		expect(readListPaging('automatic', { recordsPath: 'a..b' }, NODE)).toEqual({});
	});

	test.each([
		[
			{ recordsPath: 'a..b' },
			'List Paging > Records Path: "a..b" is not a path; write keys joined by dots, like result.documents',
		],
		[{ totalPath: 'meta total' }, 'List Paging > Total Path: "meta total" is not a path'],
		[
			{ offsetParameter: 'off set' },
			'List Paging > Offset Parameter: "off set" is not a query parameter name',
		],
		[
			{ nextTokenParameter: 'page_token' },
			'List Paging > Next Token Path: must be set when Next Token Parameter is',
		],
	])('%j is refused naming the setting', (raw, message) => {
		expect(() => readListPaging('custom', raw, NODE)).toThrow(message);
	});
});
