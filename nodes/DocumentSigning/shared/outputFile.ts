import type { IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';

import { showFor } from './fields';
import { requireText } from './validation';

/** Where an operation that downloads a file puts it: the output binary field's name. */
export function outputFileField(resource: string, operations: string[]): INodeProperties {
	return {
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the output binary field to put the file in',
		displayOptions: showFor(resource, operations),
	};
}

/** The preSend check of outputFileField. */
export async function checkOutputFileField(
	this: IExecuteSingleFunctions,
	options: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	requireText(this, 'Put Output File in Field', this.getNodeParameter('binaryPropertyName', ''));
	return options;
}
