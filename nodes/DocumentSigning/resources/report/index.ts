import type { IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';

import { AUDIT_EVENTS, eventLabel, EXPORT_FORMATS } from '../../../shared/vocabulary';
import {
	byName,
	checkOutputFileField,
	filtersCollection,
	outputFileField,
	queryChoiceFilter,
	queryFilter,
	returnAllAndLimit,
	showFor,
} from '../../shared/fields';
import { operation, operationProperty } from '../../shared/operation';
import { binaryFromResponse } from '../../shared/postReceive';
import { invalid, optionalDate } from '../../shared/validation';

/** From/To of every report, sent as ISO timestamps; From must not be after To. */
const sendDateRange = async function (this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
	const from = optionalDate(this, 'From', this.getNodeParameter('from', ''));
	const to = optionalDate(this, 'To', this.getNodeParameter('to', ''));
	if (from && to && from > to) throw invalid(this, 'From', 'must not be after To');
	options.qs = { ...(options.qs ?? {}), ...(from ? { from } : {}), ...(to ? { to } : {}) };
	return options;
};

export const reportOperations = operationProperty(
	'report',
	[
		operation({
			name: 'Audit Log',
			value: 'auditLog',
			action: 'Get the audit log',
			description: 'Who did what and when, newest first',
			method: 'GET',
			path: '/reports/audit-log',
			list: true,
			preSend: [sendDateRange],
		}),
		operation({
			name: 'Export',
			value: 'export',
			action: 'Export documents as a file',
			description: 'Download the documents of a period as a CSV or JSON file',
			method: 'GET',
			path: '/reports/export',
			preSend: [sendDateRange, checkOutputFileField],
			postReceive: [binaryFromResponse('binaryPropertyName', 'export')],
			binaryResponse: true,
		}),
		operation({
			name: 'Usage',
			value: 'usage',
			action: 'Get usage statistics',
			description:
				'Documents created, completed and declined, reminders and signatures in a period',
			method: 'GET',
			path: '/reports/usage',
			preSend: [sendDateRange],
		}),
	],
	'usage',
);

export const reportFields: INodeProperties[] = [
	{
		displayName: 'From',
		name: 'from',
		type: 'dateTime',
		default: '',
		description: 'Start of the period. Leave empty for the last 30 days.',
		displayOptions: showFor('report', ['usage', 'auditLog', 'export']),
	},
	{
		displayName: 'To',
		name: 'to',
		type: 'dateTime',
		default: '',
		description: 'End of the period. Leave empty for now.',
		displayOptions: showFor('report', ['usage', 'auditLog', 'export']),
	},
	{
		displayName: 'Format',
		name: 'format',
		type: 'options',
		default: 'csv',
		options: byName(EXPORT_FORMATS.map((value) => ({ name: value.toUpperCase(), value }))),
		displayOptions: showFor('report', ['export']),
		routing: { send: { type: 'query', property: 'format' } },
	},
	outputFileField('report', ['export']),
	...returnAllAndLimit('report', 'auditLog'),
	{
		...filtersCollection('report', 'auditLog'),
		options: [
			queryFilter('Document ID', 'document_id'),
			queryChoiceFilter('Event', 'event', AUDIT_EVENTS, eventLabel, 'document.created'),
		],
	},
];
