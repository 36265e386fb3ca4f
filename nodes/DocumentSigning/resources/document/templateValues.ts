import type { IDataObject, IExecuteSingleFunctions, ResourceMapperField } from 'n8n-workflow';

import { invalid, requireEmail, requireText } from '../../shared/validation';
import { shownInput } from '../../../shared/transport/text';
import {
	FIELDS_LABEL,
	PAIRS_LABEL,
	parseRoleFieldId,
	roleFieldId,
	SIGNERS_LABEL,
	TEMPLATE_FIELDS_PARAMETER,
	TEMPLATE_SIGNERS_PARAMETER,
} from './templateFields';
import { coerceFieldValue, plainValue } from './templateFieldTypes';

/**
 * Template Fields, Signers by Role and Template Field Values, read and checked. The field list n8n
 * stores describes the template it was loaded for, so it is trusted only for a fixed Template; a
 * Template given by an expression may differ per item, so the service checks its values.
 */

interface MapperValue {
	mappingMode?: string;
	value?: IDataObject | null;
	schema?: ResourceMapperField[];
}

function mapperValue(context: IExecuteSingleFunctions, name: string): MapperValue {
	const raw = context.getNodeParameter(name, {}) as unknown;
	return raw !== null && typeof raw === 'object' ? (raw as MapperValue) : {};
}

/** Whether Additional Fields › Template is a fixed choice, not an expression that may vary per item. */
function templateIsFixed(context: IExecuteSingleFunctions): boolean {
	const additional = context.getNode().parameters.additionalFields as IDataObject | undefined;
	const raw = additional?.template_id;
	const value = raw !== null && typeof raw === 'object' ? (raw as IDataObject).value : raw;
	return !(typeof value === 'string' && value.startsWith('='));
}

const isEmpty = (value: unknown) => value === undefined || value === null || value === '';

interface GivenValue {
	key: string;
	value: unknown;
	/** The parameter as the editor shows it. */
	label: string;
}

function fieldPairs(context: IExecuteSingleFunctions): GivenValue[] {
	const additional = context.getNodeParameter('additionalFields', {}) as IDataObject;
	const entries =
		((additional.fieldValues as IDataObject | undefined)?.field as IDataObject[] | undefined) ?? [];
	return entries.map((entry, index) => {
		const label = `${PAIRS_LABEL} › Field ${index + 1}`;
		const key = requireText(context, `${label} › Key`, entry.key);
		return { key, value: entry.value, label: `${label} (${key})` };
	});
}

/** The request's `fields` (undefined when none is given), checked for a fixed Template. */
export function readTemplateFieldValues(
	context: IExecuteSingleFunctions,
	templateId: string | undefined,
): IDataObject | undefined {
	const pairs = fieldPairs(context);
	if (!templateId) {
		if (pairs.length > 0)
			throw invalid(context, PAIRS_LABEL, 'a template has fields: choose the Template first');
		return undefined;
	}
	const mapper = mapperValue(context, TEMPLATE_FIELDS_PARAMETER);
	const schema = (mapper.schema ?? []).filter((field) => field.display !== false);
	const byKey = new Map(schema.map((field) => [field.id, field]));
	const checked = templateIsFixed(context) && schema.length > 0;
	const automatic = mapper.mappingMode === 'autoMapInputData';

	const given: GivenValue[] = [];
	if (automatic) {
		const json = context.getInputData()?.json ?? {};
		// Own keys only: an input item's `constructor` or `toString` is no field value.
		const own = (key: string) => (Object.hasOwn(json, key) ? json[key] : undefined);
		for (const field of schema) {
			const value = own(field.id) !== undefined ? own(field.id) : own(field.displayName);
			given.push({ key: field.id, value, label: `${FIELDS_LABEL} › ${field.displayName}` });
		}
	} else {
		for (const [key, value] of Object.entries(mapper.value ?? {}))
			given.push({ key, value, label: `${FIELDS_LABEL} › ${byKey.get(key)?.displayName ?? key}` });
	}
	const mapped = new Set(given.filter(({ value }) => !isEmpty(value)).map(({ key }) => key));
	for (const pair of pairs) {
		if (mapped.has(pair.key))
			throw invalid(
				context,
				pair.label,
				`${shownInput(pair.key)} is already filled under Template Fields`,
			);
		given.push(pair);
	}

	// A Map, not an object: keys such as __proto__ or constructor are field keys like any other.
	const fields = new Map<string, string | number | boolean>();
	for (const { key, value, label } of given) {
		if (isEmpty(value)) continue;
		const field = byKey.get(key);
		if (checked && !field) {
			throw invalid(
				context,
				label,
				`the template has no field ${shownInput(key)}`,
				`Its fields: ${schema.map((entry) => entry.id).join(', ')}.`,
			);
		}
		const result = checked ? coerceFieldValue(field!, value) : plainValue(value);
		if ('problem' in result) throw invalid(context, label, result.problem);
		fields.set(key, result.value);
	}
	if (checked) {
		const missing = schema.filter((field) => field.required && !fields.has(field.id));
		if (missing.length > 0) {
			const [first, ...others] = missing;
			// Every missing field at once, so an AI agent (or a person) can give them all in one go.
			const hints = [
				automatic
					? `Map Automatically found no input field "${first.id}" or "${first.displayName}".`
					: '',
				others.length > 0
					? `Also without a value: ${others.map((field) => field.displayName).join(', ')}.`
					: '',
			].filter(Boolean);
			throw invalid(
				context,
				`${FIELDS_LABEL} › ${first.displayName}`,
				'the template needs a value for this field',
				hints.length > 0 ? hints.join(' ') : undefined,
			);
		}
	}
	// Object.fromEntries defines own properties, so a `__proto__` key stays a key.
	return fields.size > 0 ? (Object.fromEntries(fields) as IDataObject) : undefined;
}

/**
 * Signers by Role as signers with their `role`: a role given an email or a name needs both, as
 * does an open (required) role of a fixed Template. Roles left empty are not sent.
 */
export function readRoleSigners(
	context: IExecuteSingleFunctions,
	templateId: string | undefined,
): IDataObject[] {
	if (!templateId) return [];
	const mapper = mapperValue(context, TEMPLATE_SIGNERS_PARAMETER);
	const checked = templateIsFixed(context);
	const roles = new Map<string, { email?: unknown; name?: unknown; required: boolean }>();
	const labels = new Map<string, string>();
	const roleOf = (role: string) => {
		let entry = roles.get(role);
		if (!entry) roles.set(role, (entry = { required: false }));
		return entry;
	};
	for (const field of mapper.schema ?? []) {
		const parsed = parseRoleFieldId(field.id);
		if (!parsed) continue;
		labels.set(field.id, field.displayName);
		const entry = roleOf(parsed.role);
		if (checked && field.required && field.display !== false) entry.required = true;
	}
	for (const [id, value] of Object.entries(mapper.value ?? {})) {
		const parsed = parseRoleFieldId(id);
		if (parsed) roleOf(parsed.role)[parsed.part] = value;
	}
	const signers: IDataObject[] = [];
	const roleByEmail = new Map<string, string>();
	for (const [role, entry] of roles) {
		if (isEmpty(entry.email) && isEmpty(entry.name) && !entry.required) continue;
		const label = (part: 'email' | 'name') =>
			`${SIGNERS_LABEL} › ${labels.get(roleFieldId(role, part)) ?? `${role} ${part === 'email' ? 'Email' : 'Name'}`}`;
		const email = requireEmail(context, label('email'), entry.email);
		const other = roleByEmail.get(email.toLowerCase());
		if (other !== undefined)
			throw invalid(context, label('email'), `${email} already signs as ${other}`);
		roleByEmail.set(email.toLowerCase(), role);
		signers.push({ email, name: requireText(context, label('name'), entry.name), role });
	}
	return signers;
}

/** The roles a fixed Template leaves open (not pre-filled): a document without signers cannot fill them. */
export function openRoles(
	context: IExecuteSingleFunctions,
	templateId: string | undefined,
): string[] {
	if (!templateId || !templateIsFixed(context)) return [];
	const schema = mapperValue(context, TEMPLATE_SIGNERS_PARAMETER).schema ?? [];
	const roles = schema
		.filter((field) => field.display !== false && field.removed !== true)
		.map((field) => parseRoleFieldId(field.id)?.role)
		.filter((role): role is string => role !== undefined);
	return [...new Set(roles)];
}
