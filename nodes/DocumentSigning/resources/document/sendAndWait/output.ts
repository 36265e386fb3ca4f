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
 * Set on every item a wait passes on: true only for a completed (signed) document. n8n's
 * human-review gate (the generated `documentSigningHitlTool`) lets the tool it gates run only when
 * its output's `approved` is true (docs/ai-agents.md); a decline, expiry or cancel is a no, and so
 * is a time-out (n8n then passes on the gate's input, which has no `approved`).
 */
export const APPROVED_FIELD = 'approved';

/** The document as the service reported it, plus whether it counts as approved. */
export function withApproval(document: IDataObject): IDataObject {
	return { ...document, [APPROVED_FIELD]: document.status === 'completed' };
}

/**
 * The item a wait passes on: the document as the service reported it with `approved`, plus the
 * signed PDF when asked for and the document is completed (no other state has a signed file).
 */
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

/**
 * A wait for Completed ended in another final state (declined, expired, cancelled): an error of
 * the node that names the status. Nothing continues as if it were signed.
 */
export function unsignedEnd(node: INode, document: IDataObject): NodeOperationError {
	const status = String(document.status);
	return new NodeOperationError(node, `The document was ${status}, not signed`, {
		itemIndex: 0,
		description: `Resume On is Completed, and the service reports document ${String(document.id)} as ${status}. Set Resume On to Any Final State to continue with every final state (approved is then false), or use Settings › On Error to route this error.`,
	});
}
