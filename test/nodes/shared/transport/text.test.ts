/**
 * nodes/shared/transport/text.ts: the one header reader, file names from Content-Disposition, and
 * the API key taken out of the service's words.
 */
import {
	fileNameFromDisposition,
	headerValue,
	withoutHeaders,
	withoutKey,
} from '../../../../nodes/shared/transport/text';

describe('headerValue', () => {
	it('finds a header in any case', () => {
		expect(headerValue({ 'Retry-After': '5' }, 'retry-after')).toBe('5');
		expect(headerValue({ 'retry-after': 5 }, 'Retry-After')).toBe('5');
	});

	it('folds a repeated header as HTTP does', () => {
		expect(headerValue({ link: ['<a>; rel="next"', '<b>; rel="prev"'] }, 'Link')).toBe(
			'<a>; rel="next", <b>; rel="prev"',
		);
	});

	it('reads an empty, null or missing header as absent', () => {
		expect(headerValue({ 'x-a': '' }, 'x-a')).toBeUndefined();
		expect(headerValue({ 'x-a': null }, 'x-a')).toBeUndefined();
		expect(headerValue({}, 'x-a')).toBeUndefined();
		expect(headerValue(undefined, 'x-a')).toBeUndefined();
	});
});

describe('withoutHeaders', () => {
	it('drops the named headers in any case and keeps the rest untouched', () => {
		const headers = {
			'X-Signature': 't=1,v1=ab',
			'content-type': 'application/json',
			'X-Event': 'document.sent',
		};
		expect(withoutHeaders(headers, ['x-signature'])).toEqual({
			'content-type': 'application/json',
			'X-Event': 'document.sent',
		});
		expect(headers['X-Signature']).toBe('t=1,v1=ab');
	});
});

describe('fileNameFromDisposition', () => {
	it.each([
		['attachment; filename="contract.pdf"', 'contract.pdf'],
		['attachment; filename=report.csv', 'report.csv'],
		["attachment; filename*=UTF-8''Vertrag%20M%C3%BCller.pdf", 'Vertrag Müller.pdf'],
		// The extended form wins over the plain fallback.
		['attachment; filename="fallback.pdf"; filename*=UTF-8\'\'real%20name.pdf', 'real name.pdf'],
		// A bad escape in the extended form falls back to the plain one.
		['attachment; filename="plain.pdf"; filename*=UTF-8\'\'bad%E0%A4%A.pdf', 'plain.pdf'],
	])('%s → %s', (disposition, expected) => {
		expect(fileNameFromDisposition(disposition)).toBe(expected);
	});

	it('never returns a folder: only the last path segment, and never . or ..', () => {
		expect(fileNameFromDisposition('attachment; filename="../../etc/passwd"')).toBe('passwd');
		expect(fileNameFromDisposition('attachment; filename="C:\\\\Users\\\\x\\\\a.pdf"')).toBe(
			'a.pdf',
		);
		expect(fileNameFromDisposition('attachment; filename=".."')).toBeUndefined();
		expect(fileNameFromDisposition('attachment; filename=""')).toBeUndefined();
	});

	it('gives nothing without a disposition or a file name', () => {
		expect(fileNameFromDisposition(undefined)).toBeUndefined();
		expect(fileNameFromDisposition('inline')).toBeUndefined();
	});
});

describe('withoutKey', () => {
	it('replaces the key as written, after Bearer, and as JSON escapes it, at any depth', () => {
		const key = 'sk_live_abc/def+1=';
		const json = JSON.stringify({
			message: `key ${key} revoked`,
			nested: { auth: `Bearer ${key}`, echo: JSON.stringify({ key }) },
		});
		const redacted = withoutKey(json, key);
		expect(JSON.parse(redacted)).toEqual({
			message: 'key [redacted] revoked',
			nested: { auth: 'Bearer [redacted]', echo: expect.stringContaining('[redacted]') },
		});
		expect(redacted).not.toContain('abc');
		// The way some servers write JSON: `/` escaped; and a key JSON must escape.
		expect(withoutKey('{"k":"sk_live_abc\\/def+1="}', key)).toBe('{"k":"[redacted]"}');
		const quoted = 'sk_live_"quoted"';
		expect(withoutKey(JSON.stringify({ k: quoted }), quoted)).toBe('{"k":"[redacted]"}');
	});

	it('leaves text alone for a key shorter than 8 characters: replacing it would change ordinary words', () => {
		expect(withoutKey('{"ok":true}', 'ok')).toBe('{"ok":true}');
		expect(withoutKey('sk_live_12345678', 'sk_live_12345678')).toBe('[redacted]');
	});
});
