import type { INodeProperties } from 'n8n-workflow';

import { resourceLocator, searchListPaging } from '../../shared/fields';
import { showForPathParameter } from '../../shared/operation';

/** The Team Member locator, shown with every operation whose path takes `{teamMemberId}`. */
export function teamMemberIdFields(operations: INodeProperties): INodeProperties[] {
	return [
		resourceLocator({
			name: 'teamMemberId',
			displayName: 'Team Member',
			description: 'The team member whose role changes',
			searchListMethod: 'searchTeamMembers',
			idPlaceholder: 'usr_5h1c8v',
			displayOptions: showForPathParameter(operations, 'teamMemberId'),
		}),
		...searchListPaging(showForPathParameter(operations, 'teamMemberId')),
	];
}
