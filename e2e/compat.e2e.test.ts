/**
 * Compatibility across n8n generations: the checks of packageChecks.ts (the package loads, the
 * credential test, one operation per resource, the trigger's activation, delivery and
 * deactivation) on every pinned n8n host (n8n 1.85.4, the floor; 1.123.x, the last 1.x; and
 * n8n 2.41.1; see N8N_HOSTS in harness/n8n.ts and scripts/n8n-host.sh), with dist/ copied into
 * n8n's nodes folder, against the sandbox running in this jest process.
 *
 * Each generation gets one n8n instance and two sandbox accounts of its own, so generations and
 * tests do not see each other's records. Needs the package built (`npm run build`).
 */
import { startSandbox, type Sandbox } from '../sandbox';
import { createN8n, ensureN8nHost, type N8nHostId } from './harness/n8n';
import { describePackageChecks } from './packageChecks';

/** Oldest first: n8n 1.85.4 (the floor), 1.123.x (the last 1.x), 2.41.1. N8N_E2E_COMPAT_HOSTS=1,2 picks some. */
const HOSTS = (process.env.N8N_E2E_COMPAT_HOSTS?.split(',') ?? ['1.85', '1', '2']) as N8nHostId[];

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
		describePackageChecks({
			hostId: id,
			version,
			label: 'compat',
			sandbox: () => sandbox,
			create: async () => await createN8n({ host: id, sandboxBaseUrl: sandbox.baseUrl }),
		});
	},
);
