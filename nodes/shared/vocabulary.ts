/**
 * The service's fixed vocabulary: states, roles, events and limits.
 *
 * Plain constants with no dependencies, so the published nodes can use them; the zod contract
 * (contract/schemas.ts) builds its enums from these same arrays, so node, sandbox and tests can
 * never disagree on a value. Every value is documented in docs/api-contract.md.
 */

export const DOCUMENT_STATUSES = [
	'draft',
	'pending',
	'completed',
	'declined',
	'expired',
	'cancelled',
] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

/** States a document never leaves (short of being deleted); each has its own `document.<status>` event. */
export const FINAL_DOCUMENT_STATUSES = [
	'completed',
	'declined',
	'expired',
	'cancelled',
] as const satisfies readonly DocumentStatus[];
export type FinalDocumentStatus = (typeof FINAL_DOCUMENT_STATUSES)[number];
export const finalEventOf = (status: FinalDocumentStatus): WebhookEvent => `document.${status}`;

export const SIGNER_STATUSES = ['pending', 'viewed', 'signed', 'declined'] as const;

export const SIGNING_REQUEST_STATUSES = [
	'pending',
	'completed',
	'declined',
	'expired',
	'cancelled',
] as const;
export type SigningRequestStatus = (typeof SIGNING_REQUEST_STATUSES)[number];

/** How a signer proves who they are before signing. `national_eid` is the national e-ID scheme. */
export const SIGNER_AUTHENTICATION_METHODS = [
	'none',
	'email_otp',
	'sms_otp',
	'national_eid',
] as const;

export const TEAM_MEMBER_ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type TeamMemberRole = (typeof TEAM_MEMBER_ROLES)[number];

/** Roles that can be given through the API (the owner role is never assigned, only held). */
export const ASSIGNABLE_ROLES = ['admin', 'member', 'viewer'] as const;

export const TEAM_MEMBER_STATUSES = ['invited', 'active'] as const;

/** Every event a webhook can subscribe to. `*` subscribes to all of them. */
export const WEBHOOK_EVENTS = [
	'document.created',
	'document.sent',
	'document.viewed',
	'document.signed',
	'document.completed',
	'document.declined',
	'document.expired',
	'document.cancelled',
	'document.deleted',
	'signature.requested',
	'signature.reminded',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
export const ANY_EVENT = '*';

/** What each webhook event means, for dropdowns; one entry per event, checked by the type. */
export const WEBHOOK_EVENT_DESCRIPTIONS: Record<WebhookEvent, string> = {
	'document.created': 'A document was created',
	'document.sent': 'A document was sent to its signers',
	'document.viewed': 'A signer opened a document',
	'document.signed': 'A signer signed a document',
	'document.completed': 'Every signer signed a document',
	'document.declined': 'A signer declined to sign a document',
	'document.expired': 'A document expired before everyone signed',
	'document.cancelled': 'A pending document was cancelled',
	'document.deleted': 'A document was deleted',
	'signature.requested': 'A signing request was sent',
	'signature.reminded': 'Signers were reminded of a signing request',
};

/** Changes to the account that the audit log records but webhooks never receive. */
export const ACCOUNT_AUDIT_EVENTS = [
	'template.created',
	'template.updated',
	'user.invited',
	'user.role_changed',
	'webhook.created',
	'webhook.deleted',
] as const;

/** Every event the audit log records (and its `event` filter accepts). */
export const AUDIT_EVENTS = [...WEBHOOK_EVENTS, ...ACCOUNT_AUDIT_EVENTS] as const;
export type AuditEvent = (typeof AUDIT_EVENTS)[number];

/** `version` of GET /documents/{id}/file. */
export const DOCUMENT_FILE_VERSIONS = ['original', 'signed'] as const;
export type DocumentFileVersion = (typeof DOCUMENT_FILE_VERSIONS)[number];

/** "document.completed" → "Document Completed", for dropdowns. */
export function eventLabel(event: string): string {
	return event
		.split(/[._]/)
		.map((word) => word[0].toUpperCase() + word.slice(1))
		.join(' ');
}

export const EXPORT_FORMATS = ['csv', 'json'] as const;

/** Largest `limit` a list endpoint accepts; the default page size is DEFAULT_PAGE_SIZE. */
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

/**
 * Bounds of one walk through a list's pages (docs/security.md, "List bounds"): pages requested,
 * records kept, bytes of answers read and time taken. Reaching one is an error that names it,
 * never a short list. Return All, and a Limit above these, stop there.
 */
export const LIST_WALK_BUDGET = {
	name: 'list walk',
	pages: 10_000,
	records: 100_000,
	bytes: 100 * 1024 * 1024,
	ms: 10 * 60 * 1000,
} as const;
/**
 * The smaller bounds of the package's own sweeps of `/webhooks` (the trigger's activation and
 * deactivation, Send and Wait's clean-up), which no user Limit bounds.
 */
export const WEBHOOK_SWEEP_BUDGET = {
	name: 'webhook sweep',
	pages: 50,
	records: 5_000,
	bytes: 8 * 1024 * 1024,
	ms: 60 * 1000,
} as const;

/**
 * The bounds of one poll of the audit log (the trigger's Polling mode). A longer backlog is read
 * over the next polls, oldest first (DocumentSigningTrigger/polling.ts).
 */
export const EVENT_POLL_BUDGET = {
	name: 'event poll',
	pages: 20,
	records: 2_000,
	bytes: 16 * 1024 * 1024,
	ms: 60 * 1000,
} as const;

export const SIGNATURE_SCHEME = 'v1';
export const DELIVERY_ID_HEADER = 'x-delivery-id';
export const EVENT_HEADER = 'x-event';
/** 1-based number of the attempt: a receiver checks whether a retry was processed already. */
export const DELIVERY_ATTEMPT_HEADER = 'x-delivery-attempt';
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** Deliveries whose signed timestamp is further than this from now are refused. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * The delivery signature layouts the trigger verifies (docs/delivery-signatures.md), all
 * HMAC-SHA256 keyed by the webhook's secret, strongest first:
 * - `standard-webhooks`: `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>` over
 *   `<id>.<timestamp>.<body>` (the Standard Webhooks specification);
 * - `timestamped-header`: `X-Signature: t=<seconds>,v1=<hex>` over `<t>.<body>` (the contract's);
 * - `body-hmac-timestamp`: a signature header with a hex or base64 HMAC of `<timestamp>.<body>`,
 *   the timestamp in its own header;
 * - `body-hmac`: a signature header with a hex or base64 HMAC of the body alone (no replay window).
 */
export const SIGNATURE_LAYOUTS = [
	'standard-webhooks',
	'timestamped-header',
	'body-hmac-timestamp',
	'body-hmac',
] as const;
export type SignatureLayout = (typeof SIGNATURE_LAYOUTS)[number];
/** Headers of the Standard Webhooks specification. */
export const STANDARD_WEBHOOKS_HEADERS = {
	id: 'webhook-id',
	timestamp: 'webhook-timestamp',
	signature: 'webhook-signature',
} as const;
/**
 * Headers that carry an HMAC (plain, `sha256=`-prefixed, or `t=…,v1=…`), first found wins; the
 * contract's is the first: `X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`.
 */
export const BODY_SIGNATURE_HEADERS = [
	'x-signature',
	'x-hub-signature-256',
	'x-webhook-signature',
	'x-signature-256',
	'signature',
] as const;
/** Headers that carry the signed time of a `body-hmac-timestamp` delivery, first found wins. */
export const SIGNATURE_TIMESTAMP_HEADERS = [
	'x-timestamp',
	'x-webhook-timestamp',
	'x-signature-timestamp',
] as const;

/** The contract's numeric limits (docs/api-contract.md); the node checks input against the same values. */
export const LIMITS = {
	/** Highest signing order a signer may have. */
	maxSigningOrder: 1000,
	/** Request bodies above this are refused with 413 before being read further. */
	maxBodyBytes: 15 * 1024 * 1024,
	/** Decoded size of an uploaded file. */
	maxFileBytes: 10 * 1024 * 1024,
	maxSigners: 50,
	maxSignerRoles: 50,
	/** A template role's name. */
	maxRoleNameLength: 100,
	/** [A] Fields of one template. */
	maxTemplateFields: 100,
	maxFieldLabelLength: 200,
	/** [A] The text a text field holds. */
	maxFieldTextLength: 1000,
	/** [A] Choices of a choice field. */
	maxFieldOptions: 100,
	maxMetadataKeys: 50,
	maxMetadataKeyLength: 40,
	maxMetadataValueLength: 500,
	maxNameLength: 255,
	maxPersonNameLength: 200,
	maxMessageLength: 5000,
	maxDescriptionLength: 2000,
	maxDeclineReasonLength: 2000,
	maxUrlLength: 2048,
	maxQueryTextLength: 255,
	maxCursorLength: 512,
	minWebhookSecretLength: 32,
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

/** File types the service accepts for upload, with the file name extensions each may carry. */
export const ACCEPTED_FILE_TYPES = {
	'application/pdf': ['pdf'],
	'application/vnd.openxmlformats-officedocument.wordprocessingml.document': ['docx'],
	'image/png': ['png'],
	'image/jpeg': ['jpg', 'jpeg'],
} as const satisfies Record<string, readonly string[]>;
export const FILE_CONTENT_TYPES = Object.keys(ACCEPTED_FILE_TYPES) as [
	keyof typeof ACCEPTED_FILE_TYPES,
	...Array<keyof typeof ACCEPTED_FILE_TYPES>,
];

/** [A] What a template field holds (docs/api-contract.md, "Template fields"). */
export const TEMPLATE_FIELD_TYPES = ['text', 'number', 'date', 'checkbox', 'choice'] as const;
export type TemplateFieldType = (typeof TEMPLATE_FIELD_TYPES)[number];
/** [A] A template field's key: a letter, then letters, digits and `_`; 64 at most. */
export const TEMPLATE_FIELD_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** A phone number in E.164 form, e.g. +3725550123. */
export const PHONE_PATTERN = /^\+[1-9]\d{6,14}$/;
