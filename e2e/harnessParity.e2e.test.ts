/**
 * The unit suites run the nodes in n8n-core's engine with a small host of their own
 * (test/helpers/n8nHost.ts). That host must hand the node types to the engine as n8n does, or a
 * unit test sees another node than n8n runs: n8n gives a declarative node an execute() that runs
 * its routing, also when the node has a webhook (Send and Wait's) and methods (its list searches).
 *
 * - The rule of the harness (`n8nAssignsExecute`) is n8n's own `shouldAssignExecuteMethod`, read
 *   from each installed host and applied to the built nodes.
 * - A routed operation whose parameter is an expression of the input item (`$json`) gives the same
 *   output in the harness as in the real n8n 2.41.1.
 *
 * Needs the package built (`npm run build`).
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

import { DocumentSigning } from '../nodes/DocumentSigning/DocumentSigning.node';
import { DocumentSigningTrigger } from '../nodes/DocumentSigningTrigger/DocumentSigningTrigger.node';
import { startSandbox, type Sandbox } from '../sandbox';
import { n8nAssignsExecute } from '../test/helpers/n8nHost';
import { runDocumentSigning } from '../test/helpers/n8nWorkflow';
import { createN8n, ensureN8nHost, nodeOutput, type N8nHostId } from './harness/n8n';
import {
	byId,
	chain,
	codeNode,
	importWorkflows,
	manualTrigger,
	signingNode,
} from './harness/workflows';

const ROOT = path.resolve(__dirname, '..');
const built = (file: string) => path.join(ROOT, 'dist', 'nodes', file);

describe.each(['2', '1.110'] as N8nHostId[])('n8n host %s', (hostId) => {
	it('gives the nodes an execute() exactly where the harness does', () => {
		const host = ensureN8nHost(hostId);
		const script = `
			const { shouldAssignExecuteMethod } = require(${JSON.stringify(path.join(host.dir, 'node_modules', 'n8n', 'dist', 'utils.js'))});
			const { DocumentSigning } = require(${JSON.stringify(built('DocumentSigning/DocumentSigning.node.js'))});
			const { DocumentSigningTrigger } = require(${JSON.stringify(built('DocumentSigningTrigger/DocumentSigningTrigger.node.js'))});
			console.log(JSON.stringify({
				action: shouldAssignExecuteMethod(new DocumentSigning()),
				trigger: shouldAssignExecuteMethod(new DocumentSigningTrigger()),
			}));`;
		const n8nSays = JSON.parse(
			execFileSync(host.node, ['-e', script], { cwd: host.dir, encoding: 'utf8' }),
		) as Record<string, boolean>;
		expect(n8nSays).toEqual({
			action: n8nAssignsExecute(new DocumentSigning()),
			trigger: n8nAssignsExecute(new DocumentSigningTrigger()),
		});
		expect(n8nSays.action).toBe(true);
	});
});

describe('a routed operation reading the input item, in the harness and in n8n 2.41.1', () => {
	let sandbox: Sandbox;

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0 });
	});
	afterAll(async () => {
		await sandbox?.close();
	});

	it('Document › Get by {{ $json.documentId }} gives the same item', async () => {
		const { apiKey } = sandbox.createAccount();
		const created = await fetch(`${sandbox.baseUrl}/documents`, {
			method: 'POST',
			headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
			body: JSON.stringify({
				name: 'parity.pdf',
				signers: [{ email: 'a@example.com', name: 'A' }],
			}),
		});
		const documentId = String(((await created.json()) as { id: string }).id);
		const parameters = {
			resource: 'document',
			operation: 'get',
			documentId: byId('={{ $json.documentId }}'),
		};

		const inHarness = await runDocumentSigning({
			parameters,
			items: [{ json: { documentId } }],
			credentials: { baseUrl: sandbox.baseUrl, apiKey },
		});
		expect(inHarness.error).toBeUndefined();

		const n8n = await createN8n({ sandboxBaseUrl: sandbox.baseUrl });
		try {
			const [credentialId] = await n8n.importCredentials([
				n8n.documentSigningCredential({ apiKey, name: 'Sandbox (parity)' }),
			]);
			const [workflowId] = await importWorkflows(n8n, [
				chain('e2e: harness parity', [
					manualTrigger(),
					codeNode('Deal', `return [{ json: { documentId: ${JSON.stringify(documentId)} } }];`),
					signingNode('Get Document', parameters, {
						credential: { id: credentialId, name: 'Sandbox (parity)' },
					}),
				]),
			]);
			const result = await n8n.execute(workflowId);
			expect(result.error).toBeUndefined();
			expect(nodeOutput(result.run, 'Get Document')).toEqual(
				inHarness.items.map((item) => item.json),
			);
			expect(inHarness.items.map((item) => item.json.id)).toEqual([documentId]);
		} finally {
			await n8n.dispose();
		}
	});
});
