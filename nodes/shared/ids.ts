import { ServiceBehaviourError } from './transport/errors';
import { shownInput } from './transport/text';

/**
 * Identifiers as the service may send them: opaque strings (`doc_8f3k2j`) or JSON numbers
 * (`1004`). Inside the package every id is handled as its text; paths always encode it.
 */

/** The text of an id of any JSON scalar type, or undefined when `value` is not a usable id. */
export function idText(value: unknown): string | undefined {
	if (typeof value === 'string') return value.trim() === '' ? undefined : value;
	if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
	if (typeof value === 'bigint') return value.toString();
	return undefined;
}

/**
 * Why `id` cannot name a record in a path, or undefined when it can. `.` and `..` would be
 * normalised away by URL handling (Get Document `.` would read the list), and `/ ? #` or
 * whitespace would change the path itself.
 */
export function idProblem(id: string): string | undefined {
	return id === '.' || id === '..' || /[/?#\\\s]/.test(id)
		? `${shownInput(id)} is not a valid ID`
		: undefined;
}

export const ID_HINT = 'An ID has no spaces, "/", "\\", "?" or "#", and is not "." or "..".';

/** An id, from wherever it came (the service, a delivery, static data), that cannot name a record in a path. */
export class UnusableIdError extends ServiceBehaviourError {
	constructor(readonly id: string) {
		super(
			`The ID "${id.slice(0, 100)}" cannot be used in a request path`,
			`Nothing was requested with it. ${ID_HINT}`,
		);
	}
}

/**
 * apiPath`/webhooks/${id}/deliveries/${deliveryId}`: every interpolated id passes idProblem (the
 * one check of every id placed in a path, whatever its source) and is encoded.
 */
export function apiPath(strings: TemplateStringsArray, ...ids: Array<string | number>): string {
	return strings.reduce((path, text, index) => {
		if (index >= ids.length) return path + text;
		const id = String(ids[index]);
		if (id === '' || idProblem(id)) throw new UnusableIdError(id);
		return path + text + encodeURIComponent(id);
	}, '');
}

/** idProblem as the pattern the editor checks a typed ID against (n8n anchors it at both ends). */
export const ID_PATTERN = '(?!\\.{1,2}$)[^/?#\\\\\\s]+';
