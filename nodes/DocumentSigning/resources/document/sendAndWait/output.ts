import type {
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { fetchDocumentFile } from '../../../../shared/documentFiles';

/**
 * The document plus `approved`, true only when completed: n8n's review gate runs the tool it gates
 * only when `approved` is true (docs/ai-agents.md).
 */
export function withApproval(document: IDataObject): IDataObject {
	return { ...document, approved: document.status === 'completed' };
}

/** The item a wait passes on, with the signed PDF when asked for and the document is completed. */
export async function documentOutput(
	context: IExecuteFunctions | IWebhookFunctions,
	document: IDataObject,
	signedFileField?: string,
): Promise<INodeExecutionData> {
	const item: INodeExecutionData = { json: withApproval(document), pairedItem: { item: 0 } };
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

/** A wait for Completed ended in another final state: the node's error, naming the status. */
export function unsignedEnd(node: INode, document: IDataObject): NodeOperationError {
	const status = String(document.status);
	return new NodeOperationError(node, `The document was ${status}, not signed`, {
		itemIndex: 0,
		description: `Resume On is Completed, and the service reports document ${String(document.id)} as ${status}. Set Resume On to Any Final State to continue with every final state (approved is then false), or use Settings › On Error to route this error.`,
	});
}
