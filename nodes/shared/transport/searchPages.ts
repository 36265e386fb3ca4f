import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { TIME_LIMITS } from './retry';
import { ServiceBehaviourError } from './errors';
import { readListPage } from './listPages';
import {
	extractRecords,
	isObject,
	PARAMETER,
	type ListPaging,
	type PageRequest,
} from './listRecords';
import { about, listOf, recordKey, type WalkOptions } from './pageWalk';
import type { ApiContext } from './request';
import type { ServiceOrigin } from './service';

// The editor's list searches, a page at a time, and their page tokens; the loop is pageWalk.ts.

/**
 * A list search's page token, to the editor and back: one way (a path under the Base URL, never a
 * URL), and `after`, a hash of the last record served, to tell when the service ignores paging.
 */
function pageToken(
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
		after: lastRecord ? shortHash(lastRecord) : undefined,
	});
}

const isName = (value: unknown) => typeof value === 'string' && PARAMETER.test(value);
const isCount = (min: number) => (value: unknown) =>
	Number.isSafeInteger(value) && (value as number) >= min;
const isText = (value: unknown) => typeof value === 'string';
const isParams = (value: unknown) =>
	isObject(value) &&
	[1, 2].includes(Object.keys(value).length) &&
	Object.entries(value).every(([name, number]) => isName(name) && isCount(0)(number));

/** The kinds of token: what each key may hold (the first one leads; `after` goes with any). */
const TOKEN_KINDS: Array<Record<string, (value: unknown) => boolean>> = [
	{
		cursor: isText,
		param: isName,
		alt: (v) => Array.isArray(v) && v.length <= 10 && v.every(isName),
	},
	{ page: isCount(2) },
	{ offset: isCount(1), params: isParams },
	{ path: isText },
];

/** A token back from the editor, refused unless this package could have made it. */
function readPageToken(token: string, origin: ServiceOrigin): PageRequest & { after?: string } {
	let fields: IDataObject = {};
	try {
		fields = Object(JSON.parse(token)) as IDataObject;
	} catch {
		// not JSON: refused below
	}
	const { after, param, alt, path, ...request } = fields;
	const kind = TOKEN_KINDS.find((fieldsOf) => Object.hasOwn(fields, Object.keys(fieldsOf)[0]));
	const url = typeof path === 'string' ? origin.underBase(path) : undefined;
	const valid =
		kind !== undefined &&
		Object.entries(fields).every(([key, value]) =>
			key === 'after'
				? typeof value === 'string' && /^[0-9a-f]{16}$/.test(value)
				: Object.hasOwn(kind, key) && kind[key](value),
		) &&
		(!kind.offset || request.params !== undefined) &&
		(!kind.path || url !== undefined);
	if (!valid)
		throw new ServiceBehaviourError(
			'The list page token is not valid',
			'Reload the list to start from its first page.',
		);
	return { ...request, after, cursorParam: param, alternatives: alt, url } as PageRequest & {
		after?: string;
	};
}

const shortHash = (record: IDataObject) =>
	createHash('sha256').update(recordKey(record)).digest('hex').slice(0, 16);

/**
 * One page of a list search and the next one's token. A page holding the record the previous one
 * ended with is a repeat: the cursor goes again under each other name, then it is an error.
 */
async function searchPage({
	origin,
	token,
	pageSize,
	paging = {},
	fetchPage,
}: Pick<WalkOptions<unknown>, 'origin' | 'pageSize' | 'paging' | 'fetchPage'> & {
	token?: string;
}): Promise<{ records: IDataObject[]; nextToken?: string }> {
	let request: PageRequest & { after?: string } = token ? readPageToken(token, origin) : {};
	for (;;) {
		const { response, requestUrl } = await fetchPage(request);
		const records = extractRecords(response.body, paging);
		if (records.some((record) => shortHash(record) === request.after)) {
			const [other, ...rest] = request.alternatives ?? [];
			if (other === undefined)
				throw new ServiceBehaviourError(
					`The service answered ${about(request).what} with records it had already sent; it seems to ignore ${about(request).needs}`,
					'The list shows the first page only. Search by name to find other records, or set List Paging to Custom in the credential to say how the service pages.',
				);
			request = { ...request, cursorParam: other, alternatives: rest };
			continue;
		}
		const [next, ...others] = readListPage(response, request, { pageSize, paging }, records).ways;
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

/** 50 records a page; n8n gives a list search no cancel signal: TIME_LIMITS.listSearchMs bounds it. */
export async function apiRequestPage(
	context: ApiContext,
	path: string,
	qs: IDataObject,
	token?: string,
	paging: ListPaging = {},
): Promise<{ records: IDataObject[]; nextToken?: string; origin: ServiceOrigin }> {
	const list = await listOf(context, path, qs, 50, paging, TIME_LIMITS.listSearchMs);
	return { ...(await searchPage({ ...list, token })), origin: list.origin };
}
