/**
 * Downloads: GET /v1/documents/:id/file (original or signed), GET /v1/documents/:id/audit-trail
 * (pdf or json) and GET /v1/files/:token (the links of the `fileLinks` option). Every role may
 * read; another account's document is a 404 like any record.
 */
import { AuditTrailQuerySchema, DocumentFileQuerySchema } from '../../contract';
import type { ApiContext, ApiHandler } from '../context';
import {
	auditTrailFile,
	contentDisposition,
	documentFile,
	readFileToken,
	type DocumentFile,
} from '../files';
import { notFound, type Reply } from '../http';
import type { Router } from '../router';
import { validateQuery } from '../validation';
import { documentOf } from './documents';

export function fileReply(file: DocumentFile): Reply {
	return {
		status: 200,
		headers: {
			'Content-Disposition': contentDisposition(file.fileName),
			'Cache-Control': 'private, no-store',
			'X-Content-Type-Options': 'nosniff',
		},
		raw: { contentType: file.contentType, data: file.data },
	};
}

const getFile: ApiHandler = {
	permission: 'read',
	async handle(ctx: ApiContext) {
		const query = validateQuery(DocumentFileQuerySchema, ctx.query);
		const row = documentOf(ctx, ctx.params.id);
		return fileReply(await documentFile(row, ctx.account, query.version ?? 'original'));
	},
};

const getAuditTrail: ApiHandler = {
	permission: 'read',
	async handle(ctx: ApiContext) {
		const query = validateQuery(AuditTrailQuerySchema, ctx.query);
		const row = documentOf(ctx, ctx.params.id);
		return fileReply(await auditTrailFile(row, ctx.account, query.format ?? 'pdf'));
	},
};

/** A link from a record: the token names the document and version; `format` applies to the audit trail. */
const getLinkedFile: ApiHandler = {
	permission: 'read',
	async handle(ctx: ApiContext) {
		const { documentId, target } = readFileToken(ctx.account.id, ctx.params.token);
		const row = ctx.account.documents.get(documentId);
		if (!row) throw notFound('file');
		if (target === 'audit_trail') {
			const query = validateQuery(AuditTrailQuerySchema, ctx.query);
			return fileReply(await auditTrailFile(row, ctx.account, query.format ?? 'pdf'));
		}
		return fileReply(await documentFile(row, ctx.account, target));
	},
};

export function fileRoutes(router: Router<ApiHandler>): void {
	router
		.add('GET', '/v1/documents/:id/file', getFile)
		.add('GET', '/v1/documents/:id/audit-trail', getAuditTrail)
		.add('GET', '/v1/files/:token', getLinkedFile);
}
