/**
 * What the nodes rely on in n8n-core and n8n-workflow beyond their public node interfaces
 * (docs/node-behaviour.md, "Where the nodes depend on n8n"), checked on the installed code the unit
 * suites run against (node_modules: n8n-core 2.41.1, n8n-workflow 2.41.0, the same as the
 * e2e/n8n-host host). Each test runs n8n's code, not the package's, so it fails when n8n changes.
 */
import { createServer, type ServerResponse } from 'http';
import type { AddressInfo } from 'net';
import { ScheduledTaskManager, TriggerContext, WorkflowExecute } from 'n8n-core';
import {
	getCredentialAllowedDomains,
	injectDomainRestrictionFields,
	isDomainAllowed,
	isHitlToolType,
	NodeConnectionTypes,
	SEND_AND_WAIT_OPERATION,
	sleep,
	Workflow,
	type INode,
	type INodeType,
} from 'n8n-workflow';

import { DocumentSigningApi } from '../../credentials/DocumentSigningApi.credentials';
import { DocumentSigningTrigger } from '../../nodes/DocumentSigningTrigger/DocumentSigningTrigger.node';
import {
	allowedDomainsFor,
	readCredentials,
	ServiceOrigin,
} from '../../nodes/shared/transport/service';
import { executionAdditionalData, hostAdditionalData, NodeTypes } from '../helpers/n8nHost';
import { loadOptionsContext, SOURCE_TYPE, SourceNode, sourceItems } from '../helpers/n8nWorkflow';

/** n8n-core's own DI container (it ships @n8n/di nested), as its contexts use it. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- resolved at run time, from n8n-core's folder
const { Container } = require(
	require.resolve('@n8n/di', { paths: [require.resolve('n8n-core')] }),
) as { Container: { set<T>(type: unknown, instance: T): void; get<T>(type: unknown): T } };

describe("polling.ts: helpers.registerCron is served by n8n-core's ScheduledTaskManager", () => {
	const NODE_NAME = 'Document Signing Trigger';
	const TRIGGER_TYPE = 'n8n-nodes-document-signing.documentSigningTrigger';
	let manager: ScheduledTaskManager;

	beforeEach(() => {
		const logger = {
			scoped: () => logger,
			debug: () => undefined,
			info: () => undefined,
			warn: () => undefined,
			error: () => undefined,
		};
		// A leader instance, as a single n8n main is; no periodic log.
		manager = new (ScheduledTaskManager as unknown as new (
			...args: unknown[]
		) => ScheduledTaskManager)({ isLeader: true, instanceRole: 'leader' }, logger, {
			activeInterval: 0,
		});
		Container.set(ScheduledTaskManager, manager);
	});
	afterEach(() => {
		manager.deregisterGroup({ type: 'workflow', id: 'wf-cron' });
	});

	function triggerContext() {
		const node: INode = {
			id: 'trigger-node',
			name: NODE_NAME,
			type: TRIGGER_TYPE,
			typeVersion: 2,
			position: [0, 0],
			parameters: { events: ['*'], receiveEventsBy: 'polling', pollMinutes: 5, options: {} },
			credentials: { documentSigningApi: { id: 'cred-1', name: 'Sandbox' } },
		};
		const workflow = new Workflow({
			id: 'wf-cron',
			name: 'cron',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes: new NodeTypes({ [TRIGGER_TYPE]: new DocumentSigningTrigger() }),
			// A cursor already saved, so activation sends no request.
			staticData: {
				[`node:${NODE_NAME}`]: { pollCursor: { time: new Date().toISOString(), ids: [] } },
			},
			settings: {},
		});
		// No scheduling functions given: n8n 2.41.1's cli gives none to any trigger but the Schedule
		// Trigger (schedule-trigger-job-registrar.js, interceptsNode), so TriggerContext's default serves.
		return new TriggerContext(
			workflow,
			workflow.getNode(NODE_NAME)!,
			hostAdditionalData(() => ({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' })),
			'trigger',
			'activate',
			() => undefined,
			() => undefined,
		);
	}

	it("registers the trigger's poll as a cron of its workflow and node", async () => {
		const context = triggerContext();
		const trigger = new DocumentSigningTrigger();
		const response = await trigger.trigger.call(context);
		const group = { type: 'workflow', id: 'wf-cron' } as const;
		expect(manager.getTargetIds(group)).toEqual(['trigger-node']);
		await response.closeFunction?.();
	});

	it('ticks a registered cron on its schedule', async () => {
		const context = triggerContext();
		const ticks: unknown[] = [];
		context.helpers.registerCron({ expression: '* * * * * *' } as never, () => ticks.push(1));
		await new Promise((resolve) => setTimeout(resolve, 2300));
		expect(ticks.length).toBeGreaterThanOrEqual(1);
	});
});

describe('polling.ts: the 4th argument of emit reaches n8n-core', () => {
	it("TriggerContext exposes the host's emit itself, so its length is the host's", () => {
		const node: INode = {
			id: 'n',
			name: 'N',
			type: SOURCE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		};
		const workflow = new Workflow({
			id: 'wf-emit',
			nodes: [node],
			connections: {},
			active: false,
			nodeTypes: new NodeTypes({ [SOURCE_TYPE]: new SourceNode() }),
		});
		// Four parameters, as n8n 2.41.1's cli declares it.
		const emit = (data: unknown, response?: unknown, done?: unknown, key?: string) =>
			void [data, response, done, key];
		const context = new TriggerContext(
			workflow,
			node,
			hostAdditionalData(() => ({})),
			'trigger',
			'activate',
			emit,
		);
		// Not wrapped: `emit.length >= 4` reads the cli's function (test/n8nContract/cli.test.ts).
		expect(context.emit).toBe(emit);
		expect(context.emit.length).toBe(4);
	});
});

describe('Send and Wait: the operation n8n recognises', () => {
	it("SEND_AND_WAIT_OPERATION is 'sendAndWait'", () => {
		// n8n's waiting webhooks and its review-gate generator compare the node's Operation to it.
		expect(SEND_AND_WAIT_OPERATION).toBe('sendAndWait');
	});

	it("isHitlToolType recognises the review gate n8n generates (type + 'HitlTool')", () => {
		expect(isHitlToolType('n8n-nodes-document-signing.documentSigningHitlTool')).toBe(true);
		expect(isHitlToolType('n8n-nodes-document-signing.documentSigningTool')).toBe(false);
		expect(isHitlToolType('n8n-nodes-document-signing.documentSigning')).toBe(false);
	});
});

describe("request.ts and requestGate.ts: n8n-workflow's sleep", () => {
	it('sleep(0) gives the event loop a turn (a timer queued before it runs first)', async () => {
		let timerRan = false;
		setTimeout(() => {
			timerRan = true;
		}, 0);
		await sleep(0);
		expect(timerRan).toBe(true);
	});

	it('sleep(ms) waits about ms', async () => {
		const start = Date.now();
		await sleep(120);
		expect(Date.now() - start).toBeGreaterThanOrEqual(100);
	});
});

describe("service.ts and request.ts: the credential's Allowed HTTP Request Domains, as n8n adds and applies them", () => {
	const node = { name: 'Document Signing' } as INode;

	it('n8n adds allowedHttpRequestDomains (all, domains, none) and allowedDomains to a credential with an authenticate function', () => {
		const injected = injectDomainRestrictionFields(new DocumentSigningApi()).filter(({ name }) =>
			['allowedHttpRequestDomains', 'allowedDomains'].includes(name),
		);
		expect(
			injected.map(({ name, type, default: value, options }) => ({
				name,
				type,
				value,
				options: options?.map((option) => ('value' in option ? option.value : undefined)),
			})),
		).toEqual([
			{
				name: 'allowedHttpRequestDomains',
				type: 'options',
				value: 'all',
				options: ['all', 'domains', 'none'],
			},
			{ name: 'allowedDomains', type: 'string', value: '', options: undefined },
		]);
	});

	// allowedDomainsFor re-implements n8n's rule for a request to the credential's own Base URL
	// (getCredentialAllowedDomains with credentialOwnedSurface, as routing-node.js calls it): the
	// listed domains plus the Base URL's host. Compared by what each lets through, so a change of
	// n8n's rule (or of how it matches a host) fails here.
	const baseUrls = ['https://API.Signing.test:8443/v1', 'https://sign.example.org/v1'];
	const settings: Array<Record<string, string>> = [
		{ allowedHttpRequestDomains: 'all' },
		{ allowedHttpRequestDomains: 'none' },
		{ allowedHttpRequestDomains: 'domains', allowedDomains: 'example.org' },
		{ allowedHttpRequestDomains: 'domains', allowedDomains: '*.example.org, other.test' },
		{ allowedHttpRequestDomains: 'domains', allowedDomains: '  ' },
		{ allowedHttpRequestDomains: 'domains' },
	];
	const probes = [
		'https://api.signing.test/v1/documents',
		'https://sign.example.org/v1/documents',
		'https://example.org/x',
		'https://deep.example.org/x',
		'https://other.test/x',
		'https://evil.test/x',
	];
	it.each(baseUrls.flatMap((baseUrl) => settings.map((setting) => [baseUrl, setting] as const)))(
		'Base URL %s with %j: the same hosts pass as under n8n-workflow 2.41.0',
		(baseUrl, setting) => {
			const data = { baseUrl, apiKey: 'sk_test_domains', ...setting };
			const credentials = readCredentials(data);
			const ours = allowedDomainsFor(credentials, new ServiceOrigin(credentials.baseUrl, node));
			const n8ns = getCredentialAllowedDomains({
				node,
				credentialData: data,
				credentialOwnedSurface: true,
				nodeEndpointUrl: baseUrl,
			});
			const passes = (allowedDomains: string | undefined) =>
				probes.filter((url) => !allowedDomains || isDomainAllowed({ url, allowedDomains }));
			expect(passes(ours)).toEqual(passes(n8ns));
		},
	);
});

describe("the credential test: n8n's routing engine passes disableFollowRedirect on to its HTTP layer", () => {
	const TEST_TYPE = 'test.credentialTest';

	/** A server on 127.0.0.1 answering every request with `answer`; its requests counted. */
	async function listen(answer: (res: ServerResponse) => void) {
		let requests = 0;
		const server = createServer((_req, res) => {
			requests++;
			answer(res);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		return {
			url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
			requests: () => requests,
			close: () => new Promise<void>((resolve) => server.close(() => resolve())),
		};
	}

	/**
	 * The credential's test request run as n8n's credentials tester runs it (cli
	 * services/credentials-tester.service.js, 2.41.1: a node whose one property routes
	 * `test.request`), through n8n-core's routing engine, with `disableFollowRedirect` as given.
	 */
	async function runCredentialTest(baseUrl: string, disableFollowRedirect: boolean) {
		const request = { ...new DocumentSigningApi().test.request, disableFollowRedirect };
		const run = `credential-test-${disableFollowRedirect}`;
		sourceItems.set(run, [{ json: {} }]);
		const nodeType: INodeType = {
			description: {
				displayName: 'Credential Test',
				name: TEST_TYPE,
				group: ['transform'],
				version: 1,
				description: '',
				defaults: { name: 'Credential Test' },
				inputs: [NodeConnectionTypes.Main],
				outputs: [NodeConnectionTypes.Main],
				credentials: [{ name: 'documentSigningApi', required: true }],
				properties: [
					{ displayName: 'Temp', name: 'temp', type: 'string', routing: { request }, default: '' },
				],
			},
		};
		const source: INode = {
			id: 'source',
			name: 'Source',
			type: SOURCE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: { run },
		};
		const tester: INode = {
			id: 'tester',
			name: 'Tester',
			type: TEST_TYPE,
			typeVersion: 1,
			position: [200, 0],
			parameters: {},
			credentials: { documentSigningApi: { id: '1', name: 'Document Signing' } },
			onError: 'continueRegularOutput',
		};
		const workflow = new Workflow({
			id: 'wf-credential-test',
			name: 'credential test',
			nodes: [source, tester],
			connections: { Source: { main: [[{ node: 'Tester', type: 'main', index: 0 }]] } },
			active: false,
			nodeTypes: new NodeTypes({ [SOURCE_TYPE]: new SourceNode(), [TEST_TYPE]: nodeType }),
			staticData: {},
			settings: { executionOrder: 'v1' },
		});
		await new WorkflowExecute(
			executionAdditionalData(() => ({ baseUrl, apiKey: 'sk_test_redirect' }), 'credential-test', [
				source,
				tester,
			]),
			'manual',
		).run({ workflow, startNode: source });
		sourceItems.delete(run);
	}

	it('a redirect from the Base URL is not followed: its target receives nothing (and does when the option is dropped)', async () => {
		const target = await listen((res) =>
			res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
		);
		const service = await listen((res) =>
			res.writeHead(302, { location: `${target.url}/v1/users` }).end(),
		);
		try {
			await runCredentialTest(`${service.url}/v1`, true);
			expect({ service: service.requests(), target: target.requests() }).toEqual({
				service: 1,
				target: 0,
			});
			// Control: without the option n8n follows the redirect, so the test above can fail.
			await runCredentialTest(`${service.url}/v1`, false);
			expect({ service: service.requests(), target: target.requests() }).toEqual({
				service: 2,
				target: 1,
			});
		} finally {
			await Promise.all([service.close(), target.close()]);
		}
	});
});

describe("request.ts: with encoding 'stream', n8n-core hands over the response body as a Node stream", () => {
	it('the body is read chunk by chunk, and destroy() stops it without reading the rest', async () => {
		const chunk = 'x'.repeat(64 * 1024);
		let written = 0;
		const server = createServer((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/octet-stream' });
			// Writes while the reader takes them: a reader that stops stops the writes.
			const more = () => {
				while (written < 1000 && res.write(chunk)) written++;
				if (written >= 1000) res.end();
			};
			res.on('drain', more);
			more();
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		try {
			const context = loadOptionsContext({ baseUrl: `${baseUrl}/v1`, apiKey: 'sk_test_stream' });
			const response = (await context.helpers.httpRequestWithAuthentication.call(
				context,
				'documentSigningApi',
				{ url: `${baseUrl}/v1/file`, encoding: 'stream', returnFullResponse: true },
			)) as { body: unknown };
			const body = response.body as AsyncIterable<Buffer> & { destroy(): void };
			expect(typeof body.destroy).toBe('function');
			let read = 0;
			for await (const part of body) {
				read += part.length;
				if (read >= 2 * chunk.length) break;
			}
			body.destroy();
			expect(read).toBeGreaterThanOrEqual(2 * chunk.length);
			// 64 MB were to come; far fewer were written once the reader stopped.
			expect(written).toBeLessThan(1000);
		} finally {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	});
});
