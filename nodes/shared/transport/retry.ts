import type { IN8nHttpFullResponse, INode } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { TIME_LIMITS } from './bounds';
import {
	describeFailure,
	type Failure,
	failureToNodeError,
	ServiceBehaviourError,
	toNodeError,
} from './errors';
import { headerValue } from './headers';
import { GateDeadlineError, RequestGate } from './requestGate';
import { CancelledError, cancellableSleep } from './wait';

/**
 * The retry policy: what is retried, how long it waits, and the per-credential gate every attempt
 * passes. Nothing is sent twice unless the service can recognise the repeat (a read, a DELETE, or a
 * POST with an Idempotency-Key), and no request waits longer than `maxTotalWaitMs` in all.
 */

export const RETRY_POLICY = {
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

const RETRYABLE_STATUS = new Set([500, 502, 503, 504]);
const RETRYABLE_NETWORK_CODES = new Set([
	'ECONNRESET',
	'EPIPE',
	'ETIMEDOUT',
	'ECONNABORTED',
	'EAI_AGAIN',
	'ESOCKETTIMEDOUT',
	'ECONNREFUSED',
]);
/** Failures after which the request may have reached the service and been carried out. */
const MAYBE_DONE_NETWORK_CODES = new Set([
	'ECONNRESET',
	'EPIPE',
	'ETIMEDOUT',
	'ECONNABORTED',
	'ESOCKETTIMEDOUT',
]);
/** Refused connections are retried only briefly: usually the address is simply wrong. */
const MAX_REFUSED_ATTEMPTS = 2;

/**
 * The request gates of the credentials this process uses: the package's one in-process store
 * besides nodeMemory.ts. n8n offers nothing shared by the items and executions of a credential,
 * and a 429 holds them all. Beyond MAX_GATES the least recently used idle gates are forgotten.
 */
const gates = new Map<string, RequestGate>();
const MAX_GATES = 1_000;

/** The gate of one credential; rate limits are per key, so one key's 429 never holds up another's. */
export function gateFor(credentialKey: string): RequestGate {
	let gate = gates.get(credentialKey);
	if (gate) gates.delete(credentialKey);
	else gate = new RequestGate(RETRY_POLICY.concurrency);
	gates.set(credentialKey, gate);
	if (gates.size > MAX_GATES)
		for (const [key, other] of gates)
			if (other.idle) {
				gates.delete(key);
				break;
			}
	return gate;
}

/** Retry-After in seconds or as an HTTP date; one second when absent, unreadable or negative. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number {
	if (value) {
		const seconds = Number(value);
		if (Number.isFinite(seconds)) return seconds >= 0 ? Math.max(seconds * 1000, 1) : 1000;
		const date = Date.parse(value);
		if (Number.isFinite(date)) return Math.max(date - now, 100);
	}
	return 1000;
}

/**
 * How long a 429 asks to wait: `X-RateLimit-Reset-After` (fractional seconds, see the contract)
 * when given, since `Retry-After` rounds up to whole seconds; otherwise `Retry-After`.
 */
export function rateLimitWaitMs(response: IN8nHttpFullResponse): number {
	const precise = Number(headerValue(response.headers, 'x-ratelimit-reset-after'));
	if (Number.isFinite(precise) && precise >= 0 && precise <= RETRY_POLICY.maxRetryAfterMs / 1000)
		return Math.max(precise * 1000, 1);
	return retryAfterMs(headerValue(response.headers, 'retry-after'));
}

/**
 * How far apart requests start after a 429: the service's own time to the next allowed request,
 * when it says so precisely (`X-RateLimit-Reset-After`) and it is under a second; otherwise 0,
 * since a whole-second Retry-After says nothing about the rate.
 */
export function rateLimitPaceMs(response: IN8nHttpFullResponse): number {
	const precise = Number(headerValue(response.headers, 'x-ratelimit-reset-after'));
	return Number.isFinite(precise) && precise > 0 && precise < 1 ? precise * 1000 : 0;
}

export function backoffMs(failures: number): number {
	const ceiling = Math.min(RETRY_POLICY.maxDelayMs, RETRY_POLICY.baseDelayMs * 2 ** (failures - 1));
	// Full jitter keeps retries of many items from arriving together.
	return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

export interface AttemptSettings {
	node: INode;
	/** The credential's gate key (credentialKey). */
	gateKey: string;
	/** Whether a repeat is safe: a read, a DELETE, or a POST the service deduplicates. */
	idempotent: boolean;
	itemIndex?: number;
	abortSignal?: AbortSignal;
	/** Set when an attempt is repeated after a failure that may hide a request the service carried out. */
	observed?: { retriedAfterLostResponse: boolean };
	/** The whole request's bound, when shorter than RETRY_POLICY.maxTotalWaitMs (list searches). */
	maxTotalWaitMs?: number;
}

/** What one attempt gets: a signal that aborts on cancel or when the attempt's time is up. */
export interface Attempt {
	signal: AbortSignal;
}

/** The signal of one attempt: the execution's cancel, or the attempt's own time limit (never past the request's deadline). */
function attemptSignal(
	cancel: AbortSignal | undefined,
	deadline: number,
): { signal: AbortSignal; timedOut: () => boolean } {
	const limit = AbortSignal.timeout(
		Math.max(1, Math.min(TIME_LIMITS.attemptMs, deadline - Date.now())),
	);
	return {
		signal: cancel ? AbortSignal.any([cancel, limit]) : limit,
		timedOut: () => limit.aborted && !cancel?.aborted,
	};
}

function withDescription(error: ReturnType<typeof toNodeError>, extra: string) {
	if (error instanceof NodeApiError)
		error.description = [error.description, extra].filter(Boolean).join(' ');
	return error;
}

/** Runs `send` under the credential's gate, retrying what can be retried without a duplicate. */
export async function sendWithRetries<T>(
	settings: AttemptSettings,
	send: (attempt: Attempt) => Promise<T>,
): Promise<T> {
	const { node, itemIndex, abortSignal: signal } = settings;
	const gate = gateFor(settings.gateKey);
	const budgetMs = Math.min(
		RETRY_POLICY.maxTotalWaitMs,
		settings.maxTotalWaitMs ?? Number.POSITIVE_INFINITY,
	);
	const deadline = Date.now() + budgetMs;
	const giveUp = (failure: Failure, why?: string) => {
		const error = failureToNodeError(node, failure, itemIndex);
		return why ? withDescription(error, why) : error;
	};
	let failures = 0;
	let refused = 0;
	let lastFailure: Failure | undefined;
	for (;;) {
		let startedAt: number;
		try {
			startedAt = await gate.acquire({ signal, deadline });
		} catch (error) {
			if (error instanceof GateDeadlineError && lastFailure) {
				throw giveUp(
					lastFailure,
					`Gave up: the service asked to wait beyond this request's limit of ${budgetMs / 1000} s in all.`,
				);
			}
			if (error instanceof GateDeadlineError) {
				throw toNodeError(
					node,
					new ServiceBehaviourError(
						`No request slot for this credential came free within ${budgetMs / 1000} s`,
						`At most ${RETRY_POLICY.concurrency} requests per API key run at once, and they all stayed busy (the service may be hanging). Nothing was sent for this one; try again later.`,
					),
					itemIndex,
				);
			}
			throw cancelledOr(node, error, itemIndex);
		}
		let failure: Failure;
		const attempt = attemptSignal(signal, deadline);
		try {
			const result = await send({ signal: attempt.signal });
			gate.admitted();
			return result;
		} catch (error) {
			// The attempt's own time limit: a hanging service, told apart from a cancel.
			failure = attempt.timedOut()
				? { kind: 'network', code: 'ETIMEDOUT' }
				: describeFailure(error);
			if (failure.kind === 'status' && failure.response.statusCode !== 429) gate.admitted();
		} finally {
			gate.release();
		}
		lastFailure = failure;
		if (signal?.aborted) throw giveUp(failure);

		if (failure.kind === 'status' && failure.response.statusCode === 429) {
			const wait = rateLimitWaitMs(failure.response);
			if (wait > RETRY_POLICY.maxRetryAfterMs) {
				throw giveUp(
					failure,
					`The service asked to wait ${Math.round(wait / 1000)} s, more than the ${RETRY_POLICY.maxRetryAfterMs / 1000} s this node waits.`,
				);
			}
			gate.rateLimited(wait, rateLimitPaceMs(failure.response), startedAt);
			continue;
		}

		const refusedConnection = failure.kind === 'network' && failure.code === 'ECONNREFUSED';
		const transient =
			(failure.kind === 'status' && RETRYABLE_STATUS.has(failure.response.statusCode)) ||
			(failure.kind === 'network' && RETRYABLE_NETWORK_CODES.has(failure.code));
		// A refused connection never reached the service, so even a plain POST is safe to repeat.
		const safe = settings.idempotent || refusedConnection;
		if (refusedConnection && ++refused >= MAX_REFUSED_ATTEMPTS) throw giveUp(failure);
		if (!(transient && safe) || ++failures >= RETRY_POLICY.maxAttempts) throw giveUp(failure);
		const delay = backoffMs(failures);
		if (Date.now() + delay > deadline) {
			throw giveUp(failure, `Gave up after ${budgetMs / 1000} s of retries.`);
		}
		if (
			failure.kind === 'network' &&
			MAYBE_DONE_NETWORK_CODES.has(failure.code) &&
			settings.observed
		) {
			settings.observed.retriedAfterLostResponse = true;
		}
		try {
			await cancellableSleep(delay, signal);
		} catch (error) {
			throw cancelledOr(node, error, itemIndex);
		}
	}
}

function cancelledOr(node: INode, error: unknown, itemIndex?: number) {
	if (error instanceof CancelledError)
		return toNodeError(
			node,
			new Error('The execution was cancelled while waiting to retry'),
			itemIndex,
		);
	return toNodeError(node, error, itemIndex);
}
