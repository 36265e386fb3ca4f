// A template field's value checked (docs/api-contract.md): the same rule as the service's 422.
import { LIMITS, type TemplateFieldType } from './vocabulary';

const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `2026-02-28`: a day that exists, written YYYY-MM-DD. */
export function isCalendarDate(value: string): boolean {
	const match = CALENDAR_DATE.exec(value);
	if (!match) return false;
	const [year, month, day] = match.slice(1).map(Number);
	const date = new Date(Date.UTC(year, month - 1, day));
	return (
		date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
	);
}

/** What is wrong with `value` for a field of `type` (to follow the field's name), if anything. */
export function fieldValueProblem(
	type: TemplateFieldType,
	value: unknown,
	options?: readonly string[] | null,
): string | undefined {
	switch (type) {
		case 'text':
			if (typeof value !== 'string') return 'must be text';
			return value.length > LIMITS.maxFieldTextLength
				? `must be at most ${LIMITS.maxFieldTextLength} characters`
				: undefined;
		case 'number':
			return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
		case 'date':
			return typeof value === 'string' && isCalendarDate(value)
				? undefined
				: 'must be a date written YYYY-MM-DD';
		case 'checkbox':
			return typeof value === 'boolean' ? undefined : 'must be true or false';
		case 'choice':
			return typeof value === 'string' && (options ?? []).includes(value)
				? undefined
				: `must be one of: ${(options ?? []).join(', ')}`;
	}
}
