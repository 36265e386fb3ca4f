import type { INodeProperties } from 'n8n-workflow';

import { operationProperty } from '../../shared/operation';
import { reportAuditLogFields, reportAuditLogOperation } from './auditLog';
import { reportExportFields, reportExportOperation } from './export';
import { periodFields } from './period';
import { reportUsageOperation } from './usage';

/** Report's Operation dropdown: each operation, with its fields, is the file named after its value. */
export const reportOperations = operationProperty(
	'report',
	[reportAuditLogOperation, reportExportOperation, reportUsageOperation],
	'usage',
);

/** Report's fields, in the order n8n shows them. */
export const reportFields: INodeProperties[] = [
	...periodFields(['usage', 'auditLog', 'export']),
	...reportExportFields,
	...reportAuditLogFields,
];
