/**
 * `npm run dev` (after scripts/dev.sh has installed the dependencies and built the package):
 * the sandbox API and a real n8n with this package, ready to use in a browser.
 *
 * 1. Starts the sandbox in this process (127.0.0.1:SANDBOX_PORT, default 4010), its data kept in
 *    .n8n-dev/sandbox.json across restarts.
 * 2. Prepares the pinned n8n (installed on first use by the harness, into a cache outside the
 *    clone) with a persistent user folder .n8n-dev/: the database, owner, encryption key,
 *    credentials and workflows survive restarts. The freshly built dist/ is installed each time.
 * 3. Imports the credential `documentSigningSandbox` ("Document Signing (sandbox)": the sandbox's
 *    base URL and demo key; re-imported each run, so it follows SANDBOX_PORT) and each workflow in
 *    examples/*.json under a fixed id — only when the file is new or changed since the last run,
 *    so re-running never duplicates them and keeps edits made in n8n to unchanged examples.
 * 4. Starts n8n on 127.0.0.1:N8N_PORT (default 5678) and prints where to open everything.
 * 5. Ctrl-C / SIGTERM stops n8n (gracefully, bounded; SIGKILL after) and then the sandbox. A second
 *    Ctrl-C kills n8n at once. n8n runs in its own process group, so nothing is left behind.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';

import { startSandbox, type Sandbox } from '../sandbox';
import { DEMO_API_KEY } from '../sandbox/store';
import {
	CREDENTIAL_TYPE,
	PACKAGE_NAME,
	TRIGGER_NODE_TYPE,
	createN8n,
	type N8nInstance,
} from '../e2e/harness/n8n';

const ROOT = path.resolve(__dirname, '..');
const DEV_DIR = path.resolve(ROOT, process.env.N8N_DEV_DIR ?? '.n8n-dev');
const EXAMPLES_DIR = path.join(ROOT, 'examples');
const STATE_FILE = path.join(DEV_DIR, 'dev-state.json');
const CREDENTIAL = { id: 'documentSigningSandbox', name: 'Document Signing (sandbox)' };

interface DevState {
	/** n8n public API key made on the first run (reused, so runs do not pile up keys). */
	apiKey?: string;
	/** Examples imported so far: file name → workflow id and the sha256 of the file then. */
	examples?: Record<string, { id: string; sha256: string }>;
}

function log(message: string): void {
	process.stdout.write(`[dev] ${message}\n`);
}

function portOption(name: string, fallback: number): number {
	const raw = process.env[name];
	if (raw === undefined || raw === '') return fallback;
	const port = Number(raw);
	if (!Number.isInteger(port) || port < 1 || port > 65535)
		throw new Error(`${name} must be a port number, got "${raw}"`);
	return port;
}

async function assertPortFree(port: number, what: string, variable: string): Promise<void> {
	await new Promise<void>((resolve, reject) => {
		const server = net.createServer();
		server.once('error', (error: NodeJS.ErrnoException) =>
			reject(
				new Error(
					error.code === 'EADDRINUSE'
						? `port ${port} (${what}) is in use — is another \`npm run dev\` running? Choose another with ${variable}=…`
						: `cannot listen on 127.0.0.1:${port} (${what}): ${error.message}`,
				),
			),
		);
		server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
	});
}

function readState(): DevState {
	try {
		return JSON.parse(fs.readFileSync(STATE_FILE, 'utf8')) as DevState;
	} catch {
		return {};
	}
}

function writeState(state: DevState): void {
	fs.writeFileSync(STATE_FILE, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

/** A stable n8n-style id (16 alphanumerics) for an example file without an id of its own. */
function stableId(seed: string): string {
	const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
	return [...createHash('sha256').update(seed).digest()]
		.slice(0, 16)
		.map((byte) => alphabet[byte % 62])
		.join('');
}

/** A stable UUID for a trigger node without a webhookId (its production URL must not change). */
function stableUuid(seed: string): string {
	const hex = createHash('sha256').update(seed).digest('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

interface ExampleImport {
	file: string;
	sha256: string;
	workflow: Record<string, any>;
}

/** examples/*.json that are new or changed since the last run, ready to import. */
function examplesToImport(state: DevState): {
	pending: ExampleImport[];
	all: Array<{ file: string; id: string; name: string }>;
} {
	const files = fs.existsSync(EXAMPLES_DIR)
		? fs
				.readdirSync(EXAMPLES_DIR)
				.filter((file) => file.endsWith('.json'))
				.sort()
		: [];
	const pending: ExampleImport[] = [];
	const all: Array<{ file: string; id: string; name: string }> = [];
	for (const file of files) {
		const text = fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8');
		const sha256 = createHash('sha256').update(text).digest('hex');
		let workflow: Record<string, any>;
		try {
			workflow = JSON.parse(text);
		} catch (error) {
			log(`skipping examples/${file}: not JSON (${(error as Error).message})`);
			continue;
		}
		if (!workflow || typeof workflow !== 'object' || !Array.isArray(workflow.nodes)) {
			log(`skipping examples/${file}: not a workflow (no "nodes" list)`);
			continue;
		}
		const id =
			typeof workflow.id === 'string' && workflow.id !== ''
				? workflow.id
				: stableId(`example:${file}`);
		const name =
			typeof workflow.name === 'string' && workflow.name
				? workflow.name
				: file.replace(/\.json$/, '');
		all.push({ file, id, name });
		if (state.examples?.[file]?.sha256 === sha256 && state.examples[file].id === id) continue;

		const now = new Date().toISOString();
		for (const node of workflow.nodes as Array<Record<string, any>>) {
			if (typeof node.type !== 'string' || !node.type.startsWith(`${PACKAGE_NAME}.`)) continue;
			// Every node of this package uses the sandbox credential imported above.
			node.credentials = { ...(node.credentials ?? {}), [CREDENTIAL_TYPE]: { ...CREDENTIAL } };
			if (node.type === TRIGGER_NODE_TYPE && !node.webhookId)
				node.webhookId = stableUuid(`${id}:${node.name}`);
		}
		pending.push({
			file,
			sha256,
			workflow: {
				connections: {},
				settings: {},
				createdAt: now,
				updatedAt: now,
				...workflow,
				id,
				name,
				active: false,
			},
		});
	}
	return { pending, all };
}

async function importExamples(
	n8n: N8nInstance,
	state: DevState,
): Promise<Array<{ file: string; id: string; name: string }>> {
	const { pending, all } = examplesToImport(state);
	if (pending.length === 0) {
		log(
			all.length
				? `examples: ${all.length} already imported and unchanged`
				: 'examples: none in examples/',
		);
		return all;
	}
	// One `n8n import:workflow --separate` for all of them (each CLI command takes seconds).
	const dir = path.join(n8n.userFolder, 'imports', `examples-${Date.now()}`);
	fs.mkdirSync(dir, { recursive: true });
	try {
		for (const entry of pending)
			fs.writeFileSync(path.join(dir, entry.file), JSON.stringify(entry.workflow, null, 2));
		const result = await n8n.runCli(['import:workflow', '--separate', `--input=${dir}`]);
		if (result.code !== 0) {
			throw new Error(
				`importing examples failed (exit ${result.code ?? result.signal}):\n${result.stderr.slice(-2000)}`,
			);
		}
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
	state.examples ??= {};
	for (const entry of pending) {
		const known = state.examples[entry.file];
		log(`${known ? 'updated' : 'imported'} example ${entry.file} as workflow ${entry.workflow.id}`);
		state.examples[entry.file] = { id: entry.workflow.id, sha256: entry.sha256 };
	}
	writeState(state);
	return all;
}

/**
 * The public API key: start() made one on the first run (saved here), later runs reuse the saved
 * one while it works (deleted in the UI → a new one), so runs do not pile up keys.
 */
async function ensureApiKey(n8n: N8nInstance, state: DevState): Promise<void> {
	if (n8n.apiKey && n8n.apiKey !== state.apiKey) {
		state.apiKey = n8n.apiKey;
		writeState(state);
		return;
	}
	try {
		await n8n.api('GET', '/workflows?limit=1');
		return;
	} catch {
		log('the saved n8n API key no longer works: making a new one');
	}
	const scopes = await n8n.rest<string[]>('GET', '/rest/api-keys/scopes');
	const key = await n8n.rest<{ rawApiKey: string }>('POST', '/rest/api-keys', {
		label: `npm run dev ${new Date().toISOString()}`,
		scopes,
		expiresAt: null,
	});
	n8n.apiKey = key.rawApiKey;
	state.apiKey = key.rawApiKey;
	writeState(state);
}

async function main(): Promise<void> {
	const started = Date.now();
	const n8nPort = portOption('N8N_PORT', 5678);
	const sandboxPort = portOption('SANDBOX_PORT', 4010);
	await assertPortFree(sandboxPort, 'sandbox', 'SANDBOX_PORT');
	await assertPortFree(n8nPort, 'n8n', 'N8N_PORT');
	fs.mkdirSync(DEV_DIR, { recursive: true });
	const state = readState();

	let sandbox: Sandbox | undefined;
	let n8n: N8nInstance | undefined;
	let stopping: Promise<void> | undefined;
	const stop = async (reason: string): Promise<void> => {
		stopping ??= (async () => {
			log(`${reason}: stopping n8n and the sandbox…`);
			await n8n?.stop();
			await sandbox?.close();
			log('stopped');
		})();
		return await stopping;
	};
	const stopAndExit = (reason: string, code: number) => {
		stop(reason).then(
			() => process.exit(code),
			(error) => {
				console.error(error);
				process.exit(1);
			},
		);
	};

	// Ctrl-C / SIGTERM / SIGHUP: stop gracefully; a second one kills n8n at once. The harness adds
	// handlers of its own when it spawns n8n (they SIGKILL its processes); once n8n runs, they are
	// replaced by these so that n8n shuts down gracefully (the harness's exit hook still kills
	// whatever is left if this process dies some other way).
	let signals = 0;
	const onSignal = (signal: NodeJS.Signals) => {
		signals += 1;
		if (signals === 1) return stopAndExit(signal, 0);
		log(`${signal} again: killing n8n`);
		if (n8n?.pid) process.kill(-n8n.pid, 'SIGKILL');
		process.exit(130);
	};
	const takeSignals = () => {
		for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
			process.removeAllListeners(signal);
			process.on(signal, onSignal);
		}
	};
	takeSignals();
	// `npm run dev` killed with SIGTERM exits without passing it on (its `sh -c` does not either):
	// a changed parent means whoever started us is gone. Also stop when n8n dies on its own.
	const parent = process.ppid;
	let serverStarted = false;
	const watch = setInterval(() => {
		if (stopping) return clearInterval(watch);
		if (process.ppid !== parent) return stopAndExit('parent process exited', 0);
		if (n8n?.pid === undefined && serverStarted) {
			console.error(`[dev] n8n stopped unexpectedly; see ${n8n?.outputFile}`);
			stopAndExit('n8n exited', 1);
		}
	}, 1000);

	try {
		const sandboxDataFile = process.env.SANDBOX_DATA_FILE || path.join(DEV_DIR, 'sandbox.json');
		sandbox = await startSandbox({
			port: sandboxPort,
			dataFile: sandboxDataFile,
			onError: (error) => console.error('[sandbox] internal error:', error),
		});
		log(`sandbox listening on ${sandbox.origin}`);

		log('preparing n8n (the first run installs the pinned n8n: 3 to 10 minutes)…');
		n8n = await createN8n({
			userFolder: DEV_DIR,
			port: n8nPort,
			sandboxBaseUrl: sandbox.baseUrl,
			logLevel:
				(process.env.N8N_LOG_LEVEL as 'error' | 'warn' | 'info' | 'debug' | undefined) ?? 'info',
		});
		if (state.apiKey) n8n.apiKey = state.apiKey;

		await n8n.importCredentials([
			n8n.documentSigningCredential({
				id: CREDENTIAL.id,
				name: CREDENTIAL.name,
				apiKey: DEMO_API_KEY,
			}),
		]);
		log(`credential "${CREDENTIAL.name}" (id ${CREDENTIAL.id}) → ${sandbox.baseUrl}`);
		const examples = await importExamples(n8n, state);

		log(`starting n8n on ${n8n.baseUrl}…`);
		await n8n.start();
		serverStarted = true;
		takeSignals();
		await ensureApiKey(n8n, state);

		const list = examples.map((e) => `    ${n8n!.baseUrl}/workflow/${e.id}  ${e.name}`).join('\n');
		process.stdout.write(`
Ready in ${Math.round((Date.now() - started) / 1000)} s.

n8n               ${n8n.baseUrl}
  sign in as      ${n8n.owner.email} / ${n8n.owner.password}
  credential      "${CREDENTIAL.name}" (id ${CREDENTIAL.id})
  examples${examples.length ? `\n${list}` : '        none (examples/*.json)'}
  API key         ${n8n.apiKey}  (header X-N8N-API-KEY, ${n8n.baseUrl}/api/v1)
  data and logs   ${path.relative(ROOT, DEV_DIR) || DEV_DIR}/ (n8n.log, n8n-output.log)

Sandbox API       ${sandbox.baseUrl}
  demo API key    ${sandbox.apiKey}
  signing pages   each document's signing_url (${sandbox.config().publicOrigin ?? sandbox.origin}/sign/<documentId>?token=…)
  admin           ${sandbox.origin}/__sandbox
  data file       ${path.relative(ROOT, sandboxDataFile) || sandboxDataFile}

Press Ctrl+C to stop both.
`);
	} catch (error) {
		if (stopping) return; // interrupted: the signal handler finishes the stop
		console.error(`[dev] ${error instanceof Error ? error.message : String(error)}`);
		stopAndExit('start-up failed', 1);
	}
}

main().catch((error) => {
	console.error(`[dev] ${error instanceof Error ? error.message : String(error)}`);
	process.exit(1);
});
