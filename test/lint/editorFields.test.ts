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
	BEFORE_VERSION,
	EDITOR_FIELDS_FILE,
	editorFieldsRows,
	editorFieldsVersions,
	LIST_MACHINERY,
	renderEditorFields,
} from '../../scripts/editor-fields';

const root = path.resolve(__dirname, '../..');
const description = actionNodeDescription();
const versions = editorFieldsVersions(description);
const rows = versions.afterRows;
const before = versions.beforeRows;
const row = (from: typeof rows, resource: string, value: string) =>
	from.find((candidate) => candidate.resource === resource && candidate.value === value);
const operationDropdowns = description.properties.filter(({ name }) => name === 'operation');

test('docs/editor-fields.md is what the generator writes', () => {
	expect(readFileSync(EDITOR_FIELDS_FILE, 'utf8')).toBe(renderEditorFields(versions));
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
	// Each version's table with its header and rule, and the four rows of a document from a template.
	expect(table).toHaveLength(2 * (rows.length + 2) + 4 + 2);
	expect(before).toHaveLength(rows.length);
	expect(readFileSync(EDITOR_FIELDS_FILE, 'utf8')).toContain(`- Operations: ${operations.length};`);
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
	for (const version of [rows, before])
		for (const shown of version)
			expect(shown.listMachinery).toEqual(
				shown.list ? [] : shown.fields.filter((field) => LIST_MACHINERY.includes(field)),
			);
	const text = readFileSync(EDITOR_FIELDS_FILE, 'utf8');
	expect(text).toContain(
		`- Not lists (about one record, or one report): ${rows.filter((shown) => !shown.list).length}`,
	);
	// Version 1: the List Paging of a record's "From List" search, on six operations.
	const flagged = before.filter((shown) => shown.listMachinery.length > 0);
	expect(flagged.map((shown) => `${shown.resource} › ${shown.value}`)).toEqual([
		'Document › delete',
		'Document › download',
		'Document › get',
		'Signing Request › create',
		'Team Member › updateRole',
		'Template › update',
	]);
	expect(text).toContain(`- Of those, showing list machinery: ${flagged.length} (`);
});

test('the default version shows no list machinery on one record, and no List Paging at all: the credential holds it', () => {
	expect(rows.filter((shown) => shown.listMachinery.length > 0)).toEqual([]);
	expect(
		rows.flatMap((shown) => shown.fields).filter((field) => field.startsWith('List Paging')),
	).toEqual([]);
	expect(readFileSync(EDITOR_FIELDS_FILE, 'utf8')).toContain(
		'- Of those, showing list machinery: 0\n',
	);
	expect(before.flatMap((shown) => shown.fields)).toContain('List Paging');
});

test('Document › Create and Send and Wait ask where the document comes from first; from a template, its fields and roles follow the template at once', () => {
	expect(row(rows, 'Document', 'create')?.fields).toEqual([
		'Document From',
		'Input Binary Field',
		'Document Name',
		'Signers',
		'Additional Fields',
	]);
	const [create, sendAndWait] = versions.afterTemplate;
	expect(create.fields.slice(0, 5)).toEqual([
		'Document From',
		'Template',
		'Document Name',
		'Template Fields',
		'Signers by Role',
	]);
	expect(sendAndWait.fields.slice(0, 5)).toEqual(create.fields.slice(0, 5));
	// Version 1 keeps them where saved workflows have them: Document Name and Signers first.
	expect(row(before, 'Document', 'create')?.fields.slice(0, 2)).toEqual([
		'Document Name',
		'Signers',
	]);
	expect(BEFORE_VERSION).toBe(1);
});

test('version 2 shows fewer fields in all than version 1', () => {
	const count = (version: typeof rows) =>
		version.reduce((sum, shown) => sum + shown.fields.length, 0);
	expect(count(rows)).toBeLessThan(count(before));
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
