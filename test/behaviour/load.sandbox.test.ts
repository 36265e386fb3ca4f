import { decideFault, faultRandom } from '../../sandbox/faults';
import { useSandbox } from '../helpers/sandbox';
import { runDocumentSigning } from '../helpers/n8nWorkflow';

/**
 * 1,000 input items with DEFAULT settings against a rate-limited, failing sandbox: n8n's routing
 * engine starts every item at once; the transport must bound concurrency, wait out 429s, retry
 * 5xx and resets, and the Idempotency-Key must keep every retry from creating a second document.
 * Every fault it checks is forced, never left to the machine's speed: the key's bucket starts
 * empty (its first request is a 429), and the seeded faults of the first 1,000 requests are known
 * before the run. Bounded in count; the time limit is generous because these machines are shared.
 */

const ITEMS = 1000;
const FAULTS = {
	failureRate: 0.1,
	failureStatuses: [500, 503],
	connectionResetRate: 0.02,
	faultSeed: 32,
};
const sandbox = useSandbox({
	port: 0,
	// initialTokens 0: the first request is refused whatever the machine's speed; a fast machine
	// then meets the limit again (n8n prepares every item first, then 8 requests go out at a time).
	rateLimit: { requestsPerSecond: 50, burst: 10, initialTokens: 0 },
	...FAULTS,
});

/** The faults the sandbox gives its first `count` /v1 requests (each create is one at least). */
function faultsOfTheFirst(count: number): { injectedFailures: number; resets: number } {
	const random = faultRandom(FAULTS.faultSeed);
	const decisions = Array.from({ length: count }, () => decideFault(FAULTS, random));
	return {
		injectedFailures: decisions.filter((fault) => fault?.kind === 'fail').length,
		resets: decisions.filter((fault) => fault?.kind === 'reset').length,
	};
}

test('1,000 creates: none lost, none duplicated', async () => {
	const { apiKey } = sandbox().createAccount();
	const items = Array.from({ length: ITEMS }, (_, i) => ({
		json: { name: `bulk-${i}.pdf`, email: `signer${i}@example.com` },
	}));
	const result = await runDocumentSigning({
		parameters: {
			resource: 'document',
			operation: 'create',
			name: '={{ $json.name }}',
			signers: { signer: [{ email: '={{ $json.email }}', name: 'Bulk Signer' }] },
		},
		items,
		credentials: { baseUrl: sandbox().baseUrl, apiKey },
	});

	expect(result.error).toBeUndefined();
	expect(result.items).toHaveLength(ITEMS);
	// Output i belongs to input i, and is the document made from it.
	result.items.forEach((item, i) => {
		expect(item.pairedItem).toEqual({ item: i });
		expect(item.json.name).toBe(`bulk-${i}.pdf`);
	});

	const stored = sandbox().store.documentsOf(apiKey);
	const counts = new Map<string, number>();
	for (const doc of stored) counts.set(doc.name, (counts.get(doc.name) ?? 0) + 1);
	expect(stored).toHaveLength(ITEMS);
	expect([...counts.values()].every((count) => count === 1)).toBe(true);

	// The faults really happened, so the test proves the retries: at least those forced on the
	// first 1,000 requests (retries add requests, and with them more faults).
	const stats = sandbox().stats();
	const forced = faultsOfTheFirst(ITEMS);
	expect(forced).toEqual({ injectedFailures: 95, resets: 23 });
	expect(stats.injectedFailures).toBeGreaterThanOrEqual(forced.injectedFailures);
	expect(stats.resets).toBeGreaterThanOrEqual(forced.resets);
	expect(stats.rateLimited).toBeGreaterThanOrEqual(1);
	// After a 429 requests start spaced, not all together (which earned ~2.5 429s per create).
	expect(stats.rateLimited).toBeLessThan(ITEMS / 2);
}, 180_000);
