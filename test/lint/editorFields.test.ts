/**
 * docs/editor-fields.md (scripts/editor-fields.ts): the fields each operation shows at its
 * defaults, as n8n's editor decides it. The committed file is what the generator writes today, and
 * the table states the facts a reviewer of issue 48 reads it for.
 */
import { spawnSync } from 'child_process';
import { readFileSync } from 'fs';
import type { INodeProperties, INodePropertyOptions, INodeTypeDescription } from 'n8n-workflow';
import path from 'path';

import {
	actionNodeDescription,
	EDITOR_FIELDS_FILE,
	editorFieldsRows,
	LIST_MACHINERY,
	renderEditorFields,
} from '../../scripts/editor-fields';

const root = path.resolve(__dirname, '../..');
const description = actionNodeDescription();
const rows = editorFieldsRows(description);
const operationDropdowns = description.properties.filter(({ name }) => name === 'operation');

test('docs/editor-fields.md is what the generator writes', () => {
	expect(readFileSync(EDITOR_FIELDS_FILE, 'utf8')).toBe(renderEditorFields(rows));
});

test('--check passes on the committed file', () => {
	const result = spawnSync(
		process.execPath,
		[
			require.resolve('ts-node/dist/bin'),
			'--transpile-only',
			'scripts/editor-fields.ts',
			'--check',
		],
		{ cwd: root, encoding: 'utf8' },
	);
	expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
}, 60_000);

test('one row per operation of every resource, in the dropdowns’ order', () => {
	const operations = operationDropdowns.flatMap(
		(dropdown) => dropdown.options as INodePropertyOptions[],
	);
	expect(rows).toHaveLength(operations.length);
	const resources = (description.properties[0].options as INodePropertyOptions[]).map(
		({ name }) => name,
	);
	expect([...new Set(rows.map((row) => row.resource))]).toEqual(resources);
	const table = readFileSync(EDITOR_FIELDS_FILE, 'utf8')
		.split('\n')
		.filter((line) => line.startsWith('| '));
	expect(table).toHaveLength(rows.length + 2); // the header and its rule
	expect(readFileSync(EDITOR_FIELDS_FILE, 'utf8')).toContain(`- Operations: ${operations.length}`);
});

test('every operation shows a field; none lists Resource or Operation, or a field twice', () => {
	for (const row of rows) {
		expect(row.fields.length).toBeGreaterThan(0);
		expect(row.fields).not.toContain('Resource');
		expect(row.fields).not.toContain('Operation');
		const named = row.fields.filter((field) => field !== '(notice)');
		expect(new Set(named).size).toBe(named.length);
	}
});

test('a list shows Return All and Limit; an operation about one record never does', () => {
	for (const row of rows) {
		const paging = row.fields.filter((field) => ['Return All', 'Limit'].includes(field));
		expect({ row: `${row.resource} › ${row.operation}`, paging }).toEqual({
			row: `${row.resource} › ${row.operation}`,
			paging: row.list ? ['Return All', 'Limit'] : [],
		});
	}
});

test('list machinery is flagged on operations about one record, and only there', () => {
	for (const row of rows) {
		expect(row.listMachinery).toEqual(
			row.list ? [] : row.fields.filter((field) => LIST_MACHINERY.includes(field)),
		);
	}
	// Today: the List Paging of a record's "From List" search (issue 48 moves it later).
	const flagged = rows.filter((row) => row.listMachinery.length > 0);
	expect(flagged.every((row) => row.listMachinery.join() === 'List Paging')).toBe(true);
	const text = readFileSync(EDITOR_FIELDS_FILE, 'utf8');
	expect(text).toContain(
		`- Not lists (about one record, or one report): ${rows.filter((row) => !row.list).length}`,
	);
	expect(text).toContain(`- Of those, showing list machinery: ${flagged.length} (`);
});

test('Document › Create shows Document Name and Signers first', () => {
	const create = rows.find((row) => row.resource === 'Document' && row.value === 'create');
	expect(create?.fields.slice(0, 2)).toEqual(['Document Name', 'Signers']);
});

test('display conditions are n8n’s own, @version at the node’s default version included', () => {
	const field = (displayName: string, extra: Partial<INodeProperties> = {}): INodeProperties => ({
		displayName,
		name: displayName.toLowerCase().replace(/\W/g, ''),
		type: 'string',
		default: '',
		...extra,
	});
	const made: INodeTypeDescription = {
		...description,
		version: [1, 2, 3],
		defaultVersion: 2,
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				default: 'thing',
				options: [{ name: 'Thing', value: 'thing' }],
			},
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				default: 'get',
				displayOptions: { show: { resource: ['thing'] } },
				options: [{ name: 'Get', value: 'get' }],
			},
			field('Always'),
			field('Version One', { displayOptions: { show: { '@version': [1] } } }),
			field('Version Two On', { displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } } }),
			field('Mode', { type: 'options', default: 'a', options: [{ name: 'A', value: 'a' }] }),
			field('Mode B Only', { displayOptions: { show: { mode: ['b'] } } }),
			field('Hidden Unless A', { displayOptions: { hide: { mode: ['b'] } } }),
			field('Internal', { type: 'hidden' }),
			field('Read This', { type: 'notice' }),
		],
	};
	expect(editorFieldsRows(made)[0].fields).toEqual([
		'Always',
		'Version Two On',
		'Mode',
		'Hidden Unless A',
		'(notice)',
	]);
});
