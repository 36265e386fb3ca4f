/** /v1/signatures: send a draft, fetch a signing request's status, remind its signers. */
import { CreateSigningRequestBodySchema, RemindBodySchema } from '../../contract';
import { created, ok, type ApiHandler } from '../context';
import { notFound } from '../http';
import type { Router } from '../router';
import { validateBody } from '../validation';
import { documentOf, futureTimestamp } from './documents';

const requestSignatures: ApiHandler = {
	permission: 'write_content',
	handle(ctx) {
		const body = validateBody(CreateSigningRequestBodySchema, ctx.body);
		const row = documentOf(ctx, body.document_id, 'document_id');
		const request = ctx.services.lifecycle.send(
			row,
			{
				// A role is taken only when a document is made from a template.
				signers: body.signers?.map((signer) => ({ ...signer, role: undefined })),
				message: body.message,
				expiresAt: futureTimestamp(ctx, body.expires_at, 'expires_at'),
			},
			ctx.by,
		);
		return created(request);
	},
};

const getSigningRequest: ApiHandler = {
	permission: 'read',
	handle(ctx) {
		const row = ctx.account.signingRequests.get(ctx.params.id);
		if (!row) throw notFound('signing request');
		return ok(structuredClone(row.record));
	},
};

const remind: ApiHandler = {
	permission: 'write_content',
	handle(ctx) {
		if (!ctx.account.signingRequests.has(ctx.params.id)) throw notFound('signing request');
		const body = validateBody(RemindBodySchema, ctx.body);
		return ok(
			ctx.services.lifecycle.remind(
				ctx.account.id,
				ctx.params.id,
				{ signerIds: body.signer_ids, message: body.message },
				ctx.by,
			),
		);
	},
};

export function signatureRoutes(router: Router<ApiHandler>): void {
	router
		.add('POST', '/v1/signatures/request', requestSignatures)
		.add('GET', '/v1/signatures/:id', getSigningRequest)
		.add('POST', '/v1/signatures/:id/remind', remind);
}
