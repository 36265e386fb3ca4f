/**
 * The transport's waits (a retry's backoff, a 429's pause, the spacing after one) all go through
 * n8n-workflow's `sleep` (requestGate's cancellableSleep) and read the time from `Date.now`. A suite
 * that must not spend the retry policy's real seconds puts this line at its top:
 *
 *   jest.mock('n8n-workflow', () =>
 *     jest.requireActual('../helpers/instantWaits').n8nWorkflowWithInstantWaits(),
 *   );
 *
 * and turns the waits instant where it needs them (`useInstantWaits()` for a file or a describe,
 * `withInstantWaits(run)` for one step; `withRealWaits(run)` for a test that races a real wait
 * inside them). An instant wait moves `Date.now` on by its length and only yields to the event
 * loop, so the policy runs as shipped (its attempts, backoffs, 429 waits and
 * bounds, all measured with Date.now) while the suite spends none of those seconds. Timers keep
 * real time (setTimeout, AbortSignal.timeout: an attempt's time limit), and so does `new Date()`.
 * n8n's own engine sleeps with @n8n/utils, not through n8n-workflow: its waits are untouched.
 */
import type * as N8nWorkflow from 'n8n-workflow';

let instant = 0;
let real = 0;
let skippedMs = 0;
let clockInstalled = false;

/** Date.now, ahead of the wall clock by the time the instant waits skipped. */
function installClock(): void {
	if (clockInstalled) return;
	clockInstalled = true;
	const wallClock = Date.now.bind(Date);
	Date.now = () => wallClock() + skippedMs;
}

/** n8n-workflow with its `sleep` instant while instant waits are on (the factory for jest.mock). */
export function n8nWorkflowWithInstantWaits(): typeof N8nWorkflow {
	const actual = jest.requireActual<typeof N8nWorkflow>('n8n-workflow');
	installClock();
	const sleep = async (ms: number) => {
		if (instant === 0 || real > 0) return await actual.sleep(ms);
		if (ms > 0) skippedMs += ms;
		await new Promise<void>((resolve) => setImmediate(resolve));
	};
	return Object.assign({ __esModule: true }, actual, { sleep });
}

function assertMocked(): void {
	if (!clockInstalled)
		throw new Error(
			"instantWaits: the suite must jest.mock('n8n-workflow') with n8nWorkflowWithInstantWaits()",
		);
}

/** Instant waits while `run` runs. */
export async function withInstantWaits<T>(run: () => Promise<T>): Promise<T> {
	assertMocked();
	instant++;
	try {
		return await run();
	} finally {
		instant--;
	}
}

/** Real waits while `run` runs, even where instant waits are on. */
export async function withRealWaits<T>(run: () => Promise<T>): Promise<T> {
	assertMocked();
	real++;
	try {
		return await run();
	} finally {
		real--;
	}
}

/** Instant waits for the enclosing file or describe block. */
export function useInstantWaits(): void {
	beforeAll(() => {
		assertMocked();
		instant++;
	});
	afterAll(() => {
		instant--;
	});
}
