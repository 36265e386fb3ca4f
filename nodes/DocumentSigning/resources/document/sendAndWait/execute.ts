import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { isHitlToolType, NodeOperationError, WAIT_INDEFINITELY } from 'n8n-workflow';

import { apiPath, idText } from '../../../../shared/ids';
import * as transport from '../../../../shared/transport';
import { layoutChoice } from '../../../../shared/webhookSignature';
import * as webhooks from '../../../../shared/webhooks';
import { legacyOrderError } from '../../../shared/agentTool';
import { requireId } from '../../../shared/validation';
import { buildDocumentBody } from '../create';
import { documentSourceOf, usesDocumentFrom } from '../documentFrom';
import * as wait from './webhook';
import { LIMIT_GRACE_MS, removeStaleWaitWebhooks } from './waitWebhooks';

/** Whether this node runs as the human-review gate n8n 2.41 generates from it for AI agents. */
function isReviewGate(context: IExecuteFunctions): boolean {
	// n8n-workflow before 2.x has no review gates, nor this function.
	return typeof isHitlToolType === 'function' && isHitlToolType(context.getNode().type);
}

/** One page of the documents list (the batch's reads), and about 4 KB of ids in its resume URL. */
const MAX_BATCH_SIZE = 100;

const UNIT_SECONDS: Record<string, number> = { minutes: 60, hours: 60 * 60, days: 24 * 60 * 60 };

/** Reads and checks Options before any request; every failure names the option. */
function readWaitOptions(context: IExecuteFunctions) {
	const refuse = (option: string, problem: string, description?: string) =>
		new NodeOperationError(context.getNode(), `Options › ${option}: ${problem}`, { description });
	const notAChoice = (option: string, value: unknown, hint?: string) =>
		refuse(option, `${transport.shownInput(String(value))} is not a choice`, hint);
	const options = context.getNodeParameter('waitOptions', 0, {}) as IDataObject;
	// A decline is a response too (approved false), as in n8n's approval nodes; v1 keeps Completed.
	const resumeOn =
		options.resumeOn ??
		(context.getNode().typeVersion >= 2 || isReviewGate(context) ? 'anyFinal' : 'completed');
	if (resumeOn !== 'completed' && resumeOn !== 'anyFinal')
		throw notAChoice('Resume On', resumeOn, 'Choose Completed or Any Final State.');
	const signedFileField =
		options.attachSignedFile === true
			? String(options.binaryPropertyName ?? 'data').trim()
			: undefined;
	if (signedFileField === '') throw refuse('Put Signed File in Field', 'must not be empty');
	const signatureLayout = layoutChoice(options.signatureLayout);
	if (signatureLayout === 'unknown') throw notAChoice('Signature Layout', options.signatureLayout);

	let waitTill: Date | undefined;
	const limit = (options.limitWaitTime as { values?: IDataObject } | undefined)?.values;
	const limitType = limit?.limitType ?? 'afterTimeInterval';
	if (limit && limitType === 'afterTimeInterval') {
		const amount = Number(limit.resumeAmount ?? 1);
		const unit = String(limit.resumeUnit ?? 'hours');
		if (!Object.hasOwn(UNIT_SECONDS, unit))
			throw notAChoice('Limit Wait Time › Unit', unit, 'Choose Minutes, Hours or Days.');
		if (!Number.isFinite(amount) || amount <= 0)
			throw refuse(
				'Limit Wait Time › Amount',
				'must be a number above 0',
				'Remove Limit Wait Time to wait until the document reaches a final state.',
			);
		waitTill = new Date(Date.now() + amount * UNIT_SECONDS[unit] * 1000);
	} else if (limit && limitType === 'atSpecifiedTime') {
		const raw = limit.maxDateAndTime;
		waitTill = raw instanceof Date ? raw : new Date(String(raw ?? ''));
		if (raw === undefined || raw === '' || Number.isNaN(waitTill.getTime()))
			throw refuse(
				'Limit Wait Time › Max Date and Time',
				'is not a valid date and time',
				'Use an ISO 8601 date and time, e.g. 2026-12-31T17:00:00Z.',
			);
		if (waitTill.getTime() <= Date.now())
			throw refuse('Limit Wait Time › Max Date and Time', 'must be in the future');
	} else if (limit) throw notAChoice('Limit Wait Time › Limit Type', limitType);

	const verifySignature = options.verifySignature !== false;
	return { resumeOn, signedFileField, verifySignature, signatureLayout, waitTill } as const;
}

/** What the node sends for an item: a new document's body (Create's checks), or a draft's id. */
async function readSource(context: IExecuteFunctions, itemIndex: number) {
	const node = context.getNode();
	const fail = (message: string, description: string) =>
		new NodeOperationError(node, message, { itemIndex, description });
	const parameter = (name: string, fallback: unknown) =>
		context.getNodeParameter(name, itemIndex, fallback);
	const from = documentSourceOf(node, parameter);
	if (from === 'draft') {
		const draft = context.getNodeParameter('waitDocumentId', itemIndex, '', { extractValue: true });
		return { draftId: requireId({ node, itemIndex }, 'Draft', draft) };
	}
	if (from !== 'file' && from !== 'template')
		throw fail(
			`${usesDocumentFrom(node) ? 'Document From' : 'Document'}: ${transport.shownInput(from)} is not a choice`,
			usesDocumentFrom(node)
				? 'Choose Existing Draft, File or Template.'
				: 'Choose New Document or Existing Draft.',
		);
	if ((context.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject).draft === true)
		throw fail(
			'Additional Fields › Save as Draft: Send and Wait sends the document, so it cannot save it as a draft',
			'Remove Save as Draft, or use Document › Create to save a draft.',
		);
	const body = await buildDocumentBody({
		node,
		itemIndex,
		item: context.getInputData()[itemIndex],
		parameter,
		fileBytes: async (property) => await context.helpers.getBinaryDataBuffer(itemIndex, property),
	});
	// As a review gate, n8n's own Message tells the approver what they approve, unless the user's does.
	if (isReviewGate(context) && body.message === undefined) {
		const gateMessage = String(context.getNodeParameter('message', itemIndex, '') ?? '').trim();
		if (gateMessage) body.message = gateMessage;
	}
	// Created as a draft, sent once the webhook exists.
	return { body: { ...body, draft: true } };
}

/** The steps of docs/send-and-wait.md, in order, each over every item before the next. */
async function sendAndWait(context: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const node = context.getNode();
	const fail = (message: string, description?: string) =>
		new NodeOperationError(node, message, { description });
	const items = context.getInputData();
	const oneItem = node.typeVersion < 2;
	if (items.length > (oneItem ? 1 : MAX_BATCH_SIZE))
		throw fail(
			oneItem
				? `Send and Wait for Signature handles one document per execution, and received ${items.length} items`
				: `Send and Wait for Signature takes at most ${MAX_BATCH_SIZE} items per execution, and received ${items.length}`,
			oneItem
				? 'Put a Loop Over Items node (batch size 1) in front of it to send and wait for each item in turn, or use Document › Create for bulk sends.'
				: `Put a Loop Over Items node with a batch size of ${MAX_BATCH_SIZE} in front of it, so each batch waits in turn. Nothing was sent.`,
		);
	// n8n-core gives node contexts custom data from 2.16 on; without it no call is bound to its wait.
	const { customData } = context as Partial<IExecuteFunctions>;
	if (typeof context.getSignedResumeUrl !== 'function' || typeof customData?.set !== 'function')
		throw fail(
			'This n8n version cannot keep a wait with its execution, which Send and Wait for Signature needs',
			'Update n8n to 2.16 or later, or use Document › Create with a Document Signing Trigger. Nothing was sent.',
		);
	// Under the legacy order AI Agent 3 resumes before the gate runs: an approval would approve nothing.
	if (
		isReviewGate(context) &&
		context.getWorkflowSettings?.()?.executionOrder !== 'v1' &&
		typeof items[0].json.toolCallId === 'string'
	)
		throw legacyOrderError(node, 0);
	// An item that fails under Continue On Fail keeps an empty slot and becomes its error item.
	const failed: Array<INodeExecutionData['error']> = [];
	const orSkip = (itemIndex: number) => (error: unknown) => {
		failed[itemIndex] = transport.toNodeError(node, error, itemIndex);
		if (!context.continueOnFail()) throw failed[itemIndex];
	};
	const sources = [];
	for (const itemIndex of items.keys())
		sources[itemIndex] = await readSource(context, itemIndex).catch(orSkip(itemIndex));
	const drafts = sources.map((source) => source?.draftId).filter((id) => id !== undefined);
	if (new Set(drafts).size < drafts.length)
		throw fail('Two items name the same Existing Draft', 'Each item sends its own document.');
	const { waitTill, ...options } = readWaitOptions(context);

	const client = await transport.serviceClient(context);
	const nonce = webhooks.newNonce();
	const scope = webhooks.secretScope(context, client.credentials.apiKey, nonce);
	await removeStaleWaitWebhooks(context, scope, client);
	// Same execution, node, run, step and item, same key: no retry sent twice, each run sends its own.
	const { $runIndex } = context.getWorkflowDataProxy(0);
	const run = [context.getExecutionId(), context.getWorkflow().id, node.id ?? node.name, $runIndex];
	const keyFor = (step: string, itemIndex = 0) =>
		transport.deriveIdempotencyKey(
			'send-and-wait',
			step,
			...run,
			...(itemIndex ? [itemIndex] : []),
		);

	// Drafts this run created (deleted on failure, never a user's), and documents it sent (cancelled).
	const created = { webhookId: '', drafts: [] as string[], sent: [] as string[] };
	const [ids, createdAt]: Array<string | undefined>[] = [[], []];
	try {
		for (const [itemIndex, source] of sources.entries()) {
			ids[itemIndex] = source?.draftId;
			// A batch reads each Existing Draft: its created_at bounds the batch's reads (`since`).
			if (!source || (source.draftId !== undefined && items.length === 1)) continue;
			const answer = await (
				source.draftId === undefined
					? transport.apiRequest(context, 'POST', '/documents', {
							client,
							body: source.body,
							idempotencyKey: keyFor('create', itemIndex),
						})
					: transport.apiRequest(context, 'GET', apiPath`/documents/${source.draftId}`, { client })
			).catch(orSkip(itemIndex));
			const document = answer && transport.recordOf(answer.body);
			ids[itemIndex] = document ? idText(document.id) : undefined;
			if (document && ids[itemIndex] === undefined)
				throw fail('The service did not return an ID for the new document');
			if (source.body && ids[itemIndex]) created.drafts.push(ids[itemIndex]);
			createdAt.push(document?.created_at as string | undefined);
		}
		if (ids.every((id) => id === undefined))
			return [items.map((_, item) => wait.failedItem(node, item, failed[item]))];
		// Without a created_at from the service, a batch's documents are read one by one.
		const since = items.length > 1 ? (createdAt.filter(Boolean).sort()[0] ?? '') : undefined;

		const registered = await webhooks.registerWebhook(context, client, {
			// What webhook() must know of the wait (fromQuery); owner and until are the cleanup's (ownWait).
			url: context.getSignedResumeUrl({
				...(since === undefined
					? { document: String(ids[0]) }
					: { documents: ids.join(','), since }),
				nonce,
				resumeOn: options.resumeOn,
				file: options.signedFileField ?? '',
				verify: options.verifySignature ? '1' : '0',
				layout: options.signatureLayout,
				owner: webhooks.ownerTag(scope.workflowId, scope.nodeId),
				until: waitTill ? String(waitTill.getTime()) : '',
			}),
			events: wait.WAIT_EVENTS,
			description: webhooks.registrationDescription(
				`n8n Send and Wait for Signature (workflow ${scope.workflowId})`,
				scope,
			),
			scope,
			idempotencyKey: keyFor('webhook'),
			// Optional at the service: a service that ignores them still works (webhook() filters).
			extra: {
				document_id: since === undefined ? ids[0] : undefined,
				expires_at: waitTill && new Date(waitTill.getTime() + LIMIT_GRACE_MS).toISOString(),
			},
		});
		created.webhookId = registered.id;
		wait.keepWait(context, nonce, registered.id, registered.sealedSecret);

		for (const [itemIndex, id] of ids.entries()) {
			if (id === undefined) continue;
			await transport.apiRequest(context, 'POST', '/signatures/request', {
				client,
				body: { document_id: id },
				idempotencyKey: keyFor('send', itemIndex),
			});
			created.sent.push(id);
		}
		// Sent: from here on the documents are the user's, whatever happens.
		created.sent = created.drafts = [];

		// Signers may have been faster than this line: then there is nothing to wait for.
		const documents = await wait.readDocuments(context, client, ids, since);
		if (documents.every((document) => !document || wait.hasEnded(document))) {
			await webhooks.removeWebhook(context, created.webhookId, client);
			const unsigned = documents.find((d) => d && !wait.resumesWith(options.resumeOn, d.status));
			if (unsigned && !context.continueOnFail()) throw wait.unsignedEnd(node, unsigned);
			return await wait.waitOutput(context, documents, options, failed);
		}

		await context.putExecutionToWait(waitTill ?? WAIT_INDEFINITELY);
		return [
			documents.map((json, item) =>
				json ? { json, pairedItem: { item } } : wait.failedItem(node, item, failed[item]),
			),
		];
	} catch (error) {
		// Removes what this run created: its webhook, its drafts, and cancels what it sent.
		try {
			if (created.webhookId) await webhooks.removeWebhook(context, created.webhookId, client);
			const gone = { client, acceptStatuses: [404] };
			for (const id of [...created.drafts, ...created.sent])
				await transport.apiRequest(context, 'DELETE', apiPath`/documents/${id}`, gone);
		} catch (cleanupError) {
			context.logger.warn(
				'Document Signing: could not remove what a failed Send and Wait created; the next Send and Wait of this workflow removes its webhook',
				{ error: (cleanupError as Error).message },
			);
		}
		const nodeError = transport.toNodeError(node, error);
		if (created.sent.length > 0)
			nodeError.description =
				`${nodeError.description ?? ''} Cancelled the documents already sent: ${created.sent.join(', ')}.`.trim();
		throw nodeError;
	}
}

export async function executeSendAndWait(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	try {
		return await sendAndWait(this);
	} catch (error) {
		const nodeError = transport.toNodeError(this.getNode(), error);
		if (!this.continueOnFail()) throw nodeError;
		return [this.getInputData().map((_, item) => wait.failedItem(this.getNode(), item, nodeError))];
	}
}
