// A Write File node built from `{{ $json.fileName }}` writes wherever the name points: so a name is
// only ever a plain base name.

/** Longest file name passed on, in UTF-8 bytes (file systems allow 255; room is left for a suffix). */
const MAX_FILE_NAME_BYTES = 200;

/** Control characters, invisible format characters (bidi overrides, zero-width) and line breaks. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
const EXTENSION = /\.[\p{L}\p{N}]{1,10}$/u;

const isTrimmed = (character: string) => character === '.' || /\s/.test(character);

/**
 * `name` without folder part, invisible characters or leading and trailing dots and spaces (no `.`,
 * `..` or hidden file), at most MAX_FILE_NAME_BYTES with its extension kept; or undefined.
 */
export function plainFileName(name: unknown): string | undefined {
	if (typeof name !== 'string') return undefined;
	const visible = name.replace(INVISIBLE, '');
	const last = visible.slice(Math.max(visible.lastIndexOf('/'), visible.lastIndexOf('\\')) + 1);
	const characters = Array.from(last);
	let start = 0;
	let end = characters.length;
	while (start < end && isTrimmed(characters[start])) start++;
	while (end > start && isTrimmed(characters[end - 1])) end--;
	if (start === end) return undefined;
	const kept = characters.slice(start, end).join('');
	if (Buffer.byteLength(kept) <= MAX_FILE_NAME_BYTES) return kept;
	const extension = EXTENSION.exec(kept.slice(-11))?.[0] ?? '';
	const stem: string[] = [];
	let bytes = Buffer.byteLength(extension);
	for (const character of Array.from(kept.slice(0, kept.length - extension.length))) {
		bytes += Buffer.byteLength(character);
		if (bytes > MAX_FILE_NAME_BYTES) break;
		stem.push(character);
	}
	while (stem.length > 0 && isTrimmed(stem[stem.length - 1])) stem.pop();
	return `${stem.join('')}${extension}`;
}

export function withExtension(name: string, extension: string): string {
	return name.toLowerCase().endsWith(extension.toLowerCase()) ? name : `${name}${extension}`;
}

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** The media type of a Content-Type header (`type/subtype`, lower case), else octet-stream. */
export function mediaTypeOf(contentType: string | undefined): string {
	const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
	return MEDIA_TYPE.test(type) ? type : 'application/octet-stream';
}

/** The first bytes of `data` as safe text for an error: printable ASCII, else `\xNN`. */
export function firstBytesShown(data: Buffer, count = 16): string {
	let shown = '';
	for (const byte of data.subarray(0, count)) {
		if (byte === 0x3c) shown += '‹';
		else if (byte === 0x3e) shown += '›';
		else if (byte === 0x5c) shown += '\\\\';
		else if (byte >= 0x20 && byte <= 0x7e) shown += String.fromCharCode(byte);
		else shown += `\\x${byte.toString(16).padStart(2, '0')}`;
	}
	return data.length > count ? `${shown}…` : shown;
}
