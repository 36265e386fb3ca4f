import type { INodeProperties } from 'n8n-workflow';

import { operationProperty } from '../../shared/operation';
import { reportAuditLogFields, reportAuditLogOperation } from './auditLog';
import { reportExportFields, reportExportOperation } from './export';
import { periodFields } from './period';
import { reportUsageOperation } from './usage';

export const reportOperations = operationProperty(
	'report',
	[reportAuditLogOperation, reportExportOperation, reportUsageOperation],
	'usage',
);

export const reportFields: INodeProperties[] = [
	...periodFields,
	...reportExportFields,
	...reportAuditLogFields,
];
