/**
 * Keys named like built-in properties (`constructor`, `__proto__`, `toString`) are keys like any
 * other, in fields, mappings and options. Servers listen on 127.0.0.1 only. Each test's first
 * comment says what the code before the fix did (the test fails on it).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { startCountingServer } from '../helpers/countingServer';
import { runDocumentSigning } from '../helpers/n8nWorkflow';
import { sendAndWait } from '../helpers/sendAndWaitKit';

const API_KEY = 'sk_test_round_four';

describe('keys named like built-in properties are keys like any other (finding 37.7)', () => {
	let server: Awaited<ReturnType<typeof startCountingServer>>;
	beforeAll(async () => {
		server = await startCountingServer((request) =>
			request.method === 'POST'
				? { status: 201, body: { id: 'doc_1', status: 'draft' } }
				: { status: 200, body: {} },
		);
	});
	afterAll(async () => await server.close());
	beforeEach(() => server.requests.splice(0));

	const field = (id: string, required = false) => ({
		id,
		displayName: id,
		required,
		defaultMatch: false,
		canBeUsedToMatch: false,
		display: true,
		type: 'string',
	});
	const fromTemplate = (fields: IDataObject): INodeParameters => ({
		resource: 'document',
		operation: 'create',
		additionalFields: {
			template_id: { __rl: true, mode: 'id', value: 'tpl_1' },
		} as INodeParameters,
		templateFields: fields as INodeParameters,
	});
	const mapper = (schema: IDataObject[], value: IDataObject | null, mappingMode = 'defineBelow') =>
		({ mappingMode, value, matchingColumns: [], schema }) as IDataObject;
	const sentFields = () =>
		(JSON.parse(server.requests.find((request) => request.method === 'POST')!.body) as IDataObject)
			.fields as IDataObject;
	const credentials = () => ({ baseUrl: server.baseUrl, apiKey: API_KEY });

	// Old: json.constructor (Object) was taken as the field's value and refused.
	test('Map Automatically with an optional `constructor` field the input lacks: created without it', async () => {
		const result = await runDocumentSigning({
			parameters: fromTemplate(
				mapper([field('constructor'), field('customer')], null, 'autoMapInputData'),
			),
			items: [{ json: { customer: 'Acme' } }],
			credentials: credentials(),
		});
		expect(result.error).toBeUndefined();
		expect(sentFields()).toEqual({ customer: 'Acme' });
	});

	// Old: fields.constructor was Object's, so the missing value went unreported (the service got none).
	test('a required `constructor` left empty stops the item naming it', async () => {
		const result = await runDocumentSigning({
			parameters: fromTemplate(mapper([field('constructor', true)], { constructor: '' })),
			credentials: credentials(),
		});
		expect(result.error?.message).toBe(
			'Template Fields › constructor: the template needs a value for this field',
		);
		expect(server.requests).toHaveLength(0);
	});

	// Old: fields.__proto__ = value set the object's prototype, so the value vanished and a
	// required `__proto__` counted as filled. n8n's own parameter copy drops a `__proto__` key
	// before the node runs, so the node can only say that it is missing.
	test('`toString` and `valueOf` values are sent under their keys; a required `__proto__` is never dropped silently', async () => {
		const value = JSON.parse('{"toString": "b", "valueOf": "c"}') as IDataObject;
		const result = await runDocumentSigning({
			parameters: fromTemplate(mapper([field('toString'), field('valueOf')], value)),
			credentials: credentials(),
		});
		expect(result.error).toBeUndefined();
		expect(sentFields()).toEqual({ toString: 'b', valueOf: 'c' });
		expect(Object.keys(sentFields())).toEqual(['toString', 'valueOf']);

		server.requests.splice(0);
		const proto = await runDocumentSigning({
			parameters: fromTemplate(
				mapper([field('__proto__', true)], JSON.parse('{"__proto__": "a"}') as IDataObject),
			),
			credentials: credentials(),
		});
		expect(proto.error?.message).toBe(
			'Template Fields › __proto__: the template needs a value for this field',
		);
		expect(server.requests).toHaveLength(0);
	});

	// Old: `constructor` passed the unit check (`in`), and the wait failed after the draft was created.
	test('Limit Wait Time’s unit `constructor` is refused before any request', async () => {
		const result = await runDocumentSigning({
			parameters: sendAndWait({
				waitOptions: {
					limitWaitTime: {
						values: {
							limitType: 'afterTimeInterval',
							resumeAmount: 1,
							resumeUnit: 'constructor',
						},
					},
				},
			}),
			credentials: credentials(),
		});
		expect(result.error?.message).toMatch(/Limit Wait Time.*"constructor" is not a choice/);
		expect(server.requests).toHaveLength(0);
	});
});
