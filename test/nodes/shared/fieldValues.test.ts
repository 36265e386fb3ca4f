import { fieldValueProblem, isCalendarDate } from '../../../nodes/shared/fieldValues';
import { LIMITS } from '../../../nodes/shared/vocabulary';

test('a calendar date is a day that exists, written YYYY-MM-DD', () => {
	expect(['2026-02-28', '2024-02-29', '2026-12-31'].map(isCalendarDate)).toEqual([
		true,
		true,
		true,
	]);
	expect(
		['2026-02-29', '2026-13-01', '2026-1-5', '2026-01-15T00:00:00Z', '15.01.2026', ''].map(
			isCalendarDate,
		),
	).toEqual([false, false, false, false, false, false]);
});

test.each([
	['text', 'Acme Corp', undefined],
	['text', '', undefined],
	['text', 1200, 'must be text'],
	['text', 'x'.repeat(LIMITS.maxFieldTextLength + 1), 'must be at most 1000 characters'],
	['number', 1200.5, undefined],
	['number', '1200', 'must be a number'],
	['number', Number.NaN, 'must be a number'],
	['date', '2026-01-15', undefined],
	['date', '2026-01-15T10:00:00Z', 'must be a date written YYYY-MM-DD'],
	['checkbox', false, undefined],
	['checkbox', 'true', 'must be true or false'],
	['choice', 'Pro', undefined],
	['choice', 'pro', 'must be one of: Basic, Pro'],
] as const)('a %s field given %p: %s', (type, value, problem) => {
	expect(fieldValueProblem(type, value, ['Basic', 'Pro'])).toBe(problem);
});
