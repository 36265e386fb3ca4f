import {
	NodeOperationError,
	type IDataObject,
	type ILoadOptionsFunctions,
	type INodeListSearchResult,
} from 'n8n-workflow';

import { apiRequestPage, type ServiceOrigin } from '../../shared/transport';
import { readListPaging, type ListPaging } from '../../shared/transport/listRecords';

/** The "From list" choices of the resource locators: searchable, one page at a time. */

/**
 * The List Paging shown beside the locator being searched: the editor sends the node's current
 * parameters with each search, so the setting applies before the workflow is saved.
 */
function listPagingOf(context: ILoadOptionsFunctions): ListPaging {
	if (context.getCurrentNodeParameter('listPaging') !== 'custom') return {};
	try {
		return readListPaging(context.getCurrentNodeParameter('listPagingSettings'));
	} catch (error) {
		// readListPaging throws only ListPagingInputError, whose message names the setting.
		throw new NodeOperationError(context.getNode(), (error as Error).message);
	}
}

async function search(
	context: ILoadOptionsFunctions,
	path: string,
	filter: string | undefined,
	paginationToken: string | undefined,
	label: (record: IDataObject) => string,
	url?: (record: IDataObject) => unknown,
): Promise<INodeListSearchResult> {
	const qs: IDataObject = { limit: 50 };
	if (filter) qs.q = filter;
	const page = await apiRequestPage(context, path, qs, paginationToken, listPagingOf(context));
	return {
		results: page.records
			.filter((record) => record.id !== undefined)
			.map((record) => ({
				name: label(record),
				value: String(record.id),
				url: url ? editorLink(url(record), page.origin) : undefined,
			})),
		paginationToken: page.nextToken,
	};
}

/**
 * A link the editor may show next to a result: an http(s) URL on the credential's origin, or
 * none. The service's text never becomes a javascript:, data: or foreign link in the editor.
 */
export function editorLink(value: unknown, origin: ServiceOrigin): string | undefined {
	if (typeof value !== 'string') return undefined;
	try {
		const url = new URL(value);
		return /^https?:$/.test(url.protocol) &&
			!url.username &&
			!url.password &&
			origin.isOwn(url.href)
			? url.href
			: undefined;
	} catch {
		return undefined;
	}
}

export async function searchDocuments(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
) {
	return await search(
		this,
		'/documents',
		filter,
		paginationToken,
		(record) =>
			`${String(record.name ?? record.id)}${record.status ? ` (${String(record.status)})` : ''}`,
		(record) => record.signing_url,
	);
}

export async function searchTemplates(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
) {
	return await search(this, '/templates', filter, paginationToken, (record) =>
		String(record.name ?? record.id),
	);
}

export async function searchTeamMembers(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
) {
	return await search(this, '/users', filter, paginationToken, (record) =>
		record.name
			? `${String(record.name)} <${String(record.email)}>`
			: String(record.email ?? record.id),
	);
}
