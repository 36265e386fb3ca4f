/**
 * nodes/DocumentSigning/shared/fields.ts: the fields several operations share, as a user meets
 * them. List filters reach the service as query parameters, only when set. Every choice covers
 * the contract's vocabulary. The output-file field is checked before anything is sent. Through
 * n8n-core's routing engine, against a server that records every request.
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

describe('Put Output File in Field', () => {
	it('an expression that resolves to nothing fails the download, naming the field, before any request', async () => {
		const result = await runDocumentSigning({
			parameters: {
				resource: 'document',
				operation: 'download',
				documentId: { __rl: true, mode: 'id', value: 'doc_1' },
				version: 'original',
				binaryPropertyName: '={{ $json.field }}',
			},
			credentials: credentials(),
		});
		expect(result.error?.message).toMatch(/^Put Output File in Field/);
		expect(server.requests).toEqual([]);
	});
});

describe('List Paging', () => {
	const properties = new DocumentSigning().description.properties;
	/** The operations a property is shown for, as `resource › operation`. */
	const shownFor = (property: INodeProperties) =>
		(property.displayOptions?.show?.resource as string[]).flatMap((resource) =>
			(property.displayOptions?.show?.operation as string[]).map(
				(operation) => `${resource} › ${operation}`,
			),
		);
	const withPaging = properties
		.filter((property) => property.name === 'listPaging')
		.flatMap(shownFor)
		.sort();

	it('is on every list operation and beside every From-list locator, Automatic by default', () => {
		const lists = properties.filter((property) => property.name === 'returnAll').flatMap(shownFor);
		const locators = properties
			.filter((property) => property.type === 'resourceLocator')
			.flatMap(shownFor);
		expect(withPaging).toEqual([...new Set([...lists, ...locators])].sort());
		for (const property of properties.filter((candidate) => candidate.name === 'listPaging'))
			expect(property.default).toBe('automatic');
	});

	it('its Custom settings are shown only with Custom, and every one is read by the transport', () => {
		const settings = properties.filter((property) => property.name === 'listPagingSettings');
		expect(settings.flatMap(shownFor).sort()).toEqual(withPaging);
		for (const setting of settings) {
			expect(setting.displayOptions?.show?.listPaging).toEqual(['custom']);
			expect(
				((setting.options ?? []) as INodeProperties[]).map((option) => option.name).sort(),
			).toEqual([
				'limitParameter',
				'nextTokenParameter',
				'nextTokenPath',
				'offsetParameter',
				'recordsPath',
				'totalPath',
			]);
		}
	});
});
