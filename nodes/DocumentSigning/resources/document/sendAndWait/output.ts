import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IWebhookFunctions,
} from 'n8n-workflow';

import { fetchDocumentFile } from '../../../../shared/documentFiles';

/**
 * The item a wait passes on: the document as the service reported it, plus the signed PDF when
 * asked for and the document is completed (no other state has a signed file).
 */
export async function documentOutput(
	context: IExecuteFunctions | IWebhookFunctions,
	document: IDataObject,
	signedFileField?: string,
): Promise<INodeExecutionData> {
	const item: INodeExecutionData = { json: document, pairedItem: { item: 0 } };
	if (!signedFileField || document.status !== 'completed') return item;
	const file = await fetchDocumentFile(context, document, 'signed');
	item.binary = {
		[signedFileField]: await context.helpers.prepareBinaryData(
			file.data,
			file.fileName,
			file.mimeType,
		),
	};
	return item;
}
