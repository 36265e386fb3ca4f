import type { INodeProperties } from 'n8n-workflow';

import { EXPORT_FORMATS } from '../../../shared/vocabulary';
import { byName, checkOutputFileField, outputFileField, showFor } from '../../shared/fields';
import { operation } from '../../shared/operation';
import { binaryFromResponse } from '../../shared/postReceive';
import { sendDateRange } from './period';

export const reportExportOperation = operation({
	name: 'Export',
	value: 'export',
	action: 'Export documents as a file',
	description: 'Download the documents of a period as a CSV or JSON file',
	method: 'GET',
	path: '/reports/export',
	preSend: [sendDateRange, checkOutputFileField],
	postReceive: [binaryFromResponse('export')],
	binaryResponse: true,
});

export const reportExportFields: INodeProperties[] = [
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
];
