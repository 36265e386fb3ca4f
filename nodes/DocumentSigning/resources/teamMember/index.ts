import type { INodeProperties } from 'n8n-workflow';

import { TEAM_MEMBER_ROLES, TEAM_MEMBER_STATUSES } from '../../../shared/vocabulary';
import {
	capitalise,
	filtersCollection,
	queryChoiceFilter,
	queryFilter,
} from '../../shared/listFilters';
import { idFields, operation, operationProperty, simpleList } from '../../shared/operation';
import {
	teamMemberInviteAdditionalFields,
	teamMemberInviteEmailField,
	teamMemberInviteOperation,
} from './invite';
import { chosenRole, roleFields } from './role';

const getAll = simpleList(
	'teamMember',
	{ action: 'Get many team members', description: 'List the members of the team', path: '/users' },
	['id', 'email', 'name', 'role', 'status'],
	[
		filtersCollection('teamMember', 'getAll', [
			queryFilter('Name or Email Contains', 'q'),
			queryChoiceFilter('Role', 'role', TEAM_MEMBER_ROLES, capitalise, 'member'),
			queryChoiceFilter('Status', 'status', TEAM_MEMBER_STATUSES, capitalise, 'active'),
		]),
	],
);

export const teamMemberOperations = operationProperty(
	'teamMember',
	[
		operation({
			name: 'Change Role',
			value: 'updateRole',
			action: "Change a team member's role",
			description: 'Give a team member another role',
			method: 'PUT',
			path: '/users/{teamMemberId}/role',
			body() {
				return { role: chosenRole(this) };
			},
		}),
		getAll.operation,
		teamMemberInviteOperation,
	],
	'getAll',
);

export const teamMemberFields: INodeProperties[] = [
	teamMemberInviteEmailField,
	...idFields(teamMemberOperations),
	...roleFields,
	teamMemberInviteAdditionalFields,
	...getAll.fields,
];
