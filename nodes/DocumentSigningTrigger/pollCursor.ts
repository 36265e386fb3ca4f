import type { IDataObject } from 'n8n-workflow';

import { EVENT_POLL_BUDGET } from '../shared/vocabulary';
import { isoOf, timeMs, type AuditEvent } from './auditEntries';

/**
 * Where polling has reached (docs/trigger.md, "Exactly once, in order"), as saved in the node's
 * static data. Every entry older than `time` was passed on, and at `time` the ones in `ids`.
 */
export interface PollCursor extends IDataObject {
	/** ISO UTC, never past the present (the ceiling). */
	time: string;
	ids: string[];
	/** A newest-first backlog's parts still to read, by their upper bounds (ISO UTC), oldest first. */
	bounds?: string[];
	/** The service was seen listing the audit log oldest first (the contract's order is newest first). */
	oldestFirst?: boolean;
	/** Entries dated past the present that were passed on (`id@ms`), kept until the cursor passes them. */
	ahead?: string[];
}

/** Ids remembered at one instant; more entries than this at one instant is the documented error. */
export const MAX_IDS_AT_ONE_INSTANT = EVENT_POLL_BUDGET.records;
/** Entries dated past the present remembered at once; later ones are not passed on (and logged). */
export const MAX_AHEAD = 1_000;

/** What passing an entry did: moved the cursor, remembered it as dated ahead, or could not. */
type Passed = 'passed' | 'ahead' | 'crowded' | 'too far ahead';

const aheadMs = (key: string) => Number(key.slice(key.lastIndexOf('@') + 1));

/** The cursor while a poll passes entries on: each step costs the same, whatever came before. */
export class CursorPosition {
	private ms: number;
	private iso: string;
	private ids: Set<string>;
	private readonly ahead: Set<string>;
	bounds: string[];
	oldestFirst: boolean;

	constructor(cursor: PollCursor) {
		this.ms = timeMs(cursor.time) as number;
		this.iso = isoOf(this.ms);
		this.ids = new Set(cursor.ids);
		this.ahead = new Set(cursor.ahead ?? []);
		this.bounds = [...(cursor.bounds ?? [])];
		this.oldestFirst = cursor.oldestFirst === true;
	}

	get time(): string {
		return this.iso;
	}

	get timeMs(): number {
		return this.ms;
	}

	/** Whether the entry was passed on already (or is older than where polling started). */
	passed(event: AuditEvent): boolean {
		return (
			event.ms < this.ms ||
			(event.ms === this.ms && this.ids.has(event.id)) ||
			this.ahead.has(event.key)
		);
	}

	/** Passes the entry: an entry dated after `ceilingMs` is remembered, never the cursor's time. */
	pass(event: AuditEvent, ceilingMs: number): Passed {
		if (event.ms > ceilingMs) {
			if (this.ahead.size >= MAX_AHEAD) return 'too far ahead';
			this.ahead.add(event.key);
			return 'ahead';
		}
		if (event.ms < this.ms) return 'passed';
		if (event.ms > this.ms) this.moveTo(event.ms);
		else if (this.ids.size >= MAX_IDS_AT_ONE_INSTANT) return 'crowded';
		this.ids.add(event.id);
		return 'passed';
	}

	/** Past every entry at the cursor's instant (the documented error for a crowded instant). */
	skipInstant(): void {
		this.moveTo(this.ms + 1);
	}

	/** Every entry up to `ms` was read and passed on: the cursor may stand there. */
	reach(ms: number | undefined, ceilingMs: number): void {
		if (ms !== undefined && ms > this.ms) this.moveTo(Math.min(ms, ceilingMs));
	}

	private moveTo(ms: number) {
		this.ms = ms;
		this.iso = isoOf(ms);
		this.ids = new Set();
		for (const key of this.ahead) if (aheadMs(key) < ms) this.ahead.delete(key);
	}

	/** The cursor as saved (bounded: at most MAX_IDS_AT_ONE_INSTANT ids and MAX_AHEAD keys). */
	saved(): PollCursor {
		const cursor: PollCursor = { time: this.time, ids: [...this.ids] };
		if (this.bounds.length > 0) cursor.bounds = [...this.bounds];
		if (this.oldestFirst) cursor.oldestFirst = true;
		if (this.ahead.size > 0) cursor.ahead = [...this.ahead];
		return cursor;
	}
}

/** The saved cursor, or undefined; older saved forms (`before`, raw times) read as today's. */
export function readCursor(data: IDataObject): PollCursor | undefined {
	const saved = data.pollCursor as IDataObject | undefined;
	const ms = timeMs(saved?.time);
	if (!saved || typeof saved.time !== 'string' || ms === undefined) return undefined;
	const texts = (value: unknown) =>
		Array.isArray(value) ? value.map(String).slice(0, MAX_IDS_AT_ONE_INSTANT) : [];
	const bounds = texts(saved.bounds).length
		? texts(saved.bounds)
		: typeof saved.before === 'string'
			? [saved.before]
			: [];
	const cursor: PollCursor = { time: isoOf(ms), ids: texts(saved.ids) };
	const kept = bounds.filter((bound) => timeMs(bound) !== undefined);
	if (kept.length > 0) cursor.bounds = kept.map((bound) => isoOf(timeMs(bound) as number));
	if (saved.oldestFirst === true) cursor.oldestFirst = true;
	if (Array.isArray(saved.ahead)) cursor.ahead = texts(saved.ahead).slice(0, MAX_AHEAD);
	return cursor;
}
