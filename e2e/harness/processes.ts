/**
 * Child-process bookkeeping for the harnesses (a single n8n, the queue-mode cluster): every child
 * runs in its own process group, killed when this process ends however it ends, plus the small
 * helpers both harnesses use around them.
 */
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';

const liveGroups = new Set<number>();
const exitCallbacks: Array<() => void> = [];
let cleanupRegistered = false;

export function killGroup(pid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pid, signal);
	} catch {
		// already gone
	}
}

function cleanup(): void {
	for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
	liveGroups.clear();
	for (const callback of exitCallbacks) callback();
}

function registerCleanup(): void {
	if (cleanupRegistered) return;
	cleanupRegistered = true;
	process.on('exit', cleanup);
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		process.once(signal, () => {
			cleanup();
			// Re-raise with the default behaviour, now that the children are gone.
			if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
		});
	}
}

/** Kills the child's process group when the child exits, or when this process ends first. */
export function trackChild(child: ChildProcess): void {
	registerCleanup();
	const pid = child.pid;
	if (pid === undefined) return;
	liveGroups.add(pid);
	child.once('exit', () => {
		// The group may outlive its leader (n8n's task runner): make sure it does not.
		killGroup(pid, 'SIGKILL');
		liveGroups.delete(pid);
	});
}

/** Runs `callback` (synchronously) after the tracked children are killed, when this process ends. */
export function onProcessEnd(callback: () => void): void {
	registerCleanup();
	exitCallbacks.push(callback);
}

export const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `promise` settles within `ms`; the timer is cleared either way (no open handle). */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
	try {
		return await Promise.race([promise.then(() => true), timeout]);
	} finally {
		clearTimeout(timer);
	}
}

export function tailLines(text: string, lines: number): string {
	return text
		.split('\n')
		.slice(-lines - 1)
		.join('\n');
}

export function readIfExists(file: string): string {
	try {
		return fs.readFileSync(file, 'utf8');
	} catch {
		return '';
	}
}
