/**
 * Checks answers against docs/openapi.json (generated from the contract by `npm run openapi`):
 * the operation exists, the status is one it documents, and the body matches that status's
 * JSON Schema (OpenAPI 3.1 = JSON Schema 2020-12, validated with ajv and ajv-formats).
 *
 *   expectMatchesOpenApi('GET', `/documents/${id}`, response.status, response.data);
 *   expectResponseMatchesOpenApi(response); // the same, read from an axios response
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { AxiosResponse } from 'axios';
import { readFileSync } from 'fs';
import path from 'path';

interface MediaType {
	schema?: unknown;
}
interface Operation {
	responses: Record<string, { content?: Record<string, MediaType> }>;
}
interface OpenApiDocument {
	paths: Record<string, Record<string, Operation>>;
	components: { schemas: Record<string, unknown> };
}

const DOCUMENT_ID = 'openapi.json';

let state:
	| {
			document: OpenApiDocument;
			ajv: Ajv2020;
			templates: Array<{ template: string; pattern: RegExp }>;
			compiled: Map<string, ValidateFunction>;
	  }
	| undefined;

function load(): NonNullable<typeof state> {
	if (state) return state;
	const text = readFileSync(path.join(__dirname, '../../docs/openapi.json'), 'utf8');
	// Component references point into the document; the components are added to ajv as one schema.
	const document = JSON.parse(
		text.split('"#/components/schemas/').join(`"${DOCUMENT_ID}#/$defs/`),
	) as OpenApiDocument;
	const ajv = new Ajv2020({ allErrors: true, strict: true });
	addFormats(ajv);
	ajv.addSchema({ $id: DOCUMENT_ID, $defs: document.components.schemas });
	const templates = Object.keys(document.paths).map((template) => ({
		template,
		pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
	}));
	state = { document, ajv, templates, compiled: new Map() };
	return state;
}

/** `/v1/documents/doc_1?x=y` → `/documents/{id}`. */
function templateOf(requestPath: string): string {
	const bare = requestPath.replace(/[?#].*$/, '').replace(/^(https?:\/\/[^/]+)?(\/v1)?/, '');
	const match = load().templates.find(({ pattern }) => pattern.test(bare));
	if (!match) throw new Error(`docs/openapi.json has no path matching ${requestPath}`);
	return match.template;
}

export function expectMatchesOpenApi(
	method: string,
	requestPath: string,
	status: number,
	body: unknown,
	contentType = 'application/json',
): void {
	const { document, ajv, compiled } = load();
	const template = templateOf(requestPath);
	const operation = document.paths[template][method.toLowerCase()];
	if (!operation) throw new Error(`docs/openapi.json has no ${method.toUpperCase()} ${template}`);
	const response = operation.responses[String(status)] ?? operation.responses.default;
	if (!response) {
		throw new Error(
			`${method.toUpperCase()} ${template} answered ${status}, which docs/openapi.json does not document (${Object.keys(operation.responses).join(', ')})`,
		);
	}
	if (!response.content) {
		if (body !== '' && body !== undefined && body !== null)
			throw new Error(
				`${method.toUpperCase()} ${template} ${status} has no body in docs/openapi.json, got ${JSON.stringify(body)}`,
			);
		return;
	}
	const mediaType = contentType.split(';')[0].trim();
	const schema = response.content[mediaType]?.schema;
	if (!schema)
		throw new Error(
			`${method.toUpperCase()} ${template} ${status}: docs/openapi.json has no ${mediaType} body (${Object.keys(response.content).join(', ')})`,
		);
	const key = `${method} ${template} ${status} ${mediaType}`;
	let validate = compiled.get(key);
	if (!validate) {
		validate = ajv.compile(schema as object);
		compiled.set(key, validate);
	}
	if (!validate(body)) {
		throw new Error(
			`${method.toUpperCase()} ${requestPath} ${status} does not match docs/openapi.json:\n${JSON.stringify(validate.errors, null, 2)}\nBody: ${JSON.stringify(body, null, 2).slice(0, 4000)}`,
		);
	}
}

/** expectMatchesOpenApi with the method, path, status, body and content type of an axios response. */
export function expectResponseMatchesOpenApi(response: AxiosResponse): void {
	const { url = '', baseURL = '', method = 'get' } = response.config;
	const full = /^https?:/.test(url)
		? url
		: `${baseURL.replace(/\/$/, '')}/${url.replace(/^\//, '')}`;
	expectMatchesOpenApi(
		method,
		new URL(full).pathname,
		response.status,
		response.data,
		String(response.headers['content-type'] ?? 'application/json'),
	);
}
