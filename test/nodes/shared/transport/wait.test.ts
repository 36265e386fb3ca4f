/** nodes/shared/transport/wait.ts: waits that a cancelled execution ends at once. */
import {
	CancelledError,
	cancellableSleep,
	throwIfCancelled,
} from '../../../../nodes/shared/transport/wait';

describe('cancellableSleep', () => {
	it('resolves after a short wait when nothing cancels it', async () => {
		await expect(cancellableSleep(5)).resolves.toBeUndefined();
	});

	it('a cancelled execution stops a long wait (an hour) instead of holding it', async () => {
		const controller = new AbortController();
		const waiting = cancellableSleep(60 * 60 * 1000, controller.signal);
		controller.abort();
		await expect(waiting).rejects.toBeInstanceOf(CancelledError);
	});

	it('does not start waiting for an execution already cancelled', async () => {
		const controller = new AbortController();
		controller.abort();
		await expect(cancellableSleep(60 * 60 * 1000, controller.signal)).rejects.toThrow(
			'The execution was cancelled',
		);
	});
});

describe('throwIfCancelled', () => {
	it('throws only for an aborted signal', () => {
		expect(() => throwIfCancelled(undefined)).not.toThrow();
		expect(() => throwIfCancelled(new AbortController().signal)).not.toThrow();
		const controller = new AbortController();
		controller.abort();
		expect(() => throwIfCancelled(controller.signal)).toThrow(CancelledError);
	});
});
