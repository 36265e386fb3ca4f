/**
 * nodes/shared/fileNames.ts: names of files from the service as plain base names, media types as
 * `type/subtype`, and the first bytes of a file as safe text for an error.
 */
import {
	firstBytesShown,
	mediaTypeOf,
	plainFileName,
	withExtension,
} from '../../../nodes/shared/fileNames';

/** The longest name passed on, in UTF-8 bytes, as fileNames.ts documents it. */
const MAX_FILE_NAME_BYTES = 200;

describe('plainFileName', () => {
	test.each<[string, unknown, string | undefined]>([
		['a plain name stays as it is', 'Mietvertrag ü.pdf', 'Mietvertrag ü.pdf'],
		['folders are dropped', '../../../home/node/.n8n/nodes/evil.pdf', 'evil.pdf'],
		['Windows folders are dropped', 'C:\\Users\\x\\..\\a.pdf', 'a.pdf'],
		['a name ending in a folder separator is nothing', 'folder/', undefined],
		['"." and ".." are nothing', '..', undefined],
		['only dots and spaces are nothing', ' . .. ', undefined],
		['a hidden file loses its leading dots', '..env', 'env'],
		['trailing dots and spaces go (Windows drops them too)', 'a.pdf. . ', 'a.pdf'],
		['NUL, CR, LF, tab and DEL go', 'a\u0000b\r\nc\td\u007f.pdf', 'abcd.pdf'],
		['C1 controls go', 'a\u0085\u009b.pdf', 'a.pdf'],
		['a right-to-left override goes', 'invoice\u202efdp.exe', 'invoicefdp.exe'],
		['zero-width and line separators go', 'a\u200b\u2028\u2029.pdf', 'a.pdf'],
		['a NUL between two dots cannot make ".."', '.\u0000.', undefined],
		['not text is nothing', 42, undefined],
		['empty is nothing', '', undefined],
	])('%s', (_title, name, expected) => {
		expect(plainFileName(name)).toBe(expected);
	});

	test('a long name is cut to MAX_FILE_NAME_BYTES of UTF-8, its extension kept', () => {
		const ascii = plainFileName(`${'a'.repeat(500)}.pdf`)!;
		expect(ascii).toBe(`${'a'.repeat(MAX_FILE_NAME_BYTES - 4)}.pdf`);
		const wide = plainFileName(`${'漢'.repeat(300)}.docx`)!;
		expect(Buffer.byteLength(wide)).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
		expect(wide.endsWith('漢.docx')).toBe(true);
		const emoji = plainFileName('😀'.repeat(100))!;
		expect(Buffer.byteLength(emoji)).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
		// Whole characters only: no half of a surrogate pair.
		expect(emoji).toBe('😀'.repeat(MAX_FILE_NAME_BYTES / 4));
	});
});

test('withExtension appends the extension unless the name has it in any case', () => {
	expect(withExtension('a.PDF', '.pdf')).toBe('a.PDF');
	expect(withExtension('a.docx', '.pdf')).toBe('a.docx.pdf');
	expect(withExtension('a', '.pdf')).toBe('a.pdf');
});

test.each<[string | undefined, string]>([
	['application/pdf; charset=binary', 'application/pdf'],
	['Text/HTML', 'text/html'],
	[
		'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
		'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
	],
	[undefined, 'application/octet-stream'],
	['', 'application/octet-stream'],
	['pdf', 'application/octet-stream'],
	['text/html<script>', 'application/octet-stream'],
	['a/b/c', 'application/octet-stream'],
])('mediaTypeOf(%j) is %s', (contentType, expected) => {
	expect(mediaTypeOf(contentType)).toBe(expected);
});

test('firstBytesShown: printable ASCII as it is, markup as look-alikes, other bytes as \\xNN', () => {
	expect(firstBytesShown(Buffer.from('<html>'))).toBe('‹html›');
	expect(firstBytesShown(Buffer.from([0x00, 0x41, 0xff, 0x0a, 0x5c]))).toBe('\\x00A\\xff\\x0a\\\\');
	expect(firstBytesShown(Buffer.from('0123456789abcdefXYZ'))).toBe('0123456789abcdef…');
	expect(firstBytesShown(Buffer.alloc(0))).toBe('');
});
