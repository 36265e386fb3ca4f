import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { ServiceBehaviourError } from './errors';
import { readListPage } from './listPages';
import { extractRecords, type ListPaging, type PageRequest } from './listRecords';
import { about, recordKey, type FetchedPage } from './pageWalk';
import type { ServiceOrigin } from './service';

/** The list searches of the editor ("From list"): one page at a time, and a token for the next. */

/**
 * Page tokens of the list searches (sent to the editor and back). They carry a cursor (with its
 * parameter name and the names still to try), a page number, an offset with its parameters, or a
 * path under the Base URL — never a whole URL — and `after`: a hash of the last record served, so
 * the next page can tell when the service ignores paging. All is checked again when they return.
 */
export function pageToken(
	next: PageRequest,
	origin: ServiceOrigin,
	requestUrl: string,
	lastRecord?: IDataObject,
): string {
	const url = next.url && new URL(origin.followable(next.url, requestUrl, 'a next-page link'));
	return JSON.stringify({
		...(url ? { path: `${url.pathname}${url.search}` } : {}),
		cursor: next.cursor,
		param: next.cursorParam === 'cursor' ? undefined : next.cursorParam,
		alt: next.alternatives?.length ? next.alternatives : undefined,
		page: next.page,
		offset: next.offset,
		params: next.params,
		after: lastRecord ? shortHash(recordKey(lastRecord)) : undefined,
	});
}

const isName = (value: unknown) =>
	typeof value === 'string' && /^[A-Za-z0-9_\-.[\]]{1,100}$/.test(value);
const isCount = (value: unknown, min: number) =>
	Number.isSafeInteger(value) && (value as number) >= min;

/** What each key of a page token may hold, and the keys that go together (the first one leads). */
const TOKEN_FIELDS: Record<string, (value: unknown) => boolean> = {
	cursor: (value) => typeof value === 'string',
	param: isName,
	alt: (value) => Array.isArray(value) && value.length <= 10 && value.every(isName),
	page: (value) => isCount(value, 2),
	offset: (value) => isCount(value, 1),
	params: (value) => {
		const entries = Object.entries(typeof value === 'object' && value !== null ? value : []);
		const valid = entries.every(([name, number]) => isName(name) && isCount(number, 0));
		return !Array.isArray(value) && entries.length >= 1 && entries.length <= 2 && valid;
	},
	path: (value) => typeof value === 'string',
	after: (value) => typeof value === 'string' && /^[0-9a-f]{16}$/.test(value),
};
const TOKEN_KINDS = [['cursor', 'param', 'alt'], ['page'], ['offset', 'params'], ['path']];

/** A page token back from the editor, or an error when it is not one this package would make. */
export function readPageToken(
	token: string,
	origin: ServiceOrigin,
): PageRequest & { after?: string } {
	let fields: Record<string, unknown> = {};
	try {
		fields = Object(JSON.parse(token)) as Record<string, unknown>;
	} catch {
		// not JSON: refused below
	}
	const keys = Object.keys(fields).filter((key) => key !== 'after');
	const kind = TOKEN_KINDS.find(([lead]) => keys.includes(lead));
	const url = typeof fields.path === 'string' ? origin.underBase(fields.path) : undefined;
	const valid =
		kind !== undefined &&
		keys.every((key) => kind.includes(key)) &&
		Object.entries(fields).every(
			([key, value]) => Object.hasOwn(TOKEN_FIELDS, key) && TOKEN_FIELDS[key](value),
		) &&
		(kind[0] !== 'offset' || fields.params !== undefined) &&
		(kind[0] !== 'path' || url !== undefined);
	if (!valid || Array.isArray(fields))
		throw new ServiceBehaviourError(
			'The list page token is not valid',
			'Reload the list to start from its first page.',
		);
	const { param, alt, path, ...request } = fields;
	return {
		...(request as PageRequest & { after?: string }),
		...(param !== undefined ? { cursorParam: param as string } : {}),
		...(alt !== undefined ? { alternatives: alt as string[] } : {}),
		...(path !== undefined ? { url } : {}),
	};
}

function shortHash(text: string): string {
	return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/**
 * One page of a list search (a page of the "From list" choices) and the token of the next. A page
 * holding the record the previous page ended with is a repeat: the token is sent again under each
 * other name it may be read under (as in walkPages), then it is an error. A name that works is
 * kept in the next token.
 */
export async function searchPage({
	origin,
	token,
	pageSize,
	paging = {},
	fetchPage,
}: {
	origin: ServiceOrigin;
	token?: string;
	pageSize: number;
	paging?: ListPaging;
	fetchPage(request: PageRequest): Promise<FetchedPage<unknown>>;
}): Promise<{ records: IDataObject[]; nextToken?: string }> {
	let request: PageRequest & { after?: string } = token ? readPageToken(token, origin) : {};
	for (;;) {
		const { response, requestUrl } = await fetchPage(request);
		const records = extractRecords(response.body, paging);
		if (records.some((record) => shortHash(recordKey(record)) === request.after)) {
			const [other, ...rest] = request.alternatives ?? [];
			if (other === undefined)
				throw new ServiceBehaviourError(
					`The service answered ${about(request).what} with records it had already sent; it seems to ignore ${about(request).needs}`,
					'The list shows the first page only. Search by name to find other records, or set List Paging to Custom to say how the service pages.',
				);
			request = { ...request, cursorParam: other, alternatives: rest };
			continue;
		}
		const { ways } = readListPage(response, request, { pageSize, paging }, records);
		const [next, ...others] = ways;
		if (!next) return { records };
		// A name this token was read under works, so it is kept; else the other names go along.
		const nextRequest =
			next.cursor === undefined
				? next
				: request.cursor !== undefined
					? { cursor: next.cursor, cursorParam: request.cursorParam }
					: {
							...next,
							alternatives: others.flatMap((way) =>
								way.cursor === next.cursor ? [way.cursorParam as string] : [],
							),
						};
		return { records, nextToken: pageToken(nextRequest, origin, requestUrl, records.at(-1)) };
	}
}
