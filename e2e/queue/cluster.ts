/**
 * n8n in queue mode for the end-to-end tests: Redis, PostgreSQL, and n8n as one main process, N
 * workers and M webhook processors, every one with this package installed. Composes the real-n8n
 * harness (../harness/n8n.ts): each process is an N8nInstance (its own user folder, log files and
 * installed package, the same encryption key); the main one is started by the harness, workers
 * (`n8n worker`) and webhook processors (`n8n webhook`) here.
 *
 *   const cluster = await startQueueCluster({ workers: 2, webhookProcessors: 1, sandboxBaseUrl });
 *   await cluster.main.importCredentials(...);  await cluster.main.activate(workflowId);
 *   await fetch(cluster.productionWebhookUrl(`${webhookId}/webhook`), ...);   // webhook processor 0
 *   cluster.executionsByWorker();               // which worker ran which execution (from their logs)
 *   await cluster.dispose();
 *
 * What queue mode needs, as n8n 2.41 reads it (@n8n/config):
 * - EXECUTIONS_MODE=queue everywhere; QUEUE_BULL_REDIS_HOST/PORT: the private Redis of
 *   scripts/redis.sh (Bull's job queue and n8n's pub/sub between the processes).
 * - One database for all: DB_TYPE=postgresdb, DB_POSTGRESDB_*: the private cluster of
 *   scripts/postgres.sh. (n8n 2.41 warns "Scaling mode is not officially supported with sqlite.
 *   Please use PostgreSQL instead.") Debian 12's PostgreSQL is 15: n8n 2.41 logs "Postgres 15 is
 *   not supported. n8n supports Postgres 17 and newer, with 16 on compatibility support." and
 *   works. DB_POSTGRESDB_POOL_SIZE=10 (default 2) so that bursts of deliveries do not wait for a
 *   connection.
 * - The same N8N_ENCRYPTION_KEY everywhere (credentials are decrypted by the workers).
 * - N8N_WEBHOOK_URL (the public base of production webhooks, what the trigger registers with the
 *   service) = webhook processor 0; N8N_DISABLE_PRODUCTION_MAIN_PROCESS=true, so the main process
 *   answers no production webhook at all and every delivery has to go through a webhook processor.
 * - Workers: `n8n worker`, QUEUE_HEALTH_CHECK_ACTIVE=true on their own port (GET /healthz/readiness
 *   says when they are connected to the DB and Redis), each with its own task-runner broker port.
 *
 * Every child process runs in its own process group, is killed on dispose() and when this process
 * exits; Redis and PostgreSQL are stopped by their scripts then too. Every wait is bounded and
 * fails with the end of the process's log.
 *
 * Nothing here depends on jest.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { createN8n, freePort, type N8nInstance, type N8nOptions } from '../harness/n8n';
import {
	killGroup,
	onProcessEnd,
	readIfExists,
	settlesWithin,
	sleep,
	tailLines,
	trackChild,
} from '../harness/processes';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const REDIS_SCRIPT = path.join(REPO_ROOT, 'scripts', 'redis.sh');
const POSTGRES_SCRIPT = path.join(REPO_ROOT, 'scripts', 'postgres.sh');

export interface QueueClusterOptions {
	/** `n8n worker` processes. Default 2. */
	workers?: number;
	/** `n8n webhook` processes started with the cluster. Default 1. */
	webhookProcessors?: number;
	/** Base URL of the sandbox API (default baseUrl of documentSigningCredential()). */
	sandboxBaseUrl?: string;
	/** Jobs one worker runs at once (N8N_CONCURRENCY_PRODUCTION_LIMIT). Default 10 (n8n's default). */
	workerConcurrency?: number;
	/** N8N_LOG_LEVEL of every process. Default info ("Worker started execution …" is info). */
	logLevel?: N8nOptions['logLevel'];
	/** Extra environment for every process. */
	env?: Record<string, string | undefined>;
	/** Bound for one process to become ready. Default 180 s (a loaded 2-core machine). */
	readyTimeoutMs?: number;
}

export interface ServiceInstance {
	dir: string;
	port: number;
}

type Role = 'worker' | 'webhook';

/** One `n8n worker` or `n8n webhook` process, with the N8nInstance that holds its folder and env. */
export class QueueProcess {
	readonly role: Role;
	readonly name: string;
	readonly instance: N8nInstance;
	/** The port it listens on: the health server of a worker, the webhook server of a processor. */
	readonly port: number;
	private child?: ChildProcess;
	private exit?: Promise<void>;
	private exited?: string;

	constructor(role: Role, name: string, instance: N8nInstance) {
		this.role = role;
		this.name = name;
		this.instance = instance;
		this.port = instance.port;
	}

	/** http://127.0.0.1:<port> */
	get baseUrl(): string {
		return this.instance.baseUrl;
	}

	get pid(): number | undefined {
		return this.child?.pid;
	}

	get running(): boolean {
		return this.child !== undefined && this.exited === undefined;
	}

	/** Production webhook URL on this process (webhook processors only). */
	productionWebhookUrl(webhookPath: string): string {
		return `${this.baseUrl}/webhook/${webhookPath.replace(/^\/+/, '')}`;
	}

	/** Spawns the process and waits (bounded) for GET /healthz/readiness. */
	async start(env: Record<string, string | undefined>, timeoutMs: number): Promise<void> {
		if (this.running) throw new Error(`${this.name} is already running`);
		const brokerPort = await freePort();
		const processEnv = this.instance.env({ ...env, N8N_RUNNERS_BROKER_PORT: String(brokerPort) });
		const output = fs.openSync(this.instance.outputFile, 'a');
		fs.writeSync(
			output,
			`=== n8n ${this.role} (${this.name}, port ${this.port}, runner broker ${brokerPort})\n`,
		);
		const child = spawn(this.instance.host.node, [this.instance.host.n8nScript, this.role], {
			cwd: this.instance.userFolder,
			env: processEnv,
			detached: true,
			stdio: ['ignore', output, output],
		});
		fs.closeSync(output);
		trackChild(child);
		this.child = child;
		this.exited = undefined;
		this.exit = new Promise<void>((resolve) => {
			child.once('exit', (code, signal) => {
				this.exited = `exit ${code ?? signal}`;
				resolve();
			});
			child.once('error', (error) => {
				this.exited = `spawn error: ${error.message}`;
				resolve();
			});
		});
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			if (this.exited) this.fail(`${this.name} ended before it was ready (${this.exited})`);
			if (Date.now() > deadline) {
				await this.stop();
				this.fail(
					`${this.name} was not ready within ${timeoutMs} ms (${this.baseUrl}/healthz/readiness)`,
				);
			}
			try {
				const response = await fetch(`${this.baseUrl}/healthz/readiness`, {
					signal: AbortSignal.timeout(2_000),
				});
				if (response.ok) break;
			} catch {
				// not listening yet
			}
			await sleep(300);
		}
		const problem = readIfExists(this.instance.outputFile)
			.split('\n')
			.find(
				(line) =>
					line.includes('"n8n-nodes-document-signing"') &&
					/Failed to load package|Skipping package/.test(line),
			);
		if (problem) {
			await this.stop();
			this.fail(`${this.name} did not load the package: ${problem}`);
		}
	}

	/** SIGTERM to its process group; SIGKILL after 20 s. */
	async stop(): Promise<void> {
		const child = this.child;
		const exit = this.exit;
		if (!child || !exit) return;
		if (child.pid !== undefined) killGroup(child.pid, 'SIGTERM');
		if (!(await settlesWithin(exit, 20_000)) && child.pid !== undefined) {
			killGroup(child.pid, 'SIGKILL');
			await settlesWithin(exit, 5_000);
		}
		this.child = undefined;
		this.exit = undefined;
	}

	/** Its n8n log (JSON lines) and console output. */
	logText(): string {
		return this.instance.logText();
	}

	fail(message: string): never {
		const output = tailLines(readIfExists(this.instance.outputFile), 40);
		throw new Error(`${message}\n--- last lines of ${this.instance.outputFile} ---\n${output}`);
	}
}

export class QueueCluster {
	readonly redis: ServiceInstance;
	readonly postgres: ServiceInstance;
	readonly main: N8nInstance;
	readonly workers: QueueProcess[];
	readonly webhookProcessors: QueueProcess[];
	/** The environment every process shares (queue, Redis, DB, webhook URL). */
	readonly sharedEnv: Record<string, string | undefined>;
	private readonly options: QueueClusterOptions;
	private readonly workDir: string;
	private disposed = false;

	constructor(parts: {
		redis: ServiceInstance;
		postgres: ServiceInstance;
		main: N8nInstance;
		workers: QueueProcess[];
		webhookProcessors: QueueProcess[];
		sharedEnv: Record<string, string | undefined>;
		options: QueueClusterOptions;
		workDir: string;
	}) {
		this.redis = parts.redis;
		this.postgres = parts.postgres;
		this.main = parts.main;
		this.workers = parts.workers;
		this.webhookProcessors = parts.webhookProcessors;
		this.sharedEnv = parts.sharedEnv;
		this.options = parts.options;
		this.workDir = parts.workDir;
	}

	/** Production webhook URL as n8n hands it out (N8N_WEBHOOK_URL): on webhook processor 0. */
	productionWebhookUrl(webhookPath: string): string {
		return this.webhookProcessors[0].productionWebhookUrl(webhookPath);
	}

	/**
	 * Starts one more webhook processor (on a port of its own, not the one N8N_WEBHOOK_URL names):
	 * what a second replica behind a load balancer would be. `env` adds to the shared environment.
	 */
	async addWebhookProcessor(env: Record<string, string | undefined> = {}): Promise<QueueProcess> {
		const processor = await makeProcess(
			'webhook',
			`webhook-${this.webhookProcessors.length}`,
			this.main.encryptionKey,
			this.options,
		);
		this.webhookProcessors.push(processor);
		await processor.start({ ...this.sharedEnv, ...env }, this.options.readyTimeoutMs ?? 180_000);
		return processor;
	}

	/**
	 * Which worker ran which execution: the ids each worker logged as "Worker started execution
	 * <id>", by worker name.
	 */
	executionsByWorker(): Record<string, string[]> {
		const result: Record<string, string[]> = {};
		for (const worker of this.workers)
			result[worker.name] = startedExecutions(worker.instance.logFile);
		return result;
	}

	/** Runs SQL on the shared database with psql; resolves with its unaligned output (`-At`). */
	async sql(query: string): Promise<string> {
		return await new Promise((resolve, reject) => {
			execFile(
				psqlBinary(),
				[
					'-h',
					'127.0.0.1',
					'-p',
					String(this.postgres.port),
					'-U',
					'n8n',
					'-d',
					'n8n',
					'-At',
					'-v',
					'ON_ERROR_STOP=1',
					'-c',
					query,
				],
				{ timeout: 30_000, env: { ...process.env, PGCONNECT_TIMEOUT: '10' } },
				(error, stdout, stderr) =>
					error ? reject(new Error(`psql: ${error.message}\n${stderr}`)) : resolve(stdout),
			);
		});
	}

	/** The workflow's static data as stored in the database (what every process reads). */
	async storedStaticData(workflowId: string): Promise<Record<string, any>> {
		if (!/^[A-Za-z0-9]+$/.test(workflowId)) throw new Error(`unexpected workflow id ${workflowId}`);
		const text = (
			await this.sql(`SELECT "staticData" FROM workflow_entity WHERE id = '${workflowId}'`)
		).trim();
		return text ? (JSON.parse(text) as Record<string, any>) : {};
	}

	/** Stops every n8n process, then Redis and PostgreSQL, and removes the folders. Safe to call twice. */
	async dispose(): Promise<void> {
		if (this.disposed) return;
		this.disposed = true;
		await Promise.all(
			[...this.webhookProcessors, ...this.workers].map(async (p) => await p.stop()),
		);
		await this.main.stop();
		const keep = process.env.N8N_E2E_KEEP === '1';
		if (!keep) {
			for (const p of [...this.webhookProcessors, ...this.workers]) await p.instance.dispose();
			await this.main.dispose();
		}
		stopServices(this.workDir, keep);
	}
}

// ---------------------------------------------------------------------------------------------

/**
 * Starts Redis and PostgreSQL (scripts/redis.sh, scripts/postgres.sh), then the main process
 * (migrations, owner, API key), then the workers and webhook processors. Use `beforeStart` to
 * import credentials and workflows with the CLI before the main process runs (no server needed).
 */
export async function startQueueCluster(
	options: QueueClusterOptions & { beforeStart?: (main: N8nInstance) => Promise<void> } = {},
): Promise<QueueCluster> {
	const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-queue-'));
	// PostgreSQL runs as user postgres when this is root: it must reach the folder.
	fs.chmodSync(workDir, 0o755);
	if (!servicesCleanupRegistered) {
		servicesCleanupRegistered = true;
		// If this process ends before dispose(): stop Redis and PostgreSQL too (the n8n children are killed already).
		onProcessEnd(() => {
			for (const dir of [...services]) stopServices(dir, false);
		});
	}
	services.add(workDir);
	const readyTimeoutMs = options.readyTimeoutMs ?? 180_000;
	const created: N8nInstance[] = [];
	try {
		const [redisPort, postgresPort] = await Promise.all([
			runScript(REDIS_SCRIPT, ['start', path.join(workDir, 'redis')]),
			runScript(POSTGRES_SCRIPT, ['start', path.join(workDir, 'postgres')]),
		]);
		const redis = { dir: path.join(workDir, 'redis'), port: Number(redisPort) };
		const postgres = { dir: path.join(workDir, 'postgres'), port: Number(postgresPort) };

		const encryptionKey = randomBytes(24).toString('hex');
		const webhookProcessors: QueueProcess[] = [];
		for (let i = 0; i < (options.webhookProcessors ?? 1); i++) {
			webhookProcessors.push(await makeProcess('webhook', `webhook-${i}`, encryptionKey, options));
		}
		if (webhookProcessors.length === 0)
			throw new Error('startQueueCluster: at least one webhook processor is needed');
		const workers: QueueProcess[] = [];
		for (let i = 0; i < (options.workers ?? 2); i++) {
			workers.push(await makeProcess('worker', `worker-${i}`, encryptionKey, options));
		}
		created.push(...webhookProcessors.map((p) => p.instance), ...workers.map((p) => p.instance));

		const sharedEnv: Record<string, string | undefined> = {
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(postgres.port),
			DB_POSTGRESDB_DATABASE: 'n8n',
			DB_POSTGRESDB_USER: 'n8n',
			DB_POSTGRESDB_PASSWORD: '',
			// n8n's default pool is 2 connections per process: a burst of deliveries then queues for a
			// connection in the webhook processor past the service's 10 s delivery timeout.
			DB_POSTGRESDB_POOL_SIZE: '10',
			N8N_WEBHOOK_URL: `${webhookProcessors[0].baseUrl}/`,
			N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
			N8N_CONCURRENCY_PRODUCTION_LIMIT: String(options.workerConcurrency ?? 10),
			QUEUE_HEALTH_CHECK_ACTIVE: 'true',
			N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
			...options.env,
		};
		const main = await createN8n({
			sandboxBaseUrl: options.sandboxBaseUrl,
			encryptionKey,
			logLevel: options.logLevel ?? 'info',
			readyTimeoutMs,
			env: sharedEnv,
		});
		created.push(main);
		await options.beforeStart?.(main);
		await main.start();
		// The main process has run the migrations: the others can start side by side.
		await Promise.all(
			[...workers, ...webhookProcessors].map(
				async (p) =>
					// A worker's health server listens on its instance's port; a processor's webhook server too.
					await p.start({ ...sharedEnv, QUEUE_HEALTH_CHECK_PORT: String(p.port) }, readyTimeoutMs),
			),
		);
		return new QueueCluster({
			redis,
			postgres,
			main,
			workers,
			webhookProcessors,
			sharedEnv,
			options,
			workDir,
		});
	} catch (error) {
		for (const instance of created) await instance.dispose().catch(() => undefined);
		stopServices(workDir, false);
		throw error;
	}
}

async function makeProcess(
	role: Role,
	name: string,
	encryptionKey: string,
	options: QueueClusterOptions,
): Promise<QueueProcess> {
	const instance = await createN8n({
		sandboxBaseUrl: options.sandboxBaseUrl,
		encryptionKey,
		logLevel: options.logLevel ?? 'info',
	});
	return new QueueProcess(role, name, instance);
}

/** Debian's psql of the newest installed PostgreSQL (the one scripts/postgres.sh runs), else `psql`. */
function psqlBinary(): string {
	const root = '/usr/lib/postgresql';
	let majors: string[] = [];
	try {
		majors = fs.readdirSync(root).sort((a, b) => Number(b) - Number(a));
	} catch {
		// not Debian's layout
	}
	for (const major of majors) {
		const candidate = path.join(root, major, 'bin', 'psql');
		if (fs.existsSync(candidate)) return candidate;
	}
	return 'psql';
}

/** Execution ids a worker logged as started ("Worker started execution <id> (job <n>)"). */
export function startedExecutions(logFile: string): string[] {
	const ids: string[] = [];
	for (const line of readIfExists(logFile).split('\n')) {
		if (!line.includes('Worker started execution')) continue;
		try {
			const entry = JSON.parse(line) as { message?: string; metadata?: { executionId?: unknown } };
			const id =
				entry.metadata?.executionId ??
				/Worker started execution (\S+)/.exec(entry.message ?? '')?.[1];
			if (id !== undefined) ids.push(String(id));
		} catch {
			const match = /Worker started execution (\S+)/.exec(line);
			if (match) ids.push(match[1]);
		}
	}
	return ids;
}

// ---------------------------------------------------------------------------------------------
// Redis and PostgreSQL through the project's scripts

/** Installs Redis and PostgreSQL if missing (apt-get; minutes on a fresh machine). */
export function ensureQueueServices(): void {
	for (const script of [REDIS_SCRIPT, POSTGRES_SCRIPT]) {
		execFileSync('bash', [script, 'ensure'], {
			stdio: ['ignore', 'inherit', 'inherit'],
			timeout: 20 * 60_000,
		});
	}
}

async function runScript(script: string, args: string[]): Promise<string> {
	return await new Promise((resolve, reject) => {
		execFile('bash', [script, ...args], { timeout: 10 * 60_000 }, (error, stdout, stderr) => {
			if (error)
				reject(
					new Error(
						`${path.basename(script)} ${args.join(' ')} failed: ${error.message}\n${stderr}`,
					),
				);
			else resolve(stdout.trim().split('\n').pop() ?? '');
		});
	});
}

/** Work folders whose Redis/PostgreSQL still run. */
const services = new Set<string>();
let servicesCleanupRegistered = false;

function stopServices(workDir: string, keep: boolean): void {
	if (!services.delete(workDir)) return;
	for (const [script, sub] of [
		[REDIS_SCRIPT, 'redis'],
		[POSTGRES_SCRIPT, 'postgres'],
	] as const) {
		try {
			execFileSync('bash', [script, 'stop', path.join(workDir, sub)], {
				stdio: 'ignore',
				timeout: 60_000,
			});
		} catch {
			// reported by the next start, if it matters
		}
	}
	if (!keep) fs.rmSync(workDir, { recursive: true, force: true });
}
