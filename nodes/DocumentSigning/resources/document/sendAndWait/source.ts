import type {
	IDataObject,
	IExecuteFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { shownInput } from '../../../../shared/transport/text';
import { requireId } from '../../../shared/validation';
import { buildDocumentBody } from '../create';
import { isReviewGate } from './waitSettings';

/** Create's input checks, run for item 0 through the interface they were written for. */
function singleItemContext(context: IExecuteFunctions): IExecuteSingleFunctions {
	const adapter = {
		getNode: () => context.getNode(),
		getItemIndex: () => 0,
		getInputData: () => context.getInputData()[0],
		getNodeParameter: (name: string, fallback?: unknown, options?: IDataObject) =>
			context.getNodeParameter(name, 0, fallback, options),
		helpers: {
			assertBinaryData: (property: string) => context.helpers.assertBinaryData(0, property),
			getBinaryDataBuffer: async (property: string) =>
				await context.helpers.getBinaryDataBuffer(0, property),
		},
	};
	return adapter as unknown as IExecuteSingleFunctions;
}

/** What the node sends: a new document's body (to create as a draft), or an existing draft's id. */
export async function readSource(
	context: IExecuteFunctions,
): Promise<{ kind: 'new'; body: IDataObject } | { kind: 'draft'; draftId: string }> {
	const single = singleItemContext(context);
	const kind = context.getNodeParameter('documentSource', 0, 'new') as string;
	if (kind === 'draft') return { kind, draftId: requireId(single, 'waitDocumentId', 'Draft') };
	if (kind !== 'new')
		throw new NodeOperationError(
			context.getNode(),
			`Document: ${shownInput(String(kind))} is not a choice`,
			{
				itemIndex: 0,
				description: 'Choose New Document or Existing Draft.',
			},
		);
	const additional = context.getNodeParameter('additionalFields', 0, {}) as IDataObject;
	if (additional.draft === true)
		throw new NodeOperationError(
			context.getNode(),
			'Additional Fields › Save as Draft: Send and Wait sends the document, so it cannot save it as a draft',
			{
				itemIndex: 0,
				description: 'Remove Save as Draft, or use Document › Create to save a draft.',
			},
		);
	const options = (await buildDocumentBody.call(
		single,
		{} as IHttpRequestOptions,
	)) as IHttpRequestOptions;
	const body: IDataObject = { ...(options.body as IDataObject) };
	// As a review gate, n8n's own Message ("The agent wants to run this tool: …") tells the approver
	// what they approve, unless Additional Fields › Message says otherwise.
	if (isReviewGate(context) && body.message === undefined) {
		const gateMessage = String(context.getNodeParameter('message', 0, '') ?? '').trim();
		if (gateMessage) body.message = gateMessage;
	}
	// Created as a draft, sent once the webhook exists.
	return { kind, body: { ...body, draft: true } };
}
