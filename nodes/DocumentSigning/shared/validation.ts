import type { IDataObject, IExecuteSingleFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ID_HINT, idProblem, idText } from '../../shared/ids';
import { shownInput } from '../../shared/transport';
import { LIMITS, PHONE_PATTERN, SIGNER_AUTHENTICATION_METHODS } from '../../shared/vocabulary';

/** Whose input is checked: an item's context, or its node and index where there is none. */
type Context =
	| Pick<IExecuteSingleFunctions, 'getNode' | 'getItemIndex'>
	| { node: INode; itemIndex: number };

export const isEmpty = (value: unknown) => value === undefined || value === null || value === '';

/** An input error, naming the parameter as the editor shows it. */
export function invalid(
	context: Context,
	parameter: string,
	problem: string,
	hint?: string,
): NodeOperationError {
	const [node, itemIndex] =
		'node' in context
			? [context.node, context.itemIndex]
			: [context.getNode(), context.getItemIndex()];
	return new NodeOperationError(node, `${parameter}: ${problem}`, {
		itemIndex,
		description: hint,
	});
}

/** Characters no address here may hold (a single class, tested once: linear in the length). */
const NOT_IN_EMAIL = /[\s@"<>()[\],;:]/;

/** `local@domain.tld`: one `@`, non-empty labels, the last of 2 characters or more; 254 at most. */
function isEmail(value: string): boolean {
	const at = value.indexOf('@');
	if (value.length > 254 || at < 1 || at > 64 || NOT_IN_EMAIL.test(value.slice(0, at)))
		return false;
	const labels = value.slice(at + 1).split('.');
	return (
		labels.length >= 2 &&
		labels.every((label) => label !== '' && !NOT_IN_EMAIL.test(label)) &&
		labels[labels.length - 1].length >= 2
	);
}

export function requireText(context: Context, parameter: string, value: unknown): string {
	const text = String(value ?? '').trim();
	if (!text) throw invalid(context, parameter, 'must not be empty');
	return text;
}

export function requireEmail(context: Context, parameter: string, value: unknown): string {
	const email = requireText(context, parameter, value);
	if (!isEmail(email))
		throw invalid(context, parameter, `${shownInput(email)} is not a valid email address`);
	return email;
}

/** The ID of a parameter's value (a resource locator's, extracted, or a plain field's; text or a number). */
export function requireId(context: Context, displayName: string, value: unknown): string {
	const id = requireText(context, displayName, idText(value) ?? value);
	const problem = idProblem(id);
	if (problem) throw invalid(context, displayName, problem, ID_HINT);
	return id;
}

/** A date or date-time parameter as an ISO 8601 string, or undefined when left empty. */
export function optionalDate(
	context: Context,
	parameter: string,
	value: unknown,
): string | undefined {
	if (isEmpty(value)) return undefined;
	const text = String(value);
	// No date is longer; a longer value is not handed to the date parser at all.
	const time = text.length <= 100 ? Date.parse(text) : NaN;
	if (!Number.isFinite(time))
		throw invalid(context, parameter, `${shownInput(text)} is not a valid date`);
	return new Date(time).toISOString();
}

/** Additional Fields › Expires At as an ISO 8601 string, refused unless in the future. */
export function expiresAt(context: Context, value: unknown): string | undefined {
	const parameter = 'Additional Fields › Expires At';
	const date = optionalDate(context, parameter, value);
	if (date && Date.parse(date) <= Date.now())
		throw invalid(context, parameter, 'must be in the future');
	return date;
}

function parseJsonObject(context: Context, parameter: string, raw: unknown): IDataObject {
	if (isEmpty(raw)) return {};
	const hint = 'Enter a JSON object such as {"key": "value"}.';
	let value = raw;
	if (typeof raw === 'string') {
		try {
			value = JSON.parse(raw);
		} catch (error) {
			throw invalid(context, parameter, `is not valid JSON (${(error as Error).message})`, hint);
		}
	}
	if (typeof value !== 'object' || value === null || Array.isArray(value))
		throw invalid(context, parameter, 'must be a JSON object', hint);
	return value as IDataObject;
}

export function readSigners(
	context: Context,
	value: unknown,
	required: boolean,
): IDataObject[] | undefined {
	const entries = ((value ?? {}) as { signer?: IDataObject[] }).signer ?? [];
	if (!entries.length) {
		if (!required) return undefined;
		const hint = 'Every document needs someone to sign it.';
		throw invalid(context, 'Signers', 'add at least one signer', hint);
	}
	const seen = new Set<string>();
	return entries.map((entry, index) => {
		const label = (field: string) => `Signers › Signer ${index + 1} › ${field}`;
		const email = requireEmail(context, label('Email'), entry.email);
		const signer: IDataObject = { email, name: requireText(context, label('Name'), entry.name) };
		if (seen.has(email.toLowerCase()))
			throw invalid(context, label('Email'), `${email} is listed more than once`);
		seen.add(email.toLowerCase());
		const order = Number(entry.order ?? 0);
		if (!Number.isInteger(order) || order < 0 || order > LIMITS.maxSigningOrder) {
			const problem = `must be a whole number from 0 to ${LIMITS.maxSigningOrder}`;
			throw invalid(context, label('Signing Order'), problem);
		}
		if (order > 0) signer.order = order;
		const authentication = String(entry.authentication ?? 'none');
		if (!(SIGNER_AUTHENTICATION_METHODS as readonly string[]).includes(authentication)) {
			const problem = `${shownInput(authentication)} is not a known method`;
			throw invalid(context, label('Authentication'), problem);
		}
		if (authentication !== 'none') signer.authentication = authentication;
		if (authentication === 'sms_otp') {
			const phone = requireText(context, label('Phone'), entry.phone);
			signer.phone = phone.replace(/[\s()-]/g, '');
			if (!PHONE_PATTERN.test(signer.phone as string)) {
				const problem = `${shownInput(phone)} is not an international number such as +15551234567`;
				throw invalid(context, label('Phone'), problem);
			}
		}
		return signer;
	});
}

/** Metadata is a flat map of strings: numbers and booleans are written as text, anything else refused. */
export function readMetadata(
	context: Context,
	parameter: string,
	raw: unknown,
): IDataObject | undefined {
	const entries = Object.entries(parseJsonObject(context, parameter, raw));
	if (!entries.length) return undefined;
	if (entries.length > LIMITS.maxMetadataKeys) {
		const problem = `has ${entries.length} keys; at most ${LIMITS.maxMetadataKeys} are kept`;
		throw invalid(context, parameter, problem);
	}
	const result: IDataObject = {};
	for (const [key, value] of entries) {
		if (typeof value === 'string') result[key] = value;
		else if (typeof value === 'number' || typeof value === 'boolean') result[key] = String(value);
		else {
			const problem = `the value of ${shownInput(key)} must be text, a number or true/false`;
			throw invalid(context, parameter, problem);
		}
	}
	return result;
}

/** The body from the fields a user filled in (empty ones dropped), Extra Body Fields (JSON) merged over it. */
export function requestBody(context: Context, fields: IDataObject, extra: unknown): IDataObject {
	return { ...compact(fields), ...parseJsonObject(context, 'Extra Body Fields (JSON)', extra) };
}

export function compact(source: IDataObject): IDataObject {
	return Object.fromEntries(Object.entries(source).filter(([, value]) => !isEmpty(value)));
}
