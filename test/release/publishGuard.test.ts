/**
 * Publishing happens only in .github/workflows/publish.yml: scripts/publish-guard.ts (first in
 * `prepublishOnly`) refuses any other place, and `publishConfig.provenance` stops an upload that
 * skips the scripts. The packed tarball passes `npm publish --dry-run` as the publish job runs it.
 *
 * Every npm call here points at a registry on 127.0.0.1 that records requests and answers 404
 * (no such package yet): nothing leaves the machine, and "nothing uploaded" means no PUT. npm runs
 * with a config and cache of its own and no update check (test/helpers/npmEnv.ts), so the requests
 * it makes are the same on a fresh machine and on one where npm has run before.
 */
import { spawn, spawnSync } from 'child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'fs';
import http from 'http';
import { AddressInfo } from 'net';
import os from 'os';
import path from 'path';

import { publishRefusal } from '../../scripts/publish-guard';
import { npmEnv } from '../helpers/npmEnv';

const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const version: string = pkg.version;
const REPO = 'n8n-nodes-document-signing/n8n-nodes-document-signing';
/** What GitHub Actions sets in the publish job on the tag v<version> (id-token: write). */
const PUBLISH_JOB_ENV = {
	CI: 'true',
	GITHUB_ACTIONS: 'true',
	GITHUB_REPOSITORY: REPO,
	GITHUB_WORKFLOW_REF: `${REPO}/.github/workflows/publish.yml@refs/tags/v${version}`,
	GITHUB_JOB: 'publish',
	ACTIONS_ID_TOKEN_REQUEST_URL: 'http://127.0.0.1:9/oidc',
};

let registry: http.Server;
let registryUrl: string;
let requests: string[];
let temp: string;

beforeAll(async () => {
	temp = mkdtempSync(path.join(os.tmpdir(), 'publish-guard-'));
	registry = http.createServer((request, response) => {
		requests.push(`${request.method} ${request.url}`);
		request.resume();
		response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
	});
	await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
	registryUrl = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/`;
});

beforeEach(() => {
	requests = [];
});

afterAll(async () => {
	await new Promise((resolve) => registry.close(resolve));
	rmSync(temp, { recursive: true, force: true });
});

/**
 * `npm <args>` in the repository with only PATH and HOME from this process (none of the CI,
 * GitHub or npm_config_* variables a CI run of the tests has) and npm's own config and cache,
 * plus `extraEnv`. Asynchronous, so the registry in this process can answer; killed after 90 s.
 */
function npm(
	args: string[],
	extraEnv: Record<string, string> = {},
): Promise<{ status: number | null; output: string }> {
	const auth = `--${registryUrl.replace(/^http:/, '')}:_authToken=test-token`;
	const child = spawn('npm', [...args, '--registry', registryUrl, auth, '--fetch-retries=0'], {
		cwd: root,
		timeout: 90_000,
		env: {
			...npmEnv(path.join(temp, 'npm'), {
				base: { PATH: process.env.PATH, HOME: process.env.HOME },
			}),
			...extraEnv,
		},
	});
	let output = '';
	child.stdout.on('data', (chunk) => (output += chunk));
	child.stderr.on('data', (chunk) => (output += chunk));
	return new Promise((resolve, reject) => {
		child.on('error', reject);
		child.on('close', (status) => resolve({ status, output }));
	});
}

describe('publishRefusal', () => {
	test('accepts the publish workflow on the tag of the package version, with an OIDC token', () => {
		expect(publishRefusal(PUBLISH_JOB_ENV, version)).toBeNull();
	});

	test('refuses outside GitHub Actions, another workflow, tag or job, and a job without OIDC', () => {
		expect(publishRefusal({}, version)).toMatch(/not running in GitHub Actions.*npm run release/);
		expect(
			publishRefusal(
				{
					...PUBLISH_JOB_ENV,
					GITHUB_WORKFLOW_REF: `${REPO}/.github/workflows/ci.yml@refs/heads/main`,
				},
				version,
			),
		).toMatch(/the workflow is .*ci\.yml/);
		expect(
			publishRefusal(
				{
					...PUBLISH_JOB_ENV,
					GITHUB_WORKFLOW_REF: `${REPO}/.github/workflows/publish.yml@refs/tags/v99.0.0`,
				},
				version,
			),
		).toMatch(/not .*publish\.yml@refs\/tags\/v/);
		expect(
			publishRefusal({ ...PUBLISH_JOB_ENV, ACTIONS_ID_TOKEN_REQUEST_URL: '' }, version),
		).toMatch(/no OIDC token/);
		expect(publishRefusal({ ...PUBLISH_JOB_ENV, GITHUB_JOB: 'test' }, version)).toMatch(
			/the job is test, not publish/,
		);
	});
});

test('prepublishOnly refuses a local `npm publish --dry-run` before packing, at the guard', async () => {
	const result = await npm(['publish', '--dry-run', '--ignore-scripts=false']);
	expect(result.status).not.toBe(0);
	expect(result.output).toContain('publish refused: not running in GitHub Actions');
	// Stopped before the tarball was made: npm lists the tarball's contents only once packed.
	expect(result.output).not.toContain('Tarball Contents');
	expect(requests).toEqual([]);
}, 120_000);

describe('the packed tarball', () => {
	let tarball: string;

	beforeAll(() => {
		if (!readdirSync(root).includes('dist'))
			throw new Error('dist/ is missing: run `npm run build` first');
		const packed = spawnSync(
			'npm',
			['pack', '--ignore-scripts', '--pack-destination', temp, '--json'],
			{ cwd: root, encoding: 'utf8', timeout: 90_000, env: npmEnv(path.join(temp, 'npm')) },
		);
		tarball = path.join(temp, JSON.parse(packed.stdout)[0].filename);
	}, 120_000);

	test('`npm publish --dry-run` of it succeeds as the publish job runs it, uploading nothing', async () => {
		const result = await npm(['publish', tarball, '--dry-run'], PUBLISH_JOB_ENV);
		expect({ status: result.status, output: result.output }).toEqual({
			status: 0,
			output: expect.stringContaining(`+ ${pkg.name}@${version}`),
		});
		expect(result.output).toContain('dist/nodes/DocumentSigning/DocumentSigning.node.js');
		expect(requests.filter((request) => !request.startsWith('GET '))).toEqual([]);
	}, 120_000);

	test('a real publish of it from outside CI fails before uploading: npm cannot make the provenance statement', async () => {
		const result = await npm(['publish', tarball]);
		expect(result.status).not.toBe(0);
		expect(result.output).toContain('provenance');
		expect(requests.filter((request) => request.startsWith('PUT '))).toEqual([]);
	}, 120_000);
});
