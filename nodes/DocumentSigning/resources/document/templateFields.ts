import type {
	FieldType,
	IDataObject,
	IDisplayOptions,
	INodeProperties,
	NodeParameterValueType,
} from 'n8n-workflow';

import { fieldValueProblem, isCalendarDate } from '../../../shared/fieldValues';
import { shownInput } from '../../../shared/transport';
import type { TemplateFieldType } from '../../../shared/vocabulary';

/** The template mappers, Template Field Values, and a value as its field's type wants it. */

export const FIELDS_LABEL = 'Template Fields';
export const SIGNERS_LABEL = 'Signers by Role';
export const PAIRS_LABEL = 'Additional Fields › Template Field Values';

export const locatorValue = (raw: unknown): unknown =>
	raw !== null && typeof raw === 'object' ? (raw as IDataObject).value : raw;

/** A role's two entries in Signers by Role: `Client|email` and `Client|name`. */
export function roleFieldId(role: string, part: 'email' | 'name'): string {
	return `${role}|${part}`;
}

export function parseRoleFieldId(id: string): { role: string; part: 'email' | 'name' } | undefined {
	const cut = id.lastIndexOf('|');
	const part = id.slice(cut + 1);
	return cut > 0 && (part === 'email' || part === 'name')
		? { role: id.slice(0, cut), part }
		: undefined;
}

/** The mappers, listed again whenever the template at `templateValue` (a parameter path) changes. */
export function templateMapperFields(
	displayOptions: IDisplayOptions,
	templateValue = 'additionalFields.template_id.value',
): INodeProperties[] {
	// n8n stores a mapper's value as { mappingMode, value, schema, … }; it starts with no values.
	const empty = { mappingMode: 'defineBelow', value: null } as unknown as NodeParameterValueType;
	const mapper = (
		displayName: string,
		name: string,
		resourceMapperMethod: string,
		singular: string,
		supportAutoMap: boolean,
		description: string,
		propertyHint: string,
	): INodeProperties => ({
		displayName,
		name,
		type: 'resourceMapper',
		noDataExpression: true,
		default: empty,
		description,
		builderHint: { propertyHint },
		typeOptions: {
			loadOptionsDependsOn: [templateValue],
			resourceMapper: {
				resourceMapperMethod,
				mode: 'add',
				fieldWords: { singular, plural: `${singular}s` },
				addAllFields: true,
				multiKeyMatch: false,
				supportAutoMap,
				valuesLabel: displayName,
				// The notice (resourceMapping/index.ts) says why there are none.
				hideNoDataError: true,
			},
		},
		displayOptions,
	});
	return [
		mapper(
			FIELDS_LABEL,
			'templateFields',
			'getTemplateFields',
			'field',
			true,
			"The template's fields: fill each by expression or drag and drop, or let Map Automatically take input fields of the same key or label",
			// For n8n's AI workflow builder (n8n 2.x): plain English, no expressions (npm run lint).
			"Choose the Template first (Document From: Template; in node version 1 under Additional Fields > Template): this then lists that template's fields by key, with each field's type and whether it is required. Give every required field a value of its type: a date as YYYY-MM-DD, a checkbox true or false, a choice one of its listed options; optional fields may stay empty. Map Automatically fills them from input fields named like a field's key or label. Signers go in Signers by Role or Signers, not here. If the template lists no fields, leave this empty and use Additional Fields > Template Field Values (key and value pairs) instead.",
		),
		mapper(
			SIGNERS_LABEL,
			'templateSigners',
			'getTemplateRoles',
			'role detail',
			false,
			"Who signs for each of the template's roles. Roles the template fills with a fixed person are left out; add one to give it someone else.",
			'An email and a name for each role of the chosen Template. Roles the template already fills with a fixed person may stay empty.',
		),
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
				{ displayName: 'Value', name: 'value', type: 'string', default: '' },
			],
		},
	],
};

/** The template's field type behind each editor input (resourceMapping/index.ts chooses the input). */
export const TEMPLATE_TYPES: Partial<Record<FieldType, TemplateFieldType>> = {
	string: 'text',
	number: 'number',
	dateTime: 'date',
	boolean: 'checkbox',
	options: 'choice',
};

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

type FieldValue = { value: string | number | boolean } | { problem: string };

/** `value` as a field of `type` wants it (Template Fields, a field's Default Value), or what is wrong with it. */
export function coerceFieldValue(
	type: TemplateFieldType | undefined,
	options: readonly string[],
	value: unknown,
): FieldValue {
	const shown = shownInput(typeof value === 'string' ? value : String(JSON.stringify(value)));
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
export function plainValue(value: unknown): FieldValue {
	if (typeof value === 'string' || typeof value === 'boolean') return { value };
	if (typeof value === 'number' && Number.isFinite(value)) return { value };
	const date = calendarDate(value);
	return date !== undefined ? { value: date } : { problem: 'must be text, a number or true/false' };
}
