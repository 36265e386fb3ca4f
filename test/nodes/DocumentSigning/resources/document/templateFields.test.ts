/**
 * coerceFieldValue (nodes/DocumentSigning/resources/document/templateFields.ts): a template
 * field's value as its type wants it. Through the engine: templateValues.test.ts.
 */
import { coerceFieldValue } from '../../../../../nodes/DocumentSigning/resources/document/templateFields';

describe('coerceFieldValue', () => {
	it('takes what n8n expressions give: Luxon DateTimes and Dates as their day, numbers as text', () => {
		const luxonLike = { toISODate: () => '2026-05-04' };
		expect(coerceFieldValue('date', [], luxonLike)).toEqual({ value: '2026-05-04' });
		expect(coerceFieldValue('date', [], new Date('2026-05-04T10:00:00Z'))).toEqual({
			value: '2026-05-04',
		});
		expect(coerceFieldValue('text', [], 42)).toEqual({ value: '42' });
		expect(coerceFieldValue('text', [], { a: 1 })).toEqual({ problem: 'must be text' });
		expect(coerceFieldValue('number', [], ' -1.5e3 ')).toEqual({ value: -1500 });
		expect(coerceFieldValue('checkbox', [], 'FALSE')).toEqual({ value: false });
		expect(coerceFieldValue('choice', ['1'], 1)).toEqual({ value: '1' });
	});
});
