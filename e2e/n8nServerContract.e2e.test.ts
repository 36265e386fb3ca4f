/**
 * What the nodes rely on in n8n's server (packages/cli) beyond its public node interfaces
 * (docs/node-behaviour.md, "Where the nodes depend on n8n"), read from the pinned hosts' installed
 * code: e2e/n8n-host (n8n 2.41.1), e2e/n8n-host-1x (1.123.x) and e2e/n8n-host-1.110 (1.110.1, the
 * floor). The server cannot run here without its database, so each test reads the compiled
 * source for the one statement the package depends on; it fails when that statement changes.
 *
 * The hosts come from `scripts/n8n-host.sh ensure` (cached outside the clone; the e2e suite's
 * global setup has installed them).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const hosts = new Map<string, string>();

/** The host's n8n/dist folder, installing the host first if needed. */
function cliDist(id: string): string {
	let dir = hosts.get(id);
	if (!dir) {
		dir = execFileSync('bash', [path.join(ROOT, 'scripts', 'n8n-host.sh'), 'ensure', id], {
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'inherit'],
			timeout: 40 * 60_000,
		}).trim();
		hosts.set(id, dir);
	}
	return path.join(dir, 'node_modules', 'n8n', 'dist');
}

const read = (id: string, file: string) => fs.readFileSync(path.join(cliDist(id), file), 'utf8');

/** The body of `name(` … up to the next method at class level (two-space indent), as compiled. */
function methodBody(source: string, name: string): string {
	const start = source.search(new RegExp(`\\n    (async )?${name}\\(`));
	expect(start).toBeGreaterThanOrEqual(0);
	const end = source.slice(start + 1).search(/\n {4}(async )?[A-Za-z_]+\([^)]*\) \{/);
	return source.slice(start, end < 0 ? undefined : start + 1 + end);
}

/** A compiled arrow function's parameter names: `const emit = (a, b) =>`. */
function arrowParameters(source: string, name: string): string[] {
	const match = new RegExp(`const ${name} = \\(([^)]*)\\) =>`).exec(source);
	expect(match).not.toBeNull();
	return match![1].split(',').map((parameter) => parameter.trim());
}

const HOSTS = ['2', '1', '1.110'];
const BEFORE = 40 * 60_000;

describe.each(HOSTS)('n8n host %s', (id) => {
	beforeAll(() => cliDist(id), BEFORE);

	it("Polling mode: a webhook whose httpMethod is '' registers nothing", () => {
		const body = methodBody(read(id, 'webhooks/webhook.service.js'), 'getNodeWebhooks');
		expect(body).toMatch(/String\(webhookMethods\)\s*\.split\(','\)/);
		expect(body).toMatch(/if \(!httpMethod\)\s*return;/);
	});
});

describe('emit: the deduplication key polling.ts detects by emit.length >= 4', () => {
	beforeAll(() => HOSTS.forEach(cliDist), BEFORE);

	it('n8n 2.41.1 passes emit a 4th parameter, the key, on to runWorkflow', () => {
		const source = read('2', 'workflows/triggers/trigger-execution-context.factory.js');
		const body = methodBody(source, 'getExecuteTriggerFunctions');
		expect(arrowParameters(body, 'emit')).toEqual([
			'data',
			'responsePromise',
			'donePromise',
			'deduplicationKey',
		]);
		expect(body).toMatch(/runWorkflow\([^)]*deduplicationKey\)/);
		// The emit handed to the node is that function (TriggerContext keeps it as is: engine.test.ts).
		expect(body).toMatch(/new n8n_core_1\.TriggerContext\([^)]*\bemit, emitError/);
		// And a trigger other than the Schedule Trigger keeps registerCron's present path.
		expect(
			methodBody(
				read('2', 'scheduling/schedule-trigger-node/schedule-trigger-job-registrar.js'),
				'interceptsNode',
			),
		).toContain('node.type !== n8n_workflow_1.SCHEDULE_TRIGGER_NODE_TYPE');
	});

	it.each(['1', '1.110'])('n8n host %s takes three, so the event is not emitted again', (id) => {
		const body = methodBody(read(id, 'active-workflow-manager.js'), 'getExecuteTriggerFunctions');
		expect(arrowParameters(body, 'emit')).toEqual(['data', 'responsePromise', 'donePromise']);
	});
});

describe('Send and Wait as an AI review gate (n8n 2.41.1)', () => {
	beforeAll(() => cliDist('2'), BEFORE);

	it("n8n generates a HitlTool from a node whose Operation offers SEND_AND_WAIT_OPERATION, with a 'message' field", () => {
		const source = read('2', 'tool-generation/hitl-tools.js');
		const check = source.slice(source.indexOf('function hasSendAndWaitOperation('));
		expect(check.slice(0, check.indexOf('\n}'))).toContain(
			'opt.value === n8n_workflow_1.SEND_AND_WAIT_OPERATION',
		);
		expect(source).toMatch(/name: 'message'/);
		expect(source).toContain('function convertNodeToHitlTool(');
	});
});

/**
 * Why the trigger's polling is not n8n's own polling contract (`polling: true` with `poll()`): in
 * every host, such a node is polled and shows Poll Times whatever its other parameters say, so a
 * trigger in Webhook mode would be polled and would show a schedule its mode does not use
 * (docs/trigger.md, "Why not n8n's poll()"). When n8n lets a mode turn these off, these fail.
 */
describe.each(HOSTS)(
	"n8n host %s: n8n's poll() contract does not fit a trigger that also receives webhooks",
	(id) => {
		beforeAll(() => cliDist(id), BEFORE);
		const module = (file: string) => path.join(cliDist(id), '..', '..', file);
		const readModule = (file: string) => fs.readFileSync(module(file), 'utf8');

		it('a node with poll() is polled on activation, whatever its parameters', () => {
			expect(readModule('n8n-workflow/dist/cjs/workflow.js')).toMatch(
				/getPollNodes\(\) \{\s*return this\.queryNodes\(\(nodeType\) => !!nodeType\.poll\);/,
			);
			const engine = fs.existsSync(
				module('n8n-core/dist/execution-engine/active-workflow-triggers.js'),
			)
				? 'n8n-core/dist/execution-engine/active-workflow-triggers.js'
				: 'n8n-core/dist/execution-engine/active-workflows.js';
			// The poll runs once at activation, then on Poll Times.
			expect(readModule(engine)).toMatch(/await execute(Poll)?Trigger\(true\);/);
		});

		it('a polling node shows Poll Times first, with no condition on its other parameters', () => {
			const loader = methodBody(
				readModule('n8n-core/dist/nodes-loader/directory-loader.js'),
				'applySpecialNodeParameters',
			);
			expect(loader).toMatch(
				/if \(polling\) \{\s*properties\.unshift\(\.\.\.constants_1\.commonPollingParameters\);/,
			);
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			const { commonPollingParameters } = require(
				module('n8n-core/dist/nodes-loader/constants.js'),
			) as {
				commonPollingParameters: Array<{ name: string; displayOptions?: unknown }>;
			};
			expect(commonPollingParameters.map(({ name }) => name)).toEqual(['pollTimes']);
			expect(commonPollingParameters[0].displayOptions).toBeUndefined();
		});
	},
);

/**
 * polling.ts lets go of an execution whose end n8n has not reported for a whole poll interval: in
 * queue mode, n8n's main hears of a job's end only through Bull's `job.finished()`, which can miss a
 * job that ended within milliseconds (docs/trigger.md, "Polling"). When n8n reports the end another
 * way, this fails, and the let-go may be unnecessary.
 */
describe.each(HOSTS)('n8n host %s: queue mode', (id) => {
	beforeAll(() => cliDist(id), BEFORE);

	it("main hears of a queue-mode execution's end only through Bull's job.finished()", () => {
		const body = methodBody(read(id, 'workflow-runner.js'), 'enqueueExecution');
		expect(body).toContain('await job.finished();');
		expect(body.match(/job\.finished\(\)/g)).toHaveLength(1);
	});
});

/**
 * service.ts and request.ts read the credential's Allowed HTTP Request Domains, which n8n adds to
 * every credential type with an authenticate function, and pass the listed domains plus the Base
 * URL's host as `allowedDomains` on their direct requests, as n8n's routing engine does for its own.
 */
describe.each(HOSTS)("n8n host %s: the credential's Allowed HTTP Request Domains", (id) => {
	beforeAll(() => cliDist(id), BEFORE);

	it('n8n adds the fields to the credential types it loads', () => {
		expect(read(id, 'load-nodes-and-credentials.js')).toMatch(
			/properties = (\(0, n8n_workflow_1\.)?(this\.)?injectDomainRestrictionFields\)?\(/,
		);
	});
});

describe("the Base URL's own host in the allowed domains (n8n 1.123.x: n8n-workflow's utils)", () => {
	beforeAll(() => cliDist('1'), BEFORE);

	it('n8n 1.123 allows the listed domains plus the Base URL host, as allowedDomainsFor does', () => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- the host's own n8n-workflow
		const workflow = require(path.join(cliDist('1'), '..', '..', 'n8n-workflow')) as {
			getCredentialAllowedDomains(data: object, url: string): string | undefined;
		};
		const source = read('1', '../../n8n-core/dist/execution-engine/routing-node.js');
		expect(source).toMatch(
			/getCredentialAllowedDomains\)\(credentials, itemContext\[itemIndex\]\.requestData\.options\.baseURL\)/,
		);
		const cases: Array<[string, string | undefined]> = [
			['example.org', 'api.signing.test, example.org'],
			['', 'api.signing.test'],
			['*.signing.test', '*.signing.test'],
		];
		for (const [allowedDomains, expected] of cases)
			expect(
				workflow.getCredentialAllowedDomains(
					{ allowedHttpRequestDomains: 'domains', allowedDomains },
					'https://api.signing.test/v1',
				),
			).toBe(expected);
	});
});
