import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { EVENT_POLL_BUDGET } from '../shared/vocabulary';
import { isoOf, timeMs, type AuditEvent } from './auditEntries';

/**
 * Where polling has reached (docs/trigger.md, "Exactly once, in order"), as saved in the node's
 * static data. Every entry older than `time` was passed on, and at `time` the first `count` of
 * that instant in the order polls pass them (`digest`, of their ids, checks which).
 */
export interface PollCursor extends IDataObject {
	/** ISO UTC, never past the present (the ceiling). */
	time: string;
	/** Not the ids themselves: what n8n saves with each emit is the same size however many. */
	count?: number;
	digest?: string;
	/** A newest-first backlog's parts still to read, by their upper bounds (ISO UTC), oldest first. */
	bounds?: string[];
	/** The service was seen listing the audit log oldest first (the contract's order is newest first). */
	oldestFirst?: boolean;
	/** Entries dated past the present that were passed on (`id@ms`), kept until the cursor passes them. */
	ahead?: string[];
}

/** Ids remembered at one instant; more entries than this at one instant is the documented error. */
export const MAX_IDS_AT_ONE_INSTANT = EVENT_POLL_BUDGET.records;
/** Entries dated past the present remembered at once; later ones wait until the present reaches them. */
export const MAX_AHEAD = 1_000;

/** What passing an entry did: moved the cursor, remembered it as dated ahead, or could not. */
type Passed = 'passed' | 'ahead' | 'crowded' | 'too far ahead';

const aheadMs = (key: string) => Number(key.slice(key.lastIndexOf('@') + 1));
/** A set's digest is the XOR of its ids' hashes: the same in any order, one step per id. */
const idHash = (id: string) =>
	BigInt(`0x${createHash('sha256').update(id).digest('hex').slice(0, 16)}`);

/** The cursor while a poll passes entries on: each step costs the same, whatever came before. */
export class CursorPosition {
	timeMs: number;
	time: string;
	private ids = new Set<string>();
	private digest = 0n;
	/** A saved count at the instant, until the entries read there tell which ones it counted. */
	private unsettled?: PollCursor;
	private readonly ahead: Set<string>;
	bounds: string[];
	oldestFirst: boolean;

	constructor(cursor: PollCursor) {
		this.timeMs = timeMs(cursor.time) as number;
		this.time = isoOf(this.timeMs);
		this.unsettled = cursor.count ? cursor : undefined;
		this.ahead = new Set(cursor.ahead ?? []);
		this.bounds = [...(cursor.bounds ?? [])];
		this.oldestFirst = cursor.oldestFirst === true;
	}

	/** Whether the entry was passed on already (or is older than where polling started). */
	passed(event: AuditEvent): boolean {
		return (
			event.ms < this.timeMs ||
			(event.ms === this.timeMs && this.ids.has(event.id)) ||
			this.ahead.has(event.key)
		);
	}

	/**
	 * The saved count is the first entries at the instant in `events`' order, the order they passed
	 * in. If the digest differs (the service reordered them), they come again: n8n 2.x deduplicates.
	 */
	settle(events: AuditEvent[]): void {
		const { count = 0, digest } = this.unsettled ?? {};
		const first = new Set<string>();
		for (const event of events)
			if (event.ms === this.timeMs && !this.ahead.has(event.key) && first.size < count)
				first.add(event.id);
		// A read that has not reached the instant yet (a backlog's newer part) keeps the count.
		if (first.size === 0) return;
		this.unsettled = undefined;
		const sum = [...first].reduce((xor, id) => xor ^ idHash(id), 0n);
		if (first.size === count && sum.toString(16) === digest) [this.ids, this.digest] = [first, sum];
	}

	/** Passes the entry: an entry dated after `ceilingMs` is remembered, never the cursor's time. */
	pass(event: AuditEvent, ceilingMs: number): Passed {
		if (event.ms > ceilingMs) {
			if (this.ahead.size >= MAX_AHEAD) return 'too far ahead';
			this.ahead.add(event.key);
			return 'ahead';
		}
		if (event.ms < this.timeMs) return 'passed';
		if (event.ms > this.timeMs) this.moveTo(event.ms);
		else if (this.ids.size >= MAX_IDS_AT_ONE_INSTANT) return 'crowded';
		this.ids.add(event.id);
		this.digest ^= idHash(event.id);
		return 'passed';
	}

	/** Past every entry at the cursor's instant (the documented error for a crowded instant). */
	skipInstant(): void {
		this.moveTo(this.timeMs + 1);
	}

	/** Every entry up to `ms` was read and passed on: the cursor may stand there. */
	reach(ms: number | undefined, ceilingMs: number): void {
		if (ms !== undefined && ms > this.timeMs) this.moveTo(Math.min(ms, ceilingMs));
	}

	private moveTo(ms: number) {
		this.timeMs = ms;
		this.time = isoOf(ms);
		this.ids = new Set();
		this.digest = 0n;
		this.unsettled = undefined;
		for (const key of this.ahead) if (aheadMs(key) < ms) this.ahead.delete(key);
	}

	/** The cursor as saved: constant in size but for the bounds and ahead keys (each bounded). */
	saved(): PollCursor {
		const { count, digest } = this.unsettled ?? {
			count: this.ids.size,
			digest: this.digest.toString(16),
		};
		const cursor: PollCursor = { time: this.time, count, digest };
		if (this.bounds.length > 0) cursor.bounds = [...this.bounds];
		if (this.oldestFirst) cursor.oldestFirst = true;
		if (this.ahead.size > 0) cursor.ahead = [...this.ahead];
		return cursor;
	}
}

/** The saved cursor, or undefined; times in any form read as ISO UTC. */
export function readCursor(data: IDataObject): PollCursor | undefined {
	const saved = data.pollCursor as IDataObject | undefined;
	const ms = timeMs(saved?.time);
	if (!saved || typeof saved.time !== 'string' || ms === undefined) return undefined;
	const texts = (value: unknown) =>
		Array.isArray(value) ? value.map(String).slice(0, MAX_IDS_AT_ONE_INSTANT) : [];
	const count = Math.min(Number(saved.count) || 0, MAX_IDS_AT_ONE_INSTANT);
	const cursor: PollCursor = { time: isoOf(ms), count, digest: String(saved.digest).slice(0, 16) };
	const kept = texts(saved.bounds).filter((bound) => timeMs(bound) !== undefined);
	if (kept.length > 0) cursor.bounds = kept.map((bound) => isoOf(timeMs(bound) as number));
	if (saved.oldestFirst === true) cursor.oldestFirst = true;
	if (Array.isArray(saved.ahead)) cursor.ahead = texts(saved.ahead).slice(0, MAX_AHEAD);
	return cursor;
}
