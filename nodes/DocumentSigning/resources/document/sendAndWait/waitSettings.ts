import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { isHitlToolType, NodeOperationError } from 'n8n-workflow';

import { layoutChoice, type LayoutChoice } from '../../../../shared/signatureLayout';
import {
	finalEventOf,
	FINAL_DOCUMENT_STATUSES,
	type FinalDocumentStatus,
} from '../../../../shared/vocabulary';
import { shownInput } from '../../../../shared/transport/text';

export type ResumeOn = 'completed' | 'anyFinal';

/** Options, read once in execute() so that expressions in them see the input item. */
export interface WaitOptions {
	resumeOn: ResumeOn;
	/** The output binary field for the signed PDF, or undefined for none. */
	signedFileField?: string;
	verifySignature: boolean;
	signatureLayout: LayoutChoice;
	/** When n8n ends the wait at the latest; undefined waits until a final state. */
	waitTill?: Date;
}

/**
 * What webhook() must know of a wait. It cannot read what execute() returned, so this travels in
 * the resume URL's query, which n8n signs with the path.
 */
export interface WaitSettings extends Omit<WaitOptions, 'waitTill'> {
	documentId: string;
	/** Random per wait: picks the webhook's secret and binds each call to the wait. */
	nonce: string;
	workflowId: string;
	instanceId: string;
	/** waitTill in epoch ms. */
	until?: number;
}

/** Custom data key of the wait n8n keeps with the waiting execution. */
export const WAIT_CUSTOM_DATA_KEY = 'documentSigningWait';

/** n8n keeps custom data values up to this length. */
export const MAX_CUSTOM_DATA_LENGTH = 255;

export interface StoredWait {
	nonce: string;
	webhookId: string;
	/** A secret the service chose itself, sealed (webhookSecret.ts). */
	secret?: string;
}

/** Short keys, as n8n keeps at most 255 characters. */
export function storedWaitValue({ nonce, webhookId, secret }: StoredWait): string {
	return JSON.stringify({ n: nonce, w: webhookId, ...(secret ? { s: secret } : {}) });
}

/** The wait n8n keeps for this execution, or undefined when there is none (or not one of ours). */
export function readStoredWait(value: unknown): StoredWait | undefined {
	try {
		const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : undefined;
		const { n: nonce, w: webhookId, s: secret } = (parsed ?? {}) as Record<string, unknown>;
		if (typeof nonce !== 'string' || !nonce || typeof webhookId !== 'string' || !webhookId)
			return undefined;
		return { nonce, webhookId, ...(typeof secret === 'string' ? { secret } : {}) };
	} catch {
		return undefined;
	}
}

/** The statuses a wait continues with as a result (not as an error). */
export function resumeStatuses(resumeOn: ResumeOn): readonly FinalDocumentStatus[] {
	return resumeOn === 'anyFinal' ? FINAL_DOCUMENT_STATUSES : ['completed'];
}

/** Every final event: a decline ends a Completed wait too (as an error). */
export const WAIT_EVENTS: readonly string[] = FINAL_DOCUMENT_STATUSES.map(finalEventOf);

/** The resume URL's query names; nonce, workflow, instance and until mark a wait link. */
export const QUERY = {
	documentId: 'document',
	nonce: 'nonce',
	resumeOn: 'resumeOn',
	signedFileField: 'file',
	verifySignature: 'verify',
	signatureLayout: 'layout',
	workflowId: 'workflow',
	instanceId: 'instance',
	until: 'until',
} as const;

export function toQuery(settings: WaitSettings): Record<string, string> {
	return {
		[QUERY.documentId]: settings.documentId,
		[QUERY.nonce]: settings.nonce,
		[QUERY.resumeOn]: settings.resumeOn,
		[QUERY.signedFileField]: settings.signedFileField ?? '',
		[QUERY.verifySignature]: settings.verifySignature ? '1' : '0',
		[QUERY.signatureLayout]: settings.signatureLayout,
		[QUERY.workflowId]: settings.workflowId,
		[QUERY.instanceId]: settings.instanceId,
		[QUERY.until]: settings.until === undefined ? '' : String(settings.until),
	};
}

/** The settings from a resume call's query, or undefined when any is missing (not our URL). */
export function fromQuery(query: IDataObject | undefined): WaitSettings | undefined {
	const text = (name: string) =>
		typeof query?.[name] === 'string' ? (query[name] as string) : undefined;
	const documentId = text(QUERY.documentId);
	const nonce = text(QUERY.nonce);
	const resumeOn = text(QUERY.resumeOn);
	if (!documentId || !nonce || (resumeOn !== 'completed' && resumeOn !== 'anyFinal'))
		return undefined;
	const until = Number(text(QUERY.until) || NaN);
	return {
		documentId,
		nonce,
		resumeOn,
		signedFileField: text(QUERY.signedFileField) || undefined,
		// Anything but an explicit "0" verifies.
		verifySignature: text(QUERY.verifySignature) !== '0',
		signatureLayout: layoutChoice(text(QUERY.signatureLayout)),
		workflowId: text(QUERY.workflowId) ?? '',
		instanceId: text(QUERY.instanceId) ?? '',
		until: Number.isFinite(until) ? until : undefined,
	};
}

/** Whether this node runs as the human-review gate n8n 2.41 generates from it for AI agents. */
export function isReviewGate(context: IExecuteFunctions): boolean {
	// n8n-workflow before 2.x has no review gates, nor this function.
	return typeof isHitlToolType === 'function' && isHitlToolType(context.getNode().type);
}

const UNIT_SECONDS: Record<string, number> = { minutes: 60, hours: 60 * 60, days: 24 * 60 * 60 };

/** Reads and checks Options before any request; every failure names the option. */
export function readWaitOptions(context: IExecuteFunctions): WaitOptions {
	const refuse = (option: string, problem: string, hint?: string) =>
		new NodeOperationError(context.getNode(), `Options › ${option}: ${problem}`, {
			itemIndex: 0,
			description: hint,
		});
	const notAChoice = (option: string, value: unknown, hint?: string) =>
		refuse(option, `${shownInput(String(value))} is not a choice`, hint);
	const options = context.getNodeParameter('waitOptions', 0, {}) as IDataObject;
	// A decline is a response too (approved false), as in n8n's own approval nodes: version 2's
	// default, and always as an agent's review gate. Version 1 keeps Completed for saved workflows.
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
	return { resumeOn, signedFileField, verifySignature, signatureLayout, waitTill };
}
