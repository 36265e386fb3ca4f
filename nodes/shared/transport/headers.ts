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

/**
 * `Link: <https://…?page=2>; rel="next", <…>; rel="last"` → the rel="next" target: a target runs from
 * the last `<` before its `>`, its parameters up to the next `<`. Linear: no part can backtrack past a `<`.
 */
export function nextLinkFromHeader(link: string | undefined): string | undefined {
	const text = link?.slice(0, MAX_HEADER_CHARS) ?? '';
	for (const [, target, parameters] of text.matchAll(/<([^<>]*)>([^<]*)/g))
		if (target.trim() && relationsOf(parameters).includes('next')) return target.trim();
	return undefined;
}

/** The relation types of a link's first `; rel="next last"` parameter, lower-cased. */
function relationsOf(parameters: string): string[] {
	const rel = parameters.split(';').find((parameter) => /^\s*rel\s*=/i.test(parameter)) ?? '=';
	const value = rel.slice(rel.indexOf('=') + 1).replace(/,\s*$/, '');
	const quoted = /^\s*"([^"]*)/.exec(value)?.[1];
	return (quoted ?? value).toLowerCase().split(/\s+/).filter(Boolean);
}
