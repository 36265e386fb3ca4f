/** How text from outside is shown in messages n8n displays: bounded, and never markup. */

/** Longest service message shown; codes and field names are shorter still. */
export const MAX_MESSAGE_LENGTH = 500;

/**
 * The service's text as n8n may show it: cut to `max` characters, and with `<` and `>` replaced by
 * look-alikes, so markup in it shows as text wherever n8n renders a message or description as HTML.
 */
export function shownText(value: string, max = MAX_MESSAGE_LENGTH): string {
	const cut = value.length > max ? `${value.slice(0, max - 1).trimEnd()}…` : value;
	return cut.replace(/</g, '‹').replace(/>/g, '›');
}

/** Longest input value an error message repeats; the rest is replaced by its length. */
const MAX_SHOWN_INPUT = 80;

/**
 * A value from the user, an input item or a model as an error repeats it: quoted, and cut to
 * MAX_SHOWN_INPUT characters with its length said, so a huge value never fills a message.
 */
export function shownInput(value: string): string {
	return value.length > MAX_SHOWN_INPUT
		? `"${value.slice(0, MAX_SHOWN_INPUT)}…" (${value.length} characters)`
		: `"${value}"`;
}
