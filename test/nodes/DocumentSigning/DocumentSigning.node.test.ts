import { readFileSync } from 'fs';
import { join } from 'path';
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { validateNodeDescription } from 'n8n-core/dist/nodes-loader/validate-node-description';

import { DocumentSigningApi } from '../../../credentials/DocumentSigningApi.credentials';
import { DocumentSigning } from '../../../nodes/DocumentSigning/DocumentSigning.node';
import { sendListRequests, sendRequest } from '../../../nodes/DocumentSigning/shared/routedRequest';
import { ENDPOINTS } from '../../../contract/openapi';
import { ASSIGNABLE_ROLES, WEBHOOK_EVENTS } from '../../../nodes/shared/vocabulary';
import { builderHintsOf, hintTexts, NOT_PLAIN_TEXT } from '../../helpers/builderHints';

const { description } = new DocumentSigning();
const operationsOf = (resource: string) =>
	(description.properties.find(
		(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource),
	)?.options ?? []) as INodePropertyOptions[];

const RESOURCES = ['document', 'signingRequest', 'template', 'teamMember', 'webhook', 'report'];

/** `GET /documents/{id}` for a method and a path whose parameters may have any name. */
const endpointKey = (method: string, path: string) =>
	`${method.toUpperCase()} ${path.replace(/\{\w+\}/g, '{id}')}`;

/** Contract endpoints no operation's own request names, each with where the node reaches it or why not. */
const REACHED_OTHERWISE: Record<string, string> = {
	'GET /documents/{id}/file':
		'Document › Download (Original, Signed) and the trigger’s Attach Signed File, after reading the document',
	'GET /documents/{id}/audit-trail':
		'Document › Download (Audit Trail), after reading the document',
	'GET /webhooks/{id}/deliveries':
		'the trigger’s Catch Up Missed Events (Webhook mode), to learn which events were delivered',
};

/** Operations that run code instead of one routed request (n8n's customOperations). */
const PROGRAMMATIC_OPERATIONS: Record<string, string> = {
	'document/sendAndWait':
		'creates or sends, registers a webhook and waits; its own tests cover its requests',
};

test.each(Object.keys(PROGRAMMATIC_OPERATIONS).map((name) => name.split('/')))(
	'%s / %s is a custom operation of the node',
	(resource, operation) => {
		const option = operationsOf(resource).find((o) => o.value === operation);
		expect(option).toMatchObject({ value: operation });
		expect(option?.routing).toBeUndefined();
		expect(
			(new DocumentSigning().customOperations as Record<string, Record<string, unknown>>)[resource][
				operation
			],
		).toBeInstanceOf(Function);
	},
);

const nodeOperations = RESOURCES.flatMap((resource) =>
	operationsOf(resource).map((option) => ({ resource, option })),
);
const contractEndpoints = ENDPOINTS.map((endpoint) => endpointKey(endpoint.method, endpoint.path));
const requestedBy = (option: INodePropertyOptions) => {
	const request = option.routing?.request;
	return request ? endpointKey(String(request.method), String(request.url)) : undefined;
};

test.each(
	nodeOperations.map(({ resource, option }) => [`${resource}/${option.value}`, option] as const),
)('%s requests an endpoint of the contract, through the transport', (name, option) => {
	const key = requestedBy(option);
	if (key === undefined) {
		expect(PROGRAMMATIC_OPERATIONS).toHaveProperty([name]);
		return;
	}
	expect(contractEndpoints).toContain(key);
	// Every routed operation goes through the transport (retries, errors): a list's walks its pages.
	expect(option.routing?.send?.paginate).toBe(true);
	expect([sendRequest, sendListRequests]).toContain(option.routing?.operations?.pagination);
});

/** Whether a field is shown for exactly this resource and operation (and no other). */
const shownOnlyFor = (name: string, resource: string, operation: string) =>
	description.properties.some(
		(property) =>
			property.name === name &&
			property.displayOptions?.show?.resource?.length === 1 &&
			property.displayOptions.show.resource[0] === resource &&
			property.displayOptions.show.operation?.length === 1 &&
			property.displayOptions.show.operation[0] === operation,
	);

test('an operation walks pages exactly when it is a list: one that shows Return All and Limit', () => {
	const routed = nodeOperations.filter(({ option }) => option.routing);
	const walksPages = ({ option }: (typeof routed)[number]) =>
		option.routing?.operations?.pagination === sendListRequests;
	const showsReturnAllAndLimit = ({ resource, option }: (typeof routed)[number]) =>
		shownOnlyFor('returnAll', resource, String(option.value)) &&
		shownOnlyFor('limit', resource, String(option.value));
	const name = ({ resource, option }: (typeof routed)[number]) => `${resource}/${option.value}`;
	expect(routed.filter(walksPages).map(name)).toEqual(
		routed.filter(showsReturnAllAndLimit).map(name),
	);
	expect(routed.filter(walksPages).map(name).sort()).toEqual([
		'document/getAll',
		'report/auditLog',
		'teamMember/getAll',
		'template/getAll',
		'webhook/getAll',
	]);
	// No Return All or Limit is shown anywhere but with a list.
	const shownWithAList = description.properties
		.filter(({ name }) => name === 'returnAll' || name === 'limit')
		.every(({ displayOptions }) =>
			routed.some(
				(entry) =>
					walksPages(entry) &&
					displayOptions?.show?.resource?.[0] === entry.resource &&
					displayOptions?.show?.operation?.[0] === entry.option.value,
			),
		);
	expect(shownWithAList).toBe(true);
});

test.each(contractEndpoints)('the contract’s %s is reachable from the node', (key) => {
	const requested = nodeOperations.some(({ option }) => requestedBy(option) === key);
	expect(requested || key in REACHED_OTHERWISE).toBe(true);
});

test('every endpoint said to be reached otherwise is one of the contract that no operation requests', () => {
	for (const key of Object.keys(REACHED_OTHERWISE)) {
		expect(contractEndpoints).toContain(key);
		expect(nodeOperations.some(({ option }) => requestedBy(option) === key)).toBe(false);
	}
});

test('the node is usable as a tool and shows resource and operation in its subtitle', () => {
	expect(description.usableAsTool).toBe(true);
	expect(description.subtitle).toContain('$parameter["operation"]');
	expect(description.subtitle).toContain('$parameter["resource"]');
});

test('the role dropdown offers exactly the assignable roles of the contract, plus a custom one', () => {
	const role = description.properties.find(
		(p) => p.name === 'role' && p.displayOptions?.show?.resource?.includes('teamMember'),
	);
	const values = (role?.options as INodePropertyOptions[]).map((o) => o.value);
	expect(values.filter((v) => v !== '__custom').sort()).toEqual([...ASSIGNABLE_ROLES].sort());
	expect(values).toContain('__custom');
});

test('the webhook event list is the contract’s, plus Any Event', () => {
	const events = description.properties.find((p) => p.name === 'events');
	expect((events?.options as INodePropertyOptions[]).map((o) => o.value).sort()).toEqual(
		['*', ...WEBHOOK_EVENTS].sort(),
	);
});

test('the codex file names the node and has categories and documentation links', () => {
	const codex = JSON.parse(
		readFileSync(
			join(__dirname, '../../../nodes/DocumentSigning/DocumentSigning.node.json'),
			'utf8',
		),
	);
	expect(codex.node).toBe('n8n-nodes-document-signing.documentSigning');
	expect(codex.categories).toEqual(['Productivity', 'Sales']);
	expect(codex.resources.primaryDocumentation[0].url).toMatch(/^https:\/\//);
});

test("the credentials keep the key secret and authenticate with a Bearer header, keeping the request's own headers", async () => {
	const credentials = new DocumentSigningApi();
	expect(credentials.properties.find((p) => p.name === 'apiKey')?.typeOptions?.password).toBe(true);
	const request = {
		url: 'https://api.example.com/v1/users',
		headers: { Accept: 'application/json' },
	};
	await expect(
		credentials.authenticate({ apiKey: 'sk_test', baseUrl: 'https://api.example.com/v1' }, request),
	).resolves.toEqual({
		url: 'https://api.example.com/v1/users',
		headers: { Accept: 'application/json', Authorization: 'Bearer sk_test' },
	});
	expect(request.headers).toEqual({ Accept: 'application/json' });
	expect(credentials.test.request.url).toBe('/users');
});

test('parameter names are unique across resources, apart from the operation selector and the Get Many and file fields; one repeated across node versions is never shown twice', () => {
	// n8n's routing engine resolves every entry's value by name on every item (see shared/routedRequest.ts).
	const shared = new Set([
		'operation',
		'returnAll',
		'limit',
		'listPaging',
		'listPagingSettings',
		'filters',
		'simplify',
		'binaryPropertyName',
	]);
	const versions = new DocumentSigning().description.version as number[];
	/** Where a definition can show: resource › operation @ version, for each value of its conditions. */
	const places = (property: INodeProperties) => {
		const show = property.displayOptions?.show ?? {};
		const shownVersions = (show['@version'] as number[] | undefined) ?? versions;
		return ((show.resource as string[]) ?? ['*']).flatMap((resource) =>
			((show.operation as string[]) ?? ['*']).flatMap((operation) =>
				shownVersions.map((version) => `${resource} › ${operation} @ ${version}`),
			),
		);
	};
	const byName = new Map<string, INodeProperties[]>();
	for (const property of new DocumentSigning().description.properties)
		byName.set(property.name, [...(byName.get(property.name) ?? []), property]);
	const repeated = [...byName].filter(([name, all]) => all.length > 1 && !shared.has(name));
	expect(repeated.map(([name]) => name).sort()).toEqual([
		'documentFrom',
		'templateFields',
		'templateSigners',
		'waitDocumentId',
	]);
	for (const [name, all] of repeated) {
		const seen = all.flatMap(places);
		// Document From's two definitions differ by operation, the others by node version.
		const clash = seen.filter((place, index) => seen.indexOf(place) !== index);
		expect({ name, clash }).toEqual({ name, clash: [] });
	}
});

describe("hints for n8n's AI workflow builder (n8n 2.41's builderHint)", () => {
	const hints = builderHintsOf(description);
	const hintAt = (name: string) => hints.filter((found) => found.name === name);

	test('the node says what it is for, and which nodes come before and after it', () => {
		const node = description.builderHint;
		expect(node?.searchHint).toEqual(expect.stringContaining('Send and Wait for Signature'));
		expect(node?.searchHint).toEqual(expect.stringContaining('approved'));
		const related = Object.fromEntries(
			(node?.relatedNodes ?? []).map(({ nodeType, relationHint }) => [nodeType, relationHint]),
		);
		expect(Object.keys(related)).toEqual(
			expect.arrayContaining([
				'n8n-nodes-base.hubspotTrigger',
				'n8n-nodes-base.pipedriveTrigger',
				'n8n-nodes-base.if',
				'n8n-nodes-base.splitInBatches',
				'n8n-nodes-base.googleDrive',
				'n8n-nodes-document-signing.documentSigningTrigger',
			]),
		);
		expect(related['n8n-nodes-base.if']).toContain('approved');
		for (const [nodeType, relationHint] of Object.entries(related)) {
			expect(nodeType).toMatch(/^(n8n-nodes-base|n8n-nodes-document-signing)\.[a-z][A-Za-z]+$/);
			expect(relationHint.length).toBeGreaterThan(20);
		}
	});

	test('Template Fields (Create and Send and Wait) and Resume On (both node versions) carry a property hint', () => {
		const templateFields = description.properties.filter(({ name }) => name === 'templateFields');
		expect(templateFields.length).toBeGreaterThanOrEqual(1);
		for (const property of templateFields)
			expect(property.builderHint?.propertyHint).toContain('Additional Fields > Template');
		expect(hintAt('templateFields')).toHaveLength(templateFields.length);
		const resumeOn = hintAt('resumeOn');
		expect(resumeOn.map(({ at }) => at)).toEqual(['waitOptions.resumeOn', 'waitOptions.resumeOn']);
		for (const { hint } of resumeOn) {
			expect(hint).toEqual({ propertyHint: expect.stringContaining('Any Final State') });
			expect(hintTexts(hint).join(' ')).toContain('If node');
		}
	});

	test('every hint is plain English: no expression, variable or connection type name', () => {
		expect(hints.length).toBeGreaterThanOrEqual(4);
		for (const { at, hint } of hints) {
			const texts = hintTexts(hint);
			expect(texts.length).toBeGreaterThan(0);
			expect({ at, leaks: texts.filter((text) => NOT_PLAIN_TEXT.test(text)) }).toEqual({
				at,
				leaks: [],
			});
		}
		// A parameter's hint is only ever a propertyHint.
		for (const { at, hint } of hints.filter(({ at }) => at !== 'node'))
			expect({ at, keys: Object.keys(hint as object) }).toEqual({ at, keys: ['propertyHint'] });
	});

	test('no hint sits on the resource or operation selectors, which n8n-core 2.41 refuses to load', () => {
		expect(
			hints.filter(({ name, type }) => ['resource', 'operation', 'mode'].includes(name) && type),
		).toEqual([]);
		// n8n-core's own check, as its loader runs it on every node description.
		expect(() => validateNodeDescription(description)).not.toThrow();
		const withHint = {
			...description,
			properties: description.properties.map((property) =>
				property.name === 'resource'
					? { ...property, builderHint: { propertyHint: 'Choose a resource' } }
					: property,
			),
		};
		expect(() => validateNodeDescription(withHint)).toThrow(/discriminator/);
	});
});
