/**
 * Dialects: switches among plausible answers to what the real service's documentation leaves
 * open ("not shown"), so the node's suites can run against each (docs/api-contract.md,
 * "Dialects"). The default dialect is the contract exactly as written.
 *
 * A dialect is an object of independent axes. Presets name common variants; a spec string is one
 * preset or several joined by `+`, applied left to right over the default
 * (`numeric-ids+items-links`). A spec may also be a JSON object of axes (`{"maxPageSize":10}`).
 */
import { STATUS_CODES } from 'http';
import { z } from 'zod';

import type { AuditLogEntry } from '../contract';
import { MAX_PAGE_SIZE } from '../nodes/shared/vocabulary';
import { DELIVERY_SIGNATURE_STYLES, type DeliverySignatureStyle } from './deliverySignature';
import type { ApiError, Reply } from './http';
import { errorBody } from './http';

export const LIST_ENVELOPES = [
	'cursor',
	'link-header',
	'results-next',
	'next-url',
	'items-links',
	'meta-cursor',
	'page-numbers',
	'offset-total',
	'start-size',
	'named-token',
	'nested-continuation',
	'token-elsewhere',
	'nested-paging',
	'header-cursor',
] as const;
export type ListEnvelope = (typeof LIST_ENVELOPES)[number];
export type ErrorBodyStyle = 'contract' | 'message' | 'errors' | 'text' | 'html';
export const AUDIT_ORDERS = ['newest-first', 'oldest-first'] as const;
/** The order a list is served (and paged) in: by creation, newest or oldest first. */
export type ListOrder = (typeof AUDIT_ORDERS)[number];
export const AUDIT_FIELDS = ['contract', 'renamed', 'bare'] as const;
export type AuditFields = (typeof AUDIT_FIELDS)[number];
export const AUDIT_TIMES = ['iso', 'zoneless'] as const;
export type AuditTimes = (typeof AUDIT_TIMES)[number];

export interface Dialect {
	/** 'prefixed': `doc_…` strings; 'numeric': every resource id is a JSON number (paths take the decimal form). */
	ids: 'prefixed' | 'numeric';
	/** The shape of every list answer. */
	listEnvelope: ListEnvelope;
	/** 'ignored': cursor/page/next-URL offsets are ignored; every answer is the first page (still saying there is more). */
	paging: 'honoured' | 'ignored';
	/** A `limit` above this is served as this many records (no 400). */
	maxPageSize: number;
	/** 'server': the client's `secret` is ignored; the service issues its own `whsec_…`. */
	webhookSecret: 'client' | 'server' | 'account';
	/** false: listing, GET and acknowledging a webhook's deliveries do not exist (404 like any unknown route). */
	deliveryEndpoints: boolean;
	/**
	 * 'dispatched': a delivery's `created_at` is when it was queued plus DISPATCH_DELAY_MS, not the
	 * event's time (its id is its own either way): the audit log and the deliveries disagree.
	 */
	deliveryTimes: 'event' | 'dispatched';
	/** How deliveries are signed (sandbox/deliverySignature.ts); 'none': not at all. */
	deliverySignature: DeliverySignatureStyle;
	/** The body of every /v1 error answer. */
	errorBody: ErrorBodyStyle;
	/** 200: DELETE answers `{ id, deleted: true }` instead of 204. */
	deleteAnswer: 204 | 200;
	/** 'ignored': POST /webhooks ignores `document_id` and `expires_at` (no echo, every event delivered, never removed). */
	webhookFilters: 'honoured' | 'ignored';
	/** 'url-events': POST /webhooks keeps only `url`, `events` (and the secret it signs with); every other field is dropped unseen. */
	webhookFields: 'all' | 'url-events';
	/** 'unlisted': template records carry no `fields` (documents still take and check their values). */
	templateFields: 'listed' | 'unlisted';
	/** 'oldest-first': GET /reports/audit-log lists (and pages) its entries oldest first. */
	auditOrder: ListOrder;
	/**
	 * 'renamed': audit-log entries as `{ id, type, occurred_at, documentId, actor, ip, details }`;
	 * 'bare': as `{ id, action, at, target }` and nothing else.
	 */
	auditFields: AuditFields;
	/** 'zoneless': audit-log times are UTC written without a zone; a zone-less `from`/`to` is read as UTC. */
	auditTimes: AuditTimes;
	/** 'ignored': GET /reports/audit-log ignores `from` and `to` (not even validated). */
	auditFrom: 'honoured' | 'ignored';
	/** 'forbidden': another account's document named by id answers 403 instead of the contract's 404. */
	foreignDocuments: 'not-found' | 'forbidden';
}

export const DEFAULT_DIALECT: Readonly<Dialect> = Object.freeze({
	ids: 'prefixed',
	listEnvelope: 'cursor',
	paging: 'honoured',
	maxPageSize: MAX_PAGE_SIZE,
	webhookSecret: 'client',
	deliveryEndpoints: true,
	deliveryTimes: 'event',
	deliverySignature: 'v1',
	errorBody: 'contract',
	deleteAnswer: 204,
	webhookFilters: 'honoured',
	webhookFields: 'all',
	templateFields: 'listed',
	auditOrder: 'newest-first',
	auditFields: 'contract',
	auditTimes: 'iso',
	auditFrom: 'honoured',
	foreignDocuments: 'not-found',
});

export const DIALECT_PRESETS: Record<string, Partial<Dialect>> = {
	default: {},
	'numeric-ids': { ids: 'numeric' },
	'link-header': { listEnvelope: 'link-header' },
	'results-next': { listEnvelope: 'results-next' },
	'next-url': { listEnvelope: 'next-url' },
	'items-links': { listEnvelope: 'items-links' },
	'meta-cursor': { listEnvelope: 'meta-cursor' },
	'page-numbers': { listEnvelope: 'page-numbers' },
	// Issue 24's first failure: offset paging with a stated total and a page-size cap below 100.
	'offset-total': { listEnvelope: 'offset-total', maxPageSize: 50 },
	'start-size': { listEnvelope: 'start-size', maxPageSize: 40 },
	// Issue 24's second failure: records under a resource-named key, the token read as page_token.
	'named-token': { listEnvelope: 'named-token' },
	'nested-continuation': { listEnvelope: 'nested-continuation', maxPageSize: 30 },
	'token-elsewhere': { listEnvelope: 'token-elsewhere' },
	// Issue 31: records one level down, total and token two levels down in a paging object beside them.
	'nested-paging': { listEnvelope: 'nested-paging', maxPageSize: 40 },
	// Issue 31: the next token and the total in response headers only.
	'header-cursor': { listEnvelope: 'header-cursor' },
	'ignores-paging': { paging: 'ignored' },
	'page-cap': { maxPageSize: 25 },
	'server-secret': { webhookSecret: 'server' },
	// One secret for every webhook of an account, as services that sign with an account key do.
	'account-secret': { webhookSecret: 'account' },
	'no-delivery-endpoints': { deliveryEndpoints: false },
	// Issue 55: deliveries with their own times (and ids), not the audit log's.
	'delivery-own-times': { deliveryTimes: 'dispatched' },
	unsigned: { deliverySignature: 'none' },
	'sig-standard-webhooks': { deliverySignature: 'standard-webhooks' },
	'sig-hub-sha256': { deliverySignature: 'hub-sha256' },
	'sig-base64': { deliverySignature: 'signature-base64' },
	'sig-timestamp-header': { deliverySignature: 'timestamp-header' },
	'sig-unsigned-timestamp': { deliverySignature: 'unsigned-timestamp' },
	'error-message': { errorBody: 'message' },
	'error-errors': { errorBody: 'errors' },
	'error-text': { errorBody: 'text' },
	'error-html': { errorBody: 'html' },
	'delete-200': { deleteAnswer: 200 },
	'ignores-webhook-filters': { webhookFilters: 'ignored' },
	// A service that keeps a webhook's url and events only: no description, no filters, no expiry.
	'webhook-url-events': { webhookFilters: 'ignored', webhookFields: 'url-events' },
	'unlisted-template-fields': { templateFields: 'unlisted' },
	// An audit log read like a feed: oldest entry first, the next page newer.
	'audit-oldest-first': { auditOrder: 'oldest-first' },
	// Audit entries under other common names: type, occurred_at, documentId.
	'audit-renamed': { auditFields: 'renamed' },
	// Issue 47: audit entries as `{ id, action, at, target }`, nothing else.
	'audit-bare': { auditFields: 'bare' },
	// Issue 47: audit times in UTC without a zone (`2026-11-28T10:00:00.123`), read by n8n in any TZ.
	'audit-zoneless': { auditTimes: 'zoneless' },
	// Issue 47: an audit log that ignores `from` (and `to`): every read starts at the newest (or oldest) entry.
	'audit-ignores-from': { auditFrom: 'ignored' },
	// Issue 47: another account's document is a 403, not a 404 (an audit entry may name one).
	'foreign-documents-forbidden': { foreignDocuments: 'forbidden' },
	minimal: {
		deliveryEndpoints: false,
		deliverySignature: 'none',
		errorBody: 'message',
		deleteAnswer: 200,
		webhookFilters: 'ignored',
	},
};

export const DIALECT_NAMES: readonly string[] = Object.freeze(Object.keys(DIALECT_PRESETS));

/** Each dialect that signs its deliveries in its own layout, with that layout: `default` first. */
export const SIGNING_DIALECTS: ReadonlyArray<[string, DeliverySignatureStyle]> = Object.freeze([
	['default', DEFAULT_DIALECT.deliverySignature],
	...Object.entries(DIALECT_PRESETS).flatMap(
		([name, preset]): Array<[string, DeliverySignatureStyle]> =>
			preset.deliverySignature && preset.deliverySignature !== 'none'
				? [[name, preset.deliverySignature]]
				: [],
	),
]);

export const DialectSchema = z
	.object({
		ids: z.enum(['prefixed', 'numeric']),
		listEnvelope: z.enum(LIST_ENVELOPES),
		paging: z.enum(['honoured', 'ignored']),
		maxPageSize: z.number().int().min(1).max(MAX_PAGE_SIZE),
		webhookSecret: z.enum(['client', 'server', 'account']),
		deliveryEndpoints: z.boolean(),
		deliveryTimes: z.enum(['event', 'dispatched']),
		deliverySignature: z.enum(DELIVERY_SIGNATURE_STYLES),
		errorBody: z.enum(['contract', 'message', 'errors', 'text', 'html']),
		deleteAnswer: z.union([z.literal(204), z.literal(200)]),
		webhookFilters: z.enum(['honoured', 'ignored']),
		webhookFields: z.enum(['all', 'url-events']),
		templateFields: z.enum(['listed', 'unlisted']),
		auditOrder: z.enum(AUDIT_ORDERS),
		auditFields: z.enum(AUDIT_FIELDS),
		auditTimes: z.enum(AUDIT_TIMES),
		auditFrom: z.enum(['honoured', 'ignored']),
		foreignDocuments: z.enum(['not-found', 'forbidden']),
	})
	.strict();

export const PartialDialectSchema = DialectSchema.partial();

/** What configure() / PUT /__sandbox/config accept for `dialect`. */
export const DialectSpecSchema = z.union([z.string().max(1000), PartialDialectSchema]);

export type DialectSpec = string | Partial<Dialect>;

/**
 * Resolves a spec to a complete dialect. Unknown preset names and invalid axes throw an Error
 * whose message lists what is valid.
 */
export function parseDialect(spec: DialectSpec | undefined): Dialect {
	if (spec === undefined) return { ...DEFAULT_DIALECT };
	if (typeof spec !== 'string') return overDefault(spec);
	const text = spec.trim();
	if (text === '') return { ...DEFAULT_DIALECT };
	if (text.startsWith('{')) {
		let parsed: unknown;
		try {
			parsed = JSON.parse(text);
		} catch {
			throw new Error(`Dialect spec "${text}" is not valid JSON`);
		}
		return overDefault(parsed as Partial<Dialect>);
	}
	let dialect: Dialect = { ...DEFAULT_DIALECT };
	for (const raw of text.split('+')) {
		const name = raw.trim();
		const preset = Object.prototype.hasOwnProperty.call(DIALECT_PRESETS, name)
			? DIALECT_PRESETS[name]
			: undefined;
		if (!preset)
			throw new Error(
				`Unknown dialect "${name}"; valid dialects: ${DIALECT_NAMES.join(', ')} (combine with +)`,
			);
		dialect = { ...dialect, ...preset };
	}
	return dialect;
}

function overDefault(partial: Partial<Dialect>): Dialect {
	const result = PartialDialectSchema.safeParse(partial);
	if (!result.success) {
		const issues = result.error.issues
			.map((issue) => `${issue.path.join('.') || 'dialect'}: ${issue.message}`)
			.join('; ');
		throw new Error(`Invalid dialect: ${issues}; axes: ${Object.keys(DEFAULT_DIALECT).join(', ')}`);
	}
	return { ...DEFAULT_DIALECT, ...(result.data as Partial<Dialect>) };
}

/** The spec string shown in config: the preset names as given, or the JSON of the differing axes. */
export function dialectSpecString(spec: DialectSpec | undefined, dialect: Dialect): string {
	if (typeof spec === 'string' && spec.trim() !== '' && !spec.trim().startsWith('{')) {
		return spec
			.split('+')
			.map((name) => name.trim())
			.join('+');
	}
	const differing: Partial<Record<keyof Dialect, unknown>> = {};
	for (const axis of Object.keys(DEFAULT_DIALECT) as Array<keyof Dialect>) {
		if (dialect[axis] !== DEFAULT_DIALECT[axis]) differing[axis] = dialect[axis];
	}
	return Object.keys(differing).length === 0 ? 'default' : JSON.stringify(differing);
}

// --- error bodies ------------------------------------------------------------------------------

function escapeHtml(value: string): string {
	return value
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;');
}

/** An API error as the dialect writes it. Status and headers (Retry-After, Allow, …) never change. */
export function dialectErrorReply(
	error: ApiError,
	requestId: string,
	dialect: Pick<Dialect, 'errorBody'>,
): Reply {
	const headers = error.headers;
	switch (dialect.errorBody) {
		case 'message':
			return { status: error.status, headers, body: { message: error.message, code: error.code } };
		case 'errors':
			return {
				status: error.status,
				headers,
				body: {
					errors: [{ code: error.code, message: error.message, field: error.field ?? null }],
				},
			};
		case 'text':
			return {
				status: error.status,
				headers,
				raw: { contentType: 'text/plain; charset=utf-8', data: `${error.message}\n` },
			};
		case 'html': {
			const title = `${error.status} ${STATUS_CODES[error.status] ?? 'Error'}`;
			const html = `<!DOCTYPE html>
<html>
<head><title>${escapeHtml(title)}</title></head>
<body>
<center><h1>${escapeHtml(title)}</h1></center>
<p>${escapeHtml(error.message)}</p>
<hr><center>nginx</center>
</body>
</html>
`;
			return { status: error.status, headers, raw: { contentType: 'text/html', data: html } };
		}
		default:
			return { status: error.status, headers, body: errorBody(error, requestId) };
	}
}

// --- numeric identifiers -------------------------------------------------------------------------

const DECIMAL = /^[1-9]\d{0,14}$/;

function isIdKey(key: string): 'one' | 'many' | false {
	if (key === 'id' || key.endsWith('_id')) return key === 'request_id' ? false : 'one';
	if (key.endsWith('_ids')) return 'many';
	return false;
}

/** The client's own keys and values, never ids whatever their names: metadata, template field values. */
const CLIENT_VALUES = new Set(['metadata', 'fields']);

const toNumber = (value: unknown): unknown =>
	typeof value === 'string' && DECIMAL.test(value) ? Number(value) : value;

/**
 * Copies `value` with every decimal-string identifier (fields `id`, `…_id`, `…_ids`) turned into a
 * JSON number. `metadata` and `fields` (the client's own keys and values) are left alone; so are non-decimal ids
 * (request ids, ids created before the dialect was switched).
 */
export function numericIds(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(numericIds);
	if (value === null || typeof value !== 'object') return value;
	const out: Record<string, unknown> = {};
	for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
		const kind = isIdKey(key);
		if (CLIENT_VALUES.has(key)) out[key] = field;
		else if (kind === 'one') out[key] = toNumber(field);
		else if (kind === 'many' && Array.isArray(field)) out[key] = field.map(toNumber);
		else out[key] = numericIds(field);
	}
	return out;
}

/**
 * The inverse, for request bodies: a client in the numeric dialect sends the numbers it received
 * (`document_id: 1004`, `signer_ids: [1007]`); the sandbox keeps ids as decimal strings.
 */
export function stringIds(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(stringIds);
	if (value === null || typeof value !== 'object') return value;
	const out: Record<string, unknown> = {};
	for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
		const kind = isIdKey(key);
		const text = (item: unknown) =>
			typeof item === 'number' && Number.isSafeInteger(item) && item > 0 ? String(item) : item;
		if (CLIENT_VALUES.has(key)) out[key] = field;
		else if (kind === 'one') out[key] = text(field);
		else if (kind === 'many' && Array.isArray(field)) out[key] = field.map(text);
		else out[key] = stringIds(field);
	}
	return out;
}

// --- audit-log entries ---------------------------------------------------------------------------

/** An audit-log entry under the `auditFields: 'renamed'` names. */
export interface RenamedAuditEntry {
	id: string;
	type: AuditLogEntry['event'];
	occurred_at: string;
	documentId: string | number | null;
	actor: AuditLogEntry['actor'];
	ip: string | null;
	details: Record<string, unknown>;
}

/** An audit-log entry under the `auditFields: 'bare'` names: nothing but these four. */
export interface BareAuditEntry {
	id: string;
	action: AuditLogEntry['event'];
	at: string;
	target: string | number | null;
}

/** A UTC timestamp as the sandbox writes it (`…Z`), its zone-less part captured. */
const UTC_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?)Z$/;

/**
 * An audit entry's time as the dialect writes it: as stored, or (`auditTimes: 'zoneless'`) a UTC
 * time without its `Z`. Text that is no UTC timestamp (a raw entry's) stays as it is.
 */
export function auditTimeIn(dialect: Pick<Dialect, 'auditTimes'>, time: string): string {
	if (dialect.auditTimes !== 'zoneless') return time;
	return UTC_TIME.exec(time)?.[1] ?? time;
}

/**
 * An audit-log entry as the dialect lists it: the contract's record, or (`auditFields: 'renamed'`)
 * `event`, `created_at`, `document_id` as `type`, `occurred_at`, `documentId`, or (`'bare'`) only
 * `id`, `action`, `at`, `target`; its time as `auditTimes` writes it. `documentId` and `target`
 * are no `…_id` keys, so with numeric ids they are made numbers here (dialectReply does the rest).
 */
export function auditEntryIn(
	dialect: Pick<Dialect, 'auditFields' | 'auditTimes' | 'ids'>,
	entry: AuditLogEntry,
): AuditLogEntry | RenamedAuditEntry | BareAuditEntry {
	const time = auditTimeIn(dialect, entry.created_at);
	const documentId = (
		dialect.ids === 'numeric' ? toNumber(entry.document_id) : entry.document_id
	) as string | number | null;
	switch (dialect.auditFields) {
		case 'renamed':
			return {
				id: entry.id,
				type: entry.event,
				occurred_at: time,
				documentId,
				actor: entry.actor,
				ip: entry.ip,
				details: entry.details,
			};
		case 'bare':
			return { id: entry.id, action: entry.event, at: time, target: documentId };
		default:
			return time === entry.created_at ? entry : { ...entry, created_at: time };
	}
}

/** Applies the output-side axes (ids) to a successful reply's JSON. */
export function dialectReply(reply: Reply, dialect: Dialect): Reply {
	if (dialect.ids !== 'numeric') return reply;
	if (reply.body !== undefined) return { ...reply, body: numericIds(reply.body) };
	if (
		reply.raw &&
		reply.raw.contentType.startsWith('application/json') &&
		typeof reply.raw.data === 'string'
	) {
		return {
			...reply,
			raw: { ...reply.raw, data: JSON.stringify(numericIds(JSON.parse(reply.raw.data))) },
		};
	}
	return reply;
}
