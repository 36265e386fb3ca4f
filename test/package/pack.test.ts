/**
 * What `npm publish` would upload: dist/ (after `npm run build`), README, LICENSE and package.json,
 * nothing else; every file package.json points n8n (and `main`, if ever set) at is in it; no
 * runtime dependencies (n8n installs community packages without running their installs' scripts,
 * and n8n-workflow comes from n8n itself as a peer).
 */
import { execFileSync } from 'child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'fs';
import os from 'os';
import path from 'path';

import { npmEnv } from '../helpers/npmEnv';

const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

interface PackResult {
	files: Array<{ path: string }>;
}

let packed: string[];

beforeAll(() => {
	if (!existsSync(path.join(root, 'dist/nodes')))
		throw new Error('dist/ is missing: run `npm run build` first');
	const npmDir = mkdtempSync(path.join(os.tmpdir(), 'pack-test-'));
	let out: string;
	try {
		out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
			cwd: root,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
			env: npmEnv(npmDir),
		});
	} finally {
		rmSync(npmDir, { recursive: true, force: true });
	}
	packed = (JSON.parse(out) as PackResult[])[0].files.map((file) => file.path).sort();
});

test('the tarball holds dist/, README, LICENSE and package.json only', () => {
	const outside = packed.filter(
		(file) =>
			!file.startsWith('dist/') && !['README.md', 'LICENSE.md', 'package.json'].includes(file),
	);
	expect(outside).toEqual([]);
	expect(packed).toEqual(expect.arrayContaining(['README.md', 'LICENSE.md', 'package.json']));
	expect(
		packed.filter((file) => /\.test\.|__tests__|\/(sandbox|contract|test|e2e)\//.test(file)),
	).toEqual([]);
});

test('every file n8n loads, and main if set, is in the tarball', () => {
	const entries: string[] = [...pkg.n8n.nodes, ...pkg.n8n.credentials];
	expect(entries).toHaveLength(3); // two nodes and the credential
	if (pkg.main !== undefined) entries.push(pkg.main);
	expect(entries.filter((entry) => !packed.includes(path.posix.normalize(entry)))).toEqual([]);
	// Icons and codex files the nodes name are copied next to them by the build.
	expect(packed.filter((file) => /\.(svg|png)$/.test(file))).toEqual([
		'dist/icons/documentSigning.dark.svg',
		'dist/icons/documentSigning.svg',
	]);
	expect(packed.filter((file) => file.endsWith('.node.json')).length).toBe(pkg.n8n.nodes.length);
});

test('no runtime dependencies; n8n-workflow is a peer', () => {
	expect(pkg.dependencies ?? {}).toEqual({});
	expect(pkg.optionalDependencies ?? {}).toEqual({});
	expect(pkg.bundleDependencies ?? pkg.bundledDependencies ?? []).toEqual([]);
	expect(Object.keys(pkg.peerDependencies ?? {})).toEqual(['n8n-workflow']);
	// Built and tested against one exact version (the peer range lets n8n bring its own).
	expect(pkg.devDependencies['n8n-workflow']).toMatch(/^\d+\.\d+\.\d+$/);
});
