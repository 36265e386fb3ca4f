import type { INodeProperties } from 'n8n-workflow';

import { showForPathParameter } from '../../shared/operation';

/** Signing Request ID, shown with every operation whose path takes `{signingRequestId}`. */
export function signingRequestIdFields(operations: INodeProperties): INodeProperties[] {
	return [
		{
			displayName: 'Signing Request ID',
			name: 'signingRequestId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'sr_4k2m9q',
			description:
				"The signing request's ID, e.g. from a document's signature_request_id or a trigger event",
			displayOptions: showForPathParameter(operations, 'signingRequestId'),
		},
	];
}
