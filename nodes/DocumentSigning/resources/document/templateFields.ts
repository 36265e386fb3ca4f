import type {
	FieldType,
	IDataObject,
	IDisplayOptions,
	IExecuteSingleFunctions,
	INodeProperties,
	NodeParameterValueType,
	ResourceMapperField,
} from 'n8n-workflow';

import { fieldValueProblem, isCalendarDate } from '../../../shared/fieldValues';
import type { TemplateFieldType } from '../../../shared/vocabulary';
import { invalid, requireEmail, requireText } from '../../shared/validation';
import { shownInput } from '../../../shared/transport/errors';

/**
 * Template Fields and Signers by Role (Document › Create, and Send and Wait for Signature, which
 * shows Create's fields): two n8n resource mappers that list the chosen template's fields and
 * roles (resourceMapping/index.ts loads them), and Additional Fields › Template Field Values, the
 * key/value pairs for a service whose templates list no fields. The request gets `fields` by key
 * and signers with their `role` (docs/api-contract.md, "Template fields").
 *
 * The field list n8n stores with the parameter describes the template it was loaded for. So it is
 * trusted only for a fixed Template: then every value is checked and converted to its field's type
 * and every required field must have one, before anything is sent. A Template given by an
 * expression may differ per item: its values go as they are, and the service checks them.
 */

export const TEMPLATE_FIELDS_PARAMETER = 'templateFields';
export const TEMPLATE_SIGNERS_PARAMETER = 'templateSigners';
/** The editor's input for each field type: text, number, date picker, toggle, dropdown. */
export const MAPPER_TYPES: Record<TemplateFieldType, FieldType> = {
	text: 'string',
	number: 'number',
	date: 'dateTime',
	checkbox: 'boolean',
	choice: 'options',
};

const FIELDS_LABEL = 'Template Fields';
const SIGNERS_LABEL = 'Signers by Role';
const PAIRS_LABEL = 'Additional Fields › Template Field Values';

/** A role's two entries in Signers by Role: `Client|email` and `Client|name`. */
export function roleFieldId(role: string, part: 'email' | 'name'): string {
	return `${role}|${part}`;
}

function parseRoleFieldId(id: string): { role: string; part: 'email' | 'name' } | undefined {
	const cut = id.lastIndexOf('|');
	const part = id.slice(cut + 1);
	return cut > 0 && (part === 'email' || part === 'name')
		? { role: id.slice(0, cut), part }
		: undefined;
}

export function templateMapperFields(displayOptions: IDisplayOptions): INodeProperties[] {
	const dependsOn = ['additionalFields.template_id.value'];
	// n8n stores a mapper's value as { mappingMode, value, schema, … }; it starts with no values.
	const empty = { mappingMode: 'defineBelow', value: null } as unknown as NodeParameterValueType;
	return [
		{
			displayName: FIELDS_LABEL,
			name: TEMPLATE_FIELDS_PARAMETER,
			type: 'resourceMapper',
			noDataExpression: true,
			default: empty,
			description:
				"The template's fields: fill each by expression or drag and drop, or let Map Automatically take input fields of the same key or label",
			typeOptions: {
				loadOptionsDependsOn: dependsOn,
				resourceMapper: {
					resourceMapperMethod: 'getTemplateFields',
					mode: 'add',
					fieldWords: { singular: 'field', plural: 'fields' },
					addAllFields: true,
					multiKeyMatch: false,
					supportAutoMap: true,
					valuesLabel: FIELDS_LABEL,
					// The notice (resourceMapping/index.ts) says why there are none.
					hideNoDataError: true,
				},
			},
			displayOptions,
		},
		{
			displayName: SIGNERS_LABEL,
			name: TEMPLATE_SIGNERS_PARAMETER,
			type: 'resourceMapper',
			noDataExpression: true,
			default: empty,
			description:
				"Who signs for each of the template's roles. Roles the template fills with a fixed person are left out; add one to give it someone else.",
			typeOptions: {
				loadOptionsDependsOn: dependsOn,
				resourceMapper: {
					resourceMapperMethod: 'getTemplateRoles',
					mode: 'add',
					fieldWords: { singular: 'role detail', plural: 'role details' },
					addAllFields: true,
					multiKeyMatch: false,
					supportAutoMap: false,
					valuesLabel: SIGNERS_LABEL,
					hideNoDataError: true,
				},
			},
			displayOptions,
		},
	];
}

/** Additional Fields › Template Field Values: the tolerant path for templates that list no fields. */
export const templateFieldValuesOption: INodeProperties = {
	displayName: 'Template Field Values',
	name: 'fieldValues',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true },
	placeholder: 'Add Field Value',
	default: {},
	description:
		"Values of the template's fields by key, for a service that does not list its templates' fields (Template Fields then stays empty). A key Template Fields lists is converted to its type; others are sent as given: use {{ 12000 }} for a number, {{ true }} for a checkbox.",
	options: [
		{
			displayName: 'Field',
			name: 'field',
			values: [
				{
					displayName: 'Key',
					name: 'key',
					type: 'string',
					default: '',
					placeholder: 'customer_name',
					description: "The field's key in the template",
				},
				{
					displayName: 'Value',
					name: 'value',
					type: 'string',
					default: '',
				},
			],
		},
	],
};

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

const TEMPLATE_TYPES: Partial<Record<FieldType, TemplateFieldType>> = Object.fromEntries(
	Object.entries(MAPPER_TYPES).map(([type, mapperType]) => [mapperType, type]),
);

/** `2026-01-15` from a date string, an ISO timestamp, a Date or a Luxon DateTime (n8n's $now). */
function calendarDate(value: unknown): string | undefined {
	if (typeof value === 'string') {
		const match = /^(\d{4}-\d{2}-\d{2})(?:$|[T ])/.exec(value.trim());
		return match && isCalendarDate(match[1]) ? match[1] : undefined;
	}
	if (value instanceof Date)
		return Number.isNaN(value.getTime()) ? undefined : value.toISOString().slice(0, 10);
	const toISODate = (value as { toISODate?: unknown } | null)?.toISODate;
	if (typeof toISODate === 'function') {
		const text: unknown = toISODate.call(value);
		return typeof text === 'string' ? calendarDate(text) : undefined;
	}
	return undefined;
}

const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?$/i;

/** `value` as its field's type wants it, or what is wrong with it. */
export function coerceFieldValue(
	field: Pick<ResourceMapperField, 'type' | 'options'>,
	value: unknown,
): { value: string | number | boolean } | { problem: string } {
	const shown =
		typeof value === 'string' ? shownInput(value) : shownInput(String(JSON.stringify(value)));
	const type =
		field.type && Object.hasOwn(TEMPLATE_TYPES, field.type)
			? TEMPLATE_TYPES[field.type]
			: undefined;
	const options = (field.options ?? []).map((option) => String(option.value));
	let coerced: unknown = value;
	switch (type) {
		case 'text':
			if (typeof value === 'number' || typeof value === 'boolean') coerced = String(value);
			break;
		case 'number':
			if (typeof value === 'string' && NUMBER.test(value.trim())) coerced = Number(value.trim());
			if (typeof coerced !== 'number' || !Number.isFinite(coerced))
				return { problem: `${shown} is not a number` };
			break;
		case 'date':
			coerced = calendarDate(value);
			if (coerced === undefined)
				return { problem: `${shown} is not a date: use YYYY-MM-DD, e.g. 2026-01-15` };
			break;
		case 'checkbox':
			if (typeof value === 'string' && /^(true|false)$/i.test(value.trim()))
				coerced = value.trim().toLowerCase() === 'true';
			if (typeof coerced !== 'boolean') return { problem: `${shown} is not true or false` };
			break;
		case 'choice':
			if (typeof value === 'number') coerced = String(value);
			if (typeof coerced !== 'string' || !options.includes(coerced))
				return { problem: `${shown} is not one of: ${options.join(', ')}` };
			break;
		default:
			return plainValue(value);
	}
	const problem = fieldValueProblem(type, coerced, options);
	return problem ? { problem } : { value: coerced as string | number | boolean };
}

/** A value sent as given: text, a number or true/false (a date object as YYYY-MM-DD). */
function plainValue(value: unknown): { value: string | number | boolean } | { problem: string } {
	if (typeof value === 'string' || typeof value === 'boolean') return { value };
	if (typeof value === 'number' && Number.isFinite(value)) return { value };
	const date = calendarDate(value);
	return date !== undefined ? { value: date } : { problem: 'must be text, a number or true/false' };
}

interface GivenValue {
	key: string;
	value: unknown;
	/** The parameter as the user sees it, for errors. */
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

/**
 * The `fields` of the request: Template Fields (as mapped, or Map Automatically from the input
 * item) and Template Field Values, checked against the template's field list when the Template
 * is fixed. Undefined when no value is given.
 */
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
				`${pair.label}`,
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
 * Signers by Role as signers with their `role`. A role given an email or a name needs both; a
 * role the template leaves open (required in the editor's list) needs them when the Template is
 * fixed. Roles left empty are not sent: the template's own person, or the service, fills them.
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

/**
 * The roles Signers by Role lists as open (not pre-filled by the template), for a fixed Template;
 * a document that gives no signer at all cannot fill them.
 */
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

export { SIGNERS_LABEL };
