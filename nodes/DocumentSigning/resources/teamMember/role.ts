import type { IExecuteSingleFunctions, INodeProperties } from 'n8n-workflow';

import { showFor } from '../../shared/fields';
import { invalid, requireText } from '../../shared/validation';

/** Role and Role Name, for Invite and Change Role: the fields and the role they give. */

const CUSTOM_ROLE = '__custom';

export const roleFields: INodeProperties[] = [
	{
		displayName: 'Role',
		name: 'role',
		type: 'options',
		default: 'member',
		description: 'What the team member may do',
		displayOptions: showFor('teamMember', ['invite', 'updateRole']),
		// Spelled out so n8n's lint can check the default; a test keeps it in step with ASSIGNABLE_ROLES.
		options: [
			{ name: 'Admin', value: 'admin', description: 'Everything, including the team and webhooks' },
			{ name: 'Member', value: 'member', description: 'Documents, signing requests and templates' },
			{
				name: 'Other Role…',
				value: CUSTOM_ROLE,
				description: 'A role this node does not list yet',
			},
			{ name: 'Viewer', value: 'viewer', description: 'Read only' },
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
		displayOptions: showFor('teamMember', ['invite', 'updateRole'], { role: [CUSTOM_ROLE] }),
	},
];

export function chosenRole(context: IExecuteSingleFunctions): string {
	const role = requireText(context, 'Role', context.getNodeParameter('role', ''));
	if (role !== CUSTOM_ROLE) return role;
	const custom = requireText(context, 'Role Name', context.getNodeParameter('customRole', ''));
	if (custom === 'owner')
		throw invalid(context, 'Role Name', 'the owner role cannot be given to anyone');
	return custom;
}
