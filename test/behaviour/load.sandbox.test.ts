import { useSandbox } from '../helpers/sandbox';
import { runDocumentSigning } from '../helpers/n8nWorkflow';

/**
 * 1,000 input items with DEFAULT settings against a rate-limited, failing sandbox: n8n's routing
 * engine starts every item at once; the transport must bound concurrency, wait out 429s, retry
 * 5xx and resets, and the Idempotency-Key must keep every retry from creating a second document.
 * Bounded in count; the time limit is generous because these machines are shared.
 */

const ITEMS = 1000;
const sandbox = useSandbox({
	port: 0,
	// Well below what the transport sends even on a busy machine (n8n prepares every item first,
	// then the requests go out 8 at a time), so 429s happen whatever the machine's speed.
	rateLimit: { requestsPerSecond: 50, burst: 10 },
	failureRate: 0.1,
	connectionResetRate: 0.02,
});

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

	// The faults really happened, so the test proves the retries.
	const stats = sandbox().stats();
	process.stdout.write(
		`load stats: ${JSON.stringify({ requests: stats.requests, rateLimited: stats.rateLimited, injectedFailures: stats.injectedFailures, resets: stats.resets })}\n`,
	);
	expect(stats.rateLimited).toBeGreaterThan(0);
	// After a 429 requests start spaced, not all together (which earned ~2.5 429s per create).
	expect(stats.rateLimited).toBeLessThan(ITEMS / 2);
	expect(stats.injectedFailures).toBeGreaterThan(0);
	expect(stats.resets).toBeGreaterThan(0);
}, 180_000);
