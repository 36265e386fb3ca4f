/**
 * The service's fixed values the nodes use (docs/api-contract.md). No dependencies; the zod
 * contract (contract/schemas.ts) builds its enums from these arrays, so the two cannot disagree.
 */

/** States a document never leaves; each has its own `document.<status>` event. */
export const FINAL_DOCUMENT_STATUSES = ['completed', 'declined', 'expired', 'cancelled'] as const;
export const DOCUMENT_STATUSES = ['draft', 'pending', ...FINAL_DOCUMENT_STATUSES] as const;
export const isFinal = (status: unknown) =>
	(FINAL_DOCUMENT_STATUSES as readonly unknown[]).includes(status);

export const SIGNER_AUTHENTICATION_METHODS = [
	'none',
	'email_otp',
	'sms_otp',
	'national_eid',
] as const;

export const TEAM_MEMBER_ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
/** The owner role is never assigned, only held. */
export const ASSIGNABLE_ROLES = ['admin', 'member', 'viewer'] as const;
export const TEAM_MEMBER_STATUSES = ['invited', 'active'] as const;

export const ANY_EVENT = '*';

/** The events webhooks deliver, with what each means. */
export const WEBHOOK_EVENT_DESCRIPTIONS = {
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
type WebhookEvent = keyof typeof WEBHOOK_EVENT_DESCRIPTIONS;
/** Typed as a non-empty tuple, as the contract's zod enums need. */
export const WEBHOOK_EVENTS = Object.keys(WEBHOOK_EVENT_DESCRIPTIONS) as unknown as readonly [
	WebhookEvent,
	...WebhookEvent[],
];

/** Every event the audit log records: the webhook events, then account changes no webhook gets. */
export const AUDIT_EVENTS = [
	...WEBHOOK_EVENTS,
	'template.created',
	'template.updated',
	'user.invited',
	'user.role_changed',
	'webhook.created',
	'webhook.deleted',
] as const;

/** The chosen events as the service stores them: sorted, unique, or just `*` when Any Event is among them. */
export function selectedEvents(raw: unknown): string[] {
	const list = (Array.isArray(raw) ? raw : [raw])
		.map((event) => String(event).trim())
		.filter(Boolean);
	return list.includes(ANY_EVENT) ? [ANY_EVENT] : [...new Set(list)].sort();
}

/** "document.completed" → "Document Completed", for dropdowns. */
export function eventLabel(event: string): string {
	return event
		.split(/[._]/)
		.map((word) => word[0].toUpperCase() + word.slice(1))
		.join(' ');
}

export const EXPORT_FORMATS = ['csv', 'json'] as const;

export const MAX_PAGE_SIZE = 100;

/**
 * Bounds of one walk through a list's pages (docs/security.md, "List bounds"); reaching one is an
 * error that names it, never a short list.
 */
export const LIST_WALK_BUDGET = {
	name: 'list walk',
	pages: 10_000,
	records: 100_000,
	bytes: 100 * 1024 * 1024,
	ms: 10 * 60 * 1000,
} as const;
/** The package's own sweeps of `/webhooks`, which no user Limit bounds. */
export const WEBHOOK_SWEEP_BUDGET = {
	name: 'webhook sweep',
	pages: 50,
	records: 5_000,
	bytes: 8 * 1024 * 1024,
	ms: 60 * 1000,
} as const;
/** One poll of the audit log; a longer backlog is read over the next polls. */
export const EVENT_POLL_BUDGET = {
	name: 'event poll',
	pages: 20,
	records: 2_000,
	bytes: 16 * 1024 * 1024,
	ms: 60 * 1000,
} as const;

export const DELIVERY_ATTEMPT_HEADER = 'x-delivery-attempt';
/** Answers of a service without the acknowledge (or delivery record) endpoint. */
export const NOT_CLAIMABLE = [404, 405, 501];
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** Delivery signature layouts, strongest first (docs/delivery-signatures.md). */
export const SIGNATURE_LAYOUTS = [
	'standard-webhooks',
	'timestamped-header',
	'body-hmac-timestamp',
	'body-hmac',
] as const;
export type SignatureLayout = (typeof SIGNATURE_LAYOUTS)[number];
export const STANDARD_WEBHOOKS_HEADERS = {
	id: 'webhook-id',
	timestamp: 'webhook-timestamp',
	signature: 'webhook-signature',
} as const;
/** Headers that carry an HMAC, first found wins; the contract's `x-signature` first. */
export const BODY_SIGNATURE_HEADERS = [
	'x-signature',
	'x-hub-signature-256',
	'x-webhook-signature',
	'x-signature-256',
	'signature',
] as const;
export const SIGNATURE_TIMESTAMP_HEADERS = [
	'x-timestamp',
	'x-webhook-timestamp',
	'x-signature-timestamp',
] as const;

/** The contract's limits the node checks input against; contract/schemas.ts adds the rest. */
export const LIMITS = {
	maxSigningOrder: 1000,
	/** Decoded size of an uploaded file. */
	maxFileBytes: 10 * 1024 * 1024,
	maxFieldTextLength: 1000,
	maxMetadataKeys: 50,
	minWebhookSecretLength: 32,
} as const;

/** File types the service accepts for upload, with the file name extensions each may carry. */
export const ACCEPTED_FILE_TYPES = {
	'application/pdf': ['pdf'],
	'application/vnd.openxmlformats-officedocument.wordprocessingml.document': ['docx'],
	'image/png': ['png'],
	'image/jpeg': ['jpg', 'jpeg'],
} as const satisfies Record<string, readonly string[]>;

export const TEMPLATE_FIELD_TYPES = ['text', 'number', 'date', 'checkbox', 'choice'] as const;
export type TemplateFieldType = (typeof TEMPLATE_FIELD_TYPES)[number];
export const TEMPLATE_FIELD_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** E.164, e.g. +3725550123. */
export const PHONE_PATTERN = /^\+[1-9]\d{6,14}$/;
