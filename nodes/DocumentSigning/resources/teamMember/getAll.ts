import type { INodeProperties } from 'n8n-workflow';

import { TEAM_MEMBER_ROLES, TEAM_MEMBER_STATUSES } from '../../../shared/vocabulary';
import { returnAllAndLimit, simplifyField } from '../../shared/fields';
import {
	capitalise,
	filtersCollection,
	queryChoiceFilter,
	queryFilter,
} from '../../shared/listFilters';
import { operation } from '../../shared/operation';
import { simplifyTo } from '../../shared/postReceive';

const SIMPLE_FIELDS = ['id', 'email', 'name', 'role', 'status'];

export const teamMemberGetAllOperation = operation({
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many team members',
	description: 'List the members of the team',
	method: 'GET',
	path: '/users',
	list: true,
	postReceive: [simplifyTo(SIMPLE_FIELDS)],
});

export const teamMemberGetAllFields: INodeProperties[] = [
	...returnAllAndLimit('teamMember', 'getAll'),
	filtersCollection('teamMember', 'getAll', [
		queryFilter('Name or Email Contains', 'q'),
		queryChoiceFilter('Role', 'role', TEAM_MEMBER_ROLES, capitalise, 'member'),
		queryChoiceFilter('Status', 'status', TEAM_MEMBER_STATUSES, capitalise, 'active'),
	]),
	simplifyField('teamMember', ['getAll']),
];
