import type {
	IDataObject,
	IExecuteFunctions,
	IWebhookFunctions,
	IWorkflowExecutionCustomData,
} from 'n8n-workflow';
import { isHitlToolType, NodeOperationError } from 'n8n-workflow';

import { layoutChoice } from '../../../../shared/webhookSignature';
import { finalEventOf, FINAL_DOCUMENT_STATUSES } from '../../../../shared/vocabulary';
import { shownInput } from '../../../../shared/transport/text';

/** What webhook() must know of a wait: it travels in the resume URL's query, which n8n signs. */
export type WaitSettings = NonNullable<ReturnType<typeof fromQuery>>;

export const WAIT_CUSTOM_DATA_KEY = 'documentSigningWait';

/** n8n-core gives node contexts custom data from 2.16 on; without it no call is bound to its wait. */
export function customDataOf(
	context: IExecuteFunctions | IWebhookFunctions,
): IWorkflowExecutionCustomData | undefined {
	const { customData } = context as { customData?: Partial<IWorkflowExecutionCustomData> };
	return typeof customData?.get === 'function' && typeof customData.set === 'function'
		? (customData as IWorkflowExecutionCustomData)
		: undefined;
}

/** Keeps the wait with the execution (read back: n8n drops an 11th key or a value over 255). */
export function keepWait(context: IExecuteFunctions, n: string, w: string, s?: string): void {
	const value = JSON.stringify({ n, w, ...(s ? { s } : {}) });
	const description =
		"Each wait is kept in the execution's custom data (one key, documentSigningWait), which n8n limits to 10 keys of 255 characters. Nothing was sent.";
	const refusal = (problem: string) =>
		new NodeOperationError(
			context.getNode(),
			`Send and Wait for Signature could not keep this wait with the execution: ${problem}`,
			{ itemIndex: 0, description },
		);
	if (value.length > 255)
		throw refusal(`the service's webhook secret is too long (${value.length} characters to keep)`);
	context.customData.set(WAIT_CUSTOM_DATA_KEY, value);
	if (context.customData.get(WAIT_CUSTOM_DATA_KEY) !== value)
		throw refusal('the execution already holds 10 custom data keys');
}

export function keptWait(context: IWebhookFunctions) {
	const value = customDataOf(context)?.get(WAIT_CUSTOM_DATA_KEY);
	try {
		const { n, w, s } = (typeof value === 'string' ? JSON.parse(value) : {}) as IDataObject;
		if (typeof n !== 'string' || !n || typeof w !== 'string' || !w) return undefined;
		return { nonce: n, webhookId: w, secret: typeof s === 'string' ? s : undefined };
	} catch {
		return undefined;
	}
}

/** Whether the document's status continues the workflow as a result (not as an error). */
export const resumesWith = (resumeOn: WaitSettings['resumeOn'], status: unknown) =>
	resumeOn === 'anyFinal'
		? (FINAL_DOCUMENT_STATUSES as readonly unknown[]).includes(status)
		: status === 'completed';

/** Every final event: a decline ends a Completed wait too (as an error). */
export const WAIT_EVENTS: readonly string[] = FINAL_DOCUMENT_STATUSES.map(finalEventOf);

/** The resume URL's query; nonce, workflow, instance and until mark a wait link (waitWebhooks.ts). */
export function toQuery(
	settings: WaitSettings & { workflowId: string; instanceId: string; until?: number },
): Record<string, string> {
	return {
		document: settings.documentId,
		nonce: settings.nonce,
		resumeOn: settings.resumeOn,
		file: settings.signedFileField ?? '',
		verify: settings.verifySignature ? '1' : '0',
		layout: settings.signatureLayout,
		workflow: settings.workflowId,
		instance: settings.instanceId,
		until: settings.until === undefined ? '' : String(settings.until),
	};
}

/** The settings from a resume call's query, or undefined when any is missing (not our URL). */
export function fromQuery(query: IDataObject) {
	const text = (name: string) => (typeof query[name] === 'string' ? query[name] : undefined);
	const [documentId, nonce, resumeOn] = [text('document'), text('nonce'), text('resumeOn')];
	if (!documentId || !nonce || (resumeOn !== 'completed' && resumeOn !== 'anyFinal'))
		return undefined;
	return {
		documentId,
		nonce,
		resumeOn,
		signedFileField: text('file') || undefined,
		verifySignature: text('verify') !== '0',
		signatureLayout: layoutChoice(text('layout')),
	} as const;
}

/** Whether this node runs as the human-review gate n8n 2.41 generates from it for AI agents. */
export function isReviewGate(context: IExecuteFunctions): boolean {
	// n8n-workflow before 2.x has no review gates, nor this function.
	return typeof isHitlToolType === 'function' && isHitlToolType(context.getNode().type);
}

const UNIT_SECONDS: Record<string, number> = { minutes: 60, hours: 60 * 60, days: 24 * 60 * 60 };

/** Reads and checks Options before any request; every failure names the option. */
export function readWaitOptions(context: IExecuteFunctions) {
	const refuse = (option: string, problem: string, hint?: string) =>
		new NodeOperationError(context.getNode(), `Options › ${option}: ${problem}`, {
			itemIndex: 0,
			description: hint,
		});
	const notAChoice = (option: string, value: unknown, hint?: string) =>
		refuse(option, `${shownInput(String(value))} is not a choice`, hint);
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
