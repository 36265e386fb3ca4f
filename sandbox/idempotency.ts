/**
 * Idempotency-Key handling (docs/api-contract.md, "Idempotency").
 *
 * Per account and key, the first answer (below 500) is stored for the window and replayed for
 * the same request. While the first request is still running, an identical one waits for it
 * rather than running too, so concurrent duplicates create exactly one record. 5xx answers are
 * forgotten so that a retry really runs again.
 */
import { createHash } from 'crypto';

import { ApiError, type Reply } from './http';

type Entry =
	| { state: 'in_flight'; fingerprint: string; settled: Promise<void> }
	| { state: 'done'; fingerprint: string; reply: Reply; expiresAtMs: number };

export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** Hash of what makes two requests "the same": method, path and the body's JSON value. */
export function requestFingerprint(method: string, path: string, rawBody: Buffer): string {
	const hash = createHash('sha256').update(`${method} ${path}\n`);
	try {
		// Same JSON with other key order or whitespace counts as the same body.
		hash.update(canonicalJson(JSON.parse(rawBody.toString('utf8'))));
	} catch {
		// Not JSON, or nested too deeply to walk: compare the bytes.
		hash.update(rawBody);
	}
	return hash.digest('hex');
}

function canonicalJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.keys(value)
			.sort()
			.map(
				(key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`,
			);
		return `{${entries.join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

export class IdempotencyStore {
	private readonly entries = new Map<string, Entry>();

	constructor(
		private readonly nowMs: () => number,
		private readonly windowMs: number,
	) {}

	async run(
		scope: string,
		key: string,
		fingerprint: string,
		execute: () => Promise<Reply>,
	): Promise<Reply> {
		const mapKey = `${scope}\u0000${key}`;
		for (;;) {
			const entry = this.entries.get(mapKey);
			if (entry?.state === 'done' && entry.expiresAtMs <= this.nowMs()) this.entries.delete(mapKey);
			const current = this.entries.get(mapKey);

			if (!current) return this.execute(mapKey, fingerprint, execute);
			if (current.fingerprint !== fingerprint) {
				throw new ApiError(
					409,
					'idempotency_conflict',
					'This Idempotency-Key was already used with a different request',
					'Idempotency-Key',
				);
			}
			if (current.state === 'in_flight') {
				await current.settled;
				continue; // look again: stored (replay), or forgotten after a 5xx (run it)
			}
			return {
				...structuredClone(current.reply),
				headers: { ...(current.reply.headers ?? {}), [IDEMPOTENT_REPLAYED_HEADER]: 'true' },
			};
		}
	}

	clear(): void {
		this.entries.clear();
	}

	private async execute(
		mapKey: string,
		fingerprint: string,
		execute: () => Promise<Reply>,
	): Promise<Reply> {
		let release!: () => void;
		const settled = new Promise<void>((resolve) => (release = resolve));
		this.entries.set(mapKey, { state: 'in_flight', fingerprint, settled });
		try {
			const reply = await execute();
			if (reply.status < 500) {
				this.prune();
				this.entries.set(mapKey, {
					state: 'done',
					fingerprint,
					reply: structuredClone(reply),
					expiresAtMs: this.nowMs() + this.windowMs,
				});
			} else {
				this.entries.delete(mapKey);
			}
			return reply;
		} catch (error) {
			this.entries.delete(mapKey);
			throw error;
		} finally {
			release();
		}
	}

	/** Drops expired answers now and then, so memory follows the window, not the uptime. */
	private prune(): void {
		if (this.entries.size % 256 !== 0) return;
		const now = this.nowMs();
		for (const [key, entry] of this.entries) {
			if (entry.state === 'done' && entry.expiresAtMs <= now) this.entries.delete(key);
		}
	}
}
