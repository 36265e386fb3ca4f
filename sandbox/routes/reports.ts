/**
 * /v1/reports: usage counts, the audit log (paged like every list, newest first by time; its order,
 * field names, times and range follow the `auditOrder`, `auditFields`, `auditTimes` and
 * `auditFrom` dialect axes) and a document export file.
 */
import {
	AuditLogQuerySchema,
	EXPORT_COLUMNS,
	ExportQuerySchema,
	LIMITS,
	UsageReportQuerySchema,
	type AuditLogEntry,
	type DocumentRecord,
	type ExportRow,
	type UsageReport,
} from '../../contract';
import { instantOf, ZONELESS_TIME } from '../clock';
import { ok, type ApiContext, type ApiHandler } from '../context';
import { auditEntryIn } from '../dialects';
import { ApiError } from '../http';
import { listReply } from '../pagination';
import type { Router } from '../router';
import { auditInstant } from '../store';
import { validateQuery } from '../validation';

const DAY_MS = 24 * 60 * 60 * 1000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

interface Range {
	fromMs: number;
	toMs: number;
}

/** A bound of a range: a bare date is its day's first millisecond, or (`end`) its last. */
function boundMs(value: string, end: boolean): number {
	if (!DATE_ONLY.test(value)) return Date.parse(value);
	const start = Date.parse(`${value}T00:00:00.000Z`);
	return end ? start + DAY_MS - 1 : start;
}

/**
 * `from`/`to` are inclusive. A bare date means the whole day: `from` its first millisecond,
 * `to` its last. Defaults: the last 30 days up to now (business clock).
 */
export function reportRange(ctx: ApiContext, query: { from?: string; to?: string }): Range {
	const toMs = query.to ? boundMs(query.to, true) : ctx.services.clock.now();
	const fromMs = query.from ? boundMs(query.from, false) : toMs - LIMITS.defaultReportDays * DAY_MS;
	if (fromMs > toMs)
		throw new ApiError(400, 'validation_error', 'from must not be after to', 'from');
	return { fromMs, toMs };
}

/**
 * The audit log's range: as a report's, but a missing end is open (no default), so `from` alone
 * also lists entries dated after now.
 */
function auditRange(query: { from?: string; to?: string }): Range | undefined {
	if (!query.from && !query.to) return undefined;
	const fromMs = query.from ? boundMs(query.from, false) : -Infinity;
	const toMs = query.to ? boundMs(query.to, true) : Infinity;
	if (fromMs > toMs)
		throw new ApiError(400, 'validation_error', 'from must not be after to', 'from');
	return { fromMs, toMs };
}

/** Whether a time is in the range; a zone-less time is read as UTC, text that is no time never is. */
const inRange = (iso: string, range: Range) => {
	const ms = instantOf(iso);
	return ms >= range.fromMs && ms <= range.toMs;
};

/**
 * The audit log's query as the dialect reads it: `from`/`to` dropped unseen (`auditFrom:
 * 'ignored'`), or a zone-less one taken as UTC (`auditTimes: 'zoneless'`).
 */
function auditQuery(ctx: ApiContext): Record<string, string | string[]> {
	const query = { ...ctx.query };
	for (const name of ['from', 'to']) {
		const value = query[name];
		if (ctx.dialect.auditFrom === 'ignored') delete query[name];
		else if (
			ctx.dialect.auditTimes === 'zoneless' &&
			typeof value === 'string' &&
			ZONELESS_TIME.test(value)
		)
			query[name] = `${value}Z`;
	}
	return query;
}

const usage: ApiHandler = {
	permission: 'read',
	handle(ctx) {
		const range = reportRange(ctx, validateQuery(UsageReportQuerySchema, ctx.query));
		const counts: Record<string, number> = {};
		// Counted from the audit log, so deleted documents still count in the period they were used.
		for (const { record } of ctx.account.audit) {
			if (inRange(record.created_at, range)) counts[record.event] = (counts[record.event] ?? 0) + 1;
		}
		const report: UsageReport = {
			from: new Date(range.fromMs).toISOString(),
			to: new Date(range.toMs).toISOString(),
			documents_created: counts['document.created'] ?? 0,
			documents_completed: counts['document.completed'] ?? 0,
			documents_declined: counts['document.declined'] ?? 0,
			signing_requests_sent: counts['signature.requested'] ?? 0,
			reminders_sent: counts['signature.reminded'] ?? 0,
			signatures_collected: counts['document.signed'] ?? 0,
			team_members: ctx.account.users.size,
		};
		return ok(report);
	},
};

const auditLog: ApiHandler = {
	permission: 'read',
	handle(ctx) {
		const query = validateQuery(AuditLogQuerySchema, auditQuery(ctx));
		const range = auditRange(query);
		// The filters keep their names and read the contract's fields whatever names the dialect lists.
		const matches = (entry: AuditLogEntry) =>
			(range === undefined || inRange(entry.created_at, range)) &&
			(query.document_id === undefined || entry.document_id === query.document_id) &&
			(query.event === undefined || entry.event === query.event);
		// Ordered by time, as a real service orders by `created_at`: an entry dated ahead stays on top.
		const rows = ctx.account.audit
			.filter((row) => matches(row.record))
			.map((row) => ({
				seq: row.seq,
				at: auditInstant(row),
				record: auditEntryIn(ctx.dialect, row.record),
			}));
		return listReply(ctx, 'audit-log', rows, query, undefined, ctx.dialect.auditOrder);
	},
};

function exportRow(document: DocumentRecord): ExportRow {
	return {
		id: document.id,
		name: document.name,
		status: document.status,
		created_at: document.created_at,
		completed_at: document.completed_at,
		expires_at: document.expires_at,
		signature_request_id: document.signature_request_id,
		template_id: document.template_id,
		signer_count: document.signers.length,
		signed_count: document.signers.filter((signer) => signer.status === 'signed').length,
		signer_emails: document.signers.map((signer) => signer.email),
	};
}

/**
 * RFC 4180 quoting, plus a leading apostrophe on text that a spreadsheet would run as a formula
 * (`=`, `+`, `-`, `@`): document names and e-mails come from API users.
 */
export function csvCell(value: unknown): string {
	if (value === null || value === undefined) return '';
	let text = Array.isArray(value) ? value.join(';') : String(value);
	if (typeof value === 'string' || Array.isArray(value)) {
		if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
	}
	return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const exportDocuments: ApiHandler = {
	permission: 'read',
	handle(ctx) {
		const query = validateQuery(ExportQuerySchema, ctx.query);
		const range = reportRange(ctx, query);
		const format = query.format ?? 'csv';
		const rows = [...ctx.account.documents.values()]
			.filter((row) => inRange(row.record.created_at, range))
			.sort((a, b) => b.seq - a.seq)
			.map((row) => exportRow(row.record));
		const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
		const filename = `documents-${day(range.fromMs)}-${day(range.toMs)}.${format}`;
		const headers = { 'Content-Disposition': `attachment; filename="${filename}"` };

		if (format === 'json') {
			return {
				status: 200,
				headers,
				raw: { contentType: 'application/json; charset=utf-8', data: JSON.stringify(rows) },
			};
		}
		const lines = [
			EXPORT_COLUMNS.join(','),
			...rows.map((row) => EXPORT_COLUMNS.map((column) => csvCell(row[column])).join(',')),
		];
		return {
			status: 200,
			headers,
			raw: { contentType: 'text/csv; charset=utf-8', data: `${lines.join('\r\n')}\r\n` },
		};
	},
};

export function reportRoutes(router: Router<ApiHandler>): void {
	router
		.add('GET', '/v1/reports/usage', usage)
		.add('GET', '/v1/reports/audit-log', auditLog)
		.add('GET', '/v1/reports/export', exportDocuments);
}
