import type { INodeProperties } from 'n8n-workflow';

import type { SIGNER_AUTHENTICATION_METHODS } from '../../shared/vocabulary';
import { byName, emailField, showFor } from './fields';

const AUTHENTICATION_LABELS: Record<(typeof SIGNER_AUTHENTICATION_METHODS)[number], string> = {
	none: 'None (Link Only)',
	email_otp: 'One-Time Code by Email',
	sms_otp: 'One-Time Code by SMS',
	national_eid: 'National Electronic ID',
};

/** The signers of a document or signing request (`name` unique across resources: routedRequest.ts). */
export function signersField(
	resource: string,
	operations: string[],
	{ name = 'signers', description }: { name?: string; description: string },
): INodeProperties {
	return {
		displayName: 'Signers',
		name,
		type: 'fixedCollection',
		placeholder: 'Add Signer',
		typeOptions: { multipleValues: true, sortable: true },
		default: {},
		// Not required: a template's roles come from Signers by Role; the body's check says when.
		description,
		displayOptions: showFor(resource, operations),
		options: [
			{
				displayName: 'Signer',
				name: 'signer',
				// In the order people fill them in (values are saved by name: no saved workflow changes).
				values: [
					emailField('Where the signing invitation is sent'),
					{
						displayName: 'Name',
						name: 'name',
						type: 'string',
						default: '',
						required: true,
						description: 'Full name of the signer, as shown on the signature',
					},
					{
						displayName: 'Authentication',
						name: 'authentication',
						type: 'options',
						default: 'none',
						description: 'How the signer proves who they are before signing',
						options: byName(
							Object.entries(AUTHENTICATION_LABELS).map(([value, name]) => ({ name, value })),
						),
					},
					{
						displayName: 'Phone',
						name: 'phone',
						type: 'string',
						default: '',
						placeholder: '+15551234567',
						description: 'Mobile number in international format; needed for One-Time Code by SMS',
						displayOptions: { show: { authentication: ['sms_otp'] } },
					},
					{
						displayName: 'Signing Order',
						name: 'order',
						type: 'number',
						typeOptions: { minValue: 0 },
						// Empty, not 0, when not set (as n8n's own optional number fields): both send no order.
						default: '',
						description:
							'Signers with a lower number sign first. Leave empty (or 0) to let this signer sign at any time.',
					},
				],
			},
		],
	};
}
