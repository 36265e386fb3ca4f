/**
 * The API contract (docs/api-contract.md) in machine-readable form.
 *
 * This is the one place the contract lives: the sandbox validates every request with these
 * schemas and the tests assert every response with them. Enums the node uses too are built from
 * the arrays in nodes/shared/vocabulary.ts so the node, the sandbox and the tests cannot disagree.
 *
 * - Response (record) schemas are `.strict()`: the sandbox must not leak internal fields (signing
 *   tokens, webhook secrets in lists), and a test fails if it does. Real clients are told to
 *   ignore unknown fields; the strictness is for our own implementation only.
 * - Request schemas are `.passthrough()`: the contract says unknown body fields are ignored, so
 *   they must not fail validation (the sandbox then only reads the fields it knows).
 */
import { z } from 'zod';

import {
	ANY_EVENT,
	ASSIGNABLE_ROLES,
	AUDIT_EVENTS,
	DOCUMENT_STATUSES,
	EXPORT_FORMATS,
	MAX_PAGE_SIZE,
	SIGNER_AUTHENTICATION_METHODS,
	TEAM_MEMBER_ROLES,
	TEAM_MEMBER_STATUSES,
	WEBHOOK_EVENTS,
	ACCEPTED_FILE_TYPES,
	LIMITS as NODE_LIMITS,
	PHONE_PATTERN,
	TEMPLATE_FIELD_KEY_PATTERN,
	TEMPLATE_FIELD_TYPES,
} from '../nodes/shared/vocabulary';
import { fieldValueProblem } from '../nodes/shared/fieldValues';

export { AUDIT_EVENTS };
export type AuditEvent = (typeof AUDIT_EVENTS)[number];
export type TeamMemberRole = (typeof TEAM_MEMBER_ROLES)[number];

// ---------------------------------------------------------------------------------------------
// Constants the contract decides (not part of the node's vocabulary)
// ---------------------------------------------------------------------------------------------

/** The contract's numeric limits (docs/api-contract.md); the node checks the ones in NODE_LIMITS. */
export const LIMITS = {
	...NODE_LIMITS,
	/** Request bodies above this are refused with 413 before being read further. */
	maxBodyBytes: 15 * 1024 * 1024,
	maxSigners: 50,
	maxSignerRoles: 50,
	/** A template role's name. */
	maxRoleNameLength: 100,
	/** [A] Fields of one template. */
	maxTemplateFields: 100,
	maxFieldLabelLength: 200,
	/** [A] Choices of a choice field. */
	maxFieldOptions: 100,
	maxMetadataKeyLength: 40,
	maxMetadataValueLength: 500,
	maxNameLength: 255,
	maxPersonNameLength: 200,
	maxMessageLength: 5000,
	maxDescriptionLength: 2000,
	maxDeclineReasonLength: 2000,
	/** [A] A webhook's url (a Send and Wait batch's resume URL carries up to 100 document ids). */
	maxUrlLength: 8192,
	maxQueryTextLength: 255,
	maxCursorLength: 512,
	maxWebhookSecretLength: 256,
	maxIdempotencyKeyLength: 255,
	idempotencyWindowSeconds: 24 * 60 * 60,
	/** A webhook delivery counts as received on a 2xx within this time. */
	deliveryTimeoutSeconds: 10,
	/** [A] Deliveries the service has in flight to one webhook URL at once. */
	deliveryConcurrencyPerUrl: 10,
	/** Default range of the reports when `from`/`to` are left out. */
	defaultReportDays: 30,
} as const;

export const SIGNER_STATUSES = ['pending', 'viewed', 'signed', 'declined'] as const;
export const SIGNING_REQUEST_STATUSES = [
	'pending',
	'completed',
	'declined',
	'expired',
	'cancelled',
] as const;
export type SigningRequestStatus = (typeof SIGNING_REQUEST_STATUSES)[number];

/** `version` of GET /documents/{id}/file. */
export const DOCUMENT_FILE_VERSIONS = ['original', 'signed'] as const;
export type DocumentFileVersion = (typeof DOCUMENT_FILE_VERSIONS)[number];

export const FILE_CONTENT_TYPES = Object.keys(ACCEPTED_FILE_TYPES) as [
	keyof typeof ACCEPTED_FILE_TYPES,
	...Array<keyof typeof ACCEPTED_FILE_TYPES>,
];

export const ID_PREFIXES = {
	document: 'doc_',
	signer: 'sgn_',
	signingRequest: 'sr_',
	template: 'tpl_',
	user: 'usr_',
	webhook: 'wh_',
	auditEntry: 'evt_',
	delivery: 'dlv_',
	request: 'req_',
} as const;

export const ERROR_CODES = [
	'validation_error',
	'invalid_json',
	'unauthorized',
	'forbidden',
	'not_found',
	'method_not_allowed',
	'conflict',
	'idempotency_conflict',
	'already_acknowledged',
	'document_not_completed',
	'template_mismatch',
	'payload_too_large',
	'rate_limited',
	'internal_error',
	'unavailable',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const AUDIT_ACTOR_TYPES = ['user', 'signer', 'api_key', 'system'] as const;

/** `format` of GET /documents/{id}/audit-trail. */
export const AUDIT_TRAIL_FORMATS = ['pdf', 'json'] as const;
export type AuditTrailFormat = (typeof AUDIT_TRAIL_FORMATS)[number];

/** Columns of GET /reports/export, in order (CSV header and JSON row keys). */
export const EXPORT_COLUMNS = [
	'id',
	'name',
	'status',
	'created_at',
	'completed_at',
	'expires_at',
	'signature_request_id',
	'template_id',
	'signer_count',
	'signed_count',
	'signer_emails',
] as const;

/** Turns a zod issue path into the contract's `field` notation: `signers[0].email`. */
export function fieldPath(path: ReadonlyArray<string | number>): string {
	let out = '';
	for (const segment of path) {
		if (typeof segment === 'number') out += `[${segment}]`;
		else out += out === '' ? segment : `.${segment}`;
	}
	return out;
}

// ---------------------------------------------------------------------------------------------
// Building blocks
// ---------------------------------------------------------------------------------------------

/** Responses carry UTC timestamps with milliseconds: `2026-11-22T10:00:00.000Z`. */
const timestamp = z
	.string()
	.datetime({ precision: 3, message: 'must be an ISO 8601 UTC timestamp' });
const nullableTimestamp = timestamp.nullable();

/** Requests may send any ISO 8601 timestamp with a zone (`Z` or `+02:00`). */
const timestampInput = z
	.string()
	.datetime({ offset: true, message: 'must be an ISO 8601 timestamp with a time zone' });

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
/** Report ranges accept `2026-11-01` or a full timestamp. */
const dateOrTimestampInput = z
	.string()
	.refine(
		(value) =>
			(DATE_ONLY.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`))) ||
			timestampInput.safeParse(value).success,
		{ message: 'must be a date (YYYY-MM-DD) or an ISO 8601 timestamp' },
	);

const idOf = (prefix: string) =>
	z.string().regex(new RegExp(`^${prefix}[A-Za-z0-9]+$`), {
		message: `must be an id starting with ${prefix}`,
	});

const email = z.string().max(254).email({ message: 'must be an e-mail address' });

/** File names carry an extension (the vendor's published API description: "It carries a file name with extension"). */
const FILE_NAME = /^[^/\\]*[^/\\\s.][^/\\]*\.[A-Za-z0-9]{1,10}$/;
const fileName = z
	.string()
	.min(1)
	.max(LIMITS.maxNameLength)
	.regex(FILE_NAME, { message: 'must be a file name with an extension, e.g. contract.pdf' });

/** E.164 phone number. */
const phone = z
	.string()
	.regex(PHONE_PATTERN, { message: 'must be a phone number in E.164 form, e.g. +3725550123' });

const httpUrl = z
	.string()
	.max(LIMITS.maxUrlLength)
	.refine(
		(value) => {
			try {
				const url = new URL(value);
				return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
			} catch {
				return false;
			}
		},
		{ message: 'must be an http or https URL' },
	);

const metadata = z
	.record(
		z.string().min(1).max(LIMITS.maxMetadataKeyLength),
		z.string({ invalid_type_error: 'must be a string' }).max(LIMITS.maxMetadataValueLength),
	)
	.refine((value) => Object.keys(value).length <= LIMITS.maxMetadataKeys, {
		message: `must have at most ${LIMITS.maxMetadataKeys} keys`,
	});

const webhookEventOrAny = z.enum([ANY_EVENT, ...WEBHOOK_EVENTS] as const);

// ---------------------------------------------------------------------------------------------
// Records (responses)
// ---------------------------------------------------------------------------------------------

/** A template field's value: text, a number or true/false, by the field's type. */
const fieldValue = z.union([z.string(), z.number(), z.boolean()]);

export const SignerSchema = z
	.object({
		id: idOf(ID_PREFIXES.signer),
		email: z.string(),
		name: z.string(),
		/** [A] The template role this signer fills; null without a template or beyond its roles. */
		role: z.string().nullable(),
		order: z.number().int().min(1).nullable(),
		authentication: z.enum(SIGNER_AUTHENTICATION_METHODS),
		phone: z.string().nullable(),
		status: z.enum(SIGNER_STATUSES),
		signing_url: z.string().url(),
		viewed_at: nullableTimestamp,
		signed_at: nullableTimestamp,
		declined_at: nullableTimestamp,
		decline_reason: z.string().nullable(),
	})
	.strict();

export const FileInfoSchema = z
	.object({
		name: z.string(),
		content_type: z.enum(FILE_CONTENT_TYPES),
		size: z.number().int().min(1),
		sha256: z.string().regex(/^[0-9a-f]{64}$/),
	})
	.strict();

/** Download links of a document (sandbox option `fileLinks`); absolute URLs that still need the API key. */
export const DocumentFilesSchema = z
	.object({
		original: z.object({ url: z.string().url() }).strict(),
		signed: z.object({ url: z.string().url() }).strict().nullable(),
	})
	.strict();

/** [A] A template field of a document made from a template, with the value it was given. */
export const DocumentFieldSchema = z
	.object({
		key: z.string(),
		label: z.string(),
		type: z.enum(TEMPLATE_FIELD_TYPES),
		/** The value given, else the field's default; null when neither (e.g. a role fills it at signing). */
		value: fieldValue.nullable(),
	})
	.strict();

export const DocumentSchema = z
	.object({
		id: idOf(ID_PREFIXES.document),
		name: z.string(),
		status: z.enum(DOCUMENT_STATUSES),
		signers: z.array(SignerSchema),
		signing_url: z.string().url(),
		signature_request_id: idOf(ID_PREFIXES.signingRequest).nullable(),
		message: z.string().nullable(),
		expires_at: nullableTimestamp,
		template_id: idOf(ID_PREFIXES.template).nullable(),
		/** [A] The template's fields with their values, in the template's order; [] without a template. */
		fields: z.array(DocumentFieldSchema),
		metadata: z.record(z.string()),
		file: FileInfoSchema.nullable(),
		created_at: timestamp,
		updated_at: timestamp,
		completed_at: nullableTimestamp,
		/** Only when the service puts download links into records (sandbox option `fileLinks`). */
		files: DocumentFilesSchema.optional(),
		audit_trail_url: z.string().url().optional(),
	})
	.strict();

export const SigningRequestSignerSchema = z
	.object({
		id: idOf(ID_PREFIXES.signer),
		email: z.string(),
		name: z.string(),
		status: z.enum(SIGNER_STATUSES),
		signing_url: z.string().url(),
	})
	.strict();

export const SigningRequestSchema = z
	.object({
		id: idOf(ID_PREFIXES.signingRequest),
		document_id: idOf(ID_PREFIXES.document),
		status: z.enum(SIGNING_REQUEST_STATUSES),
		signers: z.array(SigningRequestSignerSchema),
		message: z.string().nullable(),
		expires_at: nullableTimestamp,
		reminders_sent: z.number().int().min(0),
		last_reminded_at: nullableTimestamp,
		created_at: timestamp,
		updated_at: timestamp,
	})
	.strict();

export const SignerRoleSchema = z
	.object({
		role: z.string(),
		order: z.number().int().min(1),
		/** A role may be pre-filled with a fixed person (e.g. the company's own signatory). */
		email: z.string().nullable(),
		name: z.string().nullable(),
	})
	.strict();

/** [A] A field of a template: filled per document by its creator, or at signing time by a role. */
export const TemplateFieldSchema = z
	.object({
		key: z.string(),
		label: z.string(),
		type: z.enum(TEMPLATE_FIELD_TYPES),
		required: z.boolean(),
		default: fieldValue.nullable(),
		/** The signer role that fills it when signing; null: the document's creator fills it. */
		role: z.string().nullable(),
		/** A choice field's choices; null for the other types. */
		options: z.array(z.string()).nullable(),
	})
	.strict();

export const TemplateSchema = z
	.object({
		id: idOf(ID_PREFIXES.template),
		name: z.string(),
		description: z.string().nullable(),
		document_name: z.string().nullable(),
		message: z.string().nullable(),
		signer_roles: z.array(SignerRoleSchema),
		fields: z.array(TemplateFieldSchema),
		metadata: z.record(z.string()),
		created_at: timestamp,
		updated_at: timestamp,
	})
	.strict();

export const TeamMemberSchema = z
	.object({
		id: idOf(ID_PREFIXES.user),
		email: z.string(),
		name: z.string().nullable(),
		role: z.enum(TEAM_MEMBER_ROLES),
		status: z.enum(TEAM_MEMBER_STATUSES),
		/** null for members who were never invited (the account's owner). */
		invited_at: nullableTimestamp,
		created_at: timestamp,
		updated_at: timestamp,
	})
	.strict();

export const WebhookSchema = z
	.object({
		id: idOf(ID_PREFIXES.webhook),
		url: z.string().url(),
		events: z.array(webhookEventOrAny).min(1),
		description: z.string().nullable(),
		active: z.boolean(),
		created_at: timestamp,
		/** [A] Present only when the webhook was created for one document: only its events are delivered. */
		document_id: idOf(ID_PREFIXES.document).optional(),
		/** [A] Present only when the webhook was created with an expiry: the service removes it then. */
		expires_at: timestamp.optional(),
	})
	.strict();

/** Only the creation response carries the secret. */
export const WebhookWithSecretSchema = WebhookSchema.extend({
	secret: z.string().min(LIMITS.minWebhookSecretLength).max(LIMITS.maxWebhookSecretLength),
}).strict();

export const DELIVERY_STATUSES = ['pending', 'received', 'failed', 'acknowledged'] as const;

export const AuditActorSchema = z
	.object({
		type: z.enum(AUDIT_ACTOR_TYPES),
		email: z.string().nullable(),
	})
	.strict();

export const AuditLogEntrySchema = z
	.object({
		id: idOf(ID_PREFIXES.auditEntry),
		event: z.enum(AUDIT_EVENTS),
		actor: AuditActorSchema,
		document_id: idOf(ID_PREFIXES.document).nullable(),
		ip: z.string().nullable(),
		details: z.record(z.unknown()),
		created_at: timestamp,
	})
	.strict();

/** GET /documents/{id}/audit-trail?format=json: the document's audit-log entries, oldest first. */
export const AuditTrailSchema = z
	.object({
		document_id: idOf(ID_PREFIXES.document),
		document_name: z.string(),
		status: z.enum(DOCUMENT_STATUSES),
		events: z.array(AuditLogEntrySchema),
	})
	.strict();

export const UsageReportSchema = z
	.object({
		from: timestamp,
		to: timestamp,
		documents_created: z.number().int().min(0),
		documents_completed: z.number().int().min(0),
		documents_declined: z.number().int().min(0),
		signing_requests_sent: z.number().int().min(0),
		reminders_sent: z.number().int().min(0),
		signatures_collected: z.number().int().min(0),
		team_members: z.number().int().min(0),
	})
	.strict();

/** One row of GET /reports/export?format=json (CSV has the same columns, emails joined by `;`). */
export const ExportRowSchema = z
	.object({
		id: idOf(ID_PREFIXES.document),
		name: z.string(),
		status: z.enum(DOCUMENT_STATUSES),
		created_at: timestamp,
		completed_at: nullableTimestamp,
		expires_at: nullableTimestamp,
		signature_request_id: z.string().nullable(),
		template_id: z.string().nullable(),
		signer_count: z.number().int().min(0),
		signed_count: z.number().int().min(0),
		signer_emails: z.array(z.string()),
	})
	.strict();
export const ExportJsonSchema = z.array(ExportRowSchema);

/** `{ data, has_more, next_cursor }`; `next_cursor` is null exactly when `has_more` is false. */
export function listEnvelope<T extends z.ZodTypeAny>(item: T) {
	return z
		.object({
			data: z.array(item),
			has_more: z.boolean(),
			next_cursor: z.string().min(1).nullable(),
		})
		.strict()
		.refine((page) => page.has_more === (page.next_cursor !== null), {
			message: 'next_cursor must be set exactly when has_more is true',
			path: ['next_cursor'],
		});
}

export const DocumentListSchema = listEnvelope(DocumentSchema);
export const TemplateListSchema = listEnvelope(TemplateSchema);
export const TeamMemberListSchema = listEnvelope(TeamMemberSchema);
export const WebhookListSchema = listEnvelope(WebhookSchema);
export const AuditLogListSchema = listEnvelope(AuditLogEntrySchema);

export const ErrorBodySchema = z
	.object({
		error: z
			.object({
				code: z.enum(ERROR_CODES),
				message: z.string().min(1),
				/** The body/query field, header or path parameter at fault, when there is one. */
				field: z.string().min(1).optional(),
				/** Every validation problem found, when there are several. */
				details: z.array(z.object({ field: z.string(), message: z.string() }).strict()).optional(),
				request_id: idOf(ID_PREFIXES.request),
			})
			.strict(),
	})
	.strict();

// ---------------------------------------------------------------------------------------------
// Webhook delivery body
// ---------------------------------------------------------------------------------------------

const EVENTS_WITH_SIGNER = new Set(['document.viewed', 'document.signed', 'document.declined']);

export const WebhookDeliveryBodySchema = z
	.object({
		id: idOf(ID_PREFIXES.delivery),
		event: z.enum(WEBHOOK_EVENTS),
		created_at: timestamp,
		webhook_id: idOf(ID_PREFIXES.webhook),
		data: z
			.object({
				document: DocumentSchema.optional(),
				signer: SignerSchema.optional(),
				signature_request: SigningRequestSchema.optional(),
			})
			.strict(),
	})
	.strict()
	.superRefine((body, ctx) => {
		const isDocumentEvent = body.event.startsWith('document.');
		if (isDocumentEvent && !body.data.document) {
			ctx.addIssue({
				code: 'custom',
				path: ['data', 'document'],
				message: 'is required for document.* events',
			});
		}
		if (!isDocumentEvent && !body.data.signature_request) {
			ctx.addIssue({
				code: 'custom',
				path: ['data', 'signature_request'],
				message: 'is required for signature.* events',
			});
		}
		if (EVENTS_WITH_SIGNER.has(body.event) !== (body.data.signer !== undefined)) {
			ctx.addIssue({
				code: 'custom',
				path: ['data', 'signer'],
				message: 'is present exactly for viewed/signed/declined',
			});
		}
	});

// ---------------------------------------------------------------------------------------------
// Request bodies
// ---------------------------------------------------------------------------------------------

export const SignerInputSchema = z
	.object({
		email,
		name: z.string().trim().min(1).max(LIMITS.maxPersonNameLength),
		order: z.number().int().min(1).max(LIMITS.maxSigningOrder).nullish(),
		authentication: z.enum(SIGNER_AUTHENTICATION_METHODS).optional(),
		phone: phone.nullish(),
		/** [A] The template role this signer fills (only with template_id). */
		role: z.string().trim().min(1).max(LIMITS.maxRoleNameLength).optional(),
	})
	.passthrough()
	.superRefine((signer, ctx) => {
		if (signer.authentication === 'sms_otp' && !signer.phone) {
			ctx.addIssue({
				code: 'custom',
				path: ['phone'],
				message: 'is required when authentication is sms_otp',
			});
		}
	});

/** 1–50 signers with unique e-mail addresses (compared case-insensitively). */
const signerList = z
	.array(SignerInputSchema)
	.min(1, { message: 'must list at least one signer' })
	.max(LIMITS.maxSigners, { message: `must list at most ${LIMITS.maxSigners} signers` })
	.superRefine((signers, ctx) => {
		const seen = new Set<string>();
		signers.forEach((signer, index) => {
			const key = signer.email.toLowerCase();
			if (seen.has(key)) {
				ctx.addIssue({ code: 'custom', path: [index, 'email'], message: 'is listed twice' });
			}
			seen.add(key);
		});
	});

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decoded size of a base64 string without decoding it. */
export function base64DecodedSize(data: string): number {
	const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
	return Math.floor((data.length * 3) / 4) - padding;
}

export const FileInputSchema = z
	.object({
		name: fileName.optional(),
		content_type: z.enum(FILE_CONTENT_TYPES),
		data: z
			.string()
			.min(1, { message: 'must not be empty' })
			.refine((value) => value.length % 4 === 0 && BASE64.test(value), {
				message: 'must be base64',
			})
			.refine((value) => base64DecodedSize(value) <= LIMITS.maxFileBytes, {
				message: `must be at most ${LIMITS.maxFileBytes} bytes once decoded`,
			}),
	})
	.passthrough();

const message = z.string().max(LIMITS.maxMessageLength);

export const CreateDocumentBodySchema = z
	.object({
		name: fileName.optional(),
		signers: signerList.optional(),
		draft: z.boolean().optional(),
		message: message.nullish(),
		expires_at: timestampInput.nullish(),
		template_id: z.string().min(1).max(100).nullish(),
		/** [A] Values of the template's fields by key; checked against the template (422). */
		fields: z
			.record(z.string().min(1).max(64), fieldValue.nullable())
			.refine((value) => Object.keys(value).length <= LIMITS.maxTemplateFields, {
				message: `must have at most ${LIMITS.maxTemplateFields} keys`,
			})
			.optional(),
		metadata: metadata.optional(),
		file: FileInputSchema.nullish(),
	})
	.passthrough()
	.superRefine((body, ctx) => {
		// With a template, name and signers may come from it; the sandbox checks that it gives them.
		if (!body.template_id && body.name === undefined) {
			ctx.addIssue({ code: 'custom', path: ['name'], message: 'is required' });
		}
		if (!body.template_id && !body.draft && body.signers === undefined) {
			ctx.addIssue({
				code: 'custom',
				path: ['signers'],
				message: 'is required unless draft is true',
			});
		}
	});

export const CreateSigningRequestBodySchema = z
	.object({
		document_id: z.string().min(1).max(100),
		signers: signerList.optional(),
		message: message.nullish(),
		expires_at: timestampInput.nullish(),
	})
	.passthrough();

export const RemindBodySchema = z
	.object({
		message: message.nullish(),
		signer_ids: z.array(z.string().min(1).max(100)).min(1).max(LIMITS.maxSigners).optional(),
	})
	.passthrough();

export const SignerRoleInputSchema = z
	.object({
		role: z.string().trim().min(1).max(LIMITS.maxRoleNameLength),
		order: z.number().int().min(1).max(LIMITS.maxSigningOrder).optional(),
		email: email.nullish(),
		name: z.string().trim().min(1).max(LIMITS.maxPersonNameLength).nullish(),
	})
	.passthrough();

const signerRoleList = z
	.array(SignerRoleInputSchema)
	.max(LIMITS.maxSignerRoles)
	.superRefine((roles, ctx) => {
		const seen = new Set<string>();
		roles.forEach((role, index) => {
			const key = role.role.toLowerCase();
			if (seen.has(key))
				ctx.addIssue({ code: 'custom', path: [index, 'role'], message: 'is listed twice' });
			seen.add(key);
		});
	});

export const TemplateFieldInputSchema = z
	.object({
		key: z.string().regex(TEMPLATE_FIELD_KEY_PATTERN, {
			message: 'must start with a letter and hold only letters, digits and _ (64 at most)',
		}),
		/** Defaults to the key. */
		label: z.string().trim().min(1).max(LIMITS.maxFieldLabelLength).optional(),
		/** Defaults to text. */
		type: z.enum(TEMPLATE_FIELD_TYPES).optional(),
		required: z.boolean().optional(),
		default: fieldValue.nullish(),
		role: z.string().trim().min(1).max(LIMITS.maxRoleNameLength).nullish(),
		options: z
			.array(z.string().trim().min(1).max(LIMITS.maxFieldLabelLength))
			.min(1)
			.max(LIMITS.maxFieldOptions)
			.nullish(),
	})
	.passthrough()
	.superRefine((field, ctx) => {
		const type = field.type ?? 'text';
		if (type === 'choice' && !field.options)
			ctx.addIssue({
				code: 'custom',
				path: ['options'],
				message: 'is required for a choice field',
			});
		if (type !== 'choice' && field.options)
			ctx.addIssue({ code: 'custom', path: ['options'], message: 'is only for choice fields' });
		const seen = new Set<string>();
		(field.options ?? []).forEach((option, index) => {
			if (seen.has(option))
				ctx.addIssue({ code: 'custom', path: ['options', index], message: 'is listed twice' });
			seen.add(option);
		});
		if (field.default !== undefined && field.default !== null) {
			const problem = fieldValueProblem(type, field.default, field.options);
			if (problem) ctx.addIssue({ code: 'custom', path: ['default'], message: problem });
		}
	});

/** At most 100 fields with unique keys (compared case-insensitively). */
const templateFieldList = z
	.array(TemplateFieldInputSchema)
	.max(LIMITS.maxTemplateFields)
	.superRefine((fields, ctx) => {
		const seen = new Set<string>();
		fields.forEach((field, index) => {
			const key = field.key.toLowerCase();
			if (seen.has(key))
				ctx.addIssue({ code: 'custom', path: [index, 'key'], message: 'is listed twice' });
			seen.add(key);
		});
	});

/**
 * Fields whose `role` names no role of `roles` (compared case-insensitively), as
 * `{ field: 'fields[2].role', message }`: a template's fields and roles are checked together,
 * after an update has merged what it changes.
 */
export function fieldRoleProblems(
	fields: ReadonlyArray<{ role?: string | null }>,
	roles: ReadonlyArray<{ role: string }>,
): Array<{ field: string; message: string }> {
	const known = new Set(roles.map((role) => role.role.toLowerCase()));
	return fields.flatMap((field, index) =>
		field.role && !known.has(field.role.toLowerCase())
			? [
					{
						field: `fields[${index}].role`,
						message: `fields[${index}].role names "${field.role}", which is not one of the template's signer_roles`,
					},
				]
			: [],
	);
}

export const CreateTemplateBodySchema = z
	.object({
		name: z.string().trim().min(1).max(LIMITS.maxNameLength),
		description: z.string().max(LIMITS.maxDescriptionLength).nullish(),
		document_name: fileName.nullish(),
		message: message.nullish(),
		signer_roles: signerRoleList.optional(),
		fields: templateFieldList.optional(),
		metadata: metadata.optional(),
	})
	.passthrough();

/** PUT = partial update: every field optional; a nullable field sent as null is cleared. */
export const UpdateTemplateBodySchema = z
	.object({
		name: z.string().trim().min(1).max(LIMITS.maxNameLength).optional(),
		description: z.string().max(LIMITS.maxDescriptionLength).nullish(),
		document_name: fileName.nullish(),
		message: message.nullish(),
		signer_roles: signerRoleList.optional(),
		fields: templateFieldList.optional(),
		metadata: metadata.optional(),
	})
	.passthrough();

export const InviteUserBodySchema = z
	.object({
		email,
		name: z.string().trim().min(1).max(LIMITS.maxPersonNameLength).nullish(),
		role: z.enum(ASSIGNABLE_ROLES).optional(),
	})
	.passthrough();

export const ChangeRoleBodySchema = z.object({ role: z.enum(ASSIGNABLE_ROLES) }).passthrough();

export const CreateWebhookBodySchema = z
	.object({
		url: httpUrl,
		events: z
			.array(webhookEventOrAny)
			.min(1, { message: 'must list at least one event' })
			.superRefine((events, ctx) => {
				const seen = new Set<string>();
				events.forEach((event, index) => {
					if (seen.has(event))
						ctx.addIssue({ code: 'custom', path: [index], message: 'is listed twice' });
					seen.add(event);
				});
			}),
		secret: z
			.string()
			.min(LIMITS.minWebhookSecretLength, {
				message: `must be at least ${LIMITS.minWebhookSecretLength} characters`,
			})
			.max(LIMITS.maxWebhookSecretLength, {
				message: `must be at most ${LIMITS.maxWebhookSecretLength} characters`,
			})
			.optional(),
		description: z.string().max(LIMITS.maxDescriptionLength).nullish(),
		/** [A] Deliver only this document's events (document.* and signature.*). */
		document_id: z.string().min(1).max(100).optional(),
		/** [A] Remove the webhook at this instant (in the future); nothing is delivered after it. */
		expires_at: timestampInput.optional(),
	})
	.passthrough();

// ---------------------------------------------------------------------------------------------
// Queries (every value arrives as a string; unknown parameters are ignored)
// ---------------------------------------------------------------------------------------------

const limitParam = z
	.string()
	.refine(
		(value) => /^\d{1,6}$/.test(value) && Number(value) >= 1 && Number(value) <= MAX_PAGE_SIZE,
		{
			message: `must be an integer from 1 to ${MAX_PAGE_SIZE}`,
		},
	)
	.transform(Number);

export const PaginationQuerySchema = z
	.object({
		limit: limitParam.optional(),
		cursor: z.string().min(1).max(LIMITS.maxCursorLength).optional(),
	})
	.passthrough();

const queryText = z.string().max(LIMITS.maxQueryTextLength);

export const ListDocumentsQuerySchema = PaginationQuerySchema.extend({
	status: z.enum(DOCUMENT_STATUSES).optional(),
	q: queryText.optional(),
	created_after: timestampInput.optional(),
	created_before: timestampInput.optional(),
}).passthrough();

export const ListTemplatesQuerySchema = PaginationQuerySchema.extend({
	q: queryText.optional(),
}).passthrough();

export const ListUsersQuerySchema = PaginationQuerySchema.extend({
	role: z.enum(TEAM_MEMBER_ROLES).optional(),
	status: z.enum(TEAM_MEMBER_STATUSES).optional(),
	q: queryText.optional(),
}).passthrough();

export const ListWebhooksQuerySchema = PaginationQuerySchema;

const rangeQuery = {
	from: dateOrTimestampInput.optional(),
	to: dateOrTimestampInput.optional(),
};

export const UsageReportQuerySchema = z.object(rangeQuery).passthrough();

/** [A] GET /webhooks/{id}/deliveries: the webhook's delivery records made from `from` to `to`. */
export const ListWebhookDeliveriesQuerySchema =
	PaginationQuerySchema.extend(rangeQuery).passthrough();

export const AuditLogQuerySchema = PaginationQuerySchema.extend({
	...rangeQuery,
	document_id: z.string().min(1).max(100).optional(),
	event: z.enum(AUDIT_EVENTS).optional(),
}).passthrough();

export const ExportQuerySchema = z
	.object({
		...rangeQuery,
		format: z.enum(EXPORT_FORMATS).optional(),
	})
	.passthrough();

export const DocumentFileQuerySchema = z
	.object({
		version: z.enum(DOCUMENT_FILE_VERSIONS).optional(),
	})
	.passthrough();

export const AuditTrailQuerySchema = z
	.object({
		format: z.enum(AUDIT_TRAIL_FORMATS).optional(),
	})
	.passthrough();

// ---------------------------------------------------------------------------------------------
// Inferred types
// ---------------------------------------------------------------------------------------------

export type SignerRecord = z.infer<typeof SignerSchema>;
export type FileInfo = z.infer<typeof FileInfoSchema>;
export type DocumentRecord = z.infer<typeof DocumentSchema>;
export type SigningRequestSigner = z.infer<typeof SigningRequestSignerSchema>;
export type SigningRequestRecord = z.infer<typeof SigningRequestSchema>;
export type SignerRole = z.infer<typeof SignerRoleSchema>;
export type TemplateField = z.infer<typeof TemplateFieldSchema>;
export type DocumentField = z.infer<typeof DocumentFieldSchema>;
export type TemplateRecord = z.infer<typeof TemplateSchema>;
export type TeamMemberRecord = z.infer<typeof TeamMemberSchema>;
export type WebhookRecord = z.infer<typeof WebhookSchema>;
export type WebhookWithSecret = z.infer<typeof WebhookWithSecretSchema>;
export type AuditActor = z.infer<typeof AuditActorSchema>;
export type AuditLogEntry = z.infer<typeof AuditLogEntrySchema>;
export type UsageReport = z.infer<typeof UsageReportSchema>;
export type ExportRow = z.infer<typeof ExportRowSchema>;
export type DocumentFiles = z.infer<typeof DocumentFilesSchema>;
export type AuditTrail = z.infer<typeof AuditTrailSchema>;
export type ErrorBody = z.infer<typeof ErrorBodySchema>;
/** A webhook delivery's record, as `POST /webhooks/{id}/deliveries/{delivery_id}/acknowledge` answers it. */
export const WebhookDeliverySchema = z
	.object({
		id: idOf(ID_PREFIXES.delivery),
		webhook_id: idOf(ID_PREFIXES.webhook),
		event: z.enum(WEBHOOK_EVENTS),
		created_at: timestamp,
		status: z.enum(DELIVERY_STATUSES),
		attempts: z.number().int().min(0),
		received_at: nullableTimestamp,
		acknowledged_at: nullableTimestamp,
		/** [A] The body as delivered (GitHub's delivery log keeps it as `request.payload`). */
		payload: WebhookDeliveryBodySchema,
	})
	.strict();
/** [A] GET /webhooks/{id}/deliveries (issue 55): the catch-up learns what was delivered. */
export const WebhookDeliveryListSchema = listEnvelope(WebhookDeliverySchema);

export type WebhookDeliveryBody = z.infer<typeof WebhookDeliveryBodySchema>;
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;
export interface ListPage<T> {
	data: T[];
	has_more: boolean;
	next_cursor: string | null;
}

export type SignerInput = z.infer<typeof SignerInputSchema>;
export type FileInput = z.infer<typeof FileInputSchema>;
export type CreateDocumentBody = z.infer<typeof CreateDocumentBodySchema>;
export type CreateSigningRequestBody = z.infer<typeof CreateSigningRequestBodySchema>;
export type RemindBody = z.infer<typeof RemindBodySchema>;
export type SignerRoleInput = z.infer<typeof SignerRoleInputSchema>;
export type TemplateFieldInput = z.infer<typeof TemplateFieldInputSchema>;
export type CreateTemplateBody = z.infer<typeof CreateTemplateBodySchema>;
export type UpdateTemplateBody = z.infer<typeof UpdateTemplateBodySchema>;
export type InviteUserBody = z.infer<typeof InviteUserBodySchema>;
export type ChangeRoleBody = z.infer<typeof ChangeRoleBodySchema>;
export type CreateWebhookBody = z.infer<typeof CreateWebhookBodySchema>;
export type PaginationQuery = z.infer<typeof PaginationQuerySchema>;
export type ListDocumentsQuery = z.infer<typeof ListDocumentsQuerySchema>;
export type ListTemplatesQuery = z.infer<typeof ListTemplatesQuerySchema>;
export type ListUsersQuery = z.infer<typeof ListUsersQuerySchema>;
export type UsageReportQuery = z.infer<typeof UsageReportQuerySchema>;
export type AuditLogQuery = z.infer<typeof AuditLogQuerySchema>;
export type ExportQuery = z.infer<typeof ExportQuerySchema>;
export type DocumentFileQuery = z.infer<typeof DocumentFileQuerySchema>;
export type AuditTrailQuery = z.infer<typeof AuditTrailQuerySchema>;
