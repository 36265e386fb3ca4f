/**
 * A real npm registry on 127.0.0.1 for the install suite: Verdaccio 6 (installed and cached by
 * scripts/registry-host.sh), run on the n8n host's Node 24 (Verdaccio 6 needs Node >= 22), with
 * its storage in a fresh temporary folder.
 *
 *   const tarball = packPackage(REPO_ROOT, dir);                 // `npm pack`, what npm publishes
 *   const registry = await startRegistry({ node, localOnly: [tarball.name], upstream });
 *   await registry.publish(tarball.file);                        // `npm publish` with a throwaway token
 *   registry.url                                                 // http://127.0.0.1:<port>/
 *   await registry.stop();
 *
 * The packages named in `localOnly` are served from the local storage only, never from
 * `upstream`: what an install gets under that name is what this run published. Every other
 * package comes from `upstream` when given (Verdaccio's uplink; for the peer dependency that npm
 * installs next to a package, as a user's npm does from the public registry), else from nowhere
 * (404).
 *
 * npm runs with a user config and a cache of its own (`npmEnv`), so the machine's ~/.npmrc and
 * ~/.npm change nothing.
 * Nothing here depends on jest.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

import { npmEnv } from '../../test/helpers/npmEnv';
import { freePort } from './n8n';
import { killGroup, readIfExists, settlesWithin, sleep, tailLines, trackChild } from './processes';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const REGISTRY_HOST_SCRIPT = path.join(REPO_ROOT, 'scripts', 'registry-host.sh');
const execFileAsync = promisify(execFile);

export interface PackedPackage {
	/** Absolute path of the .tgz. */
	file: string;
	name: string;
	version: string;
	/** `sha512-<base64>` of the tarball, as npm records it in a lockfile. */
	integrity: string;
	/** The paths inside the tarball (without the leading `package/`). */
	files: string[];
}

export interface NpmResult {
	code: number;
	stdout: string;
	stderr: string;
}

/** Installs Verdaccio if needed and returns its cached folder (scripts/registry-host.sh ensure). */
export function ensureRegistryHost(): string {
	return execFileSync('bash', [REGISTRY_HOST_SCRIPT, 'ensure'], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
		timeout: 30 * 60_000,
	}).trim();
}

/** Runs npm with `args` in `cwd`, bounded; resolves with its exit code and output (never throws on a non-zero exit). */
export async function runNpm(
	args: string[],
	options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<NpmResult> {
	try {
		const { stdout, stderr } = await execFileAsync('npm', args, {
			cwd: options.cwd,
			env: options.env,
			timeout: options.timeoutMs ?? 180_000,
			maxBuffer: 32 * 1024 * 1024,
		});
		return { code: 0, stdout, stderr };
	} catch (error) {
		const failed = error as {
			code?: number | string;
			stdout?: string;
			stderr?: string;
			message: string;
		};
		return {
			code: typeof failed.code === 'number' ? failed.code : 1,
			stdout: failed.stdout ?? '',
			stderr: failed.stderr ?? failed.message,
		};
	}
}

/** Fails with npm's output unless the command exited 0. */
export async function runNpmOrFail(
	args: string[],
	options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<NpmResult> {
	const result = await runNpm(args, options);
	if (result.code !== 0) {
		throw new Error(
			`\`npm ${args.join(' ')}\` in ${options.cwd} failed (exit ${result.code}):\n${tailLines(result.stdout + result.stderr, 30)}`,
		);
	}
	return result;
}

/** `npm pack` of `packageDir` into `destDir`: the tarball npm would publish. */
export async function packPackage(packageDir: string, destDir: string): Promise<PackedPackage> {
	fs.mkdirSync(destDir, { recursive: true });
	const result = await runNpmOrFail(['pack', '--json', `--pack-destination=${destDir}`], {
		cwd: packageDir,
		env: npmEnv(destDir),
	});
	const [packed] = JSON.parse(result.stdout) as Array<{
		filename: string;
		name: string;
		version: string;
		files: Array<{ path: string }>;
	}>;
	const file = path.join(destDir, packed.filename);
	return {
		file,
		name: packed.name,
		version: packed.version,
		integrity: `sha512-${createHash('sha512').update(fs.readFileSync(file)).digest('base64')}`,
		files: packed.files.map((entry) => entry.path).sort(),
	};
}

export interface RegistryOptions {
	/** The Node (>= 22) that runs Verdaccio. */
	node: string;
	/** Package names served from this registry's own storage only. */
	localOnly: string[];
	/** Registry every other package comes from (a Verdaccio uplink). Default: none (404). */
	upstream?: string;
	/** Bound for the registry to answer /-/ping. Default 60 s. */
	readyTimeoutMs?: number;
}

export class LocalRegistry {
	/** `http://127.0.0.1:<port>/` */
	readonly url: string;
	/** Verdaccio's log (JSON lines): one line per request, with its URL and status. */
	readonly logFile: string;
	private token?: string;

	constructor(
		readonly dir: string,
		readonly port: number,
		private readonly child: ChildProcess,
		private readonly exit: Promise<void>,
	) {
		this.url = `http://127.0.0.1:${port}/`;
		this.logFile = path.join(dir, 'verdaccio.log');
	}

	/** npm's environment for this registry (its own user config, holding the publish token once made). */
	env(binDir?: string): NodeJS.ProcessEnv {
		return npmEnv(this.dir, { binDir });
	}

	/**
	 * Creates a throwaway user (Verdaccio's htpasswd allows exactly one) and publishes `tarball`
	 * with its token, as `npm publish <tarball>` does (no lifecycle scripts: a tarball has none to run).
	 * Without provenance: package.json asks for it, and only the release job's OIDC token can give it.
	 */
	async publish(tarball: string): Promise<void> {
		if (!this.token) {
			const response = await fetch(`${this.url}-/user/org.couchdb.user:e2e-publisher`, {
				method: 'PUT',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({
					name: 'e2e-publisher',
					password: `e2e-${process.pid}-${Date.now()}`,
				}),
				signal: AbortSignal.timeout(30_000),
			});
			const body = (await response.json()) as { token?: string; error?: string };
			if (!response.ok || !body.token)
				throw new Error(`registry user: HTTP ${response.status} ${JSON.stringify(body)}`);
			this.token = body.token;
			fs.appendFileSync(
				path.join(this.dir, 'npmrc'),
				`//127.0.0.1:${this.port}/:_authToken=${this.token}\n`,
			);
		}
		await runNpmOrFail(
			[
				'publish',
				path.resolve(tarball),
				`--registry=${this.url}`,
				'--ignore-scripts',
				'--provenance=false',
			],
			{
				cwd: this.dir,
				env: this.env(),
			},
		);
	}

	/** Request lines of Verdaccio's log (`GET /<name>`, `GET /<name>/-/<file>.tgz`...) with their status. */
	requests(): Array<{ method: string; url: string; status?: number }> {
		const requests = [];
		for (const line of readIfExists(this.logFile).split('\n')) {
			if (!line.startsWith('{')) continue;
			try {
				const entry = JSON.parse(line) as {
					request?: { method: string; url: string };
					status?: number;
				};
				if (entry.request)
					requests.push({
						method: entry.request.method,
						url: entry.request.url,
						status: entry.status,
					});
			} catch {
				// not a log line
			}
		}
		return requests;
	}

	async stop(): Promise<void> {
		if (this.child.pid !== undefined) killGroup(this.child.pid, 'SIGTERM');
		if (!(await settlesWithin(this.exit, 10_000)) && this.child.pid !== undefined) {
			killGroup(this.child.pid, 'SIGKILL');
			await settlesWithin(this.exit, 5_000);
		}
	}

	/** stop(), then removes the storage folder (unless N8N_E2E_KEEP=1). */
	async dispose(): Promise<void> {
		await this.stop();
		if (process.env.N8N_E2E_KEEP !== '1') fs.rmSync(this.dir, { recursive: true, force: true });
	}
}

function yamlString(value: string): string {
	return JSON.stringify(value);
}

/** Starts Verdaccio on 127.0.0.1 and a free port, with storage in a fresh temporary folder. */
export async function startRegistry(options: RegistryOptions): Promise<LocalRegistry> {
	const host = ensureRegistryHost();
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'npm-registry-e2e-'));
	const port = await freePort();
	const localOnly = options.localOnly
		.map((name) =>
			[
				`  ${yamlString(name)}:`,
				'    access: $all',
				'    publish: $authenticated',
				'    unpublish: $authenticated',
			].join('\n'),
		)
		.join('\n');
	const config = [
		`storage: ${yamlString(path.join(dir, 'storage'))}`,
		'auth:',
		'  htpasswd:',
		`    file: ${yamlString(path.join(dir, 'htpasswd'))}`,
		'    max_users: 1',
		...(options.upstream
			? ['uplinks:', '  upstream:', `    url: ${yamlString(options.upstream)}`, '    timeout: 60s']
			: ['uplinks: {}']),
		'packages:',
		localOnly,
		"  '**':",
		'    access: $all',
		'    publish: $authenticated',
		...(options.upstream ? ['    proxy: upstream'] : []),
		'web:',
		'  enable: false',
		'middlewares:',
		'  audit:',
		'    enabled: false',
		'log:',
		'  type: stdout',
		'  format: json',
		'  level: http',
		'',
	].join('\n');
	const configFile = path.join(dir, 'config.yaml');
	fs.writeFileSync(configFile, config);
	const logFile = path.join(dir, 'verdaccio.log');
	const output = fs.openSync(logFile, 'a');
	const child = spawn(
		options.node,
		[
			path.join(host, 'node_modules', 'verdaccio', 'bin', 'verdaccio'),
			'--config',
			configFile,
			'--listen',
			`127.0.0.1:${port}`,
		],
		{
			cwd: dir,
			detached: true,
			stdio: ['ignore', output, output],
			env: { ...process.env, NODE_OPTIONS: undefined },
		},
	);
	fs.closeSync(output);
	trackChild(child);
	let exited: string | undefined;
	const exit = new Promise<void>((resolve) => {
		child.once('exit', (code, signal) => {
			exited = `exit ${code ?? signal}`;
			resolve();
		});
		child.once('error', (error) => {
			exited = `spawn error: ${error.message}`;
			resolve();
		});
	});
	const registry = new LocalRegistry(dir, port, child, exit);
	const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
	for (;;) {
		const problem = exited
			? `Verdaccio ended (${exited})`
			: Date.now() > deadline
				? 'Verdaccio did not answer /-/ping in time'
				: undefined;
		if (problem) {
			await registry.stop();
			throw new Error(
				`${problem}\n--- last lines of ${logFile} ---\n${tailLines(readIfExists(logFile), 30)}`,
			);
		}
		try {
			if ((await fetch(`${registry.url}-/ping`, { signal: AbortSignal.timeout(2_000) })).ok)
				return registry;
		} catch {
			// not listening yet
		}
		await sleep(200);
	}
}
