/**
 * The publish workflow (.github/workflows) holds only what publishing needs: its permissions, its
 * job's steps and pinned actions.
 * Each test's first comment says what the code before the fix did (the test fails on it).
 */
import { execFileSync, spawnSync } from 'child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'fs';
import os from 'os';
import path from 'path';
import { parse as parseYaml } from 'yaml';

import { PUBLISH_JOB, PUBLISH_WORKFLOW } from '../../scripts/publish-guard';

describe('publishing holds only what it needs (finding 30.7)', () => {
	interface Step {
		name?: string;
		uses?: string;
		run?: string;
		with?: Record<string, unknown>;
	}
	interface Job {
		permissions?: Record<string, string>;
		environment?: string | { name: string };
		needs?: string | string[];
		steps: Step[];
	}
	const root = path.resolve(__dirname, '../..');
	const workflowsDir = path.join(root, '.github/workflows');
	const publishText = readFileSync(path.join(root, PUBLISH_WORKFLOW), 'utf8');
	const publish = parseYaml(publishText) as { permissions?: unknown; jobs: Record<string, Job> };
	const publishJob = publish.jobs[PUBLISH_JOB];
	const stepIndex = (job: Job, match: (step: Step) => boolean) => job.steps.findIndex(match);
	const mintsToken = (job: Job) => job.permissions?.['id-token'] === 'write';

	// Old: one job held id-token: write and ran `npm test` (n8n installs, Verdaccio, real n8n,
	// Chromium), any of which could mint the token and publish with valid provenance.
	test('only the publish job may mint an OIDC token; the tests run in a job without one', () => {
		expect(publish.permissions).toEqual({});
		expect(
			Object.entries(publish.jobs)
				.filter(([, job]) => mintsToken(job))
				.map(([id]) => id),
		).toEqual([PUBLISH_JOB]);
		const testers = Object.entries(publish.jobs).filter(([, job]) =>
			job.steps.some((step) => /\bnpm (run )?test\b/.test(step.run ?? '')),
		);
		expect(testers.map(([id]) => id)).toEqual(['test']);
		expect(publish.jobs.test.permissions).toEqual({ contents: 'read' });
		expect([publishJob.needs].flat()).toContain('test');
	});

	// Old: the publishing job installed, tested and scanned; prepublishOnly linted and scanned too.
	test('the publish job checks, installs from the lockfile, builds and publishes: nothing else runs', () => {
		const commands = publishJob.steps
			.flatMap((step) => (step.run ?? '').split('\n'))
			.map((line) => line.trim())
			.filter((line) => /^(npm|npx|node|bash|yarn|pnpm)\b/.test(line));
		expect(commands).toEqual([
			'npm install --global npm@11.19.1',
			'npm ci --no-audit --no-fund',
			'npm publish --provenance --access public --ignore-scripts=false',
		]);
		const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
		expect(
			String(pkg.scripts.prepublishOnly)
				.split('&&')
				.map((part) => part.trim()),
		).toEqual(['ts-node --transpile-only scripts/publish-guard.ts', 'npm run --silent build']);
		// No cache another run wrote is restored into the job that can publish.
		expect(publishJob.steps.filter((step) => /^actions\/cache/.test(step.uses ?? ''))).toEqual([]);
		expect(publishJob.steps.filter((step) => step.with?.cache !== undefined)).toEqual([]);
		for (const job of Object.values(publish.jobs))
			for (const step of job.steps.filter((each) => /^actions\/checkout@/.test(each.uses ?? '')))
				expect(step.with?.['persist-credentials']).toBe(false);
	});

	// Old: no environment; a version tag on any commit published.
	test('the publish job runs in the protected npm environment, and first refuses a tagged commit that is not on main', () => {
		expect(publishJob.environment).toBe('npm');
		const checkout = stepIndex(publishJob, (step) => /^actions\/checkout@/.test(step.uses ?? ''));
		expect(publishJob.steps[checkout].with?.['fetch-depth']).toBe(0);
		const onMain = stepIndex(publishJob, (step) => step.name === 'The tagged commit is on main');
		// Right after the checkout: nothing is set up or installed for a commit off main.
		expect([checkout, onMain]).toEqual([0, 1]);

		// The step itself, run as the runner would, in a clone whose main does not hold `side`.
		const temp = mkdtempSync(path.join(os.tmpdir(), 'publish-on-main-'));
		try {
			const git = (cwd: string, ...args: string[]) =>
				execFileSync(
					'git',
					[
						'-c',
						'user.name=t',
						'-c',
						'user.email=t@example.test',
						'-c',
						'commit.gpgsign=false',
						...args,
					],
					{
						cwd,
						encoding: 'utf8',
					},
				).trim();
			const upstream = path.join(temp, 'upstream');
			execFileSync('git', ['init', '--quiet', '--initial-branch=main', upstream]);
			git(upstream, 'commit', '--quiet', '--allow-empty', '-m', 'first');
			const released = git(upstream, 'rev-parse', 'HEAD');
			git(upstream, 'checkout', '--quiet', '-b', 'side');
			git(upstream, 'commit', '--quiet', '--allow-empty', '-m', 'off main');
			const offMain = git(upstream, 'rev-parse', 'HEAD');
			git(upstream, 'checkout', '--quiet', 'main');
			git(upstream, 'commit', '--quiet', '--allow-empty', '-m', 'later');
			const runner = path.join(temp, 'runner');
			execFileSync('git', ['clone', '--quiet', upstream, runner]);
			const runStep = (sha: string) =>
				spawnSync('bash', ['-e', '-c', publishJob.steps[onMain].run!], {
					cwd: runner,
					encoding: 'utf8',
					env: { PATH: process.env.PATH, GITHUB_SHA: sha, GITHUB_REF_NAME: 'v9.9.9' },
				});
			const refused = runStep(offMain);
			expect(refused.status).not.toBe(0);
			expect(refused.stdout).toContain(`::error::v9.9.9 (${offMain}) is not on main`);
			expect(runStep(released).status).toBe(0);
		} finally {
			rmSync(temp, { recursive: true, force: true });
		}
	});

	// Old: actions/checkout@v4 and actions/setup-node@v4, tags their owners can move.
	test('every action of every workflow is pinned by a full commit SHA, its version in a comment', () => {
		for (const file of readdirSync(workflowsDir).filter((name) => /\.ya?ml$/.test(name))) {
			const text = readFileSync(path.join(workflowsDir, file), 'utf8');
			const jobs = Object.values((parseYaml(text) as { jobs: Record<string, Job> }).jobs);
			const used = jobs.flatMap((job) =>
				job.steps.flatMap((step) => (step.uses ? [step.uses] : [])),
			);
			expect(used.length).toBeGreaterThan(0);
			for (const uses of used)
				expect({ file, uses }).toEqual({
					file,
					uses: expect.stringMatching(/^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/),
				});
			const lines = text.split('\n').filter((line) => /^\s*(- )?uses:/.test(line));
			expect(lines).toHaveLength(used.length);
			for (const line of lines)
				expect({ file, line }).toEqual({
					file,
					line: expect.stringMatching(/@[0-9a-f]{40} # v\d+\.\d+\.\d+$/),
				});
		}
	});
});
