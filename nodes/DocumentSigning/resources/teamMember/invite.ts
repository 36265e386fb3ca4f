import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { emailField, extraBodyFieldsOption, optionalFields, showFor } from '../../shared/fields';
import { operation } from '../../shared/operation';
import { requestBody, requireEmail } from '../../shared/validation';
import { chosenRole } from './role';

export const teamMemberInviteOperation = operation({
	name: 'Invite',
	value: 'invite',
	action: 'Invite a team member',
	description: 'Invite someone to the team by email',
	method: 'POST',
	path: '/users/invite',
	body() {
		const email = requireEmail(this, 'Email', this.getNodeParameter('email', ''));
		const additional = this.getNodeParameter('inviteAdditionalFields', {}) as IDataObject;
		const body = { email, name: additional.name, role: chosenRole(this) };
		return requestBody(this, body, additional.extraBodyFields);
	},
});

/** Invite's fields: Email comes first, Additional Fields after the Role (index.ts). */
export const teamMemberInviteEmailField: INodeProperties = {
	...emailField('Where the invitation is sent'),
	displayOptions: showFor('teamMember', ['invite']),
};

export const teamMemberInviteAdditionalFields = optionalFields(
	'Additional Fields',
	'inviteAdditionalFields',
	showFor('teamMember', ['invite']),
	[
		extraBodyFieldsOption,
		{
			displayName: 'Name',
			name: 'name',
			type: 'string',
			default: '',
			description: 'Full name of the person invited',
		},
	],
);
