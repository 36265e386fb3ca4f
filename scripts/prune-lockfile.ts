/**
 * Drops optional dependencies that the lockfile names but does not hold.
 *
 * The registry reachable here lacks the other platforms' builds of some native packages (e.g.
 * @unrs/resolver-binding-darwin-x64), so `npm install` leaves them out of package-lock.json while
 * still listing them under their parent's optionalDependencies; npm 11's `npm ci` then refuses the
 * lockfile (npm/cli#9846). Run `npm run lock:prune` after changing dependencies.
 */
import { readFileSync, writeFileSync } from 'fs';

const file = process.argv[2] ?? 'package-lock.json';
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages: Record<string, { optionalDependencies?: Record<string, string> }> = lock.packages;

/** Where npm would find `name` for the package at `path`: nested, then each ancestor, then the top. */
function resolvable(path: string, name: string): boolean {
	const segments = path.split('/node_modules/');
	for (let depth = segments.length; depth >= 1; depth--) {
		const base = segments.slice(0, depth).join('/node_modules/');
		if (packages[`${base}/node_modules/${name}`]) return true;
	}
	return Boolean(packages[`node_modules/${name}`]);
}

let dropped = 0;
for (const [path, entry] of Object.entries(packages)) {
	for (const name of Object.keys(entry.optionalDependencies ?? {})) {
		if (!resolvable(path, name)) {
			delete entry.optionalDependencies![name];
			dropped++;
		}
	}
}
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`${file}: dropped ${dropped} optional dependencies the lockfile does not hold`);
