/**
 * What a user sees when things go wrong, in a real n8n: a wrong API key, a Base URL where nothing
 * listens, and input the node refuses before sending. Each error must say what is wrong in the
 * execution's run data (message, description, HTTP code, node), and the API keys must appear
 * nowhere: not in any execution's data (as `n8n execute` prints it and as n8n stores it), not in
 * n8n's log or the processes' output.
 *
 * One n8n instance for the file, started so the stored executions can be read back through the
 * public API; the workflows run with `n8n execute`.
 */
import { startSandbox, type Sandbox } from '../sandbox';
import { createN8n, freePort, newId, type ExecuteResult, type N8nInstance } from './harness/n8n';
import {
	chain,
	importWorkflows,
	manualTrigger,
	nodeItems,
	nodeRuns,
	signingNode,
	type CredentialRef,
	type WorkflowJson,
} from './harness/workflows';

let sandbox: Sandbox;
let n8n: N8nInstance;
let goodKey: string;
// Distinctive strings: a leak anywhere is found by a plain substring search.
const wrongKey = `sk_e2e_failures_WRONG_${newId()}`;
let unreachableKey: string;
const credentials: Record<'good' | 'wrong' | 'unreachable', CredentialRef> = {
	good: { id: newId(), name: 'Good key' },
	wrong: { id: newId(), name: 'Wrong key' },
	unreachable: { id: newId(), name: 'Nobody listening' },
};
/** Every execution of this file, as `n8n execute` returned it. */
const results: ExecuteResult[] = [];

const SIGNERS = { signer: [{ email: 'ada@example.com', name: 'Ada Lovelace' }] };

/** The workflows of this file, imported with one CLI call in beforeAll. */
const WORKFLOWS = {
	wrongKey: chain('e2e: wrong key', [
		manualTrigger(),
		signingNode(
			'Create (good key)',
			{ resource: 'document', operation: 'create', name: 'fine.pdf', signers: SIGNERS },
			{ credential: credentials.good },
		),
		signingNode(
			'List (wrong key, continue)',
			{ resource: 'document', operation: 'getAll', returnAll: true },
			{ credential: credentials.wrong, continueOnFail: true },
		),
		signingNode(
			'Create (wrong key)',
			{ resource: 'document', operation: 'create', name: 'never.pdf', signers: SIGNERS },
			{ credential: credentials.wrong },
		),
	]),
	unreachable: chain('e2e: unreachable', [
		manualTrigger(),
		signingNode(
			'List Documents',
			{ resource: 'document', operation: 'getAll', returnAll: true },
			{ credential: credentials.unreachable },
		),
	]),
	invalidInput: chain('e2e: invalid input', [
		manualTrigger(),
		signingNode(
			'Create Document',
			{
				resource: 'document',
				operation: 'create',
				name: 'nda.pdf',
				signers: { signer: [SIGNERS.signer[0], { email: 'bob@', name: 'Bob' }] },
			},
			{ credential: credentials.good },
		),
	]),
} satisfies Record<string, WorkflowJson>;
const workflowIds = {} as Record<keyof typeof WORKFLOWS, string>;

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
	goodKey = sandbox.createAccount().apiKey;
	unreachableKey = `sk_e2e_failures_UNREACHABLE_${newId()}`;
	const closedPort = await freePort();
	n8n = await createN8n({ sandboxBaseUrl: sandbox.baseUrl });
	await n8n.importCredentials([
		n8n.documentSigningCredential({ ...credentials.good, apiKey: goodKey }),
		n8n.documentSigningCredential({ ...credentials.wrong, apiKey: wrongKey }),
		n8n.documentSigningCredential({
			...credentials.unreachable,
			apiKey: unreachableKey,
			baseUrl: `http://127.0.0.1:${closedPort}/v1`,
		}),
	]);
	const names = Object.keys(WORKFLOWS) as Array<keyof typeof WORKFLOWS>;
	const ids = await importWorkflows(
		n8n,
		names.map((name) => WORKFLOWS[name]),
	);
	names.forEach((name, index) => (workflowIds[name] = ids[index]));
	await n8n.start();
});

afterAll(async () => {
	await n8n?.dispose();
	await sandbox?.close();
});

async function execute(name: keyof typeof WORKFLOWS): Promise<ExecuteResult> {
	const result = await n8n.execute(workflowIds[name]);
	results.push(result);
	return result;
}

describe('errors in the execution', () => {
	it('a wrong API key: the service’s message, HTTP 401 and a hint; Continue On Fail keeps it on the item', async () => {
		const before = sandbox.stats();
		const result = await execute('wrongKey');

		expect(result.status).toBe('error');
		expect(result.error).toMatchObject({
			message: 'Unknown API key',
			description: 'The service said code: unauthorized. Check the API key in the credentials.',
			httpCode: '401',
			node: { name: 'Create (wrong key)' },
		});
		expect(result.run.data.resultData.lastNodeExecuted).toBe('Create (wrong key)');
		expect(nodeRuns(result.run, 'Create (wrong key)')[0].error).toMatchObject({
			message: 'Unknown API key',
			httpCode: '401',
		});

		// The good key worked in the same execution...
		const [created] = nodeItems(result.run, 'Create (good key)').map((item) => item.json);
		expect(created).toMatchObject({ name: 'fine.pdf', status: 'pending' });
		expect(sandbox.store.documentsOf(goodKey).map((d) => d.id)).toEqual([created.id]);
		// ...and with Continue On Fail the refusal became the item's output.
		const continued = nodeItems(result.run, 'List (wrong key, continue)');
		expect(continued).toHaveLength(1);
		expect(continued[0].json.error).toEqual(expect.stringContaining('Unknown API key'));

		// The service saw each wrong-key request once, refused (the node does not retry a 401).
		const after = sandbox.stats();
		const delta = (counts: Record<string, number>, earlier: Record<string, number>, key: string) =>
			(counts[key] ?? 0) - (earlier[key] ?? 0);
		expect({
			creates: delta(after.routes, before.routes, 'POST /v1/documents'),
			lists: delta(after.routes, before.routes, 'GET /v1/documents'),
			created: delta(after.statuses, before.statuses, '201'),
			refused: delta(after.statuses, before.statuses, '401'),
		}).toEqual({ creates: 2, lists: 1, created: 1, refused: 2 });
	});

	it('an unreachable Base URL: “could not reach” with the network error and where to look', async () => {
		const before = sandbox.stats().requests;
		const result = await execute('unreachable');

		expect(result.status).toBe('error');
		expect(result.error).toMatchObject({
			message: 'Could not reach the Document Signing service',
			description:
				'Network error ECONNREFUSED. Check the Base URL in the credentials and that the service is reachable from n8n.',
			node: { name: 'List Documents' },
		});
		expect(sandbox.stats().requests).toBe(before);
	});

	it('input the node refuses: the message names the parameter and nothing is sent', async () => {
		const before = sandbox.stats().requests;
		const result = await execute('invalidInput');

		expect(result.status).toBe('error');
		expect(result.error?.message).toBe(
			'Signers › Signer 2 › Email: "bob@" is not a valid email address',
		);
		expect(result.error?.node?.name).toBe('Create Document');
		expect(sandbox.stats().requests).toBe(before);
		expect(sandbox.store.documentsOf(goodKey).map((d) => d.name)).toEqual(['fine.pdf']);
	});
});

describe('the API keys appear nowhere', () => {
	const keys = () => ({ good: goodKey, wrong: wrongKey, unreachable: unreachableKey });

	it('in the run data and output of every `n8n execute`', () => {
		expect(results).toHaveLength(3);
		for (const result of results) {
			const text = JSON.stringify(result.run) + result.output;
			for (const [which, key] of Object.entries(keys()))
				expect({ which, leaked: text.includes(key) }).toEqual({ which, leaked: false });
		}
	});

	it('in the executions n8n stored (full data through the public API)', async () => {
		const executions = (
			await Promise.all(
				Object.values(workflowIds).map(
					async (workflowId) => await n8n.executions({ workflowId, includeData: true }),
				),
			)
		).flat();
		// Every execution is there, with its data (so the search below is not vacuous).
		expect(executions).toHaveLength(results.length);
		const text = JSON.stringify(executions);
		expect(text).toContain('Unknown API key');
		expect(text).toContain('Could not reach the Document Signing service');
		expect(text).toContain('is not a valid email address');
		for (const [which, key] of Object.entries(keys()))
			expect({ which, leaked: text.includes(key) }).toEqual({ which, leaked: false });
	});

	it('in n8n’s log file and the processes’ output', () => {
		const log = n8n.logText();
		// The log is there and covers these executions.
		expect(log).toContain('Unknown API key');
		for (const [which, key] of Object.entries(keys()))
			expect({ which, leaked: log.includes(key) }).toEqual({ which, leaked: false });
	});
});
