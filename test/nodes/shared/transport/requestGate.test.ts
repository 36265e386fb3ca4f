import { cancellableSleep, RequestGate } from '../../../../nodes/shared/transport/requestGate';

/** Starts `count` requests through the gate; each records when it got its place and keeps it. */
function queue(gate: RequestGate, count: number): number[] {
	const starts: number[] = [];
	for (let i = 0; i < count; i++)
		void gate.acquire().then((startedAt) => starts.push(startedAt - 1_000_000));
	return starts;
}

/** Lets `count` requests through the gate one after the other, each answered at once. */
async function admitted(gate: RequestGate, count: number): Promise<void> {
	for (let i = 0; i < count; i++) {
		const acquired = gate.acquire();
		await jest.runAllTimersAsync();
		await acquired;
		gate.admitted();
		gate.release();
	}
}

describe('request gate', () => {
	// The clock is jest's: start times are exact, so spacing can be asserted without timing noise.
	beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
	afterEach(() => jest.useRealTimers());

	test('as many requests run at once as the concurrency allows; the next starts when one ends', async () => {
		const gate = new RequestGate(3);
		const starts = queue(gate, 4);
		await jest.advanceTimersByTimeAsync(0);
		expect(starts).toEqual([0, 0, 0]);

		await jest.advanceTimersByTimeAsync(50);
		gate.release();
		await jest.advanceTimersByTimeAsync(0);
		expect(starts).toEqual([0, 0, 0, 50]);
	});

	test("after a 429 nobody starts until its wait is over, then one at a time, spaced by the service's time to its next request", async () => {
		const gate = new RequestGate(8);
		gate.rateLimited(100, 20, Date.now());
		const starts = queue(gate, 5);
		await jest.advanceTimersByTimeAsync(99);
		expect(starts).toEqual([]);

		await jest.advanceTimersByTimeAsync(200);
		expect(starts).toEqual([100, 120, 140, 160, 180]);
	});

	test('a whole-second Retry-After (no time to the next request) holds everyone back, then lets them all start', async () => {
		const gate = new RequestGate(8);
		gate.rateLimited(1000, 0, Date.now());
		const starts = queue(gate, 5);
		await jest.advanceTimersByTimeAsync(1000);
		expect(starts).toEqual([1000, 1000, 1000, 1000, 1000]);
		expect(gate.spacingMs).toBe(0);
	});

	test('a spaced request that is still refused lengthens the spacing; requests that were in flight before do not', async () => {
		const gate = new RequestGate(8);
		const inFlightBefore = Date.now();
		await jest.advanceTimersByTimeAsync(5);
		gate.rateLimited(0, 20, Date.now());
		expect(gate.spacingMs).toBe(20);

		// Refused too, but it started before the spacing: no news.
		gate.rateLimited(0, 10, inFlightBefore);
		expect(gate.spacingMs).toBe(20);

		await jest.advanceTimersByTimeAsync(5);
		const spacedStart = await gate.acquire();
		gate.release();
		gate.rateLimited(0, 10, spacedStart);
		expect(gate.spacingMs).toBe(30);

		// The service's own time wins when it is longer.
		await jest.advanceTimersByTimeAsync(50);
		gate.rateLimited(0, 400, Date.now());
		expect(gate.spacingMs).toBe(400);
	});

	test("the spacing never exceeds a second (429s' own waits take over from there)", async () => {
		const gate = new RequestGate(8);
		gate.rateLimited(0, 900, Date.now());
		for (let i = 0; i < 5; i++) {
			await jest.advanceTimersByTimeAsync(1000);
			gate.rateLimited(0, 900, Date.now());
		}
		expect(gate.spacingMs).toBe(1000);
	});

	test('every request the service lets through shortens the spacing, until it is gone', async () => {
		const gate = new RequestGate(8);
		gate.rateLimited(0, 20, Date.now());
		await admitted(gate, 1);
		expect(gate.spacingMs).toBeCloseTo(19, 5);

		await admitted(gate, 100);
		expect(gate.spacingMs).toBe(0);

		// Without spacing, requests start together again.
		const starts = queue(gate, 3);
		await jest.advanceTimersByTimeAsync(0);
		expect(new Set(starts).size).toBe(1);
	});
});

describe('cancellableSleep', () => {
	it('resolves after a short wait when nothing cancels it', async () => {
		await expect(cancellableSleep(5)).resolves.toBeUndefined();
	});

	it('a cancelled execution stops a long wait (an hour) instead of holding it', async () => {
		const controller = new AbortController();
		const waiting = cancellableSleep(60 * 60 * 1000, controller.signal);
		controller.abort();
		await expect(waiting).rejects.toThrow('The execution was cancelled while waiting to retry');
	});

	it('does not start waiting for an execution already cancelled', async () => {
		const controller = new AbortController();
		controller.abort();
		await expect(cancellableSleep(60 * 60 * 1000, controller.signal)).rejects.toThrow(
			'The execution was cancelled',
		);
	});
});

test('a cancelled execution gets no place, even with every place free', async () => {
	const controller = new AbortController();
	controller.abort();
	await expect(new RequestGate(8).acquire({ signal: controller.signal })).rejects.toThrow(
		'The execution was cancelled while waiting to retry',
	);
});
