import { readFileSync } from 'fs';
import { join } from 'path';
import type { INodePropertyOptions } from 'n8n-workflow';

import { DocumentSigningApi } from '../../credentials/DocumentSigningApi.credentials';
import { DocumentSigning } from '../../nodes/DocumentSigning/DocumentSigning.node';
import { ASSIGNABLE_ROLES, WEBHOOK_EVENTS } from '../../nodes/shared/vocabulary';

const { description } = new DocumentSigning();
const operationsOf = (resource: string) =>
	(description.properties.find((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource))?.options ?? []) as INodePropertyOptions[];

/** Every endpoint of the vendor's published API description, as resource / operation → method and path. */
const VENDOR_ENDPOINTS: Array<[string, string, string, string]> = [
	['document', 'create', 'POST', '/documents'],
	['document', 'getAll', 'GET', '/documents'],
	['document', 'get', 'GET', '/documents/{id}'],
	['document', 'delete', 'DELETE', '/documents/{id}'],
	['signingRequest', 'create', 'POST', '/signatures/request'],
	['signingRequest', 'getStatus', 'GET', '/signatures/{id}'],
	['signingRequest', 'remind', 'POST', '/signatures/{id}/remind'],
	['template', 'getAll', 'GET', '/templates'],
	['template', 'create', 'POST', '/templates'],
	['template', 'update', 'PUT', '/templates/{id}'],
	['teamMember', 'getAll', 'GET', '/users'],
	['teamMember', 'invite', 'POST', '/users/invite'],
	['teamMember', 'updateRole', 'PUT', '/users/{id}/role'],
	['webhook', 'getAll', 'GET', '/webhooks'],
	['webhook', 'create', 'POST', '/webhooks'],
	['webhook', 'delete', 'DELETE', '/webhooks/{id}'],
	['report', 'usage', 'GET', '/reports/usage'],
	['report', 'auditLog', 'GET', '/reports/audit-log'],
	['report', 'export', 'GET', '/reports/export'],
];

/** Endpoints the project's contract adds (docs/api-contract.md, marked [A]). */
const CONTRACT_ENDPOINTS: Array<[string, string, string, string]> = [
	['webhook', 'getDelivery', 'GET', '/webhooks/{id}/deliveries/{id}'],
	['webhook', 'acknowledgeDelivery', 'POST', '/webhooks/{id}/deliveries/{id}/acknowledge'],
	// Reads the document, then its file through a link in the record or GET /documents/{id}/file.
	['document', 'download', 'GET', '/documents/{id}'],
];

/** Operations of more than one request, run as n8n custom operations (no routing of their own). */
const CUSTOM_OPERATIONS: Array<[string, string]> = [['document', 'sendAndWait']];

test.each(CUSTOM_OPERATIONS)('%s / %s is a custom operation of the node', (resource, operation) => {
	const option = operationsOf(resource).find((o) => o.value === operation);
	expect(option).toBeDefined();
	expect(option?.routing).toBeUndefined();
	expect((new DocumentSigning().customOperations as Record<string, Record<string, unknown>>)[resource][operation]).toBeInstanceOf(Function);
});

/** The path an operation requests: its own path template, ID parameters written `{id}`. */
function pathOf(resource: string, operation: string): string | undefined {
	return operationsOf(resource)
		.find((o) => o.value === operation)
		?.routing?.request?.url?.replace(/\{\w+\}/g, '{id}');
}

test.each([...VENDOR_ENDPOINTS, ...CONTRACT_ENDPOINTS])('%s / %s sends %s %s', (resource, operation, method, path) => {
	const option = operationsOf(resource).find((o) => o.value === operation);
	expect(option).toBeDefined();
	expect(option?.routing?.request?.method).toBe(method);
	expect(pathOf(resource, operation)).toBe(path);
	// Every operation goes through the transport (retries, errors, pagination).
	expect(option?.routing?.send?.paginate).toBe(true);
});

test('there are exactly the vendor description’s 19 operations, the contract’s 3 and the custom ones', () => {
	const all = ['document', 'signingRequest', 'template', 'teamMember', 'webhook', 'report'].flatMap((r) => operationsOf(r).map((o) => `${r}/${o.value}`));
	expect(all.sort()).toEqual([...[...VENDOR_ENDPOINTS, ...CONTRACT_ENDPOINTS].map(([r, o]) => `${r}/${o}`), ...CUSTOM_OPERATIONS.map(([r, o]) => `${r}/${o}`)].sort());
});

test('the node is usable as a tool and shows resource and operation in its subtitle', () => {
	expect(description.usableAsTool).toBe(true);
	expect(description.subtitle).toContain('$parameter["operation"]');
	expect(description.subtitle).toContain('$parameter["resource"]');
});

test('the role dropdown offers exactly the assignable roles of the contract, plus a custom one', () => {
	const role = description.properties.find((p) => p.name === 'role' && p.displayOptions?.show?.resource?.includes('teamMember'));
	const values = (role?.options as INodePropertyOptions[]).map((o) => o.value);
	expect(values.filter((v) => v !== '__custom').sort()).toEqual([...ASSIGNABLE_ROLES].sort());
	expect(values).toContain('__custom');
});

test('the webhook event list is the contract’s, plus Any Event', () => {
	const events = description.properties.find((p) => p.name === 'events');
	expect((events?.options as INodePropertyOptions[]).map((o) => o.value).sort()).toEqual(['*', ...WEBHOOK_EVENTS].sort());
});

test('the codex file names the node and has categories and documentation links', () => {
	const codex = JSON.parse(readFileSync(join(__dirname, '../../nodes/DocumentSigning/DocumentSigning.node.json'), 'utf8'));
	expect(codex.node).toBe('n8n-nodes-document-signing.documentSigning');
	expect(codex.categories.length).toBeGreaterThan(0);
	expect(codex.resources.primaryDocumentation[0].url).toMatch(/^https:\/\//);
});

test('the credentials keep the key secret and authenticate with a Bearer header, keeping the request\'s own headers', async () => {
	const credentials = new DocumentSigningApi();
	expect(credentials.properties.find((p) => p.name === 'apiKey')?.typeOptions?.password).toBe(true);
	const request = { url: 'https://api.example.com/v1/users', headers: { Accept: 'application/json' } };
	await expect(credentials.authenticate({ apiKey: 'sk_test', baseUrl: 'https://api.example.com/v1' }, request)).resolves.toEqual({
		url: 'https://api.example.com/v1/users',
		headers: { Accept: 'application/json', Authorization: 'Bearer sk_test' },
	});
	expect(request.headers).toEqual({ Accept: 'application/json' });
	expect(credentials.test.request.url).toBe('/users');
});

test('parameter names are unique across resources, apart from the operation selector and the Get Many and file fields', () => {
	// n8n's routing engine resolves every entry's value by name on every item (see DocumentSigning.node.ts).
	const shared = new Set(['operation', 'returnAll', 'limit', 'filters', 'simplify', 'binaryPropertyName']);
	const counts = new Map<string, number>();
	for (const property of new DocumentSigning().description.properties) counts.set(property.name, (counts.get(property.name) ?? 0) + 1);
	expect([...counts].filter(([name, count]) => count > 1 && !shared.has(name))).toEqual([]);
});
