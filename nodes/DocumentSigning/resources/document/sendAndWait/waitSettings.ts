import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	finalEventOf,
	FINAL_DOCUMENT_STATUSES,
	type FinalDocumentStatus,
} from '../../../../shared/vocabulary';

/**
 * What a wait needs after execute() has ended. webhook() cannot read what execute() returned, so
 * everything it must know travels in the resume URL's query, which n8n signs together with its
 * path (a caller cannot change any of it without breaking n8n's check). Parameters are read once,
 * in execute(), so expressions in them see the input item.
 */
export interface WaitSettings {
	documentId: string;
	/** Picks the webhook's secret (webhookSecret.ts); random per wait. */
	nonce: string;
	resumeOn: ResumeOn;
	/** The output binary field for the signed PDF, or undefined for none. */
	signedFileField?: string;
	verifySignature: boolean;
}

/** Execution custom data key holding the wait's webhook id (and a service-issued secret, sealed). */
export const WAIT_CUSTOM_DATA_KEY = 'documentSigningWait';

export type ResumeOn = 'completed' | 'anyFinal';

/** The statuses a wait resumes on. */
export function resumeStatuses(resumeOn: ResumeOn): readonly FinalDocumentStatus[] {
	return resumeOn === 'anyFinal' ? FINAL_DOCUMENT_STATUSES : ['completed'];
}

/** The events the wait's webhook subscribes to: exactly those of the statuses it resumes on. */
export function resumeEvents(resumeOn: ResumeOn): string[] {
	return resumeStatuses(resumeOn).map(finalEventOf);
}

const QUERY = {
	documentId: 'document',
	nonce: 'nonce',
	resumeOn: 'resumeOn',
	signedFileField: 'file',
	verifySignature: 'verify',
} as const;

export function toQuery(settings: WaitSettings): Record<string, string> {
	return {
		[QUERY.documentId]: settings.documentId,
		[QUERY.nonce]: settings.nonce,
		[QUERY.resumeOn]: settings.resumeOn,
		[QUERY.signedFileField]: settings.signedFileField ?? '',
		[QUERY.verifySignature]: settings.verifySignature ? '1' : '0',
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
	return {
		documentId,
		nonce,
		resumeOn,
		signedFileField: text(QUERY.signedFileField) || undefined,
		// Anything but an explicit "0" verifies.
		verifySignature: text(QUERY.verifySignature) !== '0',
	};
}

export interface WaitOptions {
	resumeOn: ResumeOn;
	signedFileField?: string;
	verifySignature: boolean;
	/** When the wait ends at the latest; undefined waits until a final state. */
	waitTill?: Date;
}

/**
 * Whether this node runs as the human-review gate n8n 2.41 generates from it for AI agents (type
 * `…documentSigningHitlTool`, docs/ai-agents.md) rather than as the node itself.
 */
export function isReviewGate(context: IExecuteFunctions): boolean {
	return context.getNode().type.endsWith('HitlTool');
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
	// As a review gate a decline is an answer too (no), not a reason to keep the agent waiting.
	const resumeOn = options.resumeOn ?? (isReviewGate(context) ? 'anyFinal' : 'completed');
	if (resumeOn !== 'completed' && resumeOn !== 'anyFinal') {
		throw refuse(
			context,
			'Options › Resume On',
			`"${String(resumeOn)}" is not a choice`,
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
	return { resumeOn, signedFileField, verifySignature, waitTill: readLimit(context, options, now) };
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
		if (!(unit in UNIT_SECONDS))
			throw refuse(
				context,
				'Options › Limit Wait Time › Unit',
				`"${unit}" is not a choice`,
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
		`"${String(limitType)}" is not a choice`,
	);
}
