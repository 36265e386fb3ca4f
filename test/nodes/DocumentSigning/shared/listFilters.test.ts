/**
 * nodes/DocumentSigning/shared/listFilters.ts: a list's Filters, as a user meets them. They reach
 * the service as query parameters, only when set; every choice covers the contract's vocabulary.
 * Through n8n-core's routing engine, against a server that records every request.
 */
import type { INodeParameters, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { DocumentSigning } from '../../../../nodes/DocumentSigning/DocumentSigning.node';
import {
	AUDIT_EVENTS,
	DOCUMENT_STATUSES,
	TEAM_MEMBER_ROLES,
	TEAM_MEMBER_STATUSES,
} from '../../../../nodes/shared/vocabulary';
import { startCountingServer } from '../../../helpers/countingServer';
import { runDocumentSigning } from '../../../helpers/n8nWorkflow';

let server: Awaited<ReturnType<typeof startCountingServer>>;
beforeAll(async () => {
	server = await startCountingServer(() => ({ status: 200, body: { data: [], has_more: false } }));
});
afterAll(() => server.close());
beforeEach(() => server.requests.splice(0));

const credentials = () => ({
	baseUrl: server.baseUrl,
	apiKey: 'sk_test_shared_fields_0000000000000',
});

/** The query of the one request a list operation sent, without paging parameters. */
async function filterQuery(
	resource: string,
	operation: string,
	filters: INodeParameters,
): Promise<Record<string, string>> {
	const result = await runDocumentSigning({
		parameters: { resource, operation, returnAll: false, limit: 10, filters },
		credentials: credentials(),
	});
	expect(result.error).toBeUndefined();
	expect(server.requests).toHaveLength(1);
	const query = Object.fromEntries(new URL(server.requests[0].url, 'http://x').searchParams);
	server.requests.splice(0);
	for (const paging of ['limit', 'cursor', 'page', 'from', 'to']) delete query[paging];
	return query;
}

describe('list filters', () => {
	it.each([
		[
			'document',
			'getAll',
			{
				status: 'completed',
				q: 'nda',
				created_after: '2026-01-01T00:00:00',
				created_before: '2026-02-01T00:00:00',
			},
		],
		['teamMember', 'getAll', { q: 'ada@', role: 'admin', status: 'invited' }],
		['template', 'getAll', { q: 'Mutual NDA' }],
		['report', 'auditLog', { document_id: 'doc_1', event: 'document.completed' }],
	])(
		'%s › %s sends each filter set as the query parameter of its name, and none left unset',
		async (resource, operation, filters) => {
			expect(await filterQuery(resource, operation, filters)).toEqual(filters);
			expect(await filterQuery(resource, operation, {})).toEqual({});
		},
	);
});

describe('choices built from the contract', () => {
	const properties = new DocumentSigning().description.properties as INodeProperties[];
	const filterChoices = (resource: string, name: string) => {
		const filters = properties.find(
			(property) =>
				property.name === 'filters' && property.displayOptions?.show?.resource?.includes(resource),
		);
		const choice = (filters?.options as INodeProperties[]).find((option) => option.name === name);
		return (choice?.options as INodePropertyOptions[]).map((option) => option.value);
	};

	it.each([
		['document', 'status', DOCUMENT_STATUSES],
		['teamMember', 'role', TEAM_MEMBER_ROLES],
		['teamMember', 'status', TEAM_MEMBER_STATUSES],
		['report', 'event', AUDIT_EVENTS],
	])('the %s filter "%s" offers every value of the contract, once', (resource, name, values) => {
		const offered = filterChoices(resource, name);
		expect([...offered].sort()).toEqual([...values].sort());
	});
});
