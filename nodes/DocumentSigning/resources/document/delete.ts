import { operation } from '../../shared/operation';
import { deletedResult } from '../../shared/postReceive';

export const documentDeleteOperation = operation({
	name: 'Delete',
	value: 'delete',
	action: 'Delete a document',
	description: 'Delete a document; a document still out for signing is cancelled first',
	method: 'DELETE',
	path: '/documents/{documentId}',
	postReceive: [deletedResult('documentId')],
});
