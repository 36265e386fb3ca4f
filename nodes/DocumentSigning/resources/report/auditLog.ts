import type { INodeProperties } from 'n8n-workflow';

import { AUDIT_EVENTS, eventLabel } from '../../../shared/vocabulary';
import { returnAllAndLimit } from '../../shared/fields';
import { filtersCollection, queryChoiceFilter, queryFilter } from '../../shared/listFilters';
import { operation } from '../../shared/operation';
import { sendDateRange } from './period';

export const reportAuditLogOperation = operation({
	name: 'Audit Log',
	value: 'auditLog',
	action: 'Get the audit log',
	description: 'Who did what and when, newest first',
	method: 'GET',
	path: '/reports/audit-log',
	list: true,
	preSend: [sendDateRange],
});

export const reportAuditLogFields: INodeProperties[] = [
	...returnAllAndLimit('report', 'auditLog'),
	filtersCollection('report', 'auditLog', [
		queryFilter('Document ID', 'document_id'),
		queryChoiceFilter('Event', 'event', AUDIT_EVENTS, eventLabel, 'document.created'),
	]),
];
