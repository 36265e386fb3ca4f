// Straight from the defining files: the transport imports idText, so its index would be a circle.
import { ServiceBehaviourError } from './transport/errors';
import { shownInput } from './transport/text';

/** The text of an id of any JSON scalar type, or undefined when `value` is not a usable id. */
export function idText(value: unknown): string | undefined {
	if (typeof value === 'string') return value.trim() === '' ? undefined : value;
	if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
	if (typeof value === 'bigint') return value.toString();
	return undefined;
}

/** Why `id` cannot name a record in a path: URLs drop `.` and `..`; `/ ? #` or spaces change it. */
export function idProblem(id: string): string | undefined {
	return id === '.' || id === '..' || /[/?#\\\s]/.test(id)
		? `${shownInput(id)} is not a valid ID`
		: undefined;
}

export const ID_HINT = 'An ID has no spaces, "/", "\\", "?" or "#", and is not "." or "..".';

/** apiPath`/webhooks/${id}`: every id placed in a path, whatever its source, passes idProblem. */
export function apiPath(strings: TemplateStringsArray, ...ids: Array<string | number>): string {
	return strings.reduce((path, text, index) => {
		if (index >= ids.length) return path + text;
		const id = String(ids[index]);
		if (id === '' || idProblem(id))
			throw new ServiceBehaviourError(
				`The ID "${id.slice(0, 100)}" cannot be used in a request path`,
				`Nothing was requested with it. ${ID_HINT}`,
			);
		return path + text + encodeURIComponent(id);
	}, '');
}

/** idProblem as the pattern the editor checks a typed ID against (n8n anchors it at both ends). */
export const ID_PATTERN = '(?!\\.{1,2}$)[^/?#\\\\\\s]+';
