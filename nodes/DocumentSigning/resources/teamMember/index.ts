import type { INodeProperties } from 'n8n-workflow';

import { operationProperty } from '../../shared/operation';
import { teamMemberGetAllFields, teamMemberGetAllOperation } from './getAll';
import { teamMemberIdFields } from './idFields';
import {
	teamMemberInviteAdditionalFields,
	teamMemberInviteEmailField,
	teamMemberInviteOperation,
} from './invite';
import { roleFields } from './role';
import { teamMemberUpdateRoleOperation } from './updateRole';

/** Team Member's Operation dropdown: each operation, with its fields, is the file named after its value. */
export const teamMemberOperations = operationProperty(
	'teamMember',
	[teamMemberUpdateRoleOperation, teamMemberGetAllOperation, teamMemberInviteOperation],
	'getAll',
);

/** Team Member's fields, in the order n8n shows them. */
export const teamMemberFields: INodeProperties[] = [
	teamMemberInviteEmailField,
	...teamMemberIdFields(teamMemberOperations),
	...roleFields(['invite', 'updateRole']),
	teamMemberInviteAdditionalFields,
	...teamMemberGetAllFields,
];
