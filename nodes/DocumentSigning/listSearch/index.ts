import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { apiRequestPage, type ServiceOrigin, readListPaging } from '../../shared/transport';

/** A result's link: on the credential's origin without user info (no javascript:, data: or foreign). */
function editorLink(value: unknown, origin: ServiceOrigin): string | undefined {
	if (typeof value !== 'string' || !origin.isOwn(value)) return undefined;
	const url = new URL(value);
	return url.username || url.password ? undefined : url.href;
}

/** A "From list" search of the records at `path`, labelled (and linked) from each record. */
function search(
	path: string,
	label: (record: IDataObject) => string,
	url?: (record: IDataObject) => unknown,
) {
	return async function (
		this: ILoadOptionsFunctions,
		filter?: string,
		paginationToken?: string,
	): Promise<INodeListSearchResult> {
		// The List Paging beside the locator, as the editor shows it now (not yet saved).
		const paging = readListPaging(
			this.getCurrentNodeParameter('listPaging'),
			this.getCurrentNodeParameter('listPagingSettings'),
			this.getNode(),
		);
		const qs = filter ? { q: filter } : {};
		const page = await apiRequestPage(this, path, qs, paginationToken, paging);
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
	};
}

export const searchDocuments = search(
	'/documents',
	(record) =>
		`${String(record.name ?? record.id)}${record.status ? ` (${String(record.status)})` : ''}`,
	(record) => record.signing_url,
);

export const searchTemplates = search('/templates', (record) => String(record.name ?? record.id));

export const searchTeamMembers = search('/users', (record) =>
	record.name
		? `${String(record.name)} <${String(record.email)}>`
		: String(record.email ?? record.id),
);
