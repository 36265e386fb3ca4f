/** /v1/templates: list, create, partial update (PUT replaces only the fields sent). */
import {
	CreateTemplateBodySchema,
	fieldRoleProblems,
	ListTemplatesQuerySchema,
	UpdateTemplateBodySchema,
	type SignerRole,
	type SignerRoleInput,
	type TemplateField,
	type TemplateFieldInput,
	type TemplateRecord,
} from '../../contract';
import { created, ok, type ApiContext, type ApiHandler } from '../context';
import { ApiError, notFound } from '../http';
import { listReply } from '../pagination';
import type { Router } from '../router';
import { validateBody, validateQuery } from '../validation';

/** Roles without an order sign in the order listed. */
function roles(inputs: SignerRoleInput[]): SignerRole[] {
	return inputs.map((input, index) => ({
		role: input.role,
		order: input.order ?? index + 1,
		email: input.email ?? null,
		name: input.name ?? null,
	}));
}

function templateFields(inputs: TemplateFieldInput[]): TemplateField[] {
	return inputs.map((input) => ({
		key: input.key,
		label: input.label ?? input.key,
		type: input.type ?? 'text',
		required: input.required ?? false,
		default: input.default ?? null,
		role: input.role ?? null,
		options: input.options ?? null,
	}));
}

/** Every field's role must be one of the roles (checked on the template as it will be stored). */
function checkFieldRoles(fields: TemplateField[], roles: SignerRole[]): TemplateField[] {
	const problems = fieldRoleProblems(fields, roles);
	if (problems.length > 0)
		throw new ApiError(400, 'validation_error', problems[0].message, problems[0].field, problems);
	// A field names its role as the template spells it.
	return fields.map((field) => ({
		...field,
		role:
			field.role === null
				? null
				: (roles.find((role) => role.role.toLowerCase() === field.role!.toLowerCase())?.role ??
					field.role),
	}));
}

/** The record as the API answers it: a service of the `unlisted` dialect does not list fields. */
export function presentTemplate(ctx: ApiContext, record: TemplateRecord): Record<string, unknown> {
	const copy: Record<string, unknown> = structuredClone(record);
	if (ctx.dialect.templateFields === 'unlisted') delete copy.fields;
	return copy;
}

const listTemplates: ApiHandler = {
	permission: 'read',
	handle(ctx) {
		const query = validateQuery(ListTemplatesQuerySchema, ctx.query);
		const needle = query.q?.toLowerCase();
		const matches = (template: TemplateRecord) =>
			needle === undefined ||
			template.name.toLowerCase().includes(needle) ||
			(template.description ?? '').toLowerCase().includes(needle);
		return listReply(
			ctx,
			'templates',
			[...ctx.account.templates.values()].map((row) => ({
				...row,
				record: presentTemplate(ctx, row.record) as TemplateRecord,
			})),
			query,
			matches,
		);
	},
};

const createTemplate: ApiHandler = {
	permission: 'write_content',
	handle(ctx) {
		const body = validateBody(CreateTemplateBodySchema, ctx.body);
		const now = ctx.services.clock.iso();
		const signerRoles = roles(body.signer_roles ?? []);
		const record: TemplateRecord = {
			id: ctx.services.store.newId('template'),
			name: body.name,
			description: body.description ?? null,
			document_name: body.document_name ?? null,
			message: body.message ?? null,
			signer_roles: signerRoles,
			fields: checkFieldRoles(templateFields(body.fields ?? []), signerRoles),
			metadata: { ...(body.metadata ?? {}) },
			created_at: now,
			updated_at: now,
		};
		ctx.account.templates.set(record.id, { seq: ctx.services.store.nextSeq(), record });
		ctx.services.events.emit({
			accountId: ctx.account.id,
			event: 'template.created',
			...ctx.by,
			documentId: null,
			details: { template_id: record.id, name: record.name },
		});
		return created(presentTemplate(ctx, record));
	},
};

const updateTemplate: ApiHandler = {
	permission: 'write_content',
	handle(ctx) {
		const row = ctx.account.templates.get(ctx.params.id);
		if (!row) throw notFound('template');
		const body = validateBody(UpdateTemplateBodySchema, ctx.body);
		const record = row.record;
		// Only fields present in the body change; unknown fields were already ignored.
		const changes: Partial<TemplateRecord> = {};
		if (body.name !== undefined) changes.name = body.name;
		if (body.description !== undefined) changes.description = body.description;
		if (body.document_name !== undefined) changes.document_name = body.document_name;
		if (body.message !== undefined) changes.message = body.message;
		if (body.signer_roles !== undefined) changes.signer_roles = roles(body.signer_roles);
		if (body.fields !== undefined) changes.fields = templateFields(body.fields);
		if (body.metadata !== undefined) changes.metadata = { ...body.metadata };
		if (changes.fields !== undefined || changes.signer_roles !== undefined) {
			changes.fields = checkFieldRoles(
				changes.fields ?? record.fields,
				changes.signer_roles ?? record.signer_roles,
			);
		}
		const changed = Object.keys(changes).filter(
			(key) => key !== 'fields' || body.fields !== undefined,
		);
		Object.assign(record, changes);
		record.updated_at = ctx.services.clock.iso();
		ctx.services.events.emit({
			accountId: ctx.account.id,
			event: 'template.updated',
			...ctx.by,
			documentId: null,
			details: { template_id: record.id, fields: changed },
		});
		return ok(presentTemplate(ctx, record));
	},
};

export function templateRoutes(router: Router<ApiHandler>): void {
	router
		.add('GET', '/v1/templates', listTemplates)
		.add('POST', '/v1/templates', createTemplate)
		.add('PUT', '/v1/templates/:id', updateTemplate);
}
