/**
 * scripts/release.sh and scripts/changelog.ts in a throwaway clone with a local bare remote (the
 * test command replaced by `true`): refuses a dirty tree, another branch or no notes; tags the
 * first version as it is; bumps, rolls CHANGELOG.md, commits, tags and pushes.
 */
import { execFileSync, spawnSync } from 'child_process';
import {
	copyFileSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from 'fs';
import os from 'os';
import path from 'path';

import { releaseChangelog } from '../../scripts/changelog';
import { npmEnv } from '../helpers/npmEnv';

const root = path.resolve(__dirname, '../..');
let temp: string;
let work: string;

/**
 * git and npm as on a machine where neither has run before: no user or system git config (a
 * machine's `commit.gpgsign` or hooks would change what git does), npm's own config and cache.
 */
const toolEnv = (): NodeJS.ProcessEnv => ({
	...npmEnv(path.join(temp, 'npm')),
	GIT_CONFIG_GLOBAL: '/dev/null',
	GIT_CONFIG_NOSYSTEM: '1',
});

const git = (...args: string[]) =>
	execFileSync('git', args, { cwd: work, encoding: 'utf8', env: toolEnv() }).trim();

function release(bump: string): { status: number | null; output: string } {
	const result = spawnSync('bash', ['scripts/release.sh', bump], {
		cwd: work,
		encoding: 'utf8',
		env: {
			...toolEnv(),
			RELEASE_TEST_COMMAND: 'true',
			GIT_AUTHOR_NAME: 't',
			GIT_AUTHOR_EMAIL: 't@example.com',
			GIT_COMMITTER_NAME: 't',
			GIT_COMMITTER_EMAIL: 't@example.com',
		},
	});
	return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

function expectSuccess(result: { status: number | null; output: string }): void {
	expect(result.status === 0 ? 'exit 0' : result.output).toBe('exit 0');
}

beforeAll(() => {
	temp = mkdtempSync(path.join(os.tmpdir(), 'release-'));
	const remote = path.join(temp, 'remote.git');
	work = path.join(temp, 'work');
	execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', remote], {
		env: toolEnv(),
	});
	execFileSync('git', ['init', '--quiet', '--initial-branch=main', work], { env: toolEnv() });
	mkdirSync(path.join(work, 'scripts'));
	for (const file of [
		'package.json',
		'package-lock.json',
		'CHANGELOG.md',
		'.gitignore',
		'tsconfig.json',
		'scripts/release.sh',
		'scripts/changelog.ts',
	]) {
		copyFileSync(path.join(root, file), path.join(work, file));
	}
	symlinkSync(path.join(root, 'node_modules'), path.join(work, 'node_modules'));
	// The changelog as it stands right after a release: nothing under Unreleased.
	const changelog = path.join(work, 'CHANGELOG.md');
	writeFileSync(
		changelog,
		readFileSync(changelog, 'utf8').replace(
			/## \[Unreleased\]\n[\s\S]*?(?=\n## \[)/,
			'## [Unreleased]\n',
		),
	);
	git('config', 'user.name', 't');
	git('config', 'user.email', 't@example.com');
	git('add', '-A');
	git('commit', '--quiet', '-m', 'initial');
	git('remote', 'add', 'origin', remote);
	git('push', '--quiet', 'origin', 'main');
});

afterAll(() => rmSync(temp, { recursive: true, force: true }));

test('refuses a dirty tree and another branch', () => {
	writeFileSync(path.join(work, 'stray.txt'), 'x');
	expect(release('patch')).toMatchObject({
		status: 1,
		output: expect.stringContaining('not clean'),
	});
	rmSync(path.join(work, 'stray.txt'));
	git('checkout', '--quiet', '-b', 'feature');
	expect(release('patch')).toMatchObject({
		status: 1,
		output: expect.stringContaining('releases are made from main'),
	});
	git('checkout', '--quiet', 'main');
});

test('the first release tags the version package.json has', () => {
	const version = JSON.parse(readFileSync(path.join(work, 'package.json'), 'utf8')).version;
	expectSuccess(release(version));
	expect(git('ls-remote', '--tags', 'origin')).toContain(`refs/tags/v${version}`);
});

test('a bump with no Unreleased notes is refused and changes nothing', () => {
	expect(release('patch')).toMatchObject({
		status: 1,
		output: expect.stringContaining('add notes under [Unreleased]'),
	});
	expect(git('status', '--porcelain')).toBe('');
});

test('a patch release bumps, rolls the changelog, commits, tags and pushes', () => {
	const file = path.join(work, 'CHANGELOG.md');
	writeFileSync(
		file,
		readFileSync(file, 'utf8').replace(
			'## [Unreleased]\n',
			'## [Unreleased]\n\n### Fixed\n- A fix.\n',
		),
	);
	git('commit', '--quiet', '-am', 'notes');
	git('push', '--quiet', 'origin', 'main');
	const before = JSON.parse(readFileSync(path.join(work, 'package.json'), 'utf8'))
		.version as string;
	const [major, minor, patch] = before.split('.').map(Number);
	const next = `${major}.${minor}.${patch + 1}`;

	expectSuccess(release('patch'));
	expect(JSON.parse(readFileSync(path.join(work, 'package.json'), 'utf8')).version).toBe(next);
	expect(JSON.parse(readFileSync(path.join(work, 'package-lock.json'), 'utf8')).version).toBe(next);
	const changelog = readFileSync(file, 'utf8');
	expect(changelog).toMatch(
		new RegExp(
			`## \\[Unreleased\\]\\n\\n## \\[${next}\\] - \\d{4}-\\d{2}-\\d{2}\\n\\n### Fixed\\n- A fix\\.\\n\\n## \\[${before}\\]`,
		),
	);
	expect(changelog).toContain(
		`[Unreleased]: https://github.com/n8n-nodes-document-signing/n8n-nodes-document-signing/compare/v${next}...HEAD`,
	);
	expect(changelog).toContain(
		`[${next}]: https://github.com/n8n-nodes-document-signing/n8n-nodes-document-signing/compare/v${before}...v${next}`,
	);
	expect(git('log', '-1', '--format=%s')).toBe(`Release v${next}`);
	expect(git('ls-remote', 'origin')).toMatch(
		new RegExp(`refs/tags/v${next.replace(/\./g, '\\.')}`),
	);
	expect(git('rev-parse', 'origin/main')).toBe(git('rev-parse', 'HEAD'));
}, 60_000);

test('CHANGELOG.md is in Keep a Changelog form with the package version released', () => {
	const text = readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8');
	const version = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version;
	expect(text).toContain('\n## [Unreleased]\n');
	expect(text).toMatch(
		new RegExp(`\\n## \\[${version.replace(/\./g, '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}\\n`),
	);
	expect(text).toMatch(/^\[Unreleased\]: https:\/\/\S+$/m);
	expect(() => releaseChangelog(text, version, '2030-01-01', 'https://example.com/r')).toThrow(
		/already has a section/,
	);
});
