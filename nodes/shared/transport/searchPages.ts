import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { TIME_LIMITS } from './retry';
import { ServiceBehaviourError } from './errors';
import { isObject, PARAMETER, type ListPaging, type PageRequest } from './listRecords';
import { listOf, recordKey, walk } from './pageWalk';
import type { ApiContext } from './request';
import type { ServiceOrigin } from './service';

// The editor's list searches' page tokens; the loop, a page a call, is pageWalk.ts.

/** A list search's page token: one way (a path, never a URL) and `after`, the last record's hash. */
function pageToken(next: PageRequest, lastRecord?: IDataObject): string {
	// The walk has resolved a link and checked it is on the credential's origin.
	const url = next.url && new URL(next.url);
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
function readPageToken(token: string, origin: ServiceOrigin) {
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
	return {
		after: after as string | undefined,
		start: { ...request, cursorParam: param, alternatives: alt, url } as PageRequest,
	};
}

const shortHash = (record: IDataObject) =>
	createHash('sha256').update(recordKey(record)).digest('hex').slice(0, 16);

/** 50 records a page; n8n gives a list search no cancel signal: TIME_LIMITS.listSearchMs bounds it. */
export async function apiRequestPage(
	context: ApiContext,
	path: string,
	qs: IDataObject,
	token?: string,
	paging: ListPaging = {},
): Promise<{ records: IDataObject[]; nextToken?: string; origin: ServiceOrigin }> {
	const list = await listOf(context, path, qs, 50, paging, TIME_LIMITS.listSearchMs);
	const { start, after } = token ? readPageToken(token, list.origin) : {};
	// A page holding the record the previous one ended with is a repeat: the cursor goes again
	// under each other name, then it is an error.
	const repeats = (page: IDataObject[]) => page.some((record) => shortHash(record) === after);
	const { records, next } = await walk<IDataObject>({ ...list, start, repeats }, 'page');
	return { records, nextToken: next && pageToken(next, records.at(-1)), origin: list.origin };
}
