import type { IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';

import { showFor } from '../../shared/fields';
import { invalid, optionalDate } from '../../shared/validation';

/** From/To of every report, sent as ISO timestamps; From must not be after To. */
export const sendDateRange = async function (
	this: IExecuteSingleFunctions,
	options: IHttpRequestOptions,
) {
	const from = optionalDate(this, 'From', this.getNodeParameter('from', ''));
	const to = optionalDate(this, 'To', this.getNodeParameter('to', ''));
	if (from && to && from > to) throw invalid(this, 'From', 'must not be after To');
	options.qs = { ...(options.qs ?? {}), ...(from ? { from } : {}), ...(to ? { to } : {}) };
	return options;
};

export const periodFields: INodeProperties[] = [
	['From', 'from', 'Start of the period. Leave empty for the last 30 days.'],
	['To', 'to', 'End of the period. Leave empty for now.'],
].map(
	([displayName, name, description]): INodeProperties => ({
		displayName,
		name,
		type: 'dateTime',
		default: '',
		description,
		displayOptions: showFor('report', ['usage', 'auditLog', 'export']),
	}),
);
