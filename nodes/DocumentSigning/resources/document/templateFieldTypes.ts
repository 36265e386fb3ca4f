import type { FieldType, ResourceMapperField } from 'n8n-workflow';

import { fieldValueProblem, isCalendarDate } from '../../../shared/fieldValues';
import type { TemplateFieldType } from '../../../shared/vocabulary';
import { shownInput } from '../../../shared/transport/text';

/** A template field's value as its type wants it (Template Fields, and a field's Default Value). */

/** The editor's input for each field type: text, number, date picker, toggle, dropdown. */
export const MAPPER_TYPES: Record<TemplateFieldType, FieldType> = {
	text: 'string',
	number: 'number',
	date: 'dateTime',
	checkbox: 'boolean',
	choice: 'options',
};

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
	const shown = shownInput(typeof value === 'string' ? value : String(JSON.stringify(value)));
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
export function plainValue(
	value: unknown,
): { value: string | number | boolean } | { problem: string } {
	if (typeof value === 'string' || typeof value === 'boolean') return { value };
	if (typeof value === 'number' && Number.isFinite(value)) return { value };
	const date = calendarDate(value);
	return date !== undefined ? { value: date } : { problem: 'must be text, a number or true/false' };
}
