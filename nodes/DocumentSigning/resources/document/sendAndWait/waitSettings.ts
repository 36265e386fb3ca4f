import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { isHitlToolType, NodeOperationError } from 'n8n-workflow';

import { layoutChoice, type LayoutChoice } from '../../../../shared/signatureLayout';
import {
	finalEventOf,
	FINAL_DOCUMENT_STATUSES,
	type FinalDocumentStatus,
} from '../../../../shared/vocabulary';
import { shownInput } from '../../../../shared/transport/text';

/**
 * What a wait needs after execute() has ended. webhook() cannot read what execute() returned, so
 * everything it must know travels in the resume URL's query, which n8n signs together with its
 * path (a caller cannot change any of it without breaking n8n's check). Parameters are read once,
 * in execute(), so expressions in them see the input item. The URL also names its workflow, its
 * n8n instance and its limit: the cleanup recognises a wait's webhook from its URL alone
 * (waitWebhooks.ts), since services may drop a webhook's other fields.
 */
export interface WaitSettings {
	documentId: string;
	/** This wait's own value: picks the webhook's secret (webhookSecret.ts) and binds each call to the wait. */
	nonce: string;
	resumeOn: ResumeOn;
	/** The output binary field for the signed PDF, or undefined for none. */
	signedFileField?: string;
	verifySignature: boolean;
	signatureLayout: LayoutChoice;
	workflowId: string;
	instanceId: string;
	/** When n8n ends the wait at the latest (epoch ms), if ever. */
	until?: number;
}

/**
 * Execution custom data key of the wait n8n keeps for the waiting execution: this wait's nonce,
 * its webhook's id, and a service-issued secret, sealed. A call whose URL's nonce differs is for
 * an earlier wait (or another node's) and is ignored.
 */
export const WAIT_CUSTOM_DATA_KEY = 'documentSigningWait';

export interface StoredWait {
	nonce: string;
	webhookId: string;
	/** A secret the service chose itself, sealed (webhookSecret.ts). */
	secret?: string;
}

/** n8n keeps custom data values up to this length (longer ones are cut, and logged as errors). */
export const MAX_CUSTOM_DATA_LENGTH = 255;

/** The custom data value of a wait: short keys, as n8n keeps at most 255 characters. */
export function storedWaitValue(wait: StoredWait): string {
	return JSON.stringify({
		n: wait.nonce,
		w: wait.webhookId,
		...(wait.secret ? { s: wait.secret } : {}),
	});
}

/** The wait n8n keeps for this execution, or undefined when there is none (or not one of ours). */
export function readStoredWait(value: unknown): StoredWait | undefined {
	try {
		const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : undefined;
		if (typeof parsed !== 'object' || parsed === null) return undefined;
		const { n: nonce, w: webhookId, s: secret } = parsed as Record<string, unknown>;
		if (
			typeof nonce !== 'string' ||
			nonce === '' ||
			typeof webhookId !== 'string' ||
			webhookId === ''
		)
			return undefined;
		return { nonce, webhookId, ...(typeof secret === 'string' ? { secret } : {}) };
	} catch {
		return undefined;
	}
}

export type ResumeOn = 'completed' | 'anyFinal';

/** The statuses a wait continues with as a result (not as an error). */
export function resumeStatuses(resumeOn: ResumeOn): readonly FinalDocumentStatus[] {
	return resumeOn === 'anyFinal' ? FINAL_DOCUMENT_STATUSES : ['completed'];
}

/** Every wait's webhook listens for every final event: a decline ends a Completed wait too (as an error). */
export const WAIT_EVENTS: readonly string[] = FINAL_DOCUMENT_STATUSES.map(finalEventOf);

const QUERY = {
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

/** The query markers that make a URL one of this package's wait links. */
export const WAIT_LINK_MARKERS = {
	nonce: QUERY.nonce,
	workflowId: QUERY.workflowId,
	instanceId: QUERY.instanceId,
	until: QUERY.until,
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

export interface WaitOptions {
	resumeOn: ResumeOn;
	signedFileField?: string;
	verifySignature: boolean;
	signatureLayout: LayoutChoice;
	/** When the wait ends at the latest; undefined waits until a final state. */
	waitTill?: Date;
}

/**
 * Whether this node runs as the human-review gate n8n 2.41 generates from it for AI agents (type
 * `…documentSigningHitlTool`, docs/ai-agents.md) rather than as the node itself.
 */
export function isReviewGate(context: IExecuteFunctions): boolean {
	// n8n-workflow before 2.x has no review gates, nor this function.
	return typeof isHitlToolType === 'function' && isHitlToolType(context.getNode().type);
}

const UNIT_SECONDS: Record<string, number> = { minutes: 60, hours: 60 * 60, days: 24 * 60 * 60 };

function refuse(
	context: IExecuteFunctions,
	parameter: string,
	problem: string,
	hint?: string,
): NodeOperationError {
	return new NodeOperationError(context.getNode(), `${parameter}: ${problem}`, {
		itemIndex: 0,
		description: hint,
	});
}

/** Reads and checks Options before any request; every failure names the option. */
export function readWaitOptions(context: IExecuteFunctions, now = Date.now()): WaitOptions {
	const options = context.getNodeParameter('waitOptions', 0, {}) as IDataObject;
	// A decline is a response too (approved false), as in n8n's own approval nodes: version 2's
	// default, and always as an agent's review gate. Version 1 keeps Completed for saved workflows.
	const resumeOn =
		options.resumeOn ??
		(context.getNode().typeVersion >= 2 || isReviewGate(context) ? 'anyFinal' : 'completed');
	if (resumeOn !== 'completed' && resumeOn !== 'anyFinal') {
		throw refuse(
			context,
			'Options › Resume On',
			`${shownInput(String(resumeOn))} is not a choice`,
			'Choose Completed or Any Final State.',
		);
	}
	let signedFileField: string | undefined;
	if (options.attachSignedFile === true) {
		signedFileField = String(options.binaryPropertyName ?? 'data').trim();
		if (!signedFileField)
			throw refuse(context, 'Options › Put Signed File in Field', 'must not be empty');
	}
	const verifySignature = options.verifySignature !== false;
	const signatureLayout = layoutChoice(options.signatureLayout);
	if (signatureLayout === 'unknown')
		throw refuse(
			context,
			'Options › Signature Layout',
			`${shownInput(String(options.signatureLayout))} is not a choice`,
		);
	return {
		resumeOn,
		signedFileField,
		verifySignature,
		signatureLayout,
		waitTill: readLimit(context, options, now),
	};
}

function readLimit(
	context: IExecuteFunctions,
	options: IDataObject,
	now: number,
): Date | undefined {
	const limit = options.limitWaitTime as IDataObject | undefined;
	const values = limit?.values as IDataObject | undefined;
	if (!values) return undefined;
	const limitType = values.limitType ?? 'afterTimeInterval';
	if (limitType === 'afterTimeInterval') {
		const amount = Number(values.resumeAmount ?? 1);
		const unit = String(values.resumeUnit ?? 'hours');
		if (!Object.hasOwn(UNIT_SECONDS, unit))
			throw refuse(
				context,
				'Options › Limit Wait Time › Unit',
				`${shownInput(unit)} is not a choice`,
				'Choose Minutes, Hours or Days.',
			);
		if (!Number.isFinite(amount) || amount <= 0) {
			throw refuse(
				context,
				'Options › Limit Wait Time › Amount',
				'must be a number above 0',
				'Remove Limit Wait Time to wait until the document reaches a final state.',
			);
		}
		return new Date(now + amount * UNIT_SECONDS[unit] * 1000);
	}
	if (limitType === 'atSpecifiedTime') {
		const raw = values.maxDateAndTime;
		const at = raw instanceof Date ? raw : new Date(String(raw ?? ''));
		if (raw === undefined || raw === '' || Number.isNaN(at.getTime())) {
			throw refuse(
				context,
				'Options › Limit Wait Time › Max Date and Time',
				'is not a valid date and time',
				'Use an ISO 8601 date and time, e.g. 2026-12-31T17:00:00Z.',
			);
		}
		if (at.getTime() <= now)
			throw refuse(
				context,
				'Options › Limit Wait Time › Max Date and Time',
				'must be in the future',
			);
		return at;
	}
	throw refuse(
		context,
		'Options › Limit Wait Time › Limit Type',
		`${shownInput(String(limitType))} is not a choice`,
	);
}
