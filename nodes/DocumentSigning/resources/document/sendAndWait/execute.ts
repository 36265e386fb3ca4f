import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError, WAIT_INDEFINITELY } from 'n8n-workflow';

import { apiPath, idText } from '../../../../shared/ids';
import {
	apiRequest,
	deriveIdempotencyKey,
	recordOf,
	serviceClient,
	toNodeError,
	type ServiceClient,
} from '../../../../shared/transport';
import { newNonce } from '../../../../shared/webhookSecret';
import { registerWebhook, removeWebhook, secretScope } from '../../../../shared/webhooks';
import { FINAL_DOCUMENT_STATUSES } from '../../../../shared/vocabulary';
import { legacyOrderError } from '../../../shared/agentTool';
import { readSource } from './source';
import { documentOutput, unsignedEnd } from './output';
import {
	isReviewGate,
	MAX_CUSTOM_DATA_LENGTH,
	readWaitOptions,
	resumeStatuses,
	storedWaitValue,
	toQuery,
	WAIT_CUSTOM_DATA_KEY,
	WAIT_EVENTS,
	type StoredWait,
} from './waitSettings';
import { LIMIT_GRACE_MS, removeStaleWaitWebhooks, waitOwner } from './waitWebhooks';

/** Send and Wait for Signature's execute(): the steps of docs/send-and-wait.md, in order. */

/** Same execution, node, run and step, same key: no retry sent twice, each run sends its own. */
function keyFor(context: IExecuteFunctions, step: string): string {
	const node = context.getNode();
	const runIndex = Number(context.getWorkflowDataProxy(0).$runIndex ?? 0);
	return deriveIdempotencyKey(
		'send-and-wait',
		step,
		context.getExecutionId(),
		context.getWorkflow().id,
		node.id ?? node.name,
		Number.isInteger(runIndex) ? runIndex : 0,
	);
}

/** Keeps the wait with the execution: unkept, nothing would bind calls to it, so it is refused. */
function keepWait(context: IExecuteFunctions, wait: StoredWait): void {
	const value = storedWaitValue(wait);
	const refusal = (problem: string) =>
		new NodeOperationError(
			context.getNode(),
			`Send and Wait for Signature could not keep this wait with the execution: ${problem}`,
			{
				itemIndex: 0,
				description:
					"Each wait is kept in the execution's custom data (one key, documentSigningWait), which n8n limits to 10 keys of 255 characters. Nothing was sent.",
			},
		);
	if (value.length > MAX_CUSTOM_DATA_LENGTH)
		throw refusal(`the service's webhook secret is too long (${value.length} characters to keep)`);
	context.customData.set(WAIT_CUSTOM_DATA_KEY, value);
	if (context.customData.get(WAIT_CUSTOM_DATA_KEY) !== value)
		throw refusal('the execution already holds 10 custom data keys');
}

/** Removes what a failed run created: its webhook, and the draft it created (never a user's). */
async function cleanUp(
	context: IExecuteFunctions,
	client: ServiceClient,
	created: { webhookId?: string; draftId?: string },
): Promise<void> {
	try {
		if (created.webhookId) await removeWebhook(context, created.webhookId, client);
		if (created.draftId)
			await apiRequest(context, 'DELETE', apiPath`/documents/${created.draftId}`, {
				client,
				acceptStatuses: [404],
			});
	} catch (error) {
		context.logger.warn(
			'Document Signing: could not remove what a failed Send and Wait created; the next Send and Wait of this workflow removes its webhook',
			{ error: (error as Error).message },
		);
	}
}

async function sendAndWait(context: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const node = context.getNode();
	const items = context.getInputData();
	if (items.length !== 1)
		throw new NodeOperationError(
			node,
			`Send and Wait for Signature handles one document per execution, and received ${items.length} items`,
			{
				description:
					'Put a Loop Over Items node (batch size 1) in front of it to send and wait for each item in turn, or use Document › Create for bulk sends.',
			},
		);
	// n8n-core gives node contexts custom data from 2.16 on; before that nothing would bind a
	// resume call to its wait.
	const customData = (context as { customData?: Partial<IExecuteFunctions['customData']> })
		.customData;
	if (typeof context.getSignedResumeUrl !== 'function' || typeof customData?.set !== 'function')
		throw new NodeOperationError(
			node,
			'This n8n version cannot keep a wait with its execution, which Send and Wait for Signature needs',
			{
				description:
					'Update n8n to 2.16 or later, or use Document › Create with a Document Signing Trigger. Nothing was sent.',
			},
		);
	// As a review gate under the legacy order, AI Agent 3 resumes before the gate runs and tells the
	// model the call was rejected: an approval sent afterwards would approve nothing.
	if (
		isReviewGate(context) &&
		context.getWorkflowSettings?.()?.executionOrder !== 'v1' &&
		typeof items[0].json.toolCallId === 'string'
	)
		throw legacyOrderError(node, 0);
	// Every check before any request.
	const source = await readSource(context);
	const { waitTill, ...options } = readWaitOptions(context);

	const client = await serviceClient(context);
	const nonce = newNonce();
	const owner = waitOwner(context);
	await removeStaleWaitWebhooks(context, owner, client);

	const created: { webhookId?: string; draftId?: string } = {};
	try {
		let documentId: string;
		if (source.kind === 'new') {
			const draft = await apiRequest(context, 'POST', '/documents', {
				client,
				body: source.body,
				idempotencyKey: keyFor(context, 'create'),
			});
			const id = idText(recordOf(draft.body).id);
			if (id === undefined)
				throw new NodeOperationError(node, 'The service did not return an ID for the new document');
			documentId = created.draftId = id;
		} else {
			documentId = source.draftId;
		}

		const registered = await registerWebhook(context, client, {
			url: context.getSignedResumeUrl(
				toQuery({
					...options,
					documentId,
					nonce,
					workflowId: owner.workflowId,
					instanceId: owner.instanceId,
					until: waitTill?.getTime(),
				}),
			),
			events: WAIT_EVENTS,
			description: `n8n Send and Wait for Signature (workflow ${owner.workflowId})`,
			scope: secretScope(context, client.credentials.apiKey, nonce),
			idempotencyKey: keyFor(context, 'webhook'),
			// [A] Optional at the service: only this document's events, and removed after the limit.
			// A service that ignores them still works: webhook() filters, and cleanup removes it.
			extra: {
				document_id: documentId,
				...(waitTill
					? { expires_at: new Date(waitTill.getTime() + LIMIT_GRACE_MS).toISOString() }
					: {}),
			},
		});
		created.webhookId = registered.id;
		keepWait(context, { nonce, webhookId: registered.id, secret: registered.sealedSecret });

		await apiRequest(context, 'POST', '/signatures/request', {
			client,
			body: { document_id: documentId },
			idempotencyKey: keyFor(context, 'send'),
		});
		// Sent: from here on the document is the user's, whatever happens.
		created.draftId = undefined;

		// Signers may have been faster than this line: then there is nothing to wait for.
		const read = await apiRequest(context, 'GET', apiPath`/documents/${documentId}`, { client });
		const document = recordOf(read.body);
		if ((FINAL_DOCUMENT_STATUSES as readonly unknown[]).includes(document.status)) {
			await removeWebhook(context, created.webhookId, client);
			if (!(resumeStatuses(options.resumeOn) as readonly unknown[]).includes(document.status))
				throw unsignedEnd(node, document);
			return [[await documentOutput(context, document, options.signedFileField)]];
		}

		await context.putExecutionToWait(waitTill ?? WAIT_INDEFINITELY);
		return [[{ json: document, pairedItem: { item: 0 } }]];
	} catch (error) {
		await cleanUp(context, client, created);
		throw toNodeError(node, error, 0);
	}
}

/** The custom operation n8n calls for document › sendAndWait. */
export async function executeSendAndWait(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	try {
		return await sendAndWait(this);
	} catch (error) {
		const nodeError = toNodeError(this.getNode(), error, 0);
		if (!this.continueOnFail()) throw nodeError;
		return [
			this.getInputData().map((_item, index) => ({
				json: { error: nodeError.message },
				error: nodeError,
				pairedItem: { item: index },
			})),
		];
	}
}
