import type { INodeProperties } from 'n8n-workflow';

import { resourceLocator, searchListPaging } from '../../shared/fields';
import { showForPathParameter } from '../../shared/operation';

/** The Document locator, shown with every operation whose path takes `{documentId}`. */
export function documentIdFields(operations: INodeProperties): INodeProperties[] {
	return [
		resourceLocator({
			name: 'documentId',
			displayName: 'Document',
			description: 'The document to use',
			searchListMethod: 'searchDocuments',
			idPlaceholder: 'doc_8f3k2j',
			url: {
				placeholder: 'https://app.example.com/sign/doc_8f3k2j',
				pathSegment: 'documents|sign',
			},
			displayOptions: showForPathParameter(operations, 'documentId'),
		}),
		...searchListPaging(showForPathParameter(operations, 'documentId')),
	];
}
