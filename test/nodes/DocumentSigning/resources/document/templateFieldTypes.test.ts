/**
 * coerceFieldValue (nodes/DocumentSigning/resources/document/templateFieldTypes.ts): a template
 * field's value as its type wants it. Through the engine: templateValues.test.ts.
 */
import { coerceFieldValue } from '../../../../../nodes/DocumentSigning/resources/document/templateFieldTypes';

describe('coerceFieldValue', () => {
	it('takes what n8n expressions give: Luxon DateTimes and Dates as their day, numbers as text', () => {
		const luxonLike = { toISODate: () => '2026-05-04' };
		expect(coerceFieldValue({ type: 'dateTime' }, luxonLike)).toEqual({ value: '2026-05-04' });
		expect(coerceFieldValue({ type: 'dateTime' }, new Date('2026-05-04T10:00:00Z'))).toEqual({
			value: '2026-05-04',
		});
		expect(coerceFieldValue({ type: 'string' }, 42)).toEqual({ value: '42' });
		expect(coerceFieldValue({ type: 'string' }, { a: 1 })).toEqual({ problem: 'must be text' });
		expect(coerceFieldValue({ type: 'number' }, ' -1.5e3 ')).toEqual({ value: -1500 });
		expect(coerceFieldValue({ type: 'boolean' }, 'FALSE')).toEqual({ value: false });
		expect(coerceFieldValue({ type: 'options', options: [{ name: '1', value: '1' }] }, 1)).toEqual({
			value: '1',
		});
	});
});
