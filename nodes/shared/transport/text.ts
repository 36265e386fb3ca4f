import { plainFileName } from '../fileNames';

/** Text from outside (headers, the service's words, input): read within bounds, shown as text, never markup. */

/** Cut to `max` characters, `<` and `>` as look-alikes: n8n renders some messages as HTML. */
export function shownText(value: string, max = 500): string {
	const cut = value.length > max ? `${value.slice(0, max - 1).trimEnd()}…` : value;
	return cut.replace(/</g, '‹').replace(/>/g, '›');
}

/** Keys shorter than this are not looked for: replacing them would change ordinary words. */
const MIN_KEY_LENGTH = 8;

/** `text` with the API key, as written and as JSON escapes it, replaced by `[redacted]`. */
export function withoutKey(text: string, key: string): string {
	if (key.length < MIN_KEY_LENGTH) return text;
	const escaped = JSON.stringify(key).slice(1, -1);
	let redacted = text;
	for (const form of new Set([key, escaped, escaped.replace(/\//g, '\\/')]))
		redacted = redacted.split(form).join('[redacted]');
	return redacted;
}

/** A value from the user, an input item or a model as an error repeats it: quoted, at most 80 characters. */
export function shownInput(value: string): string {
	return value.length > 80 ? `"${value.slice(0, 80)}…" (${value.length} characters)` : `"${value}"`;
}

/** Node's HTTP client refuses responses whose headers pass 16 KB together: no header is longer. */
const MAX_HEADER_CHARS = 16_384;

/** Header `name` in any case, bounded; undefined when empty; repeated ones folded with ", " as HTTP does. */
export function headerValue(
	headers: Record<string, unknown> | undefined | null,
	name: string,
): string | undefined {
	const wanted = name.toLowerCase();
	for (const [key, value] of Object.entries(headers ?? {})) {
		if (key.toLowerCase() !== wanted) continue;
		if (value === undefined || value === null) return undefined;
		const text = Array.isArray(value) ? value.map(String).join(', ') : String(value);
		return text === '' ? undefined : text.slice(0, MAX_HEADER_CHARS);
	}
	return undefined;
}

export function withoutHeaders<T>(
	headers: Record<string, T> | undefined,
	names: string[],
): Record<string, T> {
	const drop = new Set(names.map((name) => name.toLowerCase()));
	// fromEntries defines own properties: a header named __proto__ stays a header.
	return Object.fromEntries(
		Object.entries(headers ?? {}).filter(([key]) => !drop.has(key.toLowerCase())),
	);
}

/** `attachment; filename="a.csv"` or `filename*=UTF-8''a%20b.csv` → the file name, as a plain base name. */
export function fileNameFromDisposition(disposition: string | undefined): string | undefined {
	if (!disposition) return undefined;
	const extended = /filename\*\s*=\s*(?:[\w-]+'[\w-]*')?([^;]+)/i.exec(disposition)?.[1].trim();
	let name: string | undefined;
	try {
		name = extended && plainFileName(decodeURIComponent(extended.replace(/^"|"$/g, '')));
	} catch {
		// A bad escape: the plain form below.
	}
	const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/i.exec(disposition);
	return name || plainFileName(plain ? (plain[2] ?? plain[1]).trim() : undefined);
}
