import type { IDataObject, IExecuteSingleFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ID_HINT, idProblem, idText } from '../../shared/ids';
import { shownInput } from '../../shared/transport/text';
import { LIMITS, PHONE_PATTERN, SIGNER_AUTHENTICATION_METHODS } from '../../shared/vocabulary';

/** An input error, naming the parameter as the editor shows it. */
export function invalid(
	context: IExecuteSingleFunctions,
	parameter: string,
	problem: string,
	hint?: string,
): NodeOperationError {
	return new NodeOperationError(context.getNode(), `${parameter}: ${problem}`, {
		itemIndex: context.getItemIndex(),
		description: hint,
	});
}

/** RFC 5321's longest address; anything longer is refused before it is looked at further. */
const MAX_EMAIL_LENGTH = 254;
/** Characters no address here may hold (a single class, tested once: linear in the length). */
const NOT_IN_EMAIL = /[\s@"<>()[\],;:]/;

/**
 * `local@domain.tld`: one `@`, no spaces or list punctuation, non-empty domain labels, the last of
 * two characters or more. Length first, then no pattern that can backtrack.
 */
export function isEmail(value: string): boolean {
	if (value.length > MAX_EMAIL_LENGTH) return false;
	const at = value.indexOf('@');
	if (at < 1 || at > 64) return false;
	const local = value.slice(0, at);
	const labels = value.slice(at + 1).split('.');
	if (NOT_IN_EMAIL.test(local) || labels.length < 2) return false;
	return (
		labels.every((label) => label !== '' && !NOT_IN_EMAIL.test(label)) &&
		labels[labels.length - 1].length >= 2
	);
}

export function requireText(
	context: IExecuteSingleFunctions,
	parameter: string,
	value: unknown,
): string {
	const text = String(value ?? '').trim();
	if (!text) throw invalid(context, parameter, 'must not be empty');
	return text;
}

export function requireEmail(
	context: IExecuteSingleFunctions,
	parameter: string,
	value: unknown,
): string {
	const email = requireText(context, parameter, value);
	if (!isEmail(email))
		throw invalid(context, parameter, `${shownInput(email)} is not a valid email address`);
	return email;
}

/** The ID a parameter holds (a resource locator in any mode, or a plain field; text or a number). */
export function requireId(
	context: IExecuteSingleFunctions,
	parameter: string,
	displayName: string,
): string {
	const value = context.getNodeParameter(parameter, '', { extractValue: true });
	const id = requireText(context, displayName, idText(value) ?? value);
	const problem = idProblem(id);
	if (problem) throw invalid(context, displayName, problem, ID_HINT);
	return id;
}

/** A date or date-time parameter as an ISO 8601 string, or undefined when left empty. */
export function optionalDate(
	context: IExecuteSingleFunctions,
	parameter: string,
	value: unknown,
): string | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const text = String(value);
	// No date is longer; a longer value is not handed to the date parser at all.
	const time = text.length <= 100 ? Date.parse(text) : NaN;
	if (!Number.isFinite(time))
		throw invalid(context, parameter, `${shownInput(text)} is not a valid date`);
	return new Date(time).toISOString();
}

const JSON_OBJECT_HINT = 'Enter a JSON object such as {"key": "value"}.';

function parseJsonObject(
	context: IExecuteSingleFunctions,
	parameter: string,
	raw: unknown,
): IDataObject {
	if (raw === undefined || raw === null || raw === '') return {};
	let value = raw;
	if (typeof raw === 'string') {
		try {
			value = JSON.parse(raw);
		} catch (error) {
			const problem = `is not valid JSON (${(error as Error).message})`;
			throw invalid(context, parameter, problem, JSON_OBJECT_HINT);
		}
	}
	if (typeof value !== 'object' || value === null || Array.isArray(value))
		throw invalid(context, parameter, 'must be a JSON object', JSON_OBJECT_HINT);
	return value as IDataObject;
}

/** The Signers collection as the API's signer objects, checked one by one. */
export function readSigners(
	context: IExecuteSingleFunctions,
	{ required, parameter = 'signers' }: { required: boolean; parameter?: string },
): IDataObject[] | undefined {
	const collection = context.getNodeParameter(parameter, {}) as { signer?: IDataObject[] };
	const entries = collection.signer ?? [];
	if (!entries.length) {
		if (required)
			throw invalid(
				context,
				'Signers',
				'add at least one signer',
				'Every document needs someone to sign it.',
			);
		return undefined;
	}
	const seen = new Set<string>();
	return entries.map((entry, index) => {
		const label = `Signers › Signer ${index + 1}`;
		const email = requireEmail(context, `${label} › Email`, entry.email);
		const name = requireText(context, `${label} › Name`, entry.name);
		const key = email.toLowerCase();
		if (seen.has(key))
			throw invalid(context, `${label} › Email`, `${email} is listed more than once`);
		seen.add(key);
		const signer: IDataObject = { email, name };
		const order = Number(entry.order ?? 0);
		if (!Number.isInteger(order) || order < 0 || order > LIMITS.maxSigningOrder) {
			throw invalid(
				context,
				`${label} › Signing Order`,
				`must be a whole number from 0 to ${LIMITS.maxSigningOrder}`,
			);
		}
		if (order > 0) signer.order = order;
		const authentication = String(entry.authentication ?? 'none');
		if (!(SIGNER_AUTHENTICATION_METHODS as readonly string[]).includes(authentication)) {
			throw invalid(
				context,
				`${label} › Authentication`,
				`${shownInput(authentication)} is not a known method`,
			);
		}
		if (authentication !== 'none') signer.authentication = authentication;
		if (authentication === 'sms_otp') {
			const phone = requireText(context, `${label} › Phone`, entry.phone);
			const compactPhone = phone.replace(/[\s()-]/g, '');
			if (!PHONE_PATTERN.test(compactPhone)) {
				throw invalid(
					context,
					`${label} › Phone`,
					`${shownInput(phone)} is not an international number such as +15551234567`,
				);
			}
			signer.phone = compactPhone;
		}
		return signer;
	});
}

/** Metadata is a flat map of strings: numbers and booleans are written as text, anything else refused. */
export function readMetadata(
	context: IExecuteSingleFunctions,
	parameter: string,
	raw: unknown,
): IDataObject | undefined {
	const metadata = parseJsonObject(context, parameter, raw);
	const entries = Object.entries(metadata);
	if (!entries.length) return undefined;
	if (entries.length > LIMITS.maxMetadataKeys) {
		throw invalid(
			context,
			parameter,
			`has ${entries.length} keys; at most ${LIMITS.maxMetadataKeys} are kept`,
		);
	}
	const result: IDataObject = {};
	for (const [key, value] of entries) {
		if (typeof value === 'string') result[key] = value;
		else if (typeof value === 'number' || typeof value === 'boolean') result[key] = String(value);
		else
			throw invalid(
				context,
				parameter,
				`the value of ${shownInput(key)} must be text, a number or true/false`,
			);
	}
	return result;
}

/** Merges the Extra Body Fields (JSON) option over a body that was built from the other fields. */
export function withExtraBodyFields(
	context: IExecuteSingleFunctions,
	body: IDataObject,
	raw: unknown,
): IDataObject {
	return { ...body, ...parseJsonObject(context, 'Extra Body Fields (JSON)', raw) };
}

/** Copies the options a user filled in, dropping empty ones. */
export function compact(source: IDataObject): IDataObject {
	return Object.fromEntries(
		Object.entries(source).filter(
			([, value]) => value !== undefined && value !== null && value !== '',
		),
	);
}
