/**
 * Writes docs/openapi.json from the contract's zod schemas (contract/openapi.ts): `npm run openapi`.
 * With --check, writes nothing and exits 1 when the file differs from a fresh generation.
 */
import { readFileSync, writeFileSync } from 'fs';
import path from 'path';

import { buildOpenApiDocument } from '../contract/openapi';

export const OPENAPI_FILE = path.join(__dirname, '..', 'docs', 'openapi.json');

export function renderOpenApi(): string {
	return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}

if (require.main === module) {
	const fresh = renderOpenApi();
	if (process.argv.includes('--check')) {
		let current = '';
		try {
			current = readFileSync(OPENAPI_FILE, 'utf8');
		} catch {
			// missing: differs
		}
		if (current !== fresh) {
			console.error('docs/openapi.json is out of date: run `npm run openapi`');
			process.exit(1);
		}
	} else {
		writeFileSync(OPENAPI_FILE, fresh);
		console.log(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)}`);
	}
}
