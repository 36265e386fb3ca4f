import { apiPath, ID_PATTERN, idProblem, idText } from '../../../nodes/shared/ids';

test('ids of any JSON scalar type become text; anything else is no id', () => {
	expect([
		idText('doc_1'),
		idText(1004),
		idText(BigInt(7)),
		idText(''),
		idText('  '),
		idText(Number.NaN),
		idText(null),
		idText({ id: 1 }),
	]).toEqual(['doc_1', '1004', '7', undefined, undefined, undefined, undefined, undefined]);
});

test.each(['.', '..', 'a/b', 'a?b', 'a#b', 'a b', 'a\\b'])(
	'"%s" is refused in code and in the editor',
	(id) => {
		expect(idProblem(id)).toBe(`"${id}" is not a valid ID`);
		expect(new RegExp(`^${ID_PATTERN}$`).test(id)).toBe(false);
	},
);

test.each(['doc_8f3k2j', '1004', 'a.b', '...', 'ü-1'])('"%s" is a valid ID', (id) => {
	expect(idProblem(id)).toBeUndefined();
	expect(new RegExp(`^${ID_PATTERN}$`).test(id)).toBe(true);
});

test('apiPath encodes every id it is given', () => {
	expect(apiPath`/webhooks/${'wh:1%'}/deliveries/${1004}/acknowledge`).toBe(
		'/webhooks/wh%3A1%25/deliveries/1004/acknowledge',
	);
});

test('apiPath refuses an id that would change the path, whatever its source', () => {
	for (const id of ['..', '.', 'a/b', 'a b', 'a?b', 'a#b', 'a\\b', '']) {
		expect(() => apiPath`/documents/${id}/file`).toThrow('cannot be used in a request path');
	}
});
