/** /v1/users: list the team, invite a member, change a member's role (never the owner's). */
import {
	ChangeRoleBodySchema,
	InviteUserBodySchema,
	ListUsersQuerySchema,
	type TeamMemberRecord,
} from '../../contract';
import { created, ok, type ApiHandler } from '../context';
import { conflict, notFound } from '../http';
import { listReply } from '../pagination';
import type { Router } from '../router';
import { validateBody, validateQuery } from '../validation';

const listUsers: ApiHandler = {
	permission: 'read',
	handle(ctx) {
		const query = validateQuery(ListUsersQuerySchema, ctx.query);
		const needle = query.q?.toLowerCase();
		const matches = (user: TeamMemberRecord) =>
			(query.role === undefined || user.role === query.role) &&
			(query.status === undefined || user.status === query.status) &&
			(needle === undefined ||
				user.email.toLowerCase().includes(needle) ||
				(user.name ?? '').toLowerCase().includes(needle));
		return listReply(ctx, 'users', ctx.account.users.values(), query, matches);
	},
};

const inviteUser: ApiHandler = {
	permission: 'manage_account',
	handle(ctx) {
		const body = validateBody(InviteUserBodySchema, ctx.body);
		const email = body.email.toLowerCase();
		for (const row of ctx.account.users.values()) {
			if (row.record.email.toLowerCase() === email)
				throw conflict(`${body.email} is already on the team`, 'email');
		}
		const user = ctx.services.store.addUser(ctx.account, {
			email: body.email,
			name: body.name ?? null,
			role: body.role ?? 'member',
			status: 'invited',
			invited: true,
		});
		ctx.services.events.emit({
			accountId: ctx.account.id,
			event: 'user.invited',
			...ctx.by,
			documentId: null,
			details: { user_id: user.id, email: user.email, role: user.role },
		});
		return created(structuredClone(user));
	},
};

const changeRole: ApiHandler = {
	permission: 'manage_account',
	handle(ctx) {
		const row = ctx.account.users.get(ctx.params.id);
		if (!row) throw notFound('team member');
		const body = validateBody(ChangeRoleBodySchema, ctx.body);
		if (row.record.role === 'owner') throw conflict("The owner's role cannot be changed");
		const from = row.record.role;
		row.record.role = body.role;
		row.record.updated_at = ctx.services.clock.iso();
		ctx.services.events.emit({
			accountId: ctx.account.id,
			event: 'user.role_changed',
			...ctx.by,
			documentId: null,
			details: { user_id: row.record.id, from, to: body.role },
		});
		return ok(structuredClone(row.record));
	},
};

export function userRoutes(router: Router<ApiHandler>): void {
	router
		.add('GET', '/v1/users', listUsers)
		.add('POST', '/v1/users/invite', inviteUser)
		.add('PUT', '/v1/users/:id/role', changeRole);
}
