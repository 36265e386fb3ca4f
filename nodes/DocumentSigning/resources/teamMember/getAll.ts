import { TEAM_MEMBER_ROLES, TEAM_MEMBER_STATUSES } from '../../../shared/vocabulary';
import {
	capitalise,
	filtersCollection,
	queryChoiceFilter,
	queryFilter,
} from '../../shared/listFilters';
import { simpleList } from '../../shared/operation';

export const { operation: teamMemberGetAllOperation, fields: teamMemberGetAllFields } = simpleList(
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
