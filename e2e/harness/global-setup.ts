/**
 * Jest global setup of the real-n8n suite: installs the pinned n8n host once, before any test
 * (a cold install takes minutes, longer than a hook's timeout should be). The workers' own
 * ensureN8nHost() calls then find it ready at once.
 */
import { ensureN8nHost } from './n8n';

export default function globalSetup(): void {
	const host = ensureN8nHost();
	process.stderr.write(`n8n host: ${host.dir}\n`);
}
