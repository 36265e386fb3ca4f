import type { INodeProperties } from 'n8n-workflow';

import { extraBodyFieldsOption, messageOption } from '../shared/fields';

/** The first options of what sends a document to its signers: Expires At, Extra Body Fields, Message. */
export function sendingOptions(expiresAtDescription: string): INodeProperties[] {
	return [
		{
			displayName: 'Expires At',
			name: 'expires_at',
			type: 'dateTime',
			default: '',
			description: expiresAtDescription,
		},
		extraBodyFieldsOption,
		messageOption('Note shown to signers in the invitation'),
	];
}
