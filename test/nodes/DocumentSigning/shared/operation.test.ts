/**
 * nodes/DocumentSigning/shared/operation.ts: an operation owns its path. The `{parameter}` segments
 * are filled from that parameter in any locator mode, checked and encoded, and a bad ID fails its
 * item alone before anything is sent. Through n8n-core's routing engine, against a server that
 * records every request.
 */
import type {
	INodeExecutionData,
	INodeParameterResourceLocator,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { DocumentSigning } from '../../../../nodes/DocumentSigning/DocumentSigning.node';
import { startCountingServer } from '../../../helpers/countingServer';
import { runDocumentSigning } from '../../../helpers/n8nWorkflow';

let server: Awaited<ReturnType<typeof startCountingServer>>;
beforeAll(async () => {
	// Answers with the path's last segment as the record's id, as sent.
	server = await startCountingServer((request) => ({
		status: 200,
		body: { id: request.url.split('/').pop(), name: 'nda.pdf', status: 'draft' },
	}));
});
afterAll(() => server.close());
beforeEach(() => server.requests.splice(0));

const credentials = () => ({
	baseUrl: server.baseUrl,
	apiKey: 'sk_test_operation_paths_000000000000',
});
const getDocument = (
	documentId: INodeParameterResourceLocator,
	items?: INodeExecutionData[],
	continueOnFail = false,
) =>
	runDocumentSigning({
		parameters: { resource: 'document', operation: 'get', documentId, simplify: false },
		items,
		credentials: credentials(),
		continueOnFail,
	});

describe('the path of an operation', () => {
	it.each<[string, INodeParameterResourceLocator, string]>([
		['By ID', { __rl: true, mode: 'id', value: 'doc_8f3k2j' }, '/v1/documents/doc_8f3k2j'],
		[
			'From List',
			{ __rl: true, mode: 'list', value: 'doc_list_1', cachedResultName: 'nda.pdf' },
			'/v1/documents/doc_list_1',
		],
		[
			'By URL (signing link)',
			{ __rl: true, mode: 'url', value: 'https://app.example.com/sign/doc_77?lang=en#top' },
			'/v1/documents/doc_77',
		],
		[
			'By URL (record link)',
			{ __rl: true, mode: 'url', value: 'https://app.example.com/documents/doc_78' },
			'/v1/documents/doc_78',
		],
		[
			'a number from an expression',
			{ __rl: true, mode: 'id', value: '={{ 1004 }}' },
			'/v1/documents/1004',
		],
		[
			'characters that need encoding',
			{ __rl: true, mode: 'id', value: 'ü-1:a+b&c%' },
			'/v1/documents/%C3%BC-1%3Aa%2Bb%26c%25',
		],
	])('takes its ID from the locator (%s), encoded', async (_mode, locator, path) => {
		const result = await getDocument(locator);
		expect(result.error).toBeUndefined();
		expect(server.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
			`GET ${path}`,
		]);
	});

	it('a bad ID fails its own item with a message naming the parameter, before any request; the other items run', async () => {
		const items = ['doc_1', '..', 'a/b', 'doc_2'].map((id) => ({ json: { id } }));
		const result = await getDocument(
			{ __rl: true, mode: 'id', value: '={{ $json.id }}' },
			items,
			true,
		);
		expect(result.items.map((item) => item.json.error ?? item.json.id)).toEqual([
			'doc_1',
			expect.stringMatching(/^Document: "\.\." is not a valid ID/),
			expect.stringMatching(/^Document: "a\/b" is not a valid ID/),
			'doc_2',
		]);
		expect(result.items.map((item) => item.pairedItem)).toEqual(
			[0, 1, 2, 3].map((item) => ({ item })),
		);
		expect(server.requests.map((request) => request.url)).toEqual([
			'/v1/documents/doc_1',
			'/v1/documents/doc_2',
		]);
	});

	it('an empty ID stops the node (without Continue On Fail) and sends nothing', async () => {
		const result = await getDocument({ __rl: true, mode: 'id', value: '={{ "" }}' });
		expect(result.error?.message).toMatch(/^Document/);
		expect(server.requests).toEqual([]);
	});
});

describe('every operation of the node', () => {
	const properties = new DocumentSigning().description.properties as INodeProperties[];
	const operations = properties
		.filter((property) => property.name === 'operation')
		.flatMap((property) =>
			(property.options as INodePropertyOptions[]).map((option) => ({
				resource: property.displayOptions?.show?.resource?.[0],
				option,
			})),
		);

	it('names each ID in its path with a label the user sees in error messages, and has that parameter', () => {
		const missing: string[] = [];
		const custom = new DocumentSigning().customOperations as Record<
			string,
			Record<string, unknown>
		>;
		for (const { resource, option } of operations) {
			// A custom operation makes its requests itself (it has no path of its own).
			if (!option.routing && custom[resource as string]?.[option.value as string]) continue;
			const path = String(option.routing?.request?.url);
			expect(path).toMatch(/^\//);
			for (const [, parameter] of path.matchAll(/\{(\w+)\}/g)) {
				const shown = properties.find(
					(property) =>
						property.name === parameter &&
						property.displayOptions?.show?.resource?.includes(resource as string) &&
						property.displayOptions?.show?.operation?.includes(option.value as string),
				);
				if (!shown) missing.push(`${resource} ${option.value}: no parameter ${parameter}`);
				else if (!shown.displayName)
					missing.push(`${resource} ${option.value}: {${parameter}} has no label`);
			}
		}
		expect(missing).toEqual([]);
	});

	it('shows an ID field with exactly the operations whose path takes it (idFields)', () => {
		const taking = (parameter: string) =>
			operations
				.filter(({ option }) => String(option.routing?.request?.url).includes(`{${parameter}}`))
				.map(({ resource, option }) => `${resource} ${option.value}`)
				.sort();
		const parameters = new Set(
			operations.flatMap(({ option }) =>
				[...String(option.routing?.request?.url).matchAll(/\{(\w+)\}/g)].map((match) => match[1]),
			),
		);
		expect(parameters.size).toBeGreaterThanOrEqual(6);
		for (const parameter of parameters) {
			const shownWith = properties
				.filter((property) => property.name === parameter)
				.flatMap(({ displayOptions }) =>
					(displayOptions?.show?.operation ?? []).map(
						(operation) => `${displayOptions?.show?.resource?.[0]} ${operation}`,
					),
				)
				.sort();
			expect({ parameter, shownWith }).toEqual({ parameter, shownWith: taking(parameter) });
		}
		expect(taking('documentId')).toEqual(
			expect.arrayContaining(['document delete', 'document download', 'document get']),
		);
	});
});
