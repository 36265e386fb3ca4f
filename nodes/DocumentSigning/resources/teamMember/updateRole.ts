import type { IExecuteSingleFunctions, IHttpRequestOptions } from 'n8n-workflow';

import { operation } from '../../shared/operation';
import { chosenRole } from './role';

const buildRoleBody = async function (this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
	options.body = { role: chosenRole(this) };
	return options;
};

/** Change Role: its fields are the Team Member (idFields.ts) and the Role (role.ts). */
export const teamMemberUpdateRoleOperation = operation({
	name: 'Change Role',
	value: 'updateRole',
	action: "Change a team member's role",
	description: 'Give a team member another role',
	method: 'PUT',
	path: '/users/{teamMemberId}/role',
	preSend: [buildRoleBody],
});
