/**
 * Optional JSON persistence (--data-file): restore at start, save shortly after changes (batched)
 * and at close. Written to a temporary file then renamed, so a crash never leaves half a file.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'fs';
import { dirname } from 'path';

import type { Store, StoreSnapshot } from './store';

const SAVE_DELAY_MS = 250;

export class Persistence {
	private timer: NodeJS.Timeout | undefined;
	private closed = false;

	constructor(
		private readonly file: string,
		private readonly store: Store,
	) {}

	/** Restores the store from the file; returns false when there is no file yet. */
	load(): boolean {
		if (!existsSync(this.file)) return false;
		const snapshot = JSON.parse(readFileSync(this.file, 'utf8')) as StoreSnapshot;
		this.store.restore(snapshot);
		return true;
	}

	scheduleSave(): void {
		if (this.closed || this.timer) return;
		this.timer = setTimeout(() => {
			this.timer = undefined;
			this.saveNow();
		}, SAVE_DELAY_MS);
		this.timer.unref();
	}

	saveNow(): void {
		mkdirSync(dirname(this.file), { recursive: true });
		const temporary = `${this.file}.${process.pid}.tmp`;
		writeFileSync(temporary, JSON.stringify(this.store.snapshot()));
		renameSync(temporary, this.file);
	}

	close(): void {
		if (this.timer) clearTimeout(this.timer);
		this.timer = undefined;
		this.saveNow();
		this.closed = true;
	}
}
