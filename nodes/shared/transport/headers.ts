import { plainFileName } from '../fileNames';

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

/**
 * `Link: <https://…?page=2>; rel="next", <…>; rel="last"` → the rel="next" target. Read with
 * indexOf, one pass over at most MAX_HEADER_CHARS: a header of any content costs linear time.
 */
export function nextLinkFromHeader(link: string | undefined): string | undefined {
	const text = link?.slice(0, MAX_HEADER_CHARS) ?? '';
	let at = 0;
	for (;;) {
		const close = text.indexOf('>', at);
		if (close < 0) return undefined;
		// The target starts after the last `<` before its `>`: stray `<` in front are no part of it.
		const open = text.lastIndexOf('<', close);
		const following = text.indexOf('<', close + 1);
		const parameters = text.slice(close + 1, following < 0 ? undefined : following);
		const target = open >= at ? text.slice(open + 1, close).trim() : '';
		if (target && relationsOf(parameters).includes('next')) return target;
		if (following < 0) return undefined;
		at = following;
	}
}

/** The relation types of a link's `; rel="next last"` parameters, lower-cased. */
function relationsOf(parameters: string): string[] {
	for (const parameter of parameters.split(';')) {
		const equals = parameter.indexOf('=');
		if (equals < 0 || parameter.slice(0, equals).trim().toLowerCase() !== 'rel') continue;
		let value = parameter.slice(equals + 1).trim();
		if (value.endsWith(',')) value = value.slice(0, -1).trim();
		if (value.startsWith('"')) {
			const end = value.indexOf('"', 1);
			value = value.slice(1, end < 0 ? undefined : end);
		}
		return value.toLowerCase().split(/\s+/).filter(Boolean);
	}
	return [];
}
