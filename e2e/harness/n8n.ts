/**
 * Real-n8n harness for the end-to-end tests and `npm run dev`.
 *
 * Runs a pinned n8n (installed and cached by scripts/n8n-host.sh, with its own Node) headless, bound to 127.0.0.1, with this package installed as a community package in a
 * fresh user folder: `<userFolder>/.n8n/nodes/node_modules/n8n-nodes-document-signing`, where n8n
 * finds it at start-up (node types `n8n-nodes-document-signing.documentSigning` and
 * `n8n-nodes-document-signing.documentSigningTrigger`).
 *
 * Hosts (see N8N_HOSTS): generation 2 (default; n8n 2.41.1 of e2e/n8n-host) and generation 1
 * (n8n 1.123.x of e2e/n8n-host-1x; host `1.110`: n8n 1.110.1, the package's floor). Every method below works on both; where the two differ (2.x
 * "publishes" a workflow, 1.x activates it) the harness takes the host's way and returns the same
 * shapes.
 *
 *   const n8n = await createN8n({ sandboxBaseUrl });           // prepared, not running
 *   const old = await createN8n({ sandboxBaseUrl, generation: 1 });  // n8n 1.123.x
 *   await n8n.importCredentials([n8n.documentSigningCredential({ id: 'cred1', apiKey })]);
 *   const id = await n8n.importWorkflow(workflowJson);
 *   const result = await n8n.execute(id);                      // `n8n execute`, no server needed
 *   await n8n.start();                                         // server + owner + API key
 *   await n8n.activate(triggerWorkflowId);                     // 2.x publish / 1.x activate, wait for the triggers
 *   await n8n.dispose();                                       // stop, remove the user folder
 *
 * Every child process runs on the host's Node 24 (also first on PATH: n8n spawns its task runner
 * as `node`), in its own process group, killed on stop and when this process exits. Every wait
 * is bounded and fails with the last lines of n8n's log. n8n logs (JSON lines, level debug by
 * default) go to `logFile`; everything the processes print goes to `outputFile`; `logText()`
 * returns both, for tests that look for leaked secrets.
 *
 * Nothing here depends on jest.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

import { killGroup, readIfExists, settlesWithin, sleep, tailLines, trackChild } from './processes';
import { activationSettled, deactivationSettled, waitForState } from './waitForState';

export const PACKAGE_NAME = 'n8n-nodes-document-signing';
export const NODE_TYPE = `${PACKAGE_NAME}.documentSigning`;
export const TRIGGER_NODE_TYPE = `${PACKAGE_NAME}.documentSigningTrigger`;
export const CREDENTIAL_TYPE = 'documentSigningApi';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const HOST_SCRIPT = path.join(REPO_ROOT, 'scripts', 'n8n-host.sh');

// ---------------------------------------------------------------------------------------------
// Types

/**
 * The n8n hosts the harness can run, by id: the argument of `scripts/n8n-host.sh ensure <id>`.
 * `generation` is n8n's major version.
 */
export const N8N_HOSTS = {
	'2': { generation: 2, folder: 'e2e/n8n-host' },
	'1': { generation: 1, folder: 'e2e/n8n-host-1x' },
	/** The package's floor: n8n 1.110.1 (docs/send-and-wait.md, "n8n versions"). */
	'1.110': { generation: 1, folder: 'e2e/n8n-host-1.110' },
} as const satisfies Record<string, { generation: N8nGeneration; folder: string }>;
export type N8nHostId = keyof typeof N8N_HOSTS;
export type N8nGeneration = 1 | 2;
/** The host of each generation (the newest of that major version). */
export const DEFAULT_HOST_OF: Record<N8nGeneration, N8nHostId> = { 2: '2', 1: '1' };

export interface N8nHost {
	/** Which host (N8N_HOSTS key). */
	id: N8nHostId;
	/** n8n's major version: 1 or 2. */
	generation: N8nGeneration;
	/** n8n's version, e.g. `2.41.1` (from the installed package). */
	version: string;
	/** The cached host folder (package.json, node_modules). */
	dir: string;
	/** Its node_modules/.bin: `node` (the host's own) and `n8n`. */
	binDir: string;
	/** The host's Node binary every child process runs on. */
	node: string;
	/** n8n's entry script, run as `<node> <n8nScript> <command>`. */
	n8nScript: string;
}

export interface N8nOptions {
	/** Which n8n: generation 2 (default: n8n 2.41.1) or 1 (n8n 1.123.x). */
	generation?: N8nGeneration;
	/** A host by id (N8N_HOSTS); overrides `generation`. */
	host?: N8nHostId;
	/**
	 * Folder whose package.json + dist/ are installed into n8n. Default: N8N_E2E_PACKAGE_DIR if
	 * set (e.g. an unpacked `npm pack`), else this repository's root.
	 */
	packageDir?: string;
	/**
	 * `copy` (default) copies package.json and dist/: the package resolves n8n-workflow from n8n,
	 * as a real install does. `symlink` links the package folder (edits to dist/ show after a
	 * restart, handy for `npm run dev`), but the package then resolves n8n-workflow from its own
	 * node_modules first, a different copy than n8n's. `none` puts nothing there: the caller
	 * installs the package into `packageInstallDir`'s nodes folder the way users do
	 * (e2e/install.e2e.test.ts installs it from a local npm registry).
	 */
	install?: 'copy' | 'symlink' | 'none';
	/** User folder (N8N_USER_FOLDER). Default: a fresh temporary folder, removed by dispose(). */
	userFolder?: string;
	/** Keep the user folder on dispose() (also when N8N_E2E_KEEP=1). */
	keepUserFolder?: boolean;
	/** HTTP port of the server. Default: a free port. */
	port?: number;
	/** Default: random per instance (or N8N_ENCRYPTION_KEY in `env`). */
	encryptionKey?: string;
	/** Extra environment for every n8n process; a value of undefined removes a variable. */
	env?: Record<string, string | undefined>;
	/** Base URL of the sandbox API server: the default baseUrl of documentSigningCredential(). */
	sandboxBaseUrl?: string;
	/** N8N_LOG_LEVEL. Default: debug (the secret-leak checks read the log). */
	logLevel?: 'error' | 'warn' | 'info' | 'debug';
	/** Bound for the server to become ready. Default: 120 s. */
	readyTimeoutMs?: number;
	/** Bound for one CLI command (import, execute, publish). Default: 120 s. */
	commandTimeoutMs?: number;
	/**
	 * start() fails when n8n logs that it could not load this package (n8n itself carries on
	 * without it). Default true.
	 */
	requirePackage?: boolean;
	/** Bound for stop() before SIGKILL. Default: 20 s. */
	stopTimeoutMs?: number;
}

export interface CredentialImport {
	/** Default: a generated id (returned by importCredentials). */
	id?: string;
	name: string;
	type: string;
	/** Plain values: n8n encrypts them on import with the instance's encryption key. */
	data: Record<string, unknown>;
}

export interface CliResult {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

/** The run data n8n keeps for an execution (IRun), loosely typed. */
export interface RunData {
	status?: string;
	mode?: string;
	finished?: boolean;
	startedAt?: string;
	stoppedAt?: string;
	data: {
		resultData: {
			runData: Record<string, Array<NodeRun>>;
			lastNodeExecuted?: string;
			error?: ExecutionErrorData;
		};
		[key: string]: unknown;
	};
	[key: string]: unknown;
}

export interface NodeRun {
	executionStatus?: string;
	error?: ExecutionErrorData;
	data?: { main?: Array<Array<{ json: Record<string, any>; [key: string]: unknown }> | null> };
	[key: string]: unknown;
}

export interface ExecutionErrorData {
	message?: string;
	description?: string | null;
	httpCode?: string | null;
	name?: string;
	node?: { name?: string; type?: string };
	[key: string]: unknown;
}

export interface ExecuteResult {
	/** From the run data: `error` when n8n reported an execution error, else `success`. */
	status: 'success' | 'error';
	/** The full run data printed by `n8n execute`. */
	run: RunData;
	/** resultData.error, when the execution failed. */
	error?: ExecutionErrorData;
	/**
	 * The `n8n execute` process's exit code: 0 on success, 1 on error, null when it died of a
	 * signal. With the default expression engine (`vm`, isolated-vm) n8n 2.41 sometimes dies of
	 * SIGSEGV while exiting, after it printed the run data (seen on a loaded machine): the
	 * result stands, so judge by `status`, not by the exit.
	 */
	exitCode: number | null;
	signal: NodeJS.Signals | null;
	/** Everything the command printed (JSON log lines). */
	output: string;
}

export interface PublicationStatus {
	/** `published`, `partial`, `failed`, `not_published` (or `in_progress` while it runs). */
	status: string;
	liveVersionId: string | null;
	pendingVersionId: string | null;
	triggers: Array<{ nodeId: string; status: string; errorMessage: string | null }>;
}

/** An execution as the public API returns it (`includeData=true`). */
export interface Execution {
	id: string;
	workflowId: string;
	mode: string;
	status: string;
	finished: boolean;
	startedAt: string;
	stoppedAt: string | null;
	data?: RunData['data'];
	[key: string]: unknown;
}

export interface ExecutionsQuery {
	workflowId?: string;
	status?: 'canceled' | 'crashed' | 'error' | 'new' | 'running' | 'success' | 'unknown' | 'waiting';
	/** Default 100 (the API's maximum is 250). */
	limit?: number;
	/** Default true. */
	includeData?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Host

const cachedHosts = new Map<N8nHostId, N8nHost>();

/** The host id of an options object: `host`, else the `generation`'s, else generation 2's. */
export function hostIdOf(options: Pick<N8nOptions, 'generation' | 'host'> = {}): N8nHostId {
	const id = options.host ?? DEFAULT_HOST_OF[options.generation ?? 2];
	if (!id || !(id in N8N_HOSTS)) {
		throw new Error(
			`unknown n8n host ${JSON.stringify(options)} (hosts: ${Object.keys(N8N_HOSTS).join(', ')})`,
		);
	}
	return id;
}

/**
 * Installs a host if needed (3 to 10 minutes the first time) and returns where it is. Takes a
 * host id or a generation; default generation 2.
 */
export function ensureN8nHost(which: N8nHostId | N8nGeneration = '2'): N8nHost {
	const id: N8nHostId =
		typeof which === 'number' ? hostIdOf({ generation: which }) : hostIdOf({ host: which });
	const cached = cachedHosts.get(id);
	if (cached) return cached;
	let dir: string;
	try {
		dir = execFileSync('bash', [HOST_SCRIPT, 'ensure', id], {
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'inherit'],
			timeout: 40 * 60_000,
		}).trim();
	} catch (error) {
		throw new Error(
			`could not install the n8n host with \`scripts/n8n-host.sh ensure ${id}\`: ${(error as Error).message}`,
		);
	}
	const binDir = path.join(dir, 'node_modules', '.bin');
	const manifest = path.join(dir, 'node_modules', 'n8n', 'package.json');
	const partial = {
		id,
		generation: N8N_HOSTS[id].generation,
		dir,
		binDir,
		node: path.join(binDir, 'node'),
		n8nScript: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
	};
	for (const file of [partial.node, partial.n8nScript, manifest]) {
		if (!fs.existsSync(file)) throw new Error(`n8n host ${dir} is incomplete: ${file} is missing`);
	}
	const { version } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string };
	if (Number(version.split('.')[0]) !== partial.generation) {
		throw new Error(
			`n8n host ${id} (${dir}) holds n8n ${version}, expected generation ${partial.generation}`,
		);
	}
	const host: N8nHost = { ...partial, version };
	cachedHosts.set(id, host);
	return host;
}

// ---------------------------------------------------------------------------------------------
// Small helpers

export async function freePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			server.close(() => {
				if (address && typeof address === 'object') resolve(address.port);
				else reject(new Error('could not get a free port'));
			});
		});
	});
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** An id in n8n's own format (16 alphanumerics). */
export function newId(): string {
	const bytes = randomBytes(16);
	let id = '';
	for (const byte of bytes) id += ID_ALPHABET[byte % ID_ALPHABET.length];
	return id;
}

function readConfiguredKey(n8nFolder: string): string | undefined {
	try {
		const config = JSON.parse(fs.readFileSync(path.join(n8nFolder, 'config'), 'utf8')) as {
			encryptionKey?: unknown;
		};
		return typeof config.encryptionKey === 'string' ? config.encryptionKey : undefined;
	} catch {
		return undefined;
	}
}

/** Parses JSON log lines, skipping anything that is not one. */
function parseLogLines(text: string): Array<{ level?: string; message?: unknown; metadata?: any }> {
	const entries = [];
	for (const line of text.split('\n')) {
		if (!line.startsWith('{')) continue;
		try {
			entries.push(JSON.parse(line));
		} catch {
			// not a log line
		}
	}
	return entries;
}

/** The last pretty-printed JSON object in `text` (from a line `{` to a line `}`) that is run data. */
function plainRunData(text: string): RunData | undefined {
	const lines = text.split('\n');
	let found: RunData | undefined;
	for (let start = 0; start < lines.length; start++) {
		if (lines[start] !== '{') continue;
		for (let end = start + 1; end < lines.length; end++) {
			if (lines[end] !== '}') continue;
			try {
				const candidate = JSON.parse(lines.slice(start, end + 1).join('\n')) as RunData;
				if (candidate?.data?.resultData?.runData) found = candidate;
			} catch {
				// not JSON
			}
			start = end;
			break;
		}
	}
	return found;
}

/** Output items (json) of a node's first run and first output in run data. */
export function nodeOutput(
	run: RunData,
	nodeName: string,
	outputIndex = 0,
): Array<Record<string, any>> {
	const runs = run.data.resultData.runData[nodeName];
	if (!runs?.length) {
		const ran = Object.keys(run.data.resultData.runData).join(', ') || 'none';
		throw new Error(`node "${nodeName}" did not run (nodes that ran: ${ran})`);
	}
	return (runs[0].data?.main?.[outputIndex] ?? []).map((item) => item.json);
}

// ---------------------------------------------------------------------------------------------
// The instance

export class N8nInstance {
	readonly host: N8nHost;
	readonly packageDir: string;
	readonly userFolder: string;
	/** N8N_USER_FOLDER/.n8n: database.sqlite, config, nodes/. */
	readonly n8nFolder: string;
	readonly port: number;
	/** http://127.0.0.1:<port> (no trailing slash). */
	readonly baseUrl: string;
	readonly encryptionKey: string;
	/** n8n's own log (JSON lines), shared by the server and every CLI command. */
	readonly logFile: string;
	/** stdout and stderr of every n8n process. */
	readonly outputFile: string;
	readonly sandboxBaseUrl?: string;
	/** Owner account made by start() (POST /rest/owner/setup). */
	readonly owner = {
		email: 'owner@example.com',
		password: 'E2e-Owner-Passw0rd',
		firstName: 'E2e',
		lastName: 'Owner',
	};
	/** Public API key made by the first start() of this object (POST /rest/api-keys); kept by restart(). */
	apiKey?: string;

	private readonly options: N8nOptions;
	private readonly ownsUserFolder: boolean;
	private server?: ChildProcess;
	private serverExit?: Promise<void>;
	private authCookie?: string;
	private readonly browserId = randomUUID();

	private constructor(
		host: N8nHost,
		options: N8nOptions,
		userFolder: string,
		ownsUserFolder: boolean,
		port: number,
	) {
		this.host = host;
		this.options = options;
		this.packageDir = path.resolve(
			options.packageDir ?? process.env.N8N_E2E_PACKAGE_DIR ?? REPO_ROOT,
		);
		this.userFolder = userFolder;
		this.ownsUserFolder = ownsUserFolder;
		this.n8nFolder = path.join(userFolder, '.n8n');
		this.port = port;
		this.baseUrl = `http://127.0.0.1:${port}`;
		// A kept user folder has its key in .n8n/config already; n8n refuses to start with another.
		this.encryptionKey =
			options.encryptionKey ??
			options.env?.N8N_ENCRYPTION_KEY ??
			readConfiguredKey(this.n8nFolder) ??
			randomBytes(24).toString('hex');
		this.logFile = path.join(userFolder, 'n8n.log');
		this.outputFile = path.join(userFolder, 'n8n-output.log');
		this.sandboxBaseUrl = options.sandboxBaseUrl;
	}

	/** Prepares an instance (host, user folder, package) without starting the server. */
	static async create(options: N8nOptions = {}): Promise<N8nInstance> {
		const host = ensureN8nHost(hostIdOf(options));
		const ownsUserFolder = options.userFolder === undefined;
		const userFolder = options.userFolder
			? path.resolve(options.userFolder)
			: fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-'));
		fs.mkdirSync(userFolder, { recursive: true });
		const port = options.port ?? (await freePort());
		const instance = new N8nInstance(host, options, userFolder, ownsUserFolder, port);
		instance.installPackage();
		return instance;
	}

	/** n8n's major version (1 or 2). */
	get generation(): N8nGeneration {
		return this.host.generation;
	}

	/** n8n's version, e.g. `1.123.81`. */
	get version(): string {
		return this.host.version;
	}

	/** Where n8n loads the package from. */
	get packageInstallDir(): string {
		return path.join(this.nodesFolder, 'node_modules', PACKAGE_NAME);
	}

	/** Process id (and process group id) of the running server. */
	get pid(): number | undefined {
		return this.server?.pid;
	}

	get running(): boolean {
		return this.server !== undefined;
	}

	/** n8n's nodes folder (N8N_USER_FOLDER/.n8n/nodes), where users install community packages. */
	get nodesFolder(): string {
		return path.join(this.n8nFolder, 'nodes');
	}

	/**
	 * (Re)installs the package into the user folder; takes effect at the next start. Does nothing
	 * with `install: 'none'`.
	 */
	installPackage(): void {
		if (this.options.install === 'none') return;
		const manifest = path.join(this.packageDir, 'package.json');
		const dist = path.join(this.packageDir, 'dist');
		if (!fs.existsSync(manifest)) throw new Error(`no package.json in ${this.packageDir}`);
		const { name } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string };
		if (name !== PACKAGE_NAME)
			throw new Error(`${manifest} is "${name}", expected "${PACKAGE_NAME}"`);
		if (!fs.existsSync(dist)) {
			throw new Error(`${dist} does not exist: build the package first (npm run build)`);
		}
		const target = this.packageInstallDir;
		fs.mkdirSync(path.dirname(target), { recursive: true });
		fs.rmSync(target, { recursive: true, force: true });
		if (this.options.install === 'symlink') {
			fs.symlinkSync(this.packageDir, target, 'dir');
		} else {
			fs.mkdirSync(target);
			fs.copyFileSync(manifest, path.join(target, 'package.json'));
			fs.cpSync(dist, path.join(target, 'dist'), { recursive: true });
		}
	}

	/** The environment of every n8n process (the server and CLI commands). */
	env(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
		const env: Record<string, string | undefined> = {
			...process.env,
			// n8n spawns its task runner as `node`: it must find Node 24 first.
			PATH: `${this.host.binDir}${path.delimiter}${process.env.PATH ?? ''}`,
			NODE_ENV: 'production',
			NODE_OPTIONS: undefined,
			N8N_USER_FOLDER: this.userFolder,
			N8N_ENCRYPTION_KEY: this.encryptionKey,
			N8N_HOST: '127.0.0.1',
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_PORT: String(this.port),
			N8N_PROTOCOL: 'http',
			// 2.x reads N8N_WEBHOOK_URL (WEBHOOK_URL still works in 2.41 but logs a deprecation
			// warning); 1.x reads only WEBHOOK_URL.
			...(this.host.generation === 1
				? { WEBHOOK_URL: `${this.baseUrl}/` }
				: { N8N_WEBHOOK_URL: `${this.baseUrl}/` }),
			N8N_EDITOR_BASE_URL: `${this.baseUrl}/`,
			N8N_SECURE_COOKIE: 'false',
			DB_TYPE: 'sqlite',
			// Logs: JSON lines in a file kept with the user folder (never rotated away mid-test), and
			// as text on the console, which goes to outputFile: that one is written synchronously, so
			// it keeps the last words of a process that crashes (the file transport may lose them).
			N8N_LOG_OUTPUT: 'console,file',
			NO_COLOR: '1',
			N8N_LOG_FILE_LOCATION: this.logFile,
			N8N_LOG_FILE_SIZE_MAX: '1024',
			N8N_LOG_LEVEL: this.options.logLevel ?? 'debug',
			// Nothing reaches the internet (every one of these calls out by default).
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_DYNAMIC_BANNERS_ENABLED: 'false',
			N8N_HIRING_BANNER_ENABLED: 'false',
			N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
			N8N_LICENSE_DETACH_FLOATING_ON_SHUTDOWN: 'false',
			N8N_AI_ENABLED: 'false',
			N8N_REINSTALL_MISSING_PACKAGES: 'false',
			EXTERNAL_FRONTEND_HOOKS_URLS: '',
			N8N_PUBLIC_API_SWAGGERUI_DISABLED: 'true',
			// Its system task fetches a catalogue from n8n's servers every start (2.x; 1.x has no such
			// module and refuses to start when an unknown one is named).
			...(this.host.generation === 2 ? { N8N_DISABLED_MODULES: 'mcp-registry' } : {}),
			// The package under test is a community package: keep loading them on.
			N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
			// Unverified packages (this one) load today by default; n8n warns the default will flip.
			N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
			N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '10',
			...this.options.env,
			...extra,
		};
		for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
		return env as NodeJS.ProcessEnv;
	}

	private lastLogLines(): string {
		const output = tailLines(readIfExists(this.outputFile), 40);
		const log = tailLines(readIfExists(this.logFile), 10);
		return `--- last lines of ${this.outputFile} ---\n${output}\n--- last lines of ${this.logFile} ---\n${log}`;
	}

	private fail(message: string): never {
		throw new Error(`${message}\n${this.lastLogLines()}`);
	}

	/** n8n's log and the processes' output, for checks such as "no secret in the logs". */
	logText(): string {
		return `${readIfExists(this.logFile)}\n${readIfExists(this.outputFile)}`;
	}

	// -------------------------------------------------------------------------------------------
	// CLI commands (work with or without the server running; each takes about 3 s)

	/** Runs `n8n <args>` with the instance's environment, bounded; resolves with its exit status. */
	async runCli(
		args: string[],
		options: { timeoutMs?: number; env?: Record<string, string | undefined> } = {},
	): Promise<CliResult> {
		const timeoutMs = options.timeoutMs ?? this.options.commandTimeoutMs ?? 120_000;
		// Each command gets its own task-runner broker port: the server may hold the other one.
		const env = this.env({ N8N_RUNNERS_BROKER_PORT: String(await freePort()), ...options.env });
		const child = spawn(this.host.node, [this.host.n8nScript, ...args], {
			cwd: this.userFolder,
			env,
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		trackChild(child);
		let stdout = '';
		let stderr = '';
		child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
		child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
		let timedOut = false;
		const timer = setTimeout(() => {
			timedOut = true;
			if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
		}, timeoutMs);
		const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>(
			(resolve, reject) => {
				child.once('error', reject);
				child.once('close', (c, s) => resolve([c, s]));
			},
		).finally(() => clearTimeout(timer));
		fs.appendFileSync(
			this.outputFile,
			`=== n8n ${args.join(' ')} (exit ${code ?? signal})\n${stdout}${stderr ? `--- stderr\n${stderr}` : ''}\n`,
		);
		if (timedOut) this.fail(`\`n8n ${args.join(' ')}\` did not finish within ${timeoutMs} ms`);
		return { code, signal, stdout, stderr };
	}

	private async runCliOrFail(args: string[]): Promise<CliResult> {
		const result = await this.runCli(args);
		if (result.code !== 0) {
			this.fail(
				`\`n8n ${args.join(' ')}\` failed (exit ${result.code ?? result.signal})\n--- stderr ---\n${tailLines(result.stderr, 20)}`,
			);
		}
		return result;
	}

	private writeImportFile(kind: string, content: unknown): string {
		const dir = path.join(this.userFolder, 'imports');
		fs.mkdirSync(dir, { recursive: true });
		const file = path.join(dir, `${kind}-${Date.now()}-${newId()}.json`);
		fs.writeFileSync(file, JSON.stringify(content, null, 2));
		return file;
	}

	/** A credential of this package's type; baseUrl defaults to the sandbox's. */
	documentSigningCredential(options: {
		apiKey: string;
		baseUrl?: string;
		id?: string;
		name?: string;
	}): CredentialImport {
		const baseUrl = options.baseUrl ?? this.sandboxBaseUrl;
		if (!baseUrl)
			throw new Error(
				'documentSigningCredential: give baseUrl or start the instance with sandboxBaseUrl',
			);
		return {
			id: options.id,
			name: options.name ?? 'Document Signing account',
			type: CREDENTIAL_TYPE,
			data: { baseUrl, apiKey: options.apiKey },
		};
	}

	/**
	 * `n8n import:credentials`: plain data in, stored encrypted with the instance's key.
	 * Resolves with the ids (generated where not given). The import file is deleted afterwards.
	 */
	async importCredentials(credentials: CredentialImport[]): Promise<string[]> {
		const now = new Date().toISOString();
		const entries = credentials.map((credential) => ({
			createdAt: now,
			updatedAt: now,
			...credential,
			id: credential.id ?? newId(),
		}));
		const file = this.writeImportFile('credentials', entries);
		try {
			await this.runCliOrFail(['import:credentials', `--input=${file}`]);
		} finally {
			fs.rmSync(file, { force: true });
		}
		return entries.map((entry) => entry.id);
	}

	/**
	 * `n8n import:workflow`: resolves with the workflow's id (its own, or a generated one).
	 * Imported workflows are inactive; see activate().
	 */
	async importWorkflow(workflow: Record<string, unknown>): Promise<string> {
		const id = typeof workflow.id === 'string' && workflow.id ? workflow.id : newId();
		const now = new Date().toISOString();
		const entry = {
			name: `e2e ${id}`,
			connections: {},
			settings: {},
			createdAt: now,
			updatedAt: now,
			...workflow,
			id,
			active: false,
		};
		const file = this.writeImportFile('workflow', entry);
		await this.runCliOrFail(['import:workflow', `--input=${file}`]);
		return id;
	}

	/**
	 * Runs a workflow once with `n8n execute --id` (from its manual trigger), with or without the
	 * server running. The command prints the run data as a log message both on success and on
	 * failure; it is read from the command's own JSON log lines on stdout. Throws only when the
	 * command produced no run data at all (the workflow does not exist, n8n could not start,
	 * n8n crashed before the end...).
	 */
	async execute(workflowId: string, options: { timeoutMs?: number } = {}): Promise<ExecuteResult> {
		const result = await this.runCli(['execute', `--id=${workflowId}`], {
			timeoutMs: options.timeoutMs,
			// The run data comes as an info message: keep info on, and JSON lines on stdout.
			env: {
				N8N_LOG_OUTPUT: 'console,file',
				N8N_LOG_FORMAT: 'json',
				...(['error', 'warn'].includes(this.options.logLevel ?? '')
					? { N8N_LOG_LEVEL: 'info' }
					: {}),
			},
		});
		let run: RunData | undefined;
		for (const entry of parseLogLines(result.stdout)) {
			if (typeof entry.message !== 'string' || !entry.message.startsWith('{')) continue;
			try {
				const candidate = JSON.parse(entry.message) as RunData;
				if (candidate?.data?.resultData?.runData) run = candidate;
			} catch {
				// another message
			}
		}
		// Older n8n printed it as plain pretty-printed JSON instead (a line "{" ... a line "}").
		run ??= plainRunData(result.stdout);
		if (!run) {
			this.fail(
				`\`n8n execute --id=${workflowId}\` printed no run data (exit ${result.code ?? result.signal})\n` +
					`--- its output ---\n${tailLines(result.stdout + result.stderr, 30)}`,
			);
		}
		const error = run.data.resultData.error;
		return {
			status: error ? 'error' : 'success',
			run,
			error,
			exitCode: result.code,
			signal: result.signal,
			output: result.stdout,
		};
	}

	/**
	 * Marks a workflow active with the CLI (takes effect at the next start): 2.x
	 * `n8n publish:workflow --id`, 1.x `n8n update:workflow --id --active=true`.
	 */
	async publishWithCli(workflowId: string): Promise<void> {
		await this.runCliOrFail(
			this.host.generation === 1
				? ['update:workflow', `--id=${workflowId}`, '--active=true']
				: ['publish:workflow', `--id=${workflowId}`],
		);
	}

	// -------------------------------------------------------------------------------------------
	// Server

	/**
	 * `n8n start`, bounded wait for GET /healthz/readiness, then the owner account
	 * (POST /rest/owner/setup, or POST /rest/login after a restart) and a public API key
	 * (POST /rest/api-keys with every scope the owner may grant).
	 */
	async start(): Promise<void> {
		if (this.server) throw new Error('n8n is already running');
		const timeoutMs = this.options.readyTimeoutMs ?? 120_000;
		const brokerPort = await freePort();
		const env = this.env({ N8N_RUNNERS_BROKER_PORT: String(brokerPort) });
		const outputStart = fs.existsSync(this.outputFile) ? fs.statSync(this.outputFile).size : 0;
		const output = fs.openSync(this.outputFile, 'a');
		fs.writeSync(output, `=== n8n start (port ${this.port}, runner broker ${brokerPort})\n`);
		const child = spawn(this.host.node, [this.host.n8nScript, 'start'], {
			cwd: this.userFolder,
			env,
			detached: true,
			stdio: ['ignore', output, output],
		});
		fs.closeSync(output);
		trackChild(child);
		this.server = child;
		let exited: string | undefined;
		this.serverExit = new Promise<void>((resolve) => {
			child.once('exit', (code, signal) => {
				exited = `exit ${code ?? signal}`;
				if (this.server === child) this.server = undefined;
				resolve();
			});
			child.once('error', (error) => {
				exited = `spawn error: ${error.message}`;
				if (this.server === child) this.server = undefined;
				resolve();
			});
		});

		const deadline = Date.now() + timeoutMs;
		let readyPath = '/healthz/readiness';
		for (;;) {
			if (exited) this.fail(`n8n start ended before it was ready (${exited})`);
			if (Date.now() > deadline) {
				await this.stop();
				this.fail(
					`n8n was not ready within ${timeoutMs} ms (${this.baseUrl}/healthz/readiness${readyPath === '/healthz/readiness' ? '' : ', then ' + readyPath})`,
				);
			}
			try {
				const response = await fetch(`${this.baseUrl}${readyPath}`, {
					signal: AbortSignal.timeout(2_000),
				});
				if (response.ok) {
					// 1.x answers readiness before it mounts its REST API (owner setup would be a 404):
					// wait for /rest/settings too.
					if (this.host.generation === 1 && readyPath === '/healthz/readiness') {
						readyPath = '/rest/settings';
						continue;
					}
					break;
				}
			} catch {
				// not listening yet
			}
			await sleep(250);
		}
		try {
			if (this.options.requirePackage !== false) this.checkPackageLoaded(outputStart);
			await this.signIn();
		} catch (error) {
			await this.stop();
			throw error;
		}
	}

	/** n8n logs a package it cannot load and starts without it: make that an error. */
	private checkPackageLoaded(outputStart: number): void {
		let output = '';
		try {
			output = fs.readFileSync(this.outputFile).subarray(outputStart).toString('utf8');
		} catch {
			// no output yet
		}
		const problem =
			output
				.split('\n')
				.find(
					(line) =>
						line.includes(`"${PACKAGE_NAME}"`) &&
						/Failed to load package|Skipping package/.test(line),
				) ?? (this.host.generation === 1 ? this.packageLoadProblems()[0] : undefined);
		if (problem)
			this.fail(`n8n did not load ${PACKAGE_NAME} from ${this.packageInstallDir}:\n${problem}`);
	}

	/**
	 * Warnings and errors in n8n's log (JSON lines) that name this package or its install folder:
	 * what n8n logs when it cannot load the package or one of its nodes or credentials. 2.x names
	 * the package ("Failed to load package"); 1.x logs the loader's error message alone, which
	 * names the file it could not load.
	 */
	packageLoadProblems(): string[] {
		return parseLogLines(readIfExists(this.logFile))
			.filter((entry) => entry.level === 'error' || entry.level === 'warn')
			.map(
				(entry) =>
					`${entry.level}: ${String(entry.message)} ${JSON.stringify(entry.metadata ?? {})}`,
			)
			.filter((line) => line.includes(PACKAGE_NAME) || line.includes(this.packageInstallDir));
	}

	private async signIn(): Promise<void> {
		const { email, password, firstName, lastName } = this.owner;
		let response = await this.fetchRaw('POST', '/rest/owner/setup', {
			email,
			password,
			firstName,
			lastName,
		});
		if (response.status === 400) {
			// Set up already (a restart): log in instead.
			response = await this.fetchRaw('POST', '/rest/login', {
				emailOrLdapLoginId: email,
				password,
			});
		}
		if (!response.ok)
			this.fail(`owner setup / login failed: HTTP ${response.status} ${await response.text()}`);
		const cookie = response.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
		if (!cookie) this.fail('owner setup / login set no n8n-auth cookie');
		this.authCookie = cookie.split(';')[0];
		if (!this.apiKey) {
			// API key scopes came with n8n 1.9x: older n8n has no /scopes (and its keys may do everything).
			const scopesResponse = await this.fetchRaw('GET', '/rest/api-keys/scopes');
			const scopes =
				scopesResponse.status === 404
					? undefined
					: scopesResponse.ok
						? ((await scopesResponse.json()) as { data: string[] }).data
						: this.fail(
								`GET /rest/api-keys/scopes: HTTP ${scopesResponse.status} ${await scopesResponse.text()}`,
							);
			const key = await this.rest<{ rawApiKey: string }>('POST', '/rest/api-keys', {
				label: `e2e harness ${new Date().toISOString()}`,
				...(scopes ? { scopes } : {}),
				expiresAt: null,
			});
			this.apiKey = key.rawApiKey;
		}
	}

	private async fetchRaw(
		method: string,
		urlPath: string,
		body?: unknown,
		headers: Record<string, string> = {},
	) {
		const url = `${this.baseUrl}${urlPath}`;
		try {
			return await fetch(url, {
				method,
				headers: {
					'browser-id': this.browserId,
					...(body === undefined ? {} : { 'content-type': 'application/json' }),
					...(this.authCookie ? { cookie: this.authCookie } : {}),
					...headers,
				},
				body: body === undefined ? undefined : JSON.stringify(body),
				signal: AbortSignal.timeout(30_000),
			});
		} catch (error) {
			return this.fail(`${method} ${url} failed: ${(error as Error).message}`);
		}
	}

	/** Headers of the owner's session, for endpoints outside /rest such as /types/nodes.json. */
	authHeaders(): Record<string, string> {
		if (!this.authCookie) throw new Error('n8n is not started');
		return { cookie: this.authCookie, 'browser-id': this.browserId };
	}

	private requireApiKey(): string {
		if (!this.apiKey) throw new Error('n8n is not started');
		return this.apiKey;
	}

	/** n8n's internal REST API (/rest/...) as the owner; resolves with the response's `data`. */
	async rest<T = any>(method: string, urlPath: string, body?: unknown): Promise<T> {
		if (!this.authCookie) throw new Error('n8n is not started');
		const response = await this.fetchRaw(method, urlPath, body);
		const text = await response.text();
		if (!response.ok) this.fail(`${method} ${urlPath}: HTTP ${response.status} ${text}`);
		return (text ? (JSON.parse(text) as { data: T }).data : undefined) as T;
	}

	/** n8n's public API (/api/v1/...) with the instance's API key; resolves with the JSON body. */
	async api<T = any>(method: string, urlPath: string, body?: unknown): Promise<T> {
		const response = await this.fetchRaw(method, `/api/v1${urlPath}`, body, {
			'X-N8N-API-KEY': this.requireApiKey(),
		});
		const text = await response.text();
		if (!response.ok) this.fail(`${method} /api/v1${urlPath}: HTTP ${response.status} ${text}`);
		return (text ? JSON.parse(text) : undefined) as T;
	}

	/**
	 * How far activating the triggers got. 2.x: GET /rest/workflows/{id}/publication-status. 1.x
	 * has no publication (activation is synchronous): the same shape from the workflow's `active`
	 * and GET /rest/active-workflows/error/{id} (the last activation error); `published` when
	 * active, `failed` when the last activation failed, else `not_published`, and one entry in
	 * `triggers` per Document Signing Trigger or other trigger node, all with the same error.
	 */
	async publicationStatus(workflowId: string): Promise<PublicationStatus> {
		if (this.host.generation === 2) {
			return await this.rest<PublicationStatus>(
				'GET',
				`/rest/workflows/${workflowId}/publication-status`,
			);
		}
		const workflow = await this.rest<{
			active: boolean;
			versionId?: string;
			nodes: Array<{ id: string; type: string }>;
		}>('GET', `/rest/workflows/${workflowId}`);
		const error = workflow.active
			? null
			: await this.rest<string | null>('GET', `/rest/active-workflows/error/${workflowId}`).catch(
					() => null,
				);
		const status = workflow.active ? 'published' : error ? 'failed' : 'not_published';
		const errorMessage = typeof error === 'string' ? error : error ? JSON.stringify(error) : null;
		return {
			status,
			liveVersionId: workflow.active ? (workflow.versionId ?? null) : null,
			pendingVersionId: null,
			triggers: workflow.nodes
				.filter(
					(node) =>
						/trigger|webhook/i.test(node.type) && node.type !== 'n8n-nodes-base.manualTrigger',
				)
				.map((node) => ({
					nodeId: node.id,
					status: status === 'published' ? 'active' : status,
					errorMessage,
				})),
		};
	}

	/** Whether the workflow is active (2.x: published) with its triggers running. */
	async isActive(workflowId: string): Promise<boolean> {
		return (await this.publicationStatus(workflowId)).status === 'published';
	}

	private async waitForPublication(
		workflowId: string,
		timeoutMs: number,
		what: string,
		reached: (status: PublicationStatus) => boolean,
	): Promise<PublicationStatus> {
		return await waitForState(() => this.publicationStatus(workflowId), reached, {
			timeoutMs,
			describe: (last) =>
				`${what} of workflow ${workflowId} did not settle within ${timeoutMs} ms: ${JSON.stringify(last)}`,
			onTimeout: (message) => this.fail(message),
		});
	}

	/**
	 * Activates a workflow and waits until its triggers are active. 2.x ("publish"): POST
	 * /api/v1/workflows/{id}/publish, after which n8n activates the triggers asynchronously (a
	 * publication outbox) and this waits for it. 1.x: POST /api/v1/workflows/{id}/activate, which
	 * answers once the triggers are active (400 with the trigger's error when one fails). Unless
	 * `allowFailure`, fails when a trigger did not activate (the trigger's error message is in
	 * `triggers[].errorMessage`).
	 */
	async activate(
		workflowId: string,
		options: { allowFailure?: boolean; timeoutMs?: number } = {},
	): Promise<PublicationStatus> {
		if (this.host.generation === 1) {
			const response = await this.fetchRaw(
				'POST',
				`/api/v1/workflows/${workflowId}/activate`,
				undefined,
				{
					'X-N8N-API-KEY': this.requireApiKey(),
				},
			);
			const text = await response.text();
			if (!response.ok && !(response.status === 400 && options.allowFailure)) {
				this.fail(`activating workflow ${workflowId}: HTTP ${response.status} ${text}`);
			}
			const status = await this.publicationStatus(workflowId);
			if (!response.ok && status.status !== 'published') {
				const message = (() => {
					try {
						return (JSON.parse(text) as { message?: string }).message ?? text;
					} catch {
						return text;
					}
				})();
				return {
					...status,
					status: 'failed',
					triggers: status.triggers.map((t) => ({ ...t, status: 'failed', errorMessage: message })),
				};
			}
			return status;
		}
		await this.api('POST', `/workflows/${workflowId}/publish`, {});
		const status = await this.waitForPublication(
			workflowId,
			options.timeoutMs ?? 30_000,
			'activation',
			activationSettled,
		);
		if (status.status !== 'published' && !options.allowFailure) {
			this.fail(
				`activating workflow ${workflowId} ended "${status.status}": ${JSON.stringify(status.triggers)}`,
			);
		}
		return status;
	}

	/**
	 * Deactivates a workflow (2.x: "unpublishes", POST /api/v1/workflows/{id}/unpublish, then waits
	 * until its triggers are removed; 1.x: POST /api/v1/workflows/{id}/deactivate, synchronous).
	 */
	async deactivate(
		workflowId: string,
		options: { timeoutMs?: number } = {},
	): Promise<PublicationStatus> {
		if (this.host.generation === 1) {
			await this.api('POST', `/workflows/${workflowId}/deactivate`);
			return await this.publicationStatus(workflowId);
		}
		await this.api('POST', `/workflows/${workflowId}/unpublish`);
		return await this.waitForPublication(
			workflowId,
			options.timeoutMs ?? 30_000,
			'deactivation',
			deactivationSettled,
		);
	}

	/**
	 * The credential's Test button for a saved credential, as the editor calls it (both
	 * generations): GET /rest/credentials/{id}?includeData=true (the key comes back redacted; n8n
	 * puts the stored one back before testing), then POST /rest/credentials/test with
	 * `{ credentials: { id, name, type, data } }`, `data` overlaid with `edit` (what the user typed).
	 */
	async testCredential(
		credentialId: string,
		edit: Record<string, unknown> = {},
	): Promise<{ status: 'OK' | 'Error'; message: string }> {
		const stored = await this.rest<{
			id: string;
			name: string;
			type: string;
			data: Record<string, unknown>;
		}>('GET', `/rest/credentials/${credentialId}?includeData=true`);
		return await this.rest('POST', '/rest/credentials/test', {
			credentials: {
				id: stored.id,
				name: stored.name,
				type: stored.type,
				data: { ...stored.data, ...edit },
			},
		});
	}

	/** Executions, newest first, with their full run data (GET /api/v1/executions). */
	async executions(query: ExecutionsQuery = {}): Promise<Execution[]> {
		const params = new URLSearchParams({
			includeData: String(query.includeData ?? true),
			limit: String(query.limit ?? 100),
		});
		if (query.workflowId) params.set('workflowId', query.workflowId);
		if (query.status) params.set('status', query.status);
		const body = await this.api<{ data: Execution[] }>('GET', `/executions?${params.toString()}`);
		// Older n8n's public API has no `status`: derived from `finished`, `stoppedAt`, `waitTill`
		// and the run data's error (without run data a stopped, unfinished execution is `error`).
		for (const execution of body.data) {
			if (execution.status !== undefined) continue;
			execution.status = execution.data?.resultData?.error
				? 'error'
				: execution.finished
					? 'success'
					: execution.waitTill
						? 'waiting'
						: execution.stoppedAt
							? 'error'
							: 'running';
		}
		return body.data;
	}

	/**
	 * Waits (bounded) until at least `count` finished executions of a workflow exist, e.g. after
	 * calling a trigger's production webhook; resolves with them, newest first.
	 */
	async waitForExecutions(
		workflowId: string,
		options: { count?: number; timeoutMs?: number } = {},
	): Promise<Execution[]> {
		const count = options.count ?? 1;
		const timeoutMs = options.timeoutMs ?? 30_000;
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const finished = (await this.executions({ workflowId })).filter(
				(execution) => !['new', 'running', 'waiting'].includes(execution.status),
			);
			if (finished.length >= count) return finished;
			if (Date.now() > deadline) {
				this.fail(
					`${finished.length} of ${count} executions of workflow ${workflowId} after ${timeoutMs} ms`,
				);
			}
			await sleep(250);
		}
	}

	/** Production webhook URL: `<WEBHOOK_URL>webhook/<path>` (path as n8n shows it, e.g. `<webhookId>/webhook`). */
	productionWebhookUrl(webhookPath: string): string {
		return `${this.baseUrl}/webhook/${webhookPath.replace(/^\/+/, '')}`;
	}

	/** SIGTERM to the server's process group, SIGKILL after the bound. Safe to call twice. */
	async stop(): Promise<void> {
		const child = this.server;
		const exit = this.serverExit;
		if (!child || !exit) return;
		const timeoutMs = this.options.stopTimeoutMs ?? 20_000;
		if (child.pid !== undefined) killGroup(child.pid, 'SIGTERM');
		if (!(await settlesWithin(exit, timeoutMs)) && child.pid !== undefined) {
			fs.appendFileSync(this.outputFile, `=== n8n did not stop within ${timeoutMs} ms: SIGKILL\n`);
			killGroup(child.pid, 'SIGKILL');
			await settlesWithin(exit, 5_000);
		}
		this.server = undefined;
		this.serverExit = undefined;
		this.authCookie = undefined;
	}

	/** stop() then start(): same user folder, port, database, API key. */
	async restart(): Promise<void> {
		await this.stop();
		await this.start();
	}

	/** stop(), then removes the user folder if this instance made it (unless kept). */
	async dispose(): Promise<void> {
		await this.stop();
		const keep = this.options.keepUserFolder || process.env.N8N_E2E_KEEP === '1';
		if (this.ownsUserFolder && !keep) fs.rmSync(this.userFolder, { recursive: true, force: true });
	}
}

/** Prepares an instance without starting the server (CLI commands work already). */
export async function createN8n(options: N8nOptions = {}): Promise<N8nInstance> {
	return await N8nInstance.create(options);
}

/** Prepares an instance and starts the server (ready, owner set up, API key made). */
export async function startN8n(options: N8nOptions = {}): Promise<N8nInstance> {
	const instance = await N8nInstance.create(options);
	try {
		await instance.start();
	} catch (error) {
		await instance.dispose();
		throw error;
	}
	return instance;
}
