/**
 * nodes/DocumentSigning/shared/fields.ts: the fields several operations share, as a user meets
 * them. The output-file field is checked before anything is sent; List Paging is beside every
 * list and From-list locator. Through n8n-core's routing engine, against a server that records
 * every request. (List filters: listFilters.test.ts.)
 */
import type { INodeProperties } from 'n8n-workflow';

import { DocumentSigningApi } from '../../../../credentials/DocumentSigningApi.credentials';
import { DocumentSigning } from '../../../../nodes/DocumentSigning/DocumentSigning.node';
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
	const versionsOf = (property: INodeProperties) =>
		(property.displayOptions?.show?.['@version'] as number[] | undefined) ?? [1, 2];
	const inVersion1 = (property: INodeProperties) => versionsOf(property).includes(1);
	const paging = properties.filter((property) => property.name === 'listPaging');
	const withPaging = paging.flatMap(shownFor).sort();

	it('in node version 1: on every list operation and beside every From-list locator, Automatic by default', () => {
		const lists = properties.filter((property) => property.name === 'returnAll').flatMap(shownFor);
		const locators = properties
			.filter((property) => property.type === 'resourceLocator' && inVersion1(property))
			.flatMap(shownFor);
		expect(withPaging).toEqual([...new Set([...lists, ...locators])].sort());
		for (const property of paging) expect(property.default).toBe('automatic');
	});

	it('in node version 2 on no operation: the credential holds it, once for the service', () => {
		for (const property of paging) expect(versionsOf(property)).toEqual([1]);
		const credential = new DocumentSigningApi().properties;
		expect(credential.find((property) => property.name === 'listPaging')?.default).toBe(
			'automatic',
		);
	});

	it('its Custom settings are shown only with Custom, on the node and in the credential, and every one is read by the transport', () => {
		const names = [
			'limitParameter',
			'nextTokenParameter',
			'nextTokenPath',
			'offsetParameter',
			'recordsPath',
			'totalPath',
		];
		const settings = properties.filter((property) => property.name === 'listPagingSettings');
		expect(settings.flatMap(shownFor).sort()).toEqual(withPaging);
		for (const setting of settings) {
			expect(setting.displayOptions?.show?.listPaging).toEqual(['custom']);
			expect(
				((setting.options ?? []) as INodeProperties[]).map((option) => option.name).sort(),
			).toEqual(names);
		}
		const inCredential = new DocumentSigningApi().properties.filter(
			(property) => property.displayOptions?.show?.listPaging,
		);
		expect(inCredential.map((property) => property.name).sort()).toEqual(names);
		for (const setting of inCredential)
			expect(setting.displayOptions?.show?.listPaging).toEqual(['custom']);
	});
});
