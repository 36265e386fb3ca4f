/**
 * Fake list services for the page loop's tests (pageWalk.test.ts) and ranges of records: each
 * answers a page request from a function of the request, without a server.
 */
import type { IDataObject, INode } from 'n8n-workflow';

import type { PageRequest } from '../../nodes/shared/transport/listRecords';
import { ServiceOrigin } from '../../nodes/shared/transport/service';

const node = {
	id: 'n',
	name: 'Document Signing',
	type: 't',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
} as INode;
export const origin = new ServiceOrigin('https://api.example.com/v1', node);
export const record = (id: number | string): IDataObject => ({ id, name: `d${id}.pdf` });
export const range = (from: number, count: number) =>
	Array.from({ length: count }, (_, i) => record(from + i));

/** A fake service: `response` gets each request and returns the response's body and headers. */
export function service(
	response: (
		request: PageRequest,
		index: number,
	) => { body: unknown; headers?: Record<string, string> },
) {
	const requests: PageRequest[] = [];
	return {
		requests,
		fetchPage: async (request: PageRequest) => {
			requests.push(request);
			const { body, headers } = response(request, requests.length - 1);
			return {
				response: { body, headers: headers ?? {} },
				requestUrl: request.url ?? origin.urlOf('/documents'),
			};
		},
	};
}

/** A well-behaved cursor service over `total` records. */
export function cursorService(total: number, { cap = Infinity } = {}) {
	return service((request) => {
		const start = request.cursor ? Number(request.cursor) : 0;
		const size = Math.min(100, cap);
		const end = Math.min(total, start + size);
		return {
			body: {
				data: range(start, end - start),
				has_more: end < total,
				next_cursor: end < total ? String(end) : null,
			},
		};
	});
}
