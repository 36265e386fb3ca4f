/** /v1/documents: create (and send), list, fetch, delete. */
import {
	CreateDocumentBodySchema,
	ListDocumentsQuerySchema,
	type DocumentRecord,
	type TemplateRecord,
} from '../../contract';
import { created, noContent, ok, type ApiContext, type ApiHandler } from '../context';
import { presentDocument } from '../files';
import { ApiError, notFound } from '../http';
import { listReply } from '../pagination';
import type { Router } from '../router';
import type { DocumentRow } from '../store';
import { checkTemplateFit, filledFields, templateSigners } from '../templateFill';
import { validateBody, validateQuery } from '../validation';

/** Turns an accepted `expires_at` into the stored UTC form, refusing a past instant. */
export function futureTimestamp(
	ctx: ApiContext,
	value: string | null | undefined,
	field: string,
): string | null | undefined {
	if (value === undefined || value === null) return value;
	const ms = Date.parse(value);
	if (ms <= ctx.services.clock.now())
		throw new ApiError(400, 'validation_error', `${field} must be in the future`, field);
	return new Date(ms).toISOString();
}

/** The record as the API answers it (download links when the `fileLinks` option is on). */
export const present = (ctx: ApiContext, record: DocumentRecord) =>
	presentDocument(record, ctx.account.id, {
		fileLinks: ctx.services.config().fileLinks,
		origin: ctx.services.signingOrigin(),
	});

/**
 * The caller's document `id`: 404 when the account has none, or, in the `foreignDocuments:
 * 'forbidden'` dialect, 403 when it is another account's.
 */
export function documentOf(ctx: ApiContext, id: string, field?: string): DocumentRow {
	const row = ctx.account.documents.get(id);
	if (row) return row;
	if (ctx.dialect.foreignDocuments === 'forbidden' && ctx.services.store.findDocument(id)) {
		throw new ApiError(403, 'forbidden', 'This document belongs to another account', field);
	}
	throw notFound('document', field);
}

const createDocument: ApiHandler = {
	permission: 'write_content',
	handle(ctx) {
		const body = validateBody(CreateDocumentBodySchema, ctx.body);
		let template: TemplateRecord | undefined;
		if (body.template_id) {
			template = ctx.account.templates.get(body.template_id)?.record;
			if (!template) throw notFound('template', 'template_id');
		}

		const name = body.name ?? template?.document_name ?? undefined;
		if (name === undefined) {
			throw new ApiError(
				400,
				'validation_error',
				'name is required (the template has no document_name)',
				'name',
			);
		}
		checkTemplateFit(template, body.fields, body.signers);
		const signers = templateSigners(body.signers, template) ?? (body.draft ? [] : undefined);
		if (signers === undefined) {
			throw new ApiError(
				400,
				'validation_error',
				'signers is required: the template does not name a signer for every role',
				'signers',
			);
		}

		const row = ctx.services.lifecycle.create(
			ctx.account.id,
			{
				name,
				signers,
				draft: body.draft ?? false,
				message: body.message ?? template?.message ?? null,
				expiresAt: futureTimestamp(ctx, body.expires_at, 'expires_at') ?? null,
				templateId: template?.id ?? null,
				fields: filledFields(template, body.fields),
				metadata: { ...(template?.metadata ?? {}), ...(body.metadata ?? {}) },
				file: body.file,
			},
			ctx.by,
		);
		return created(present(ctx, row.record));
	},
};

const listDocuments: ApiHandler = {
	permission: 'read',
	handle(ctx) {
		const query = validateQuery(ListDocumentsQuerySchema, ctx.query);
		const needle = query.q?.toLowerCase();
		const after = query.created_after ? Date.parse(query.created_after) : undefined;
		const before = query.created_before ? Date.parse(query.created_before) : undefined;
		const matches = (document: DocumentRecord) => {
			const createdMs = Date.parse(document.created_at);
			return (
				(query.status === undefined || document.status === query.status) &&
				(needle === undefined || document.name.toLowerCase().includes(needle)) &&
				(after === undefined || createdMs >= after) &&
				(before === undefined || createdMs < before)
			);
		};
		return listReply(
			ctx,
			'documents',
			[...ctx.account.documents.values()].map((row) => ({
				...row,
				record: present(ctx, row.record),
			})),
			query,
			matches,
		);
	},
};

const getDocument: ApiHandler = {
	permission: 'read',
	handle: (ctx) => ok(present(ctx, documentOf(ctx, ctx.params.id).record)),
};

const deleteDocument: ApiHandler = {
	permission: 'write_content',
	handle(ctx) {
		ctx.services.lifecycle.delete(documentOf(ctx, ctx.params.id), ctx.by);
		return noContent();
	},
};

export function documentRoutes(router: Router<ApiHandler>): void {
	router
		.add('POST', '/v1/documents', createDocument)
		.add('GET', '/v1/documents', listDocuments)
		.add('GET', '/v1/documents/:id', getDocument)
		.add('DELETE', '/v1/documents/:id', deleteDocument);
}
