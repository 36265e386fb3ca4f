import type { FieldType, IDataObject, ResourceMapperValue } from 'n8n-workflow';

import { shownInput } from '../../../shared/transport';
import { invalid, isEmpty, readSigners, requireEmail, requireText } from '../../shared/validation';
import {
	coerceFieldValue,
	FIELDS_LABEL,
	PAIRS_LABEL,
	parseRoleFieldId,
	plainValue,
	SIGNERS_LABEL,
	TEMPLATE_TYPES,
} from './templateFields';
import { savedTemplate, type DocumentInput } from './documentFrom';

/** Template values read from an item; the stored field list is trusted for a fixed Template only. */

const mapperValue = (input: DocumentInput, name: string) =>
	(input.parameter(name, {}) ?? {}) as Partial<ResourceMapperValue>;

function templateIsFixed(input: DocumentInput): boolean {
	const value = savedTemplate(input.node);
	return !(typeof value === 'string' && value.startsWith('='));
}

/** The request's `fields` (undefined when none is given), checked for a fixed Template. */
export function readTemplateFieldValues(
	input: DocumentInput,
	additional: IDataObject,
	templateId: string | undefined,
): IDataObject | undefined {
	const entries =
		((additional.fieldValues as IDataObject | undefined)?.field as IDataObject[] | undefined) ?? [];
	const pairs = entries.map((entry, index) => {
		const label = `${PAIRS_LABEL} › Field ${index + 1}`;
		const key = requireText(input, `${label} › Key`, entry.key);
		return { key, value: entry.value, label: `${label} (${key})` };
	});
	if (!templateId) {
		if (pairs.length > 0)
			throw invalid(input, PAIRS_LABEL, 'a template has fields: choose the Template first');
		return undefined;
	}
	const mapper = mapperValue(input, 'templateFields');
	const schema = (mapper.schema ?? []).filter((field) => field.display !== false);
	const byKey = new Map(schema.map((field) => [field.id, field]));
	const checked = templateIsFixed(input) && schema.length > 0;
	const automatic = mapper.mappingMode === 'autoMapInputData';

	const { json } = input.item;
	// Own keys only: an input item's `constructor` or `toString` is no field value.
	const own = (key: string) => (Object.hasOwn(json, key) ? json[key] : undefined);
	const given = automatic
		? schema.map((field) => ({
				key: field.id,
				value: own(field.id) !== undefined ? own(field.id) : own(field.displayName),
				label: `${FIELDS_LABEL} › ${field.displayName}`,
			}))
		: Object.entries(mapper.value ?? {}).map(([key, value]) => ({
				key,
				value,
				label: `${FIELDS_LABEL} › ${byKey.get(key)?.displayName ?? key}`,
			}));
	const mapped = new Set(given.filter(({ value }) => !isEmpty(value)).map(({ key }) => key));
	const twice = pairs.find((pair) => mapped.has(pair.key));
	if (twice)
		throw invalid(
			input,
			twice.label,
			`${shownInput(twice.key)} is already filled under Template Fields`,
		);

	// A Map, not an object: keys such as __proto__ or constructor are field keys like any other.
	const fields = new Map<string, string | number | boolean>();
	for (const { key, value, label } of [...given, ...pairs]) {
		if (isEmpty(value)) continue;
		const field = byKey.get(key);
		if (checked && !field)
			throw invalid(
				input,
				label,
				`the template has no field ${shownInput(key)}`,
				`Its fields: ${schema.map((entry) => entry.id).join(', ')}.`,
			);
		const result =
			field && checked
				? coerceFieldValue(
						TEMPLATE_TYPES[field.type as FieldType],
						(field.options ?? []).map((option) => String(option.value)),
						value,
					)
				: plainValue(value);
		if ('problem' in result) throw invalid(input, label, result.problem);
		fields.set(key, result.value);
	}
	const missing = checked ? schema.filter((field) => field.required && !fields.has(field.id)) : [];
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
			input,
			`${FIELDS_LABEL} › ${first.displayName}`,
			'the template needs a value for this field',
			hints.join(' ') || undefined,
		);
	}
	// Object.fromEntries defines own properties, so a `__proto__` key stays a key.
	return fields.size > 0 ? (Object.fromEntries(fields) as IDataObject) : undefined;
}

/**
 * Signers by Role (both email and name, or neither), then Signers filling the roles left in order;
 * nobody twice. A fixed Template's open roles need someone unless the document is a draft.
 */
export function readDocumentSigners(
	input: DocumentInput,
	templateId: string | undefined,
	draft: boolean,
): IDataObject[] | undefined {
	const mapper = templateId ? mapperValue(input, 'templateSigners') : {};
	// The listed roles first, in signing order, then any role only the values name.
	const roles = new Map<string, IDataObject>();
	const listed = (mapper.schema ?? []).map((field): [string, unknown] => [field.id, undefined]);
	for (const [id, value] of [...listed, ...Object.entries(mapper.value ?? {})]) {
		const parsed = parseRoleFieldId(id);
		if (!parsed) continue;
		const entry = roles.get(parsed.role) ?? {};
		roles.set(parsed.role, entry);
		if (value !== undefined) entry[parsed.part] = value;
	}
	const byRole: IDataObject[] = [];
	const roleByEmail = new Map<string, string>();
	for (const [role, entry] of roles) {
		if (isEmpty(entry.email) && isEmpty(entry.name)) continue;
		const label = `${SIGNERS_LABEL} › ${role}`;
		const email = requireEmail(input, `${label} Email`, entry.email);
		const other = roleByEmail.get(email.toLowerCase());
		if (other !== undefined)
			throw invalid(input, `${label} Email`, `${email} already signs as ${other}`);
		roleByEmail.set(email.toLowerCase(), role);
		byRole.push({ email, name: requireText(input, `${label} Name`, entry.name), role });
	}

	const inOrder = readSigners(input, input.parameter('signers', {}), !draft && !templateId);
	inOrder?.forEach((signer, index) => {
		const role = roleByEmail.get(String(signer.email).toLowerCase());
		if (role !== undefined)
			throw invalid(
				input,
				`Signers › Signer ${index + 1} › Email`,
				`${String(signer.email)} already signs as ${role} under Signers by Role`,
			);
	});
	const signers = byRole.length > 0 ? [...byRole, ...(inOrder ?? [])] : inOrder;
	if (draft || signers?.length || !templateId || !templateIsFixed(input)) return signers;

	const open = (mapper.schema ?? [])
		.filter((field) => field.display !== false && field.removed !== true)
		.map((field) => parseRoleFieldId(field.id)?.role)
		.filter((role): role is string => role !== undefined);
	const unfilled = [...new Set(open)];
	if (unfilled.length > 0)
		throw invalid(
			input,
			SIGNERS_LABEL,
			unfilled.length === 1
				? `the template's role ${unfilled[0]} needs a signer`
				: `the template's roles ${unfilled.join(', ')} need signers`,
			'Give each role an email and a name here, or add Signers: they fill the roles in order.',
		);
	return signers;
}
