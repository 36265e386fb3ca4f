import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { apiRequestPage, type ServiceOrigin } from '../../shared/transport';
import { readListPaging } from '../../shared/transport/listRecords';

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
		const qs: IDataObject = { limit: 50 };
		if (filter) qs.q = filter;
		// The List Paging beside the locator, as the editor shows it now (not yet saved).
		const paging = readListPaging(
			this.getCurrentNodeParameter('listPaging'),
			this.getCurrentNodeParameter('listPagingSettings'),
			this.getNode(),
		);
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
