import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { emailField, extraBodyFieldsOption, showFor } from '../../shared/fields';
import { operation } from '../../shared/operation';
import { compact, requireEmail, withExtraBodyFields } from '../../shared/validation';
import { chosenRole } from './role';

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

export const teamMemberInviteOperation = operation({
	name: 'Invite',
	value: 'invite',
	action: 'Invite a team member',
	description: 'Invite someone to the team by email',
	method: 'POST',
	path: '/users/invite',
	preSend: [buildInviteBody],
});

/** Invite's fields: Email comes first, Additional Fields after the Role (index.ts). */
export const teamMemberInviteEmailField: INodeProperties = {
	...emailField('Where the invitation is sent'),
	displayOptions: showFor('teamMember', ['invite']),
};

export const teamMemberInviteAdditionalFields: INodeProperties = {
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
};
