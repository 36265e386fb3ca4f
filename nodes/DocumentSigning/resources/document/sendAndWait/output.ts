import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IWebhookFunctions,
} from 'n8n-workflow';

import { fetchDocumentFile } from '../../../../shared/documentFiles';

/**
 * Set on every item a wait passes on: true only for a completed (signed) document. n8n's
 * human-review gate (the generated `documentSigningHitlTool`) lets the tool it gates run only when
 * its output's `approved` is true (docs/ai-agents.md); a decline, expiry, cancel or timeout is a no.
 */
export const APPROVED_FIELD = 'approved';

/** The document as the service reported it, plus whether it counts as approved. */
export function withApproval(document: IDataObject, timedOut = false): IDataObject {
	return { ...document, [APPROVED_FIELD]: !timedOut && document.status === 'completed' };
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
