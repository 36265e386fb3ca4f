/**
 * docs/openapi.json is generated from contract/schemas.ts (contract/openapi.ts); this fails when
 * the committed file is not what `npm run openapi` writes now, and checks that it documents every
 * endpoint docs/api-contract.md lists and that ajv compiles every schema in it.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'fs';
import path from 'path';

import { ENDPOINTS } from '../../contract/openapi';
import { OPENAPI_FILE, renderOpenApi } from '../../scripts/generate-openapi';
import { expectMatchesOpenApi } from '../helpers/openapi';

const root = path.resolve(__dirname, '../..');

test('docs/openapi.json is up to date with contract/schemas.ts', () => {
	const committed = readFileSync(OPENAPI_FILE, 'utf8');
	if (committed !== renderOpenApi()) {
		throw new Error(
			'docs/openapi.json differs from a fresh generation from contract/schemas.ts: run `npm run openapi` and commit the file',
		);
	}
});

test('every endpoint of docs/api-contract.md is in the OpenAPI document, and nothing else', () => {
	const prose = readFileSync(path.join(root, 'docs/api-contract.md'), 'utf8');
	const section = prose.slice(
		prose.indexOf('\n## Endpoints'),
		prose.indexOf('\n## ', prose.indexOf('\n## Endpoints') + 1),
	);
	const listed = new Set<string>();
	// An endpoint is written `METHOD /path` → answer; other backticked requests are comparisons.
	for (const match of section.matchAll(
		/`(GET|POST|PUT|DELETE|PATCH) (\/[^`\s]*)`(?: \([^)]*\))?\s+→/g,
	))
		listed.add(`${match[1].toLowerCase()} ${match[2]}`);
	const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
	const documented = new Set<string>();
	for (const [template, operations] of Object.entries(document.paths as Record<string, object>)) {
		for (const method of Object.keys(operations)) documented.add(`${method} ${template}`);
	}
	expect(listed.size).toBe(ENDPOINTS.length);
	expect([...listed].filter((endpoint) => !documented.has(endpoint))).toEqual([]);
	expect([...documented].filter((endpoint) => !listed.has(endpoint))).toEqual([]);
	expect(document.components.securitySchemes.bearerAuth).toMatchObject({
		type: 'http',
		scheme: 'bearer',
	});
	expect(document.security).toEqual([{ bearerAuth: [] }]);
});

test('every schema in the document compiles (JSON Schema 2020-12, strict)', () => {
	const text = readFileSync(OPENAPI_FILE, 'utf8')
		.split('"#/components/schemas/')
		.join('"openapi.json#/$defs/');
	const document = JSON.parse(text);
	const ajv = new Ajv2020({ strict: true });
	addFormats(ajv);
	ajv.addSchema({ $id: 'openapi.json', $defs: document.components.schemas });
	let compiled = 0;
	for (const operations of Object.values(
		document.paths as Record<
			string,
			Record<
				string,
				{
					responses: Record<string, { content?: Record<string, { schema: object }> }>;
					requestBody?: { content: Record<string, { schema: object }> };
				}
			>
		>,
	)) {
		for (const operation of Object.values(operations)) {
			const media = [
				...Object.values(operation.responses).flatMap((response) =>
					Object.values(response.content ?? {}),
				),
				...Object.values(operation.requestBody?.content ?? {}),
			];
			for (const { schema } of media) {
				ajv.compile(schema);
				compiled++;
			}
		}
	}
	expect(compiled).toBeGreaterThan(ENDPOINTS.length);
});

test('expectMatchesOpenApi rejects a wrong body, an undocumented status and an unknown path', () => {
	const error = { error: { code: 'not_found', message: 'No such document', request_id: 'req_1' } };
	expect(() => expectMatchesOpenApi('GET', '/v1/documents/doc_1', 404, error)).not.toThrow();
	expect(() =>
		expectMatchesOpenApi('GET', '/documents/doc_1', 404, {
			error: { ...error.error, secret: 'leak' },
		}),
	).toThrow(/does not match docs\/openapi.json/);
	expect(() => expectMatchesOpenApi('GET', '/documents/doc_1', 200, { id: 'doc_1' })).toThrow(
		/must have required property/,
	);
	expect(() => expectMatchesOpenApi('GET', '/documents/doc_1', 201, {})).toThrow(
		/does not document/,
	);
	expect(() => expectMatchesOpenApi('DELETE', '/documents/doc_1', 204, '')).not.toThrow();
	expect(() => expectMatchesOpenApi('GET', '/nowhere', 200, {})).toThrow(/no path matching/);
});
