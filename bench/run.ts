/**
 * `npm run bench`: the node as users feel it, against what they would use instead, in real n8n
 * (the pinned one of the e2e harness) and against the sandbox (in this process). Prints markdown
 * tables on stdout (progress on stderr) and, for a full run at the default sizes, writes
 * bench/results/latest.json (and the tables beside it, latest.md). Figures are ratios taken within one run: these machines are noisy.
 *
 *   npm run bench                                   # everything, default sizes (~25-35 min)
 *   npm run bench -- --only bulk --items 200        # a quick partial run (no results file)
 *   npm run bench -- --only burst --burst-events 100 --no-queue   # the burst, regular mode only
 *   npm run bench -- --out /tmp/bench.json          # write the JSON elsewhere (any run)
 *   npm run bench -- --only sendAndWait --waits 200 # Send and Wait: 200 waits, then 200 completions
 *   npm run bench -- --only sendAndWaitBatch --out bench/results/send-and-wait-batch.json   # one wait for 1, 10, 100 documents (< 1 min)
 *   npm run bench -- --only poll --poll-events 60   # the trigger's Polling mode (~5 min: it waits for poll minutes)
 *   npm run bench -- --only pollCatchUp             # Polling catching up a backlog, in this process (no n8n started)
 *   npm run bench -- --only webhookCatchUp          # Webhook mode catching up after n8n was down (~5 min: catch-up minutes)
 *
 * Options: --only bulk,returnAll,trigger,burst,sendAndWait,sendAndWaitBatch,poll,pollCatchUp,webhookCatchUp  --items N (1000)  --rate R (50 requests/s)
 * --burst B (= rate)  --docs N (10000)  --events N (1000)  --event-rate R (5 events/s: see the README for higher rates)
 * --no-batching (skip contender b2)  --no-webhook-baseline (skip n8n's Webhook node in 3.)
 * --burst-events N (1000 events queued at once in 4.)  --burst-concurrency C (10: the sandbox's
 * deliveries in flight per webhook URL, 0 = unbounded)  --no-queue (skip queue mode in 4.: it
 * starts PostgreSQL, Redis and an n8n cluster twice)  --poll-events N (60 events polled in 6., from
 * ceil(N / 3) documents; the Webhook-mode comparison takes as many at --event-rate)  --catch-up N,M
 * (20000,100000: audit-log backlogs Polling catches up in 7., 1 ms apart)  --stall-entries N (20000
 * entries at one instant in one oversized page in 7.; 0 leaves that row out)  --out FILE.  BENCH_N8N_CPU_PROF=<dir> makes n8n write a CPU profile (diagnosis only).
 * Needs the package built (npm run build). pollCatchUp alone starts no n8n and no sandbox: it runs
 * the trigger in n8n-core's TriggerContext in this process, against bench/lib/auditLogServer.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { createN8n, ensureN8nHost, type N8nHost, type N8nInstance } from '../e2e/harness/n8n';
import { startSandbox, type Sandbox } from '../sandbox';
import { machineInfo, machineLine, type MachineInfo } from './lib/machine';
import { renderJson, renderMarkdown, type BenchResults } from './lib/report';
import { runBulk } from './scenarios/bulk';
import { runBurst } from './scenarios/burst';
import { runPoll } from './scenarios/poll';
import { runPollCatchUp } from './scenarios/pollCatchUp';
import { runReturnAll } from './scenarios/returnAll';
import { runSendAndWait } from './scenarios/sendAndWait';
import { runSendAndWaitBatch } from './scenarios/sendAndWaitBatch';
import { runTrigger } from './scenarios/trigger';
import { runWebhookCatchUp } from './scenarios/webhookCatchUp';

const DEFAULTS = {
	items: 1000,
	rate: 50,
	docs: 10_000,
	events: 1000,
	eventRate: 5,
	burstEvents: 1000,
	burstConcurrency: 10,
	waits: 200,
	pollEvents: 60,
	catchUp: [20_000, 100_000],
	stallEntries: 20_000,
	crowdEntries: 2_000,
	catchUpMaxPolls: 300,
	missedEvents: 30,
};
const SCENARIOS = [
	'bulk',
	'returnAll',
	'trigger',
	'burst',
	'sendAndWait',
	'sendAndWaitBatch',
	'poll',
	'pollCatchUp',
	'webhookCatchUp',
];
/** Scenarios that run in this process only: with nothing else chosen, no n8n (nor sandbox) is started. */
const IN_PROCESS = ['pollCatchUp'];
const RESULTS_FILE = path.join(__dirname, 'results', 'latest.json');
/**
 * The whole run is bounded; a stuck step fails the run instead of hanging it. (The burst's six
 * runs are bounded at 10 min each on top of the other scenarios.)
 */
const RUN_TIMEOUT_MS = 90 * 60_000;

function parseArgs(argv: string[]) {
	const value = (name: string) => {
		const index = argv.indexOf(`--${name}`);
		return index >= 0 ? argv[index + 1] : undefined;
	};
	const number = (name: string, fallback: number) => {
		const raw = value(name);
		if (raw === undefined) return fallback;
		const parsed = Number(raw);
		if (!Number.isFinite(parsed) || parsed <= 0)
			throw new Error(`--${name} must be a positive number`);
		return parsed;
	};
	const only =
		value('only')
			?.split(',')
			.map((s) => s.trim()) ?? SCENARIOS;
	for (const name of only)
		if (!SCENARIOS.includes(name)) throw new Error(`unknown scenario ${name}`);
	// 0 is a meaning here (the sandbox's "unbounded").
	const burstConcurrency = Number(value('burst-concurrency') ?? DEFAULTS.burstConcurrency);
	if (!Number.isInteger(burstConcurrency) || burstConcurrency < 0)
		throw new Error('--burst-concurrency must be a whole number >= 0');
	const catchUp =
		value('catch-up')
			?.split(',')
			.map((s) => Number(s.trim())) ?? DEFAULTS.catchUp;
	if (catchUp.some((n) => !Number.isInteger(n) || n <= 0))
		throw new Error('--catch-up must be whole numbers > 0, separated by commas');
	// 0 is a meaning here (no stall row).
	const stallEntries = Number(value('stall-entries') ?? DEFAULTS.stallEntries);
	if (!Number.isInteger(stallEntries) || stallEntries < 0)
		throw new Error('--stall-entries must be a whole number >= 0');
	const items = number('items', DEFAULTS.items);
	const rate = number('rate', DEFAULTS.rate);
	const args = {
		only,
		items,
		rate,
		burst: number('burst', rate),
		docs: number('docs', DEFAULTS.docs),
		events: number('events', DEFAULTS.events),
		eventRate: number('event-rate', DEFAULTS.eventRate),
		withBatching: !argv.includes('--no-batching'),
		withWebhookBaseline: !argv.includes('--no-webhook-baseline'),
		burstEvents: number('burst-events', DEFAULTS.burstEvents),
		burstConcurrency,
		withQueue: !argv.includes('--no-queue'),
		waits: number('waits', DEFAULTS.waits),
		pollEvents: number('poll-events', DEFAULTS.pollEvents),
		catchUp,
		stallEntries,
		out: value('out'),
	};
	const full =
		SCENARIOS.every((name) => only.includes(name)) &&
		args.items === DEFAULTS.items &&
		args.rate === DEFAULTS.rate &&
		args.burst === DEFAULTS.rate &&
		args.docs === DEFAULTS.docs &&
		args.events === DEFAULTS.events &&
		args.eventRate === DEFAULTS.eventRate &&
		args.withBatching &&
		args.withWebhookBaseline &&
		args.burstEvents === DEFAULTS.burstEvents &&
		args.burstConcurrency === DEFAULTS.burstConcurrency &&
		args.waits === DEFAULTS.waits &&
		args.pollEvents === DEFAULTS.pollEvents &&
		args.catchUp.join() === DEFAULTS.catchUp.join() &&
		args.stallEntries === DEFAULTS.stallEntries &&
		args.withQueue;
	return { ...args, full };
}

/**
 * The machine of a run with no n8n started (in-process scenarios only): n8n-core's version in this
 * process stands for n8n's, this Node for the n8n host's.
 */
function inProcessMachine(): MachineInfo {
	let core = 'unknown';
	try {
		const manifest = path.join(__dirname, '..', 'node_modules', 'n8n-core', 'package.json');
		core = (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string }).version;
	} catch {
		// reported as unknown
	}
	const here: Pick<N8nHost, 'node' | 'dir'> = { node: process.execPath, dir: '' };
	return {
		...machineInfo(here as N8nHost),
		n8nNode: process.version,
		n8nVersion: `(none started; n8n-core ${core} in process)`,
	};
}

/**
 * The trigger and the Webhook node again in an n8n on its legacy expression engine. On its default
 * engine (vm) n8n 2.41 takes an expression isolate for the webhook phase of every node type but its
 * own Webhook node (live-webhooks.js, webhookPhaseNeedsIsolate), which costs any other trigger the
 * same; the legacy engine has no isolates, so this pair shows the trigger's own cost.
 */
async function triggerWithLegacyEngine(
	{ sandbox, log }: { sandbox: Sandbox; log: (message: string) => void },
	args: ReturnType<typeof parseArgs>,
) {
	const legacy = await createN8n({
		sandboxBaseUrl: sandbox.baseUrl,
		logLevel: 'warn',
		env: { N8N_EXPRESSION_ENGINE: 'legacy' },
	});
	try {
		await legacy.start();
		const ctx = { sandbox, n8n: legacy, log };
		const options = { events: args.events, eventsPerSecond: args.eventRate };
		return {
			trigger: await runTrigger(ctx, { ...options, receiver: 'trigger' }),
			baseline: await runTrigger(ctx, { ...options, receiver: 'webhook' }),
		};
	} finally {
		await legacy.dispose();
	}
}

async function main(): Promise<void> {
	const args = parseArgs(process.argv.slice(2));
	const log = (message: string) =>
		process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
	const started = Date.now();
	const needsN8n = args.only.some((name) => !IN_PROCESS.includes(name));
	const machine = needsN8n ? machineInfo(ensureN8nHost()) : inProcessMachine();

	let sandbox: Sandbox | undefined;
	let n8n: N8nInstance | undefined;
	const watchdog = setTimeout(() => {
		log(`the run took longer than ${RUN_TIMEOUT_MS / 60_000} min: stopping`);
		void (n8n?.dispose() ?? Promise.resolve()).finally(() => process.exit(2));
	}, RUN_TIMEOUT_MS);
	watchdog.unref();

	try {
		const results: BenchResults = {
			generatedAt: new Date().toISOString(),
			machine,
			args,
			totalMs: 0,
		};
		// In this process, before n8n starts: nothing else runs on the machine's cores meanwhile.
		if (args.only.includes('pollCatchUp')) {
			results.pollCatchUp = await runPollCatchUp({
				backlogs: args.catchUp,
				stallEntries: args.stallEntries,
				crowdEntries: DEFAULTS.crowdEntries,
				maxPolls: DEFAULTS.catchUpMaxPolls,
				log,
			});
		}
		if (needsN8n) {
			sandbox = await startSandbox({
				port: 0,
				onError: (error) => log(`sandbox error: ${String(error)}`),
			});
			// Only warnings in n8n's log: debug logging of 1,000s of requests would be part of the figures.
			// BENCH_N8N_CPU_PROF=<dir>: n8n writes a V8 CPU profile there when it stops (for diagnosis).
			const profileDir = process.env.BENCH_N8N_CPU_PROF;
			n8n = await createN8n({
				sandboxBaseUrl: sandbox.baseUrl,
				logLevel: 'warn',
				...(profileDir
					? { env: { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.resolve(profileDir)}` } }
					: {}),
			});
			log(`starting n8n ${machine.n8nVersion} (${n8n.userFolder})`);
			await n8n.start();
			const ctx = { sandbox, n8n, log };

			if (args.only.includes('bulk')) {
				results.bulk = await runBulk(ctx, {
					items: args.items,
					requestsPerSecond: args.rate,
					burst: args.burst,
					withBatching: args.withBatching,
				});
			}
			if (args.only.includes('returnAll'))
				results.returnAll = await runReturnAll(ctx, { documents: args.docs });
			if (args.only.includes('trigger')) {
				results.trigger = await runTrigger(ctx, {
					events: args.events,
					eventsPerSecond: args.eventRate,
					receiver: 'trigger',
				});
				if (args.withWebhookBaseline) {
					results.triggerBaseline = await runTrigger(ctx, {
						events: args.events,
						eventsPerSecond: args.eventRate,
						receiver: 'webhook',
					});
					results.triggerBaselineV1 = await runTrigger(ctx, {
						events: args.events,
						eventsPerSecond: args.eventRate,
						receiver: 'webhookV1',
					});
					// Version 2 differs from 1 only in what n8n evaluates per request: this row shows the gain.
					results.triggerV1 = await runTrigger(ctx, {
						events: args.events,
						eventsPerSecond: args.eventRate,
						receiver: 'trigger',
						triggerVersion: 1,
					});
					results.triggerLegacyEngine = await triggerWithLegacyEngine(ctx, args);
				}
			}
			if (args.only.includes('burst')) {
				results.burst = await runBurst(ctx, {
					events: args.burstEvents,
					concurrencyPerUrl: args.burstConcurrency,
					queue: args.withQueue,
				});
			}
			if (args.only.includes('sendAndWait')) {
				results.sendAndWait = await runSendAndWait(ctx, {
					waits: args.waits,
					startTimeoutMs: 10 * 60_000,
					resumeTimeoutMs: 5 * 60_000,
				});
			}
			if (args.only.includes('sendAndWaitBatch'))
				results.sendAndWaitBatch = await runSendAndWaitBatch(ctx, [1, 10, 100]);
			if (args.only.includes('poll')) {
				results.poll = await runPoll(ctx, {
					events: args.pollEvents,
					webhookEventsPerSecond: args.eventRate,
				});
			}
			// Its own n8n and sandbox: n8n is stopped and started again, deliveries never retried.
			if (args.only.includes('webhookCatchUp'))
				results.webhookCatchUp = await runWebhookCatchUp({
					missed: DEFAULTS.missedEvents,
					log,
				});
		}
		results.totalMs = Date.now() - started;

		const markdown = `${renderMarkdown(results)}\n\nMachine: ${machineLine(machine)}\n`;
		process.stdout.write(markdown);
		const out = args.out ?? (args.full ? RESULTS_FILE : undefined);
		if (out) {
			fs.mkdirSync(path.dirname(out), { recursive: true });
			fs.writeFileSync(out, renderJson(results));
			// The tables beside it, for reading without running the bench.
			if (out.endsWith('.json')) fs.writeFileSync(out.replace(/\.json$/, '.md'), markdown);
			log(`results written to ${path.relative(process.cwd(), out)}`);
		} else {
			log('partial run: no results file written (use --out FILE)');
		}
	} finally {
		clearTimeout(watchdog);
		await n8n?.dispose();
		await sandbox?.close();
	}
}

main().then(
	() => process.exit(0),
	(error) => {
		process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
		process.exit(1);
	},
);
