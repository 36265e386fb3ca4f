/**
 * The API contract as an OpenAPI 3.1 document, built from the zod schemas in ./schemas.ts with
 * @asteasolutions/zod-to-openapi. `npm run openapi` (scripts/generate-openapi.ts) writes it to
 * docs/openapi.json and the endpoint table of docs/api-contract.md from ENDPOINTS, the one list of
 * endpoints written by hand; test/contract/openapi.test.ts fails when either is out of date.
 *
 * Every operation is one entry of ENDPOINTS: adding an endpoint to the contract is adding its
 * entry here (path parameters come from the `{name}`s in the path; the error answers from the
 * method, see errorStatuses). Records that several answers share become components through
 * COMPONENTS.
 *
 * The document describes shapes, not every rule: zod refinements (cross-field checks, unique
 * e-mails, `next_cursor` set exactly when `has_more`) have no JSON Schema form and stay in
 * schemas.ts, which the sandbox and the tests apply in full.
 */
import {
	extendZodWithOpenApi,
	OpenApiGeneratorV31,
	OpenAPIRegistry,
	type ResponseConfig,
	type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

import * as schemas from './schemas';

extendZodWithOpenApi(z);

export type Method = 'get' | 'post' | 'put' | 'delete';

export interface Endpoint {
	method: Method;
	/** Relative to the base URL (which ends in /v1), with `{param}` path parameters. */
	path: string;
	tag: 'Documents' | 'Signing requests' | 'Templates' | 'Team members' | 'Webhooks' | 'Reports';
	summary: string;
	description?: string;
	query?: z.AnyZodObject;
	body?: z.ZodTypeAny;
	/** The success answer; without `schema` it has no body (204). */
	success: {
		status: 200 | 201 | 204;
		description: string;
		schema?: z.ZodTypeAny;
		content?: ResponseConfig['content'];
	};
	/** Error statuses beyond the ones every endpoint of this method can answer (errorStatuses). */
	errors?: number[];
}

const json = (schema: z.ZodTypeAny) => ({ 'application/json': { schema } });

/** One entry per operation of docs/api-contract.md "Endpoints". */
export const ENDPOINTS: Endpoint[] = [
	// Documents
	{
		method: 'post',
		path: '/documents',
		tag: 'Documents',
		summary: 'Create a document (and send it unless draft)',
		description:
			"With template_id, `fields` fill the template's fields by key and a signer's `role` names the template role it fills; what the template refuses (an unknown key or role, a missing required value, a value of the wrong type) is a 422 template_mismatch naming it.",
		body: schemas.CreateDocumentBodySchema,
		success: { status: 201, description: 'The document', schema: schemas.DocumentSchema },
		errors: [422],
	},
	{
		method: 'get',
		path: '/documents',
		tag: 'Documents',
		summary: 'List documents, newest first',
		query: schemas.ListDocumentsQuerySchema,
		success: {
			status: 200,
			description: 'A page of documents',
			schema: schemas.DocumentListSchema,
		},
	},
	{
		method: 'get',
		path: '/documents/{id}',
		tag: 'Documents',
		summary: 'Get a document',
		success: { status: 200, description: 'The document', schema: schemas.DocumentSchema },
	},
	{
		method: 'delete',
		path: '/documents/{id}',
		tag: 'Documents',
		summary: 'Delete a document (a pending one is cancelled first)',
		success: { status: 204, description: 'Deleted' },
	},
	{
		method: 'get',
		path: '/documents/{id}/file',
		tag: 'Documents',
		summary: "Download a document's file: the original upload, or the signed copy once completed",
		errors: [409],
		description:
			'The bytes with Content-Type and Content-Disposition. The signed version of a document that is not completed is a 409 document_not_completed.',
		query: schemas.DocumentFileQuerySchema,
		success: {
			status: 200,
			description: 'The file',
			content: {
				'application/octet-stream': { schema: z.string().openapi({ format: 'binary' }) },
				'application/pdf': { schema: z.string().openapi({ format: 'binary' }) },
			},
		},
	},
	{
		method: 'get',
		path: '/documents/{id}/audit-trail',
		tag: 'Documents',
		summary: "The document's audit trail, as a PDF or JSON",
		query: schemas.AuditTrailQuerySchema,
		success: {
			status: 200,
			description: 'The audit trail',
			content: {
				'application/pdf': { schema: z.string().openapi({ format: 'binary' }) },
				'application/json': { schema: schemas.AuditTrailSchema },
			},
		},
	},
	// Signing requests
	{
		method: 'post',
		path: '/signatures/request',
		tag: 'Signing requests',
		summary: 'Send a draft document for signing',
		body: schemas.CreateSigningRequestBodySchema,
		success: {
			status: 201,
			description: 'The signing request',
			schema: schemas.SigningRequestSchema,
		},
	},
	{
		method: 'get',
		path: '/signatures/{id}',
		tag: 'Signing requests',
		summary: 'Get a signing request',
		success: {
			status: 200,
			description: 'The signing request',
			schema: schemas.SigningRequestSchema,
		},
	},
	{
		method: 'post',
		path: '/signatures/{id}/remind',
		tag: 'Signing requests',
		summary: 'Remind the signers who have not signed',
		body: schemas.RemindBodySchema,
		success: {
			status: 200,
			description: 'The signing request',
			schema: schemas.SigningRequestSchema,
		},
	},
	// Templates
	{
		method: 'get',
		path: '/templates',
		tag: 'Templates',
		summary: 'List templates',
		query: schemas.ListTemplatesQuerySchema,
		success: {
			status: 200,
			description: 'A page of templates',
			schema: schemas.TemplateListSchema,
		},
	},
	{
		method: 'post',
		path: '/templates',
		tag: 'Templates',
		summary: 'Create a template',
		body: schemas.CreateTemplateBodySchema,
		success: { status: 201, description: 'The template', schema: schemas.TemplateSchema },
	},
	{
		method: 'put',
		path: '/templates/{id}',
		tag: 'Templates',
		summary: 'Update a template (fields sent replace those fields)',
		body: schemas.UpdateTemplateBodySchema,
		success: { status: 200, description: 'The template', schema: schemas.TemplateSchema },
	},
	// Team members
	{
		method: 'get',
		path: '/users',
		tag: 'Team members',
		summary: 'List team members',
		query: schemas.ListUsersQuerySchema,
		success: {
			status: 200,
			description: 'A page of team members',
			schema: schemas.TeamMemberListSchema,
		},
	},
	{
		method: 'post',
		path: '/users/invite',
		tag: 'Team members',
		summary: 'Invite a team member',
		body: schemas.InviteUserBodySchema,
		success: {
			status: 201,
			description: 'The team member, invited',
			schema: schemas.TeamMemberSchema,
		},
	},
	{
		method: 'put',
		path: '/users/{id}/role',
		tag: 'Team members',
		summary: "Change a team member's role",
		body: schemas.ChangeRoleBodySchema,
		success: { status: 200, description: 'The team member', schema: schemas.TeamMemberSchema },
		errors: [409],
	},
	// Webhooks
	{
		method: 'get',
		path: '/webhooks',
		tag: 'Webhooks',
		summary: 'List webhooks',
		query: schemas.ListWebhooksQuerySchema,
		success: { status: 200, description: 'A page of webhooks', schema: schemas.WebhookListSchema },
	},
	{
		method: 'post',
		path: '/webhooks',
		tag: 'Webhooks',
		summary: 'Create a webhook',
		body: schemas.CreateWebhookBodySchema,
		success: {
			status: 201,
			description: 'The webhook, with its secret (only here)',
			schema: schemas.WebhookWithSecretSchema,
		},
	},
	{
		method: 'delete',
		path: '/webhooks/{id}',
		tag: 'Webhooks',
		summary: 'Delete a webhook',
		success: { status: 204, description: 'Deleted' },
	},
	{
		method: 'get',
		path: '/webhooks/{id}/deliveries',
		tag: 'Webhooks',
		summary: 'List a webhook’s deliveries',
		description:
			'[A] The records GET /webhooks/{id}/deliveries/{delivery_id} gives, newest first, those made from `from` to `to` (inclusive) within the 24 hours a delivery can be acknowledged. 404 when the webhook does not exist.',
		query: schemas.ListWebhookDeliveriesQuerySchema,
		success: {
			status: 200,
			description: 'A page of deliveries',
			schema: schemas.WebhookDeliveryListSchema,
		},
	},
	{
		method: 'get',
		path: '/webhooks/{id}/deliveries/{delivery_id}',
		tag: 'Webhooks',
		summary: 'Get a webhook delivery',
		success: { status: 200, description: 'The delivery', schema: schemas.WebhookDeliverySchema },
	},
	{
		method: 'post',
		path: '/webhooks/{id}/deliveries/{delivery_id}/acknowledge',
		tag: 'Webhooks',
		summary: 'Claim a webhook delivery as processed',
		description:
			'Only the first call succeeds; every later one is 409 already_acknowledged. No body.',
		success: {
			status: 200,
			description: 'The delivery, acknowledged',
			schema: schemas.WebhookDeliverySchema,
		},
	},
	// Reports
	{
		method: 'get',
		path: '/reports/usage',
		tag: 'Reports',
		summary: 'Usage counts over a date range',
		query: schemas.UsageReportQuerySchema,
		success: { status: 200, description: 'The usage report', schema: schemas.UsageReportSchema },
	},
	{
		method: 'get',
		path: '/reports/audit-log',
		tag: 'Reports',
		summary: 'Audit-log entries, newest first',
		query: schemas.AuditLogQuerySchema,
		success: {
			status: 200,
			description: 'A page of audit entries',
			schema: schemas.AuditLogListSchema,
		},
	},
	{
		method: 'get',
		path: '/reports/export',
		tag: 'Reports',
		summary: 'Export the documents created in a date range',
		description:
			'A file download (Content-Disposition: attachment): CSV by default, or JSON with format=json.',
		query: schemas.ExportQuerySchema,
		success: {
			status: 200,
			description: 'The export file',
			content: {
				'text/csv': {
					schema: z.string().openapi({
						description: `RFC 4180 CSV with a header row: ${schemas.EXPORT_COLUMNS.join(', ')}`,
					}),
				},
				'application/json': { schema: schemas.ExportJsonSchema },
			},
		},
	},
];

/** Schemas that appear as components (#/components/schemas/NAME) wherever they are used. */
const COMPONENTS: Record<string, z.ZodTypeAny> = {
	// A component comes after the components it uses (see buildOpenApiDocument).
	Signer: schemas.SignerSchema,
	FileInfo: schemas.FileInfoSchema,
	DocumentField: schemas.DocumentFieldSchema,
	Document: schemas.DocumentSchema,
	SigningRequestSigner: schemas.SigningRequestSignerSchema,
	SigningRequest: schemas.SigningRequestSchema,
	SignerRole: schemas.SignerRoleSchema,
	TemplateField: schemas.TemplateFieldSchema,
	Template: schemas.TemplateSchema,
	TeamMember: schemas.TeamMemberSchema,
	Webhook: schemas.WebhookSchema,
	WebhookWithSecret: schemas.WebhookWithSecretSchema,
	WebhookDelivery: schemas.WebhookDeliverySchema,
	AuditLogEntry: schemas.AuditLogEntrySchema,
	UsageReport: schemas.UsageReportSchema,
	ExportRow: schemas.ExportRowSchema,
	Error: schemas.ErrorBodySchema,
	SignerInput: schemas.SignerInputSchema,
	FileInput: schemas.FileInputSchema,
	SignerRoleInput: schemas.SignerRoleInputSchema,
	TemplateFieldInput: schemas.TemplateFieldInputSchema,
	/** Not used by an operation, but part of the contract: the body POSTed to a webhook's URL. */
	WebhookDeliveryBody: schemas.WebhookDeliveryBodySchema,
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
	400: 'validation_error (field names the value at fault) or invalid_json',
	401: 'unauthorized: no key, or a key the service does not know',
	403: "forbidden: the key's role may not do this",
	404: 'not_found: no such record in this account (or no such path)',
	409: 'conflict (the record state does not allow it), idempotency_conflict or already_acknowledged',
	413: 'payload_too_large: body over 15 MiB',
	422: 'template_mismatch: the body does not fit the template (field names the value, e.g. fields.price or signers[0].role; details lists every one)',
	429: 'rate_limited: wait Retry-After seconds (X-RateLimit-Reset-After: the same with milliseconds)',
	500: 'internal_error: safe to retry reads, and writes that carry an Idempotency-Key',
	503: 'unavailable: safe to retry reads, and writes that carry an Idempotency-Key',
};

/** Every endpoint: 400 (a query parameter given twice), 401, 404, 429, 5xx; writes: 403, 413; POSTs: 409 (Idempotency-Key). */
export function errorStatuses(endpoint: Endpoint): number[] {
	const statuses = new Set([400, 401, 404, 429, 500, 503, ...(endpoint.errors ?? [])]);
	if (endpoint.method !== 'get') [403, 413].forEach((status) => statuses.add(status));
	if (endpoint.method === 'post') statuses.add(409);
	// Every role may read, webhook deliveries included (acknowledging changes no content).
	if (endpoint.path.includes('/deliveries/')) statuses.delete(403);
	return [...statuses].sort((a, b) => a - b);
}

/**
 * Marks a schema in place as the component `name`, so every schema using it refers to
 * #/components/schemas/name (zod-to-openapi finds components through this metadata; `.openapi()`
 * would return a copy the other schemas do not use). Only the `openapi` key of `_def` is set,
 * which zod itself never reads.
 */
function markComponent(name: string, schema: z.ZodTypeAny): void {
	const def = schema._def as { openapi?: { _internal?: { refId?: string } } };
	def.openapi = { ...def.openapi, _internal: { ...def.openapi?._internal, refId: name } };
}

const IDEMPOTENCY_KEY = z
	.string()
	.min(1)
	.max(schemas.LIMITS.maxIdempotencyKeyLength)
	.optional()
	.openapi({
		description:
			'For 24 hours, the same key with the same body replays the first answer (Idempotent-Replayed: true) and creates nothing.',
	});

/** The API's version (the base URL's /v1), not the package's. */
export const API_VERSION = '1';

export function buildOpenApiDocument(): ReturnType<OpenApiGeneratorV31['generateDocument']> {
	const registry = new OpenAPIRegistry();
	// Registered before the paths, and each after those it uses: zod-to-openapi makes a component
	// of the first use it meets, so `file: FileInfoSchema.nullable()` met before FileInfo itself
	// would make FileInfo nullable everywhere instead of that one use.
	for (const [name, schema] of Object.entries(COMPONENTS)) {
		markComponent(name, schema);
		registry.register(name, schema);
	}
	const bearer = registry.registerComponent('securitySchemes', 'bearerAuth', {
		type: 'http',
		scheme: 'bearer',
		description: 'The API key: `Authorization: Bearer <API_KEY>`.',
	});

	for (const endpoint of ENDPOINTS) {
		const params = [...endpoint.path.matchAll(/\{([a-z_]+)\}/g)].map((match) => match[1]);
		const responses: RouteConfig['responses'] = {
			[endpoint.success.status]: {
				description: endpoint.success.description,
				...(endpoint.success.content
					? { content: endpoint.success.content }
					: endpoint.success.schema
						? { content: json(endpoint.success.schema) }
						: {}),
			},
		};
		for (const status of errorStatuses(endpoint)) {
			responses[status] = {
				description: ERROR_DESCRIPTIONS[status] ?? 'error',
				content: json(schemas.ErrorBodySchema),
			};
		}
		registry.registerPath({
			method: endpoint.method,
			path: endpoint.path,
			tags: [endpoint.tag],
			summary: endpoint.summary,
			...(endpoint.description ? { description: endpoint.description } : {}),
			security: [{ [bearer.name]: [] }],
			request: {
				...(params.length > 0
					? {
							params: z.object(Object.fromEntries(params.map((name) => [name, z.string().min(1)]))),
						}
					: {}),
				...(endpoint.query ? { query: endpoint.query } : {}),
				...(endpoint.method === 'post'
					? { headers: z.object({ 'Idempotency-Key': IDEMPOTENCY_KEY }) }
					: {}),
				...(endpoint.body ? { body: { required: true, content: json(endpoint.body) } } : {}),
			},
			responses,
		});
	}

	const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
		openapi: '3.1.0',
		info: {
			title: 'Document Signing Service API',
			version: API_VERSION,
			description:
				'Generated from contract/schemas.ts by `npm run openapi`; the prose contract is docs/api-contract.md.',
		},
		servers: [{ url: 'http://127.0.0.1:4010/v1', description: 'The sandbox (`npm run sandbox`)' }],
		security: [{ [bearer.name]: [] }],
	});
	return nullableReferences(document);
}

/**
 * zod-to-openapi 7 writes a nullable use of a component (`FileInfoSchema.nullable()`) as
 * `allOf: [{ $ref }, { type: ['object', 'null'] }]`, which null cannot match (the referenced
 * schema says object). Rewrites each such pair as `anyOf: [{ $ref }, { type: 'null' }]`.
 */
function nullableReferences<T>(node: T): T {
	if (Array.isArray(node)) return node.map(nullableReferences) as T;
	if (node === null || typeof node !== 'object') return node;
	const object = node as Record<string, unknown>;
	const allOf = object.allOf as Array<Record<string, unknown>> | undefined;
	if (
		Object.keys(object).length === 1 &&
		allOf?.length === 2 &&
		typeof allOf[0].$ref === 'string' &&
		Object.keys(allOf[1]).length === 1 &&
		Array.isArray(allOf[1].type) &&
		(allOf[1].type as string[]).includes('null')
	) {
		return { anyOf: [allOf[0], { type: 'null' }] } as T;
	}
	return Object.fromEntries(
		Object.entries(object).map(([key, value]) => [key, nullableReferences(value)]),
	) as T;
}
