/**
 * Writes docs/editor-fields.md: for each resource › operation of the action node, the top-level
 * fields n8n's editor shows when every parameter is at its default (issue 48: each operation
 * should show only what it needs). Which fields show is decided by n8n's own functions, as the
 * editor decides it: the node's values are `NodeHelpers.getNodeParameters` of the chosen resource
 * and operation (the defaults of every shown parameter, as when the node is added), and a field
 * shows when `NodeHelpers.displayParameterPath` says so for the node's default version (its
 * `@version` conditions included); `hidden` fields never show, notices do.
 *
 * `npx ts-node --transpile-only scripts/editor-fields.ts`; with --check, writes nothing and exits 1
 * when the committed file differs from a fresh generation.
 */
import { readFileSync, writeFileSync } from 'fs';
import path from 'path';
import {
	NodeHelpers,
	type INodeParameters,
	type INodeProperties,
	type INodePropertyOptions,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { sendListRequests } from '../nodes/DocumentSigning/shared/routedRequest';

export const EDITOR_FIELDS_FILE = path.join(__dirname, '..', 'docs', 'editor-fields.md');

/** The fields that page through a list: out of place on an operation about one record. */
export const LIST_MACHINERY = ['Return All', 'Limit', 'List Paging', 'List Paging Settings'];

export interface EditorFieldsRow {
	resource: string;
	operation: string;
	/** The operation's value (`getAll`, `sendAndWait`). */
	value: string;
	/** Whether the operation walks the pages of a list (`list: true`), else it is about one record. */
	list: boolean;
	/** The display names of the fields shown below Resource and Operation, in the editor's order. */
	fields: string[];
	/** The list machinery among `fields` when the operation is about one record. */
	listMachinery: string[];
}

const NOTICE = '(notice)';

/**
 * The action node's description. Required by its .ts file: under ts-node, `DocumentSigning.node`
 * alone would resolve to the node's codex file, DocumentSigning.node.json.
 */
export function actionNodeDescription(): INodeTypeDescription {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { DocumentSigning } = require('../nodes/DocumentSigning/DocumentSigning.node.ts') as {
		DocumentSigning: new () => { description: INodeTypeDescription };
	};
	return new DocumentSigning().description;
}

/** The node's default version, as n8n gives a new node. */
function defaultVersion(description: INodeTypeDescription): number {
	if (description.defaultVersion !== undefined) return description.defaultVersion;
	const versions = ([] as number[]).concat(description.version);
	return Math.max(...versions);
}

/** The top-level fields n8n's editor shows for these values, Resource and Operation left out. */
function shownFields(
	description: INodeTypeDescription,
	values: INodeParameters,
	typeVersion: number,
): string[] {
	const node = { typeVersion };
	const parameters =
		NodeHelpers.getNodeParameters(description.properties, values, true, false, node, description) ??
		{};
	return description.properties
		.filter((property) => property.type !== 'hidden')
		.filter((property) => !['resource', 'operation'].includes(property.name))
		.filter((property) =>
			NodeHelpers.displayParameterPath({ parameters }, property, 'parameters', node, description),
		)
		.map((property) => (property.type === 'notice' ? NOTICE : property.displayName));
}

/** One row per resource › operation, in the order of the Resource and Operation dropdowns. */
export function editorFieldsRows(
	description: INodeTypeDescription = actionNodeDescription(),
	typeVersion = defaultVersion(description),
	values: INodeParameters = {},
): EditorFieldsRow[] {
	const resourceProperty = description.properties.find(({ name }) => name === 'resource');
	if (!resourceProperty) throw new Error('the node has no Resource parameter');
	return (resourceProperty.options as INodePropertyOptions[]).flatMap((resource) => {
		const operationProperty = description.properties.find(
			(property: INodeProperties) =>
				property.name === 'operation' &&
				property.displayOptions?.show?.resource?.includes(resource.value),
		);
		if (!operationProperty) throw new Error(`${resource.name} has no Operation parameter`);
		return (operationProperty.options as INodePropertyOptions[]).map((operation) => {
			const list = operation.routing?.operations?.pagination === sendListRequests;
			const fields = shownFields(
				description,
				{ ...values, resource: resource.value, operation: operation.value },
				typeVersion,
			);
			return {
				resource: resource.name,
				operation: operation.name,
				value: String(operation.value),
				list,
				fields,
				listMachinery: list ? [] : fields.filter((field) => LIST_MACHINERY.includes(field)),
			};
		});
	});
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/** A Markdown table laid out as Prettier lays it out (columns padded to their widest cell). */
function markdownTable(header: string[], rows: string[][]): string {
	const width = (text: string) => [...text].length;
	const widths = header.map((_, column) =>
		Math.max(3, ...[header, ...rows].map((row) => width(row[column]))),
	);
	const line = (cells: string[]) =>
		`| ${cells.map((text, column) => text + ' '.repeat(widths[column] - width(text))).join(' | ')} |`;
	return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The version before issue 48's, and the operations that make a document from a template. */
export const BEFORE_VERSION = 1;
const FROM_TEMPLATE = ['create', 'sendAndWait'];

function fieldsTable(rows: EditorFieldsRow[]): string {
	return markdownTable(
		['resource', 'operation', 'fields shown (in order)', 'count', 'list machinery on one record'],
		rows.map((row) => [
			cell(row.resource),
			cell(row.operation),
			cell(row.fields.join(', ')),
			String(row.fields.length),
			row.list ? '(a list)' : cell(row.listMachinery.join(', ')) || 'none',
		]),
	);
}

function summary(rows: EditorFieldsRow[]): string[] {
	const single = rows.filter((row) => !row.list);
	const flagged = single.filter((row) => row.listMachinery.length > 0);
	return [
		`- Operations: ${rows.length}; fields shown in all: ${rows.reduce((sum, row) => sum + row.fields.length, 0)}`,
		`- Not lists (about one record, or one report): ${single.length}`,
		`- Of those, showing list machinery: ${flagged.length}${flagged.length ? ` (${flagged.map((row) => `${row.resource} › ${row.operation}`).join(', ')})` : ''}`,
	];
}

/** Both versions' rows: at the defaults, and Create and Send and Wait making a document from a template. */
export function editorFieldsVersions(description: INodeTypeDescription = actionNodeDescription()) {
	const after = defaultVersion(description);
	const template = (version: number, values: INodeParameters) =>
		editorFieldsRows(description, version, values).filter(
			(row) => row.resource === 'Document' && FROM_TEMPLATE.includes(row.value),
		);
	return {
		after,
		before: BEFORE_VERSION,
		afterRows: editorFieldsRows(description, after),
		beforeRows: editorFieldsRows(description, BEFORE_VERSION),
		// Version 1 keeps the template in Additional Fields: the top level is as at the defaults.
		afterTemplate: template(after, { documentFrom: 'template' }),
		beforeTemplate: template(BEFORE_VERSION, {}),
	};
}

/** docs/editor-fields.md, whole. */
export function renderEditorFields(versions = editorFieldsVersions()): string {
	const { after, before } = versions;
	return [
		'# Fields each operation shows',
		'',
		'<!-- generated from the node description by `npx ts-node --transpile-only scripts/editor-fields.ts`; do not edit -->',
		'',
		'The top-level fields the action node shows in the editor for each operation, below Resource',
		'and Operation, when every parameter is at its default: at the default node version (after',
		`issue 48, version ${after}) and at version ${before} (before it), which saved workflows keep. n8n`,
		'decides it with its own functions (`NodeHelpers.getNodeParameters`, `displayParameterPath`),',
		'as the editor does; a notice counts as a field. Fields inside a collection (Additional Fields,',
		'Options, …) are not counted. `test/lint/editorFields.test.ts` fails when this file is stale.',
		'',
		`List machinery: ${LIST_MACHINERY.join(', ')}. In version ${before} an operation about one record`,
		`shows the List Paging of its record's "From List" search; from version ${after} List Paging is set`,
		'once, in the credential.',
		'',
		`## After: version ${after}`,
		'',
		...summary(versions.afterRows),
		'',
		fieldsTable(versions.afterRows),
		'',
		`## Before: version ${before}`,
		'',
		...summary(versions.beforeRows),
		'',
		fieldsTable(versions.beforeRows),
		'',
		'## A document from a template',
		'',
		`Version ${after} with Document From set to Template; version ${before} keeps the template in`,
		'Additional Fields › Template, so its top level is as at the defaults (the mappers show',
		'whether or not a template is chosen).',
		'',
		markdownTable(
			['version', 'operation', 'fields shown (in order)', 'count'],
			[
				...versions.afterTemplate.map((row) => [after, row] as const),
				...versions.beforeTemplate.map((row) => [before, row] as const),
			].map(([version, row]) => [
				String(version),
				cell(row.operation),
				cell(row.fields.join(', ')),
				String(row.fields.length),
			]),
		),
		'',
	].join('\n');
}

function main(): void {
	const fresh = renderEditorFields();
	const name = path.relative(process.cwd(), EDITOR_FIELDS_FILE);
	let current = '';
	try {
		current = readFileSync(EDITOR_FIELDS_FILE, 'utf8');
	} catch {
		// missing: differs
	}
	if (current === fresh) return;
	if (process.argv.includes('--check')) {
		console.error(
			`${name} is out of date: run \`npx ts-node --transpile-only scripts/editor-fields.ts\``,
		);
		process.exit(1);
	}
	writeFileSync(EDITOR_FIELDS_FILE, fresh);
	console.log(`wrote ${name}`);
}

if (require.main === module) {
	main();
}
