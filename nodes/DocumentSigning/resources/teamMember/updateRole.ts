import { operation } from '../../shared/operation';
import { chosenRole } from './role';

export const teamMemberUpdateRoleOperation = operation({
	name: 'Change Role',
	value: 'updateRole',
	action: "Change a team member's role",
	description: 'Give a team member another role',
	method: 'PUT',
	path: '/users/{teamMemberId}/role',
	body() {
		return { role: chosenRole(this) };
	},
});
