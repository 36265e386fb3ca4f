import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { apiRequestPage } from '../../shared/transport';

/** The "From list" choices of the resource locators: searchable, one page at a time. */

async function search(
	context: ILoadOptionsFunctions,
	path: string,
	filter: string | undefined,
	paginationToken: string | undefined,
	label: (record: IDataObject) => string,
	url?: (record: IDataObject) => string | undefined,
): Promise<INodeListSearchResult> {
	const qs: IDataObject = { limit: 50 };
	if (filter) qs.q = filter;
	const page = await apiRequestPage(context, path, qs, paginationToken);
	return {
		results: page.records
			.filter((record) => record.id !== undefined)
			.map((record) => ({ name: label(record), value: String(record.id), url: url?.(record) })),
		paginationToken: page.nextToken,
	};
}

export async function searchDocuments(this: ILoadOptionsFunctions, filter?: string, paginationToken?: string) {
	return await search(
		this,
		'/documents',
		filter,
		paginationToken,
		(record) => `${String(record.name ?? record.id)}${record.status ? ` (${String(record.status)})` : ''}`,
		(record) => (typeof record.signing_url === 'string' ? record.signing_url : undefined),
	);
}

export async function searchTemplates(this: ILoadOptionsFunctions, filter?: string, paginationToken?: string) {
	return await search(this, '/templates', filter, paginationToken, (record) => String(record.name ?? record.id));
}

export async function searchTeamMembers(this: ILoadOptionsFunctions, filter?: string, paginationToken?: string) {
	return await search(this, '/users', filter, paginationToken, (record) =>
		record.name ? `${String(record.name)} <${String(record.email)}>` : String(record.email ?? record.id),
	);
}
