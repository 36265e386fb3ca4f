/**
 * Writes what is generated from the contract's endpoint list (ENDPOINTS in contract/openapi.ts,
 * the one place endpoints are written by hand): docs/openapi.json, and the endpoint table of
 * docs/api-contract.md (between its two markers). `npm run openapi`; with --check, writes nothing
 * and exits 1 when either file differs from a fresh generation.
 */
import { readFileSync, writeFileSync } from 'fs';
import path from 'path';

import { buildOpenApiDocument, ENDPOINTS, type Endpoint } from '../contract/openapi';

export const OPENAPI_FILE = path.join(__dirname, '..', 'docs', 'openapi.json');
export const API_CONTRACT_FILE = path.join(__dirname, '..', 'docs', 'api-contract.md');

export const TABLE_START =
	'<!-- endpoint table: generated from ENDPOINTS in contract/openapi.ts by `npm run openapi`; do not edit -->';
export const TABLE_END = '<!-- end of endpoint table -->';

export function renderOpenApi(): string {
	return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
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

/** One row per endpoint, in ENDPOINTS' order: the request, its group, its success answer, what it does. */
export function endpointTable(endpoints: Endpoint[] = ENDPOINTS): string {
	return markdownTable(
		['endpoint', 'group', 'answer', 'does'],
		endpoints.map((endpoint) => [
			`\`${endpoint.method.toUpperCase()} ${endpoint.path}\``,
			cell(endpoint.tag),
			`\`${endpoint.success.status}\` ${cell(endpoint.success.description)}`,
			cell(endpoint.summary),
		]),
	);
}

/** docs/api-contract.md with the table between its markers generated anew. */
export function renderApiContract(current: string): string {
	const start = current.indexOf(TABLE_START);
	const end = current.indexOf(TABLE_END);
	if (start < 0 || end < start)
		throw new Error(
			`docs/api-contract.md lacks the endpoint table's markers: ${TABLE_START} … ${TABLE_END}`,
		);
	return `${current.slice(0, start + TABLE_START.length)}\n\n${endpointTable()}\n\n${current.slice(end)}`;
}

function main(): void {
	const outputs = [
		{ file: OPENAPI_FILE, fresh: renderOpenApi() },
		{
			file: API_CONTRACT_FILE,
			fresh: renderApiContract(readFileSync(API_CONTRACT_FILE, 'utf8')),
		},
	];
	const check = process.argv.includes('--check');
	let stale = false;
	for (const { file, fresh } of outputs) {
		const name = path.relative(process.cwd(), file);
		let current = '';
		try {
			current = readFileSync(file, 'utf8');
		} catch {
			// missing: differs
		}
		if (current === fresh) continue;
		if (check) {
			console.error(`${name} is out of date: run \`npm run openapi\``);
			stale = true;
		} else {
			writeFileSync(file, fresh);
			console.log(`wrote ${name}`);
		}
	}
	if (stale) process.exit(1);
}

if (require.main === module) {
	main();
}
