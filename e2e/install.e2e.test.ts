/**
 * Installed as users install it: the package packed with `npm pack`, published to a real npm
 * registry on 127.0.0.1 (Verdaccio, harness/registry.ts), and installed from it into n8n's nodes
 * folder, on n8n 2.41.x and on the last 1.x, by the two paths a self-hoster has
 * (harness/communityInstall.ts):
 *
 * - `manual`: `npm install n8n-nodes-document-signing` in ~/.n8n/nodes, the install n8n documents
 *   for Docker and queue mode;
 * - `installer`: the steps of n8n's Community Nodes installer (`npm pack`, unpack, drop dev and
 *   peer dependencies, `npm install --ignore-scripts --install-strategy=shallow
 *   --package-lock=false`). n8n's installer itself refuses any registry but npmjs without an
 *   enterprise licence.
 *
 * Then n8n starts and the checks of packageChecks.ts run (the package loads, the credential
 * test, one operation per resource, the trigger with a verified delivery). Then the package is
 * uninstalled and n8n restarted: the workflows still load, and n8n names the missing node type.
 *
 * Unlike the suites that copy dist/ into n8n, this catches a wrong `files` list, a wrong package
 * name, a dependency that npm would have to fetch, and install scripts.
 *
 * The registry serves n8n-nodes-document-signing from its own storage only (what this run
 * published); every other package comes from the machine's npm registry through it: npm's manual
 * install also installs the package's peer dependency (n8n-workflow) next to it, as it does for a
 * user. N8N_E2E_INSTALL_HOSTS=2 limits the hosts. Needs the package built (`npm run build`).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { startSandbox, type Sandbox } from '../sandbox';
import { installPackage, uninstallPackage, type InstallPath } from './harness/communityInstall';
import {
	NODE_TYPE,
	PACKAGE_NAME,
	TRIGGER_NODE_TYPE,
	createN8n,
	ensureN8nHost,
	type N8nHostId,
} from './harness/n8n';
import {
	packPackage,
	startRegistry,
	type LocalRegistry,
	type PackedPackage,
} from './harness/registry';
import { describePackageChecks } from './packageChecks';

const REPO_ROOT = path.resolve(__dirname, '..');
/** n8n 2.41.x and the last 1.x. */
const HOSTS = (process.env.N8N_E2E_INSTALL_HOSTS?.split(',') ?? ['2', '1']) as N8nHostId[];
const PATHS = (process.env.N8N_E2E_INSTALL_PATHS?.split(',') ?? [
	'manual',
	'installer',
]) as InstallPath[];

let sandbox: Sandbox;
let registry: LocalRegistry;
let tarball: PackedPackage;
let workDir: string;

beforeAll(async () => {
	workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-install-e2e-'));
	sandbox = await startSandbox({
		port: 0,
		webhookRetry: { baseDelayMs: 250, maxAttempts: 3, timeoutMs: 10_000 },
	});
	tarball = await packPackage(REPO_ROOT, workDir);
	const upstream = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim();
	registry = await startRegistry({
		node: ensureN8nHost('2').node,
		localOnly: [PACKAGE_NAME],
		upstream,
	});
	await registry.publish(tarball.file);
}, 300_000);

afterAll(async () => {
	await registry?.dispose();
	await sandbox?.close();
	if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

it('the local registry serves the packed tarball as the package, and nothing of that name from anywhere else', async () => {
	const packument = (await (
		await fetch(`${registry.url}${PACKAGE_NAME}`, { signal: AbortSignal.timeout(10_000) })
	).json()) as {
		'dist-tags': Record<string, string>;
		versions: Record<string, { dist: { integrity: string }; scripts?: Record<string, string> }>;
	};
	expect(packument['dist-tags']).toEqual({ latest: tarball.version });
	expect(Object.keys(packument.versions)).toEqual([tarball.version]);
	expect(packument.versions[tarball.version].dist.integrity).toBe(tarball.integrity);
	// npm runs these on a manual install and n8n's installer never does (--ignore-scripts): none,
	// so both paths install the same thing.
	const lifecycle = Object.keys(packument.versions[tarball.version].scripts ?? {}).filter((name) =>
		['preinstall', 'install', 'postinstall'].includes(name),
	);
	expect(lifecycle).toEqual([]);
	// What n8n loads is in the tarball: every file that package.json's n8n section names.
	const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[]; credentials: string[] };
	};
	expect(tarball.files).toEqual(
		expect.arrayContaining([...manifest.n8n.nodes, ...manifest.n8n.credentials, 'package.json']),
	);
});

const cases = HOSTS.flatMap((id) =>
	PATHS.map((how) => ({ id, how, version: ensureN8nHost(id).version })),
);

describe.each(cases)('n8n $version, $how install', ({ id, how, version }) => {
	const checks = describePackageChecks({
		hostId: id,
		version,
		label: `install (${how})`,
		sandbox: () => sandbox,
		create: async () => {
			// n8n 3.0's default (n8n 2.x and 1.x default to true): unverified packages off.
			const n8n = await createN8n({
				host: id,
				install: 'none',
				sandboxBaseUrl: sandbox.baseUrl,
				env: { N8N_UNVERIFIED_PACKAGES_ENABLED: 'false' },
			});
			const started = Date.now();
			// npm runs on n8n's Node, as in n8n's Docker image.
			await installPackage(how, {
				nodesFolder: n8n.nodesFolder,
				registry,
				name: PACKAGE_NAME,
				version: tarball.version,
				binDir: n8n.host.binDir,
			});
			process.stderr.write(
				`install (${how}) into n8n ${version}: ${Math.round((Date.now() - started) / 1000)} s\n`,
			);
			return n8n;
		},
	});

	it('installed the published tarball, as the package n8n loads', () => {
		const installed = path.join(checks.n8n.nodesFolder, 'node_modules', PACKAGE_NAME);
		const manifest = JSON.parse(
			fs.readFileSync(path.join(installed, 'package.json'), 'utf8'),
		) as Record<string, any>;
		expect({ name: manifest.name, version: manifest.version }).toEqual({
			name: PACKAGE_NAME,
			version: tarball.version,
		});
		// The package brings no dependencies of its own (n8n's rule for community nodes).
		expect(fs.existsSync(path.join(installed, 'node_modules'))).toBe(false);
		const nodesManifest = JSON.parse(
			fs.readFileSync(path.join(checks.n8n.nodesFolder, 'package.json'), 'utf8'),
		) as {
			dependencies: Record<string, string>;
		};
		expect(Object.keys(nodesManifest.dependencies)).toEqual([PACKAGE_NAME]);
		if (how === 'installer') {
			// n8n's installer drops peer dependencies: the package uses n8n's own n8n-workflow.
			expect(manifest.peerDependencies).toBeUndefined();
			expect(fs.readdirSync(path.join(checks.n8n.nodesFolder, 'node_modules')).sort()).toEqual([
				PACKAGE_NAME,
			]);
		} else {
			// npm's lockfile names the tarball this run published.
			const lock = JSON.parse(
				fs.readFileSync(path.join(checks.n8n.nodesFolder, 'package-lock.json'), 'utf8'),
			) as {
				packages: Record<string, { integrity?: string }>;
			};
			expect(lock.packages[`node_modules/${PACKAGE_NAME}`].integrity).toBe(tarball.integrity);
		}
	});

	it('after uninstalling and a restart, the workflows still load and n8n names the node type it lacks', async () => {
		const n8n = checks.n8n;
		await n8n.stop();
		await uninstallPackage(how, {
			nodesFolder: n8n.nodesFolder,
			registry,
			name: PACKAGE_NAME,
			binDir: n8n.host.binDir,
		});
		expect(fs.existsSync(n8n.packageInstallDir)).toBe(false);
		await n8n.start();

		for (const [workflowId, type] of [
			[checks.actionsWorkflowId, NODE_TYPE],
			[checks.triggerWorkflowId, TRIGGER_NODE_TYPE],
		]) {
			const workflow = await n8n.rest<{ id: string; nodes: Array<{ type: string }> }>(
				'GET',
				`/rest/workflows/${workflowId}`,
			);
			expect(workflow.nodes.map((node) => node.type)).toContain(type);
		}
		// What the editor asks for when it opens the workflow: n8n answers with the missing type
		// (2.41: 400, 1.123: 500).
		const nodeTypes = await fetch(`${n8n.baseUrl}/rest/node-types`, {
			method: 'POST',
			headers: { ...n8n.authHeaders(), 'content-type': 'application/json' },
			body: JSON.stringify({ nodeInfos: [{ name: NODE_TYPE, version: 1 }] }),
			signal: AbortSignal.timeout(15_000),
		});
		expect({ status: nodeTypes.status, body: (await nodeTypes.json()) as unknown }).toMatchObject({
			status: n8n.generation === 2 ? 400 : 500,
			body: { message: `Unrecognized node type: ${NODE_TYPE}` },
		});

		// Activating the trigger's workflow (2.x: publishing it) is refused, naming the trigger's type.
		const activation = await fetch(
			`${n8n.baseUrl}/api/v1/workflows/${checks.triggerWorkflowId}/${n8n.generation === 2 ? 'publish' : 'activate'}`,
			{
				method: 'POST',
				headers: { 'X-N8N-API-KEY': n8n.apiKey!, 'content-type': 'application/json' },
				body: '{}',
				signal: AbortSignal.timeout(30_000),
			},
		);
		expect({ status: activation.status, body: (await activation.json()) as unknown }).toMatchObject(
			{
				status: 400,
				body: { message: `Unrecognized node type: ${TRIGGER_NODE_TYPE}` },
			},
		);
		expect(await n8n.isActive(checks.triggerWorkflowId)).toBe(false);

		// Running the actions workflow fails, naming the action node's type.
		const run = await n8n.runCli(['execute', `--id=${checks.actionsWorkflowId}`]);
		expect(run.code).not.toBe(0);
		expect(run.stdout + run.stderr).toContain(`Unrecognized node type: ${NODE_TYPE}`);
	});
});
