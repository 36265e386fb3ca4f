import {
	activationSettled,
	deactivationSettled,
	waitForState,
} from '../../../e2e/harness/waitForState';

/** A publication status that answers from a script, as n8n does while its outbox catches up. */
function scripted(statuses: string[]) {
	let reads = 0;
	return {
		read: async () => ({ status: statuses[Math.min(reads++, statuses.length - 1)] }),
		reads: () => reads,
	};
}

/**
 * What n8n 2.x can answer after an unpublish (the queue-mode failure on a busy machine): the old status, then
 * in_progress once its outbox took the change, the old status again until the triggers' rows
 * changed, then the new one.
 */
const AFTER_UNPUBLISH = ['published', 'published', 'in_progress', 'published', 'not_published'];

/** The rule that failed on a busy machine: the first answer that is not in_progress. */
const firstAnswerNotInProgress = (state: { status: string }) => state.status !== 'in_progress';

describe('waitForState', () => {
	it('a deactivation is not over while n8n still reports the old "published" (its outbox not yet read)', async () => {
		const n8n = scripted(AFTER_UNPUBLISH);
		const state = await waitForState(n8n.read, deactivationSettled, {
			timeoutMs: 5000,
			intervalMs: 1,
			describe: () => 'x',
		});
		expect(state.status).toBe('not_published');
		expect(n8n.reads()).toBe(5);
	});

	it('the replay holds the trap: the first-answer rule stops at the old "published", as on the busy machine', async () => {
		const n8n = scripted(AFTER_UNPUBLISH);
		const state = await waitForState(n8n.read, firstAnswerNotInProgress, {
			timeoutMs: 5000,
			intervalMs: 1,
			describe: () => 'x',
		});
		expect([state.status, n8n.reads()]).toEqual(['published', 1]);
	});

	it('an activation is not over while n8n still reports "not_published" or "in_progress"', async () => {
		const n8n = scripted(['not_published', 'in_progress', 'in_progress', 'published']);
		const state = await waitForState(n8n.read, activationSettled, {
			timeoutMs: 5000,
			intervalMs: 1,
			describe: () => 'x',
		});
		expect(state.status).toBe('published');
		expect(n8n.reads()).toBe(4);
	});

	it('a failed activation is an outcome', async () => {
		for (const outcome of ['failed', 'partial']) {
			const n8n = scripted(['in_progress', outcome]);
			expect(
				(
					await waitForState(n8n.read, activationSettled, {
						timeoutMs: 5000,
						intervalMs: 1,
						describe: () => 'x',
					})
				).status,
			).toBe(outcome);
		}
	});

	it('fails with the last state read when the state never comes', async () => {
		const n8n = scripted(['published']);
		await expect(
			waitForState(n8n.read, deactivationSettled, {
				timeoutMs: 30,
				intervalMs: 5,
				describe: (last) => `still ${last?.status}`,
			}),
		).rejects.toThrow('still published');
	});
});
