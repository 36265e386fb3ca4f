/**
 * n8n's community-package scan (@n8n/scan-community-package, the check behind n8n's verification)
 * run on this repository before anything is published.
 *
 * The scanner's CLI takes a package name and downloads it from npm: it checks the registry's
 * provenance record, fetches the source commit that record names, downloads the tarball, then
 * lints both with its own ESLint config (`analyzePackage`). Here the two registry steps are left
 * out (the package is not published yet) and the scanner's own `analyzePackage` is called on the
 * same two inputs, with the same file patterns as its `analyzePackageByName`:
 *   - source: this checkout (package.json, nodes/ and credentials/ — SOURCE_FILE_PATTERNS);
 *   - package: the tarball `npm pack` makes (needs `npm run build` first), unpacked: its .js files
 *     and package.json.
 *
 * Usage: ts-node scripts/scan-package.ts [--source DIR] [--package DIR]
 *   --source DIR   scan DIR as the source instead of this checkout
 *   --package DIR  scan an already unpacked package in DIR instead of packing this one
 * Exits 1 when the scan reports a violation, as the scanner's CLI reports a failed check.
 */
import { execFileSync } from 'child_process';
import { existsSync, mkdtempSync, rmSync } from 'fs';
import os from 'os';
import path from 'path';

interface ScanResult {
	passed: boolean;
	message?: string;
	details?: string;
}

interface Scanner {
	analyzePackage(dir: string, patterns?: string[]): Promise<ScanResult>;
	SOURCE_FILE_PATTERNS: string[];
}

/** The tarball leg's patterns in `analyzePackageByName`. */
const PACKAGE_FILE_PATTERNS = ['**/*.js', 'package.json'];

const root = path.resolve(__dirname, '..');

// A real dynamic import: the scanner is an ES module, and ts-node would turn `import()` into require().
const importModule = new Function('specifier', 'return import(specifier)') as (
	specifier: string,
) => Promise<unknown>;

function option(name: string): string | undefined {
	const index = process.argv.indexOf(name);
	return index === -1 ? undefined : path.resolve(process.argv[index + 1]);
}

function packInto(dir: string): string {
	if (!existsSync(path.join(root, 'dist', 'nodes')))
		throw new Error('dist/ is missing: run `npm run build` first');
	const out = execFileSync(
		'npm',
		['pack', '--json', '--ignore-scripts', '--pack-destination', dir],
		{
			cwd: root,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'inherit'],
		},
	);
	const tarball = path.join(dir, (JSON.parse(out) as Array<{ filename: string }>)[0].filename);
	const packageDir = path.join(dir, 'package');
	execFileSync('mkdir', ['-p', packageDir]);
	execFileSync('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1']);
	return packageDir;
}

async function main(): Promise<void> {
	const started = Date.now();
	const scanner = (await importModule(
		require.resolve('@n8n/scan-community-package/scanner/scanner.mjs'),
	)) as Scanner;
	const temp = mkdtempSync(path.join(os.tmpdir(), 'scan-package-'));
	try {
		const sourceDir = option('--source') ?? root;
		const packageDir = option('--package') ?? packInto(temp);
		const legs: Array<[string, ScanResult]> = [
			['source', await scanner.analyzePackage(sourceDir, scanner.SOURCE_FILE_PATTERNS)],
			['package', await scanner.analyzePackage(packageDir, PACKAGE_FILE_PATTERNS)],
		];
		// The scanner passes a folder with nothing to lint; here that means a wrong folder.
		for (const [, result] of legs) {
			if (result.passed && result.message)
				Object.assign(result, { passed: false, message: `nothing scanned (${result.message})` });
		}
		const failed = legs.filter(([, result]) => !result.passed);
		const seconds = ((Date.now() - started) / 1000).toFixed(1);
		if (failed.length === 0) {
			console.log(
				`scan: community-package scan passed (source and packed tarball; provenance not checked before publishing) in ${seconds} s`,
			);
			return;
		}
		for (const [leg, result] of failed) {
			console.error(`scan: ${leg}: ${result.message ?? 'failed'}`);
			if (result.details) console.error(result.details);
		}
		process.exitCode = 1;
	} finally {
		rmSync(temp, { recursive: true, force: true });
	}
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
