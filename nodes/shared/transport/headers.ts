import { plainFileName } from '../fileNames';

/** The one case-insensitive header reader every part of the package uses. */

export type HeaderBag = Record<string, unknown> | undefined | null;

/**
 * Characters of a header read at most: Node's HTTP client refuses answers whose headers together
 * pass 16 KB, so no header the package reads is longer, and every reader of one is linear.
 */
export const MAX_HEADER_CHARS = 16_384;

/**
 * The value of header `name` (any case), at most MAX_HEADER_CHARS characters of it, or undefined
 * when absent or empty. Repeated headers (arrays) are joined with ", " as HTTP itself would fold them.
 */
export function headerValue(headers: HeaderBag, name: string): string | undefined {
	const wanted = name.toLowerCase();
	for (const [key, value] of Object.entries(headers ?? {})) {
		if (key.toLowerCase() !== wanted) continue;
		if (value === undefined || value === null) return undefined;
		const text = Array.isArray(value) ? value.map(String).join(', ') : String(value);
		return text === '' ? undefined : text.slice(0, MAX_HEADER_CHARS);
	}
	return undefined;
}

/** A copy of `headers` without the named ones (any case). */
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
	const extended = /filename\*\s*=\s*(?:[\w-]+'[\w-]*')?([^;]+)/i.exec(disposition);
	if (extended) {
		try {
			const name = plainFileName(decodeURIComponent(extended[1].trim().replace(/^"|"$/g, '')));
			if (name) return name;
		} catch {
			// fall through to the plain form
		}
	}
	const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/i.exec(disposition);
	const name = plain ? (plain[2] ?? plain[1]).trim() : undefined;
	return plainFileName(name);
}
