import type { INodeProperties } from 'n8n-workflow';

import { resourceLocator, searchListPaging } from '../../shared/fields';
import { showForPathParameter } from '../../shared/operation';

/** The Template locator, shown with every operation whose path takes `{templateId}`. */
export function templateIdFields(operations: INodeProperties): INodeProperties[] {
	return [
		resourceLocator({
			name: 'templateId',
			displayName: 'Template',
			description: 'The template to update',
			searchListMethod: 'searchTemplates',
			idPlaceholder: 'tpl_2b7x0d',
			displayOptions: showForPathParameter(operations, 'templateId'),
		}),
		...searchListPaging(showForPathParameter(operations, 'templateId')),
	];
}
