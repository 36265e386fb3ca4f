import type { IN8nHttpFullResponse, INode } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { HttpStatusError, networkCode, ServiceBehaviourError, toNodeError } from './errors';
import { headerValue } from './text';
import { cancellableSleep, GateDeadlineError, RequestGate } from './requestGate';

export const TIME_LIMITS = {
	/** One attempt of a request (connecting, sending, the whole response): then it is abandoned as timed out. */
	attemptMs: 120_000,
	/** One list search in the editor, retries and 429 waits included (n8n gives it no cancel signal). */
	listSearchMs: 30_000,
};

/** Nothing is sent twice unless the service can recognise the repeat (a read, a DELETE, an Idempotency-Key). */
const RETRY_POLICY = {
	/** Attempts for 5xx answers and dropped connections (the first try included). */
	maxAttempts: 7,
	baseDelayMs: 250,
	maxDelayMs: 8_000,
	/** A 429 asking to wait longer than this fails the request at once. */
	maxRetryAfterMs: 120_000,
	/** Upper bound on one request's whole life: every 429 wait, backoff and attempt included. */
	maxTotalWaitMs: 300_000,
	/** Requests in flight at once per credential (one key at one service), across items and executions. */
	concurrency: 8,
};

const RETRYABLE_STATUS: readonly unknown[] = [500, 502, 503, 504];
/** Failures after which the request may have reached the service and been carried out. */
const MAYBE_DONE: readonly unknown[] = [
	'ECONNRESET',
	'EPIPE',
	'ETIMEDOUT',
	'ECONNABORTED',
	'ESOCKETTIMEDOUT',
];
const RETRYABLE_NETWORK: readonly unknown[] = [...MAYBE_DONE, 'EAI_AGAIN', 'ECONNREFUSED'];
/** Refused connections are retried only briefly: usually the address is simply wrong. */
const MAX_REFUSED_ATTEMPTS = 2;

/** One gate per credential, shared by items and executions; past MAX_GATES the oldest idle goes. */
const gates = new Map<string, RequestGate>();
const MAX_GATES = 1_000;

/** The gate of one credential; rate limits are per key, so one key's 429 never holds up another's. */
function gateFor(credentialKey: string): RequestGate {
	const gate = gates.get(credentialKey) ?? new RequestGate(RETRY_POLICY.concurrency);
	gates.delete(credentialKey);
	gates.set(credentialKey, gate);
	if (gates.size > MAX_GATES)
		for (const [key, other] of gates)
			if (other.idle) {
				gates.delete(key);
				break;
			}
	return gate;
}

/**
 * A 429's wait and the spacing of starts after it: `X-RateLimit-Reset-After` (fractional seconds)
 * wins; `Retry-After` (seconds or an HTTP date) says nothing of the rate; else one second.
 */
function rateLimitOf(response: IN8nHttpFullResponse): { waitMs: number; paceMs: number } {
	const precise = Number(headerValue(response.headers, 'x-ratelimit-reset-after'));
	if (Number.isFinite(precise) && precise >= 0 && precise <= RETRY_POLICY.maxRetryAfterMs / 1000)
		return { waitMs: Math.max(precise * 1000, 1), paceMs: precise < 1 ? precise * 1000 : 0 };
	const retryAfter = headerValue(response.headers, 'retry-after');
	const seconds = Number(retryAfter);
	const date = Date.parse(retryAfter ?? '');
	let waitMs = 1000;
	if (retryAfter && Number.isFinite(seconds))
		waitMs = seconds >= 0 ? Math.max(seconds * 1000, 1) : 1000;
	else if (Number.isFinite(date)) waitMs = Math.max(date - Date.now(), 100);
	return { waitMs, paceMs: 0 };
}

function backoffMs(failures: number): number {
	const ceiling = Math.min(RETRY_POLICY.maxDelayMs, RETRY_POLICY.baseDelayMs * 2 ** (failures - 1));
	// Full jitter keeps retries of many items from arriving together.
	return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

interface AttemptSettings {
	node: INode;
	/** credentialKey() */
	gateKey: string;
	/** Whether a repeat is safe: a read, a DELETE, or a POST the service deduplicates. */
	idempotent: boolean;
	itemIndex?: number;
	abortSignal?: AbortSignal;
	/** The whole request's bound, when shorter than RETRY_POLICY.maxTotalWaitMs (list searches). */
	maxTotalWaitMs?: number;
}

export interface Attempt {
	/** Aborts on cancel or when the attempt's time is up. */
	signal: AbortSignal;
	/** A repeat after a failure that may hide a request carried out. */
	retriedAfterLostResponse: boolean;
}

/** Runs `send` under the credential's gate, retrying what can be retried without a duplicate. */
export async function sendWithRetries<T>(
	settings: AttemptSettings,
	send: (attempt: Attempt) => Promise<T>,
): Promise<T> {
	const { node, itemIndex, abortSignal: signal } = settings;
	const gate = gateFor(settings.gateKey);
	const budgetMs = Math.min(RETRY_POLICY.maxTotalWaitMs, settings.maxTotalWaitMs ?? Infinity);
	const deadline = Date.now() + budgetMs;
	const fail = (error: unknown, why?: string) => {
		const nodeError = toNodeError(node, error, itemIndex);
		if (why && nodeError instanceof NodeApiError)
			nodeError.description = [nodeError.description, why].filter(Boolean).join(' ');
		return nodeError;
	};
	let failures = 0;
	let refused = 0;
	let lastError: unknown;
	let retriedAfterLostResponse = false;
	for (;;) {
		let startedAt: number;
		try {
			startedAt = await gate.acquire({ signal, deadline });
		} catch (error) {
			if (!(error instanceof GateDeadlineError)) throw fail(error);
			if (lastError)
				throw fail(
					lastError,
					`Gave up: the service asked to wait beyond this request's limit of ${budgetMs / 1000} s in all.`,
				);
			throw fail(
				new ServiceBehaviourError(
					`No request slot for this credential came free within ${budgetMs / 1000} s`,
					`At most ${RETRY_POLICY.concurrency} requests per API key run at once, and they all stayed busy (the service may be hanging). Nothing was sent for this one; try again later.`,
				),
			);
		}
		const limit = AbortSignal.timeout(
			Math.max(1, Math.min(TIME_LIMITS.attemptMs, deadline - Date.now())),
		);
		let error: unknown;
		try {
			const attemptSignal = signal ? AbortSignal.any([signal, limit]) : limit;
			const result = await send({ signal: attemptSignal, retriedAfterLostResponse });
			gate.admitted();
			return result;
		} catch (thrown) {
			// A hanging service, told apart from a cancel.
			error = limit.aborted && !signal?.aborted ? timedOut() : thrown;
		} finally {
			gate.release();
		}
		lastError = error;
		const status = error instanceof HttpStatusError ? error.response.statusCode : undefined;
		if (status !== undefined && status !== 429) gate.admitted();
		if (signal?.aborted) throw fail(error);

		if (status === 429) {
			const { waitMs, paceMs } = rateLimitOf((error as HttpStatusError).response);
			if (waitMs > RETRY_POLICY.maxRetryAfterMs)
				throw fail(
					error,
					`The service asked to wait ${Math.round(waitMs / 1000)} s, more than the ${RETRY_POLICY.maxRetryAfterMs / 1000} s this node waits.`,
				);
			gate.rateLimited(waitMs, paceMs, startedAt);
			continue;
		}

		const code = networkCode(error);
		const transient = RETRYABLE_STATUS.includes(status) || RETRYABLE_NETWORK.includes(code);
		// A refused connection never reached the service, so even a plain POST is safe to repeat.
		const refusedConnection = code === 'ECONNREFUSED';
		if (refusedConnection && ++refused >= MAX_REFUSED_ATTEMPTS) throw fail(error);
		if (!(transient && (settings.idempotent || refusedConnection))) throw fail(error);
		if (++failures >= RETRY_POLICY.maxAttempts) throw fail(error);
		const delay = backoffMs(failures);
		if (Date.now() + delay > deadline)
			throw fail(error, `Gave up after ${budgetMs / 1000} s of retries.`);
		if (code && MAYBE_DONE.includes(code)) retriedAfterLostResponse = true;
		try {
			await cancellableSleep(delay, signal);
		} catch (sleepError) {
			throw fail(sleepError);
		}
	}
}

/** An attempt given up at its own time limit: reported as the network's ETIMEDOUT. */
export const timedOut = () => Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' });
