/**
 * Jest global setup of the queue-mode suite: installs the pinned n8n host (scripts/n8n-host.sh),
 * Redis (scripts/redis.sh) and PostgreSQL (scripts/postgres.sh) if missing, before any test and
 * outside the tests' timeouts.
 */
import { ensureN8nHost } from '../harness/n8n';
import { ensureQueueServices } from './cluster';

export default function globalSetup(): void {
	const host = ensureN8nHost();
	process.stderr.write(`n8n host: ${host.dir}\n`);
	ensureQueueServices();
}
