/**
 * Diagnosis of the benchmark's findings (not part of `npm run bench`; each mode prints a table):
 *
 * `npx ts-node --transpile-only bench/diagnose.ts --return-all [--docs N]`: Return All as shipped
 * against a copy of the package whose credential sets the Authorization header through the
 * generic form's expression (the form it used at first), which n8n evaluates through its expression engine
 * on every request.
 *
 * `npx ts-node --transpile-only bench/diagnose.ts --trigger [--events N] [--event-rate R]
 * [--cpu-prof DIR]`: the trigger's cost per delivery as shipped, n8n's Webhook node, the trigger
 * without its claim (execute() removed: what exactly-once costs), and with the former credential
 * expression; each in its own n8n, which `--cpu-prof` profiles.
 *
 * `npx ts-node --transpile-only bench/diagnose.ts [--items N] [--rate R]`: where the bulk time of
 * the n8n contenders goes. Runs each n8n contender once more through a recording proxy and splits
 * its execution into: execution start -> node start, node start -> first request (n8n's routing
 * engine prepares every item before any request leaves), first -> last request, last request ->
 * node end. Not part of the table: the proxy adds a hop. Rate limit off unless --rate is given.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { createN8n, type N8nInstance } from '../e2e/harness/n8n';
import { startSandbox, type Sandbox } from '../sandbox';
import {
	createCredential,
	createWorkflow,
	executionWallMs,
	nodeRun,
	runOnce,
} from '../e2e/harness/n8nApi';
import { startRecordingProxy } from './lib/proxy';
import { seconds } from './lib/stats';
import { chain, signingNode } from '../e2e/harness/workflows';
import {
	httpRequestCreateNode,
	splitItemsNode,
	webhookNode,
} from '../e2e/harness/webhookWorkflows';
import { runReturnAll } from './scenarios/returnAll';
import { runTrigger, type TriggerOptions } from './scenarios/trigger';

/** A copy of the built package with one text replacement in one dist file (nothing else changed). */
function patchedPackage(relativeFile: string, from: string, to: string): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsg-patched-'));
	const root = path.resolve(__dirname, '..');
	fs.copyFileSync(path.join(root, 'package.json'), path.join(dir, 'package.json'));
	fs.cpSync(path.join(root, 'dist'), path.join(dir, 'dist'), { recursive: true });
	const file = path.join(dir, 'dist', relativeFile);
	const source = fs.readFileSync(file, 'utf8');
	if (!source.includes(from)) throw new Error(`${file}: nothing to patch (${from})`);
	fs.writeFileSync(file, source.replace(from, to));
	return dir;
}

/** The credential as it was at first: its header set through an n8n expression (generic authenticate). */
const expressionAuthenticate = () =>
	patchedPackage(
		'credentials/DocumentSigningApi.credentials.js',
		`async authenticate(credentials, requestOptions) {
        return {
            ...requestOptions,
            headers: {
                ...requestOptions.headers,
                Authorization: \`Bearer \${String(credentials.apiKey ?? '')}\`,
            },
        };
    }`,
		`authenticate = { type: 'generic', properties: { headers: { Authorization: '=Bearer {{$credentials.apiKey}}' } } };`,
	);

/**
 * The trigger without its execute() step, so without the claim at the service: not exactly-once,
 * but what the claim costs (the floor of a verifying trigger that passes every delivery on).
 */
const withoutClaim = () =>
	patchedPackage(
		'nodes/DocumentSigningTrigger/DocumentSigningTrigger.node.js',
		'execute = claim_1.passClaimedDeliveries;',
		'executeWithoutClaim = claim_1.passClaimedDeliveries;',
	);

/** `--cpu-prof DIR`: each n8n writes a CPU profile of its whole life there (open it in Chrome DevTools). */
function profileEnv() {
	const at = process.argv.indexOf('--cpu-prof');
	const dir = at < 0 ? undefined : path.resolve(process.argv[at + 1]);
	return dir ? { env: { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}` } } : {};
}

/** Runs `body` against a fresh sandbox and n8n (with the package in `packageDir`, else the built one). */
async function withN8n<T>(
	packageDir: string | undefined,
	body: (ctx: { sandbox: Sandbox; n8n: N8nInstance; log: (message: string) => void }) => Promise<T>,
): Promise<T> {
	const log = (message: string) => process.stderr.write(`[diagnose] ${message}\n`);
	const sandbox = await startSandbox({ port: 0 });
	const n8n = await createN8n({
		sandboxBaseUrl: sandbox.baseUrl,
		logLevel: 'warn',
		packageDir,
		...profileEnv(),
	});
	try {
		await n8n.start();
		return await body({ sandbox, n8n, log });
	} finally {
		await n8n.dispose();
		await sandbox.close();
	}
}

/** Return All as shipped (authenticate function) and with the credential's former expression, each in its own n8n. */
async function diagnoseReturnAll(argv: string[]) {
	const documents = argv.includes('--docs') ? Number(argv[argv.indexOf('--docs') + 1]) : 10_000;
	const rows = [
		'| variant | requests | node | raw (best of 2) | ratio |',
		'|---|---:|---:|---:|---:|',
	];
	const patched = expressionAuthenticate();
	try {
		for (const [variant, packageDir] of [
			['as shipped (authenticate function)', undefined],
			['patched copy (generic authenticate, expression)', patched],
		] as const) {
			const result = await withN8n(
				packageDir,
				async (ctx) => await runReturnAll(ctx, { documents }),
			);
			rows.push(
				`| ${variant} | ${result.node.requests} | ${seconds(result.node.nodeMs)} s | ${seconds(result.raw.wallMs)} s | ${Math.round(result.nodeRatio * 100) / 100}x |`,
			);
		}
	} finally {
		fs.rmSync(patched, { recursive: true, force: true });
	}
	process.stdout.write(`${documents} documents\n${rows.join('\n')}\n`);
}

/**
 * The trigger's cost per delivery against n8n's Webhook node, and what its claim and the credential's
 * former expression (evaluated by n8n's expression engine on every request) add to it.
 */
async function diagnoseTrigger(argv: string[]) {
	const arg = (name: string, fallback: number) =>
		argv.includes(`--${name}`) ? Number(argv[argv.indexOf(`--${name}`) + 1]) : fallback;
	const events = arg('events', 200);
	const eventsPerSecond = arg('event-rate', 5);
	const rows: string[] = [
		'| receiver | executed | redeliveries | latency median / p95 | n8n CPU per event |',
		'|---|---:|---:|---:|---:|',
	];
	const row = (label: string, result: Awaited<ReturnType<typeof runTrigger>>) =>
		rows.push(
			`| ${label} | ${result.executed}/${events} | ${result.redeliveries} | ${Math.round(result.latencyMs.median)} / ${Math.round(result.latencyMs.p95)} ms | ${Math.round(result.n8nCpuMsPerEvent)} ms |`,
		);
	const variants: Array<[string, TriggerOptions['receiver'], (() => string) | undefined]> = [
		['Document Signing Trigger, as shipped', 'trigger', undefined],
		["n8n's Webhook node, version 1 (the same isolates as the trigger)", 'webhookV1', undefined],
		['Document Signing Trigger without the claim (not exactly-once)', 'trigger', withoutClaim],
	];
	// Each in its own n8n, so a profile (--cpu-prof) covers one variant; each row shows as it ends.
	for (const [label, receiver, patch] of variants) {
		const patched = patch?.();
		try {
			await withN8n(patched, async (ctx) =>
				row(label, await runTrigger(ctx, { events, eventsPerSecond, receiver })),
			);
			process.stderr.write(`${rows.at(-1)}\n`);
		} finally {
			if (patched) fs.rmSync(patched, { recursive: true, force: true });
		}
	}
	process.stdout.write(`${events} events at ${eventsPerSecond}/s\n${rows.join('\n')}\n`);
}

async function main() {
	const argv = process.argv.slice(2);
	if (argv.includes('--trigger')) return await diagnoseTrigger(argv);
	if (argv.includes('--return-all')) return await diagnoseReturnAll(argv);
	const arg = (name: string, fallback: number) =>
		argv.includes(`--${name}`) ? Number(argv[argv.indexOf(`--${name}`) + 1]) : fallback;
	const itemsCount = arg('items', 1000);
	const rate = arg('rate', 0);
	let sandbox: Sandbox | undefined;
	let n8n: N8nInstance | undefined;
	const proxy = {
		current: undefined as Awaited<ReturnType<typeof startRecordingProxy>> | undefined,
	};
	try {
		sandbox = await startSandbox({ port: 0, rateLimit: rate ? { requestsPerSecond: rate } : null });
		proxy.current = await startRecordingProxy(sandbox.origin);
		n8n = await createN8n({ sandboxBaseUrl: proxy.current.baseUrl, logLevel: 'warn' });
		await n8n.start();
		const parameters = {
			resource: 'document',
			operation: 'create',
			name: '={{ $json.name }}',
			signers: { signer: [{ email: '={{ $json.email }}', name: 'Bulk Signer' }] },
		};
		const contenders = [
			{
				label: 'Document Signing node',
				nodeName: 'Document Signing',
				build: (cred: { id: string; name: string }) =>
					signingNode('Document Signing', parameters, { credential: cred }),
			},
			{
				label: 'HTTP Request node',
				nodeName: 'HTTP Request',
				build: (cred: { id: string; name: string }) =>
					httpRequestCreateNode(proxy.current!.baseUrl, cred),
			},
		];
		const lines = [
			'| contender | execution | exec start -> node start | node start -> 1st request | 1st -> last request | last request -> node end | requests | 429s | created/s after the first 429 |',
			'|---|---:|---:|---:|---:|---:|---:|---:|---:|',
		];
		for (const contender of contenders) {
			for (const round of ['warm-up', 'measured']) {
				const account = sandbox.createAccount();
				const cred = await createCredential(
					n8n,
					`${contender.label} ${round}`,
					account.apiKey,
					proxy.current.baseUrl,
				);
				const path = `diag-${Date.now()}`;
				const id = await createWorkflow(
					n8n,
					chain(`diagnose ${contender.label}`, [
						webhookNode(path),
						splitItemsNode(),
						contender.build(cred),
					]),
				);
				await n8n.activate(id);
				const count = round === 'warm-up' ? 10 : itemsCount;
				const items = Array.from({ length: count }, (_, i) => ({
					name: `d-${i}.pdf`,
					email: `s${i}@example.com`,
				}));
				const from = proxy.current.arrivals.length;
				const execution = await runOnce(n8n, id, path, { items }, 600_000);
				if (round === 'warm-up') continue;
				const arrivals = proxy.current.arrivals
					.slice(from)
					.filter((a) => a.path.includes('/documents'));
				const run = execution.data!.resultData.runData[contender.nodeName][0] as any;
				const nodeStart = Number(run.startTime);
				const nodeEnd = nodeStart + Number(run.executionTime);
				const first = arrivals[0]?.at ?? NaN;
				const last = arrivals[arrivals.length - 1]?.at ?? NaN;
				const limited = arrivals.filter((a) => a.status === 429);
				const firstLimited = limited[0]?.at;
				const createdAfter = arrivals.filter(
					(a) => a.status === 201 && firstLimited !== undefined && a.at >= firstLimited,
				);
				const lastCreated = createdAfter[createdAfter.length - 1]?.at;
				const steadyRate =
					firstLimited !== undefined && lastCreated !== undefined
						? Math.round((createdAfter.length / (lastCreated - firstLimited)) * 10000) / 10
						: NaN;
				lines.push(
					`| ${contender.label} (${count} items) | ${seconds(executionWallMs(execution))} s | ${seconds(nodeStart - Date.parse(execution.startedAt))} s | ${seconds(first - nodeStart)} s | ${seconds(last - first)} s | ${seconds(nodeEnd - last)} s | ${arrivals.length} (${execution.status}${nodeRun(execution, contender.nodeName).error ? ', node error' : ''}) | ${limited.length} | ${Number.isFinite(steadyRate) ? steadyRate : '–'} |`,
				);
			}
		}
		process.stdout.write(`${lines.join('\n')}\n`);
	} finally {
		await n8n?.dispose();
		await proxy.current?.close();
		await sandbox?.close();
	}
}

main().then(
	() => process.exit(0),
	(error) => {
		process.stderr.write(`${(error as Error).stack}\n`);
		process.exit(1);
	},
);
