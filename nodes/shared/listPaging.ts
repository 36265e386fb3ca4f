import type { INodeProperties } from 'n8n-workflow';

// List Paging, for services the node cannot page by itself: the credential's (node version 1: each list's).

/** Each Custom setting's label, in errors and in the editor. */
export const PAGING_LABELS = {
	recordsPath: 'Records Path',
	nextTokenPath: 'Next Token Path',
	totalPath: 'Total Path',
	nextTokenParameter: 'Next Token Parameter',
	offsetParameter: 'Offset Parameter',
	limitParameter: 'Limit Parameter',
};
export type ListPaging = Partial<Record<keyof typeof PAGING_LABELS, string>>;

/** Custom's settings in the order of their labels: placeholder and description. */
const PAGING_HELP: Record<keyof ListPaging, [string, string]> = {
	limitParameter: ['page_size', 'Query parameter that sets the page size (default: limit)'],
	nextTokenParameter: [
		'page_token',
		'Query parameter the next-page token is sent back in (default: implied by the Next Token Path)',
	],
	nextTokenPath: [
		'meta.next_page_token',
		'Where the response holds the next-page token, as keys joined by dots; the list ends when it is missing',
	],
	offsetParameter: [
		'offset',
		'Query parameter for the number of records to skip, for a service paged by offset',
	],
	recordsPath: ['result.documents', 'Where the response holds the records, as keys joined by dots'],
	totalPath: [
		'meta.total',
		'Where the response states how many records the whole list holds; fewer records read than that is an error',
	],
};

/** The Automatic / Custom choice (`listPaging`). */
export function listPagingMode(description: string): INodeProperties {
	return {
		displayName: 'List Paging',
		name: 'listPaging',
		type: 'options',
		default: 'automatic',
		description,
		options: [
			{
				name: 'Automatic',
				value: 'automatic',
				description: 'Read the records and the next page from what each response says',
			},
			{
				name: 'Custom',
				value: 'custom',
				description:
					'Say where the records, next-page token and total are, for a service the node cannot read by itself',
			},
		],
	};
}

/** Custom's settings, one text field each. */
export function listPagingSettings(): INodeProperties[] {
	return Object.entries(PAGING_HELP).map(([name, [placeholder, description]]) => ({
		displayName: PAGING_LABELS[name as keyof ListPaging],
		name,
		type: 'string',
		default: '',
		placeholder,
		description,
	}));
}

/** The credential's List Paging: the choice, then each setting once Custom is chosen. */
export function credentialListPaging(): INodeProperties[] {
	const custom = { show: { listPaging: ['custom'] } };
	return [
		listPagingMode(
			'How the nodes read the pages of every list of this service (documents, templates, the audit log, …). Automatic fits most services.',
		),
		...listPagingSettings().map((setting) => ({ ...setting, displayOptions: custom })),
	];
}
