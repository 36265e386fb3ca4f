/**
 * Compatibility across n8n generations: the checks of packageChecks.ts (the package loads, the
 * credential test, one operation per resource, the trigger's activation, delivery and
 * deactivation) on every pinned n8n host (n8n 1.110.1, the floor; 1.123.x, the last 1.x; and
 * n8n 2.41.1; see N8N_HOSTS in harness/n8n.ts and scripts/n8n-host.sh), with dist/ copied into
 * n8n's nodes folder, against the sandbox running in this jest process. On 1.x, Send and Wait for
 * Signature refuses before any request (it needs n8n 2.16 or later; docs/send-and-wait.md); on
 * 2.41.1 it is e2e/sendAndWait.e2e.test.ts's.
 *
 * Each generation gets one n8n instance and two sandbox accounts of its own, so generations and
 * tests do not see each other's records. Needs the package built (`npm run build`).
 */
import axios from 'axios';

import { startSandbox, type Sandbox } from '../sandbox';
import { createN8n, ensureN8nHost, newId, type N8nHostId } from './harness/n8n';
import { describePackageChecks } from './packageChecks';
import {
	chain,
	importWorkflows,
	manualTrigger,
	signingNode,
	triggerItem,
	triggerNode,
} from './harness/workflows';

/** Oldest first: n8n 1.110.1 (the floor), 1.123.x (the last 1.x), 2.41.1. N8N_E2E_COMPAT_HOSTS=1,2 picks some. */
const HOSTS = (process.env.N8N_E2E_COMPAT_HOSTS?.split(',') ?? ['1.110', '1', '2']) as N8nHostId[];

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({
		port: 0,
		webhookRetry: { baseDelayMs: 250, maxAttempts: 3, timeoutMs: 10_000 },
	});
});

afterAll(async () => {
	await sandbox?.close();
});

describe.each(HOSTS.map((id) => ({ id, version: ensureN8nHost(id).version })))(
	'n8n $version',
	({ id, version }) => {
		const context = describePackageChecks({
			hostId: id,
			version,
			label: 'compat',
			sandbox: () => sandbox,
			create: async () => await createN8n({ host: id, sandboxBaseUrl: sandbox.baseUrl }),
		});

		if (ensureN8nHost(id).generation === 1)
			it('Send and Wait for Signature refuses before any request, naming the n8n it needs', async () => {
				const n8n = context.n8n;
				const { apiKey } = sandbox.createAccount();
				const credential = { id: newId(), name: 'Compat (send and wait)' };
				await n8n.importCredentials([n8n.documentSigningCredential({ ...credential, apiKey })]);
				const [workflowId] = await importWorkflows(n8n, [
					chain('compat: send and wait', [
						manualTrigger(),
						signingNode(
							'Send and Wait',
							{
								resource: 'document',
								operation: 'sendAndWait',
								name: 'compat-wait.pdf',
								signers: { signer: [{ email: 'ada@example.com', name: 'Ada Lovelace' }] },
							},
							{ credential },
						),
					]),
				]);
				const result = await n8n.execute(workflowId);
				expect(result.error?.message).toBe(
					'This n8n version cannot keep a wait with its execution, which Send and Wait for Signature needs',
				);
				expect(sandbox.store.documentsOf(apiKey)).toEqual([]);
				expect(sandbox.store.webhooksOf(apiKey)).toEqual([]);
			});

		// The floor: n8n's scheduler (registerCron), an httpMethod expression that registers no webhook,
		// and execute() before trigger() are what Polling relies on (e2e/triggerPolling.e2e.test.ts on 2.41.1).
		if (id === '1.110')
			it('the trigger polls: each event once, oldest first, with nothing registered at the service', async () => {
				const n8n = context.n8n;
				const { apiKey } = sandbox.createAccount();
				const credential = { id: newId(), name: 'Compat (polling)' };
				await n8n.importCredentials([n8n.documentSigningCredential({ ...credential, apiKey })]);
				const [workflowId] = await importWorkflows(n8n, [
					{
						name: 'compat: polling',
						nodes: [
							triggerNode('Document Signing Trigger', {
								events: ['document.sent'],
								credential,
								parameters: { receiveEventsBy: 'polling', pollMinutes: 1 },
							}),
						],
						connections: {},
					},
				]);
				await n8n.activate(workflowId);
				expect(sandbox.store.webhooksOf(apiKey)).toEqual([]);
				const api = axios.create({
					baseURL: sandbox.baseUrl,
					headers: { Authorization: `Bearer ${apiKey}` },
				});
				const sent: string[] = [];
				for (const name of ['first.pdf', 'second.pdf', 'third.pdf']) {
					const { data } = await api.post('/documents', {
						name,
						signers: [{ email: 'ada@example.com', name: 'Ada Lovelace' }],
					});
					sent.push(String(data.id));
				}
				// One poll a minute: the three events come with the first poll after they happened.
				const executions = await n8n.waitForExecutions(workflowId, {
					count: 3,
					timeoutMs: 150_000,
				});
				const items = executions
					.sort((a, b) => Number(a.id) - Number(b.id))
					.map((execution) => triggerItem(execution) as unknown as Record<string, any>);
				expect(items.map((item) => item.event)).toEqual(Array(3).fill('document.sent'));
				expect(items.map((item) => item.data.document.id)).toEqual(sent);
				expect(new Set(items.map((item) => item.eventId)).size).toBe(3);
				await n8n.deactivate(workflowId);
				expect(sandbox.store.webhooksOf(apiKey)).toEqual([]);
				expect(await n8n.executions({ workflowId })).toHaveLength(3);
			});
	},
);
