import { readdirSync, readFileSync } from 'fs';
import nock from 'nock';
import type { INodeParameters, INodeProperties, INodePropertyCollection } from 'n8n-workflow';
import path from 'path';

import { DocumentSigning } from '../../../../nodes/DocumentSigning/DocumentSigning.node';
import { runDocumentSigning } from '../../../helpers/n8nWorkflow';

/** Every Signer collection of the node (Document › Create and Send and Wait, Signing Request › Create). */
const signerCollections = new DocumentSigning().description.properties
	.filter((property) => property.type === 'fixedCollection')
	.flatMap((property) => property.options as INodePropertyCollection[])
	.filter((group) => group.name === 'signer');

test('there are signer collections to check', () => {
	expect(signerCollections.length).toBeGreaterThanOrEqual(2);
});

test('a signer is filled in as people do: Email, Name, Authentication (Phone for SMS), Signing Order', () => {
	for (const { values } of signerCollections)
		expect(values.map((field) => field.displayName)).toEqual([
			'Email',
			'Name',
			'Authentication',
			'Phone',
			'Signing Order',
		]);
});

test('Signing Order shows empty until set: no order is not 0', () => {
	for (const { values } of signerCollections) {
		const order = values.find((field) => field.name === 'order') as INodeProperties;
		expect(order.default).toBe('');
	}
});

test('the example workflows name signer values by their names, so the order changes none of them', () => {
	const examples = path.resolve(__dirname, '../../../../examples');
	const names = new Set(signerCollections[0].values.map((field) => field.name));
	let signers = 0;
	for (const file of readdirSync(examples).filter((name) => name.endsWith('.json'))) {
		const workflow = JSON.parse(readFileSync(path.join(examples, file), 'utf8')) as {
			nodes: Array<{ parameters: Record<string, { signer?: Array<Record<string, unknown>> }> }>;
		};
		for (const node of workflow.nodes)
			for (const value of Object.values(node.parameters ?? {}))
				for (const signer of (value as { signer?: unknown[] })?.signer ?? []) {
					signers += 1;
					expect(Object.keys(signer as object).filter((key) => !names.has(key))).toEqual([]);
				}
	}
	expect(signers).toBeGreaterThan(0);
});

describe('the body sent for a signer (n8n’s engine fills the defaults)', () => {
	const ORIGIN = 'http://signing.test';
	beforeAll(() => nock.disableNetConnect());
	afterAll(() => nock.enableNetConnect());
	afterEach(() => nock.cleanAll());

	async function signersSent(signer: Record<string, unknown>): Promise<unknown> {
		let body: { signers?: unknown } = {};
		nock(ORIGIN)
			.post('/v1/documents', (requestBody: typeof body) => {
				body = requestBody;
				return true;
			})
			.reply(200, { id: 'doc_1' });
		const parameters: INodeParameters = {
			resource: 'document',
			operation: 'create',
			name: 'nda.pdf',
			signers: { signer: [signer] } as INodeParameters,
			additionalFields: { template_id: 'tpl_1' },
		};
		const result = await runDocumentSigning({
			parameters,
			credentials: { baseUrl: `${ORIGIN}/v1`, apiKey: 'sk_signers' },
			typeVersion: 1,
		});
		expect(result.error).toBeUndefined();
		return body.signers;
	}

	const ada = { email: 'ada@example.com', name: 'Ada Lovelace' };

	test.each<[string, Record<string, unknown>]>([
		['Signing Order untouched (not saved)', ada],
		['Signing Order empty (the default)', { ...ada, order: '' }],
		['Signing Order 0 (as saved before it showed empty)', { ...ada, order: 0 }],
	])('%s sends no order', async (_case, signer) => {
		expect(await signersSent(signer)).toEqual([ada]);
	});

	test('Signing Order 2 is sent', async () => {
		expect(await signersSent({ ...ada, order: 2 })).toEqual([{ ...ada, order: 2 }]);
	});
});
