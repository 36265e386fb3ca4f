/**
 * Jest global setup of the real-n8n suite: installs the pinned n8n hosts once, before any test
 * (a cold install takes minutes, longer than a hook's timeout should be): generation 2, which
 * every suite uses, and the others that compat.e2e.test.ts runs. The workers' own
 * ensureN8nHost() calls then find them ready at once.
 *
 * N8N_E2E_HOSTS (e.g. `2`) limits which are installed here; a suite needing another installs it
 * itself on first use.
 */
import { N8N_HOSTS, ensureN8nHost, type N8nHostId } from './n8n';

export default function globalSetup(): void {
	const wanted =
		process.env.N8N_E2E_HOSTS?.split(/[\s,]+/).filter(Boolean) ?? Object.keys(N8N_HOSTS);
	for (const id of wanted) {
		const host = ensureN8nHost(id as N8nHostId);
		process.stderr.write(`n8n host ${id}: n8n ${host.version} in ${host.dir}\n`);
	}
}
