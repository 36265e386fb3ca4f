/**
 * The endpoints are written by hand once, in ENDPOINTS (contract/openapi.ts); docs/openapi.json
 * and the endpoint table of docs/api-contract.md are generated from it (`npm run openapi`). This
 * fails when either committed file is not what a fresh generation writes, when the prose names an
 * endpoint the contract does not have, and when ajv cannot compile a schema of the document.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'fs';

import { ENDPOINTS, errorStatuses } from '../../contract/openapi';
import {
	API_CONTRACT_FILE,
	OPENAPI_FILE,
	renderApiContract,
	renderOpenApi,
	TABLE_END,
	TABLE_START,
} from '../../scripts/generate-openapi';
import { expectMatchesOpenApi } from '../helpers/openapi';

const endpointKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
const contractEndpoints = ENDPOINTS.map((endpoint) => endpointKey(endpoint.method, endpoint.path));

test('docs/openapi.json is what `npm run openapi` writes from the contract', () => {
	const committed = readFileSync(OPENAPI_FILE, 'utf8');
	if (committed !== renderOpenApi()) {
		throw new Error(
			'docs/openapi.json differs from a fresh generation from contract/: run `npm run openapi` and commit the file',
		);
	}
});

test('the endpoint table of docs/api-contract.md is what `npm run openapi` writes from the contract', () => {
	const committed = readFileSync(API_CONTRACT_FILE, 'utf8');
	if (committed !== renderApiContract(committed)) {
		throw new Error(
			'the endpoint table of docs/api-contract.md differs from a fresh generation from contract/openapi.ts: run `npm run openapi` and commit the file',
		);
	}
	const table = committed.slice(committed.indexOf(TABLE_START), committed.indexOf(TABLE_END));
	const rows = [...table.matchAll(/^\| `(GET|POST|PUT|DELETE|PATCH) (\/\S*)`/gm)];
	expect(rows.map((row) => endpointKey(row[1], row[2]))).toEqual(contractEndpoints);
});

test('the OpenAPI document holds exactly the contract’s endpoints, behind the Bearer key', () => {
	const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
	const documented = Object.entries(document.paths as Record<string, object>).flatMap(
		([template, operations]) =>
			Object.keys(operations).map((method) => endpointKey(method, template)),
	);
	expect(documented.sort()).toEqual([...contractEndpoints].sort());
	expect(document.components.securitySchemes.bearerAuth).toEqual({
		type: 'http',
		scheme: 'bearer',
		description: 'The API key: `Authorization: Bearer <API_KEY>`.',
	});
	expect(document.security).toEqual([{ bearerAuth: [] }]);
});

test('the prose of docs/api-contract.md names no endpoint the contract does not have', () => {
	const prose = readFileSync(API_CONTRACT_FILE, 'utf8');
	const section = prose.slice(
		prose.indexOf(TABLE_END),
		prose.indexOf('\n## ', prose.indexOf('\n## Endpoints') + 1),
	);
	// An endpoint is written `METHOD /path` → answer; other backticked requests are comparisons.
	const named = [
		...section.matchAll(/`(GET|POST|PUT|DELETE|PATCH) (\/[^`\s]*)`(?: \([^)]*\))?\s+→/g),
	].map((match) => endpointKey(match[1], match[2]));
	expect(named).toContain('POST /documents');
	expect(named.filter((endpoint) => !contractEndpoints.includes(endpoint))).toEqual([]);
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
	// One schema per answer and request body the contract describes: each success content type,
	// each error status (errorStatuses) and each body.
	expect(compiled).toBe(
		ENDPOINTS.reduce(
			(sum, endpoint) =>
				sum +
				(endpoint.success.content
					? Object.keys(endpoint.success.content).length
					: endpoint.success.schema
						? 1
						: 0) +
				errorStatuses(endpoint).length +
				(endpoint.body ? 1 : 0),
			0,
		),
	);
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
