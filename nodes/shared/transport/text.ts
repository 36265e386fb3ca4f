/** How text from outside is shown in messages n8n displays: bounded, and never markup. */

/**
 * Cut to `max` characters, `<` and `>` as look-alikes: n8n renders some messages and descriptions
 * as HTML, and markup in the service's text must show as text there.
 */
export function shownText(value: string, max = 500): string {
	const cut = value.length > max ? `${value.slice(0, max - 1).trimEnd()}…` : value;
	return cut.replace(/</g, '‹').replace(/>/g, '›');
}

/** A value from the user, an input item or a model as an error repeats it: quoted, at most 80 characters. */
export function shownInput(value: string): string {
	return value.length > 80 ? `"${value.slice(0, 80)}…" (${value.length} characters)` : `"${value}"`;
}
