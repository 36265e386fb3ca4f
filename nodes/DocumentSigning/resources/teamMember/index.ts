import type { INodeProperties } from 'n8n-workflow';

import { idFields, operationProperty } from '../../shared/operation';
import { teamMemberGetAllFields, teamMemberGetAllOperation } from './getAll';
import {
	teamMemberInviteAdditionalFields,
	teamMemberInviteEmailField,
	teamMemberInviteOperation,
} from './invite';
import { roleFields } from './role';
import { teamMemberUpdateRoleOperation } from './updateRole';

export const teamMemberOperations = operationProperty(
	'teamMember',
	[teamMemberUpdateRoleOperation, teamMemberGetAllOperation, teamMemberInviteOperation],
	'getAll',
);

export const teamMemberFields: INodeProperties[] = [
	teamMemberInviteEmailField,
	...idFields(teamMemberOperations),
	...roleFields,
	teamMemberInviteAdditionalFields,
	...teamMemberGetAllFields,
];
