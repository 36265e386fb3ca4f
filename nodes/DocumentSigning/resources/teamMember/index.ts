import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import {
	ASSIGNABLE_ROLES,
	TEAM_MEMBER_ROLES,
	TEAM_MEMBER_STATUSES,
} from '../../../shared/vocabulary';
import {
	capitalise,
	emailField,
	extraBodyFieldsOption,
	filtersCollection,
	queryChoiceFilter,
	queryFilter,
	resourceLocator,
	returnAllAndLimit,
	showFor,
	simplifyField,
	searchListPaging,
} from '../../shared/fields';
import { operation, operationProperty, showForPathParameter } from '../../shared/operation';
import { simplifyTo } from '../../shared/postReceive';
import {
	compact,
	invalid,
	requireEmail,
	requireText,
	withExtraBodyFields,
} from '../../shared/validation';

const SIMPLE_FIELDS = ['id', 'email', 'name', 'role', 'status'];
const CUSTOM_ROLE = '__custom';

const ROLE_DESCRIPTIONS: Record<(typeof ASSIGNABLE_ROLES)[number], string> = {
	admin: 'Everything, including the team and webhooks',
	member: 'Documents, signing requests and templates',
	viewer: 'Read only',
};

function roleFields(operations: string[]): INodeProperties[] {
	return [
		{
			displayName: 'Role',
			name: 'role',
			type: 'options',
			default: 'member',
			description: 'What the team member may do',
			displayOptions: showFor('teamMember', operations),
			// Spelled out (not mapped from ASSIGNABLE_ROLES) so n8n's lint can check the default; a test
			// keeps the two in step.
			options: [
				{ name: 'Admin', value: 'admin', description: ROLE_DESCRIPTIONS.admin },
				{ name: 'Member', value: 'member', description: ROLE_DESCRIPTIONS.member },
				{
					name: 'Other Role…',
					value: CUSTOM_ROLE,
					description: 'A role this node does not list yet',
				},
				{ name: 'Viewer', value: 'viewer', description: ROLE_DESCRIPTIONS.viewer },
			],
		},
		{
			displayName: 'Role Name',
			name: 'customRole',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'billing',
			description: 'The role value exactly as the service names it',
			displayOptions: showFor('teamMember', operations, { role: [CUSTOM_ROLE] }),
		},
	];
}

function chosenRole(context: IExecuteSingleFunctions): string {
	const role = requireText(context, 'Role', context.getNodeParameter('role', ''));
	if (role !== CUSTOM_ROLE) return role;
	const custom = requireText(context, 'Role Name', context.getNodeParameter('customRole', ''));
	if (custom === 'owner')
		throw invalid(context, 'Role Name', 'the owner role cannot be given to anyone');
	return custom;
}

const buildInviteBody = async function (
	this: IExecuteSingleFunctions,
	options: IHttpRequestOptions,
) {
	const email = requireEmail(this, 'Email', this.getNodeParameter('email', ''));
	const additional = this.getNodeParameter('inviteAdditionalFields', {}) as IDataObject;
	const body = compact({ email, name: additional.name, role: chosenRole(this) });
	options.body = withExtraBodyFields(this, body, additional.extraBodyFields);
	return options;
};

const buildRoleBody = async function (this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
	options.body = { role: chosenRole(this) };
	return options;
};

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
			preSend: [buildRoleBody],
		}),
		operation({
			name: 'Get Many',
			value: 'getAll',
			action: 'Get many team members',
			description: 'List the members of the team',
			method: 'GET',
			path: '/users',
			list: true,
			postReceive: [simplifyTo(SIMPLE_FIELDS)],
		}),
		operation({
			name: 'Invite',
			value: 'invite',
			action: 'Invite a team member',
			description: 'Invite someone to the team by email',
			method: 'POST',
			path: '/users/invite',
			preSend: [buildInviteBody],
		}),
	],
	'getAll',
);

export const teamMemberFields: INodeProperties[] = [
	{
		...emailField('Where the invitation is sent'),
		displayOptions: showFor('teamMember', ['invite']),
	},
	resourceLocator({
		name: 'teamMemberId',
		displayName: 'Team Member',
		description: 'The team member whose role changes',
		searchListMethod: 'searchTeamMembers',
		idPlaceholder: 'usr_5h1c8v',
		displayOptions: showForPathParameter(teamMemberOperations, 'teamMemberId'),
	}),
	...searchListPaging(showForPathParameter(teamMemberOperations, 'teamMemberId')),
	...roleFields(['invite', 'updateRole']),
	{
		displayName: 'Additional Fields',
		name: 'inviteAdditionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showFor('teamMember', ['invite']),
		options: [
			extraBodyFieldsOption,
			{
				displayName: 'Name',
				name: 'name',
				type: 'string',
				default: '',
				description: 'Full name of the person invited',
			},
		],
	},
	...returnAllAndLimit('teamMember', 'getAll'),
	{
		...filtersCollection('teamMember', 'getAll'),
		options: [
			queryFilter('Name or Email Contains', 'q'),
			queryChoiceFilter('Role', 'role', TEAM_MEMBER_ROLES, capitalise, 'member'),
			queryChoiceFilter('Status', 'status', TEAM_MEMBER_STATUSES, capitalise, 'active'),
		],
	},
	simplifyField('teamMember', ['getAll']),
];
