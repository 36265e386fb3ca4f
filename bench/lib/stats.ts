/** Small statistics helpers. */
export function percentile(values: number[], p: number): number {
	if (values.length === 0) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	// Nearest rank.
	const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
	return sorted[rank - 1];
}

export const median = (values: number[]) => percentile(values, 50);

export const round = (value: number, digits = 2) =>
	Number.isFinite(value) ? Math.round(value * 10 ** digits) / 10 ** digits : value;

export const seconds = (ms: number, digits = 2) => round(ms / 1000, digits);

export const mib = (bytes: number) => round(bytes / 1024 ** 2, 0);

/** How many of `names` each name occurs: lost = expected names absent, duplicated = extra copies. */
export function countCopies(
	expected: string[],
	actual: string[],
): { created: number; lost: number; duplicated: number } {
	const counts = new Map<string, number>();
	for (const name of actual) counts.set(name, (counts.get(name) ?? 0) + 1);
	let lost = 0;
	let duplicated = 0;
	for (const name of expected) {
		const count = counts.get(name) ?? 0;
		if (count === 0) lost++;
		if (count > 1) duplicated += count - 1;
	}
	return { created: actual.length, lost, duplicated };
}
