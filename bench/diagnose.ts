/**
 * Diagnosis of the benchmark's findings (not part of `npm run bench`; each mode prints a table):
 *
 * `npx ts-node --transpile-only bench/diagnose.ts --return-all [--docs N]`: Return All as shipped
 * against a copy of the package whose credential sets the Authorization header in an
 * `authenticate` function instead of the generic form's expression, which n8n evaluates through
 * its expression engine on every request.
 *
 * `npx ts-node --transpile-only bench/diagnose.ts --trigger [--events N] [--event-rate R]`: the
 * trigger's cost per delivery as shipped (typeVersion 1) against a copy of the package whose
 * trigger declares `version: [1, 2]` and runs as typeVersion 2, and n8n's Webhook node: n8n
 * evaluates `$parameter["options"]["binaryData"]` through its expression engine for every request
 * to a version-1 webhook node (webhook-helpers.js, parseRequestBody), which a version-2 node skips.
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
import { createCredential, createWorkflow, executionWallMs, nodeRun, runOnce } from './lib/n8nApi';
import { startRecordingProxy } from './lib/proxy';
import { seconds } from './lib/stats';
import { chain, signingNode } from '../e2e/harness/workflows';
import { httpRequestCreateNode, splitItemsNode, webhookNode } from './lib/workflows';
import { runReturnAll } from './scenarios/returnAll';
import { runTrigger } from './scenarios/trigger';

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

/** The trigger also declares version 2. */
const triggerV2 = () => patchedPackage('nodes/DocumentSigningTrigger/DocumentSigningTrigger.node.js', 'version: 1,', 'version: [1, 2], defaultVersion: 2,');

/** The credential sets its header in a function instead of through an expression. */
const functionAuthenticate = () =>
	patchedPackage(
		'credentials/DocumentSigningApi.credentials.js',
		`authenticate = {
        type: 'generic',
        properties: {
            headers: {
                Authorization: '=Bearer {{$credentials.apiKey}}',
            },
        },
    };`,
		`authenticate = async (credentials, requestOptions) => ({
        ...requestOptions,
        headers: { ...(requestOptions.headers || {}), Authorization: \`Bearer \${credentials.apiKey}\` },
    });`,
	);

/**
 * Return All as shipped and with the credential's header set by a function (no expression per
 * request), each in its own n8n, against one sandbox; raw loops before and after each.
 */
async function diagnoseReturnAll(argv: string[]) {
	const documents = argv.includes('--docs') ? Number(argv[argv.indexOf('--docs') + 1]) : 10_000;
	const log = (message: string) => process.stderr.write(`[diagnose] ${message}\n`);
	const rows = ['| variant | requests | node | raw (best of 2) | ratio |', '|---|---:|---:|---:|---:|'];
	const patched = functionAuthenticate();
	try {
		for (const variant of ['as shipped (generic authenticate, expression)', 'patched copy (authenticate function)']) {
			const sandbox = await startSandbox({ port: 0 });
			const n8n = await createN8n({ sandboxBaseUrl: sandbox.baseUrl, logLevel: 'warn', packageDir: variant.startsWith('patched') ? patched : undefined });
			try {
				await n8n.start();
				const result = await runReturnAll({ sandbox, n8n, log }, { documents });
				rows.push(`| ${variant} | ${result.node.requests} | ${seconds(result.node.nodeMs)} s | ${seconds(result.raw.wallMs)} s | ${Math.round(result.nodeRatio * 100) / 100}x |`);
			} finally {
				await n8n.dispose();
				await sandbox.close();
			}
		}
	} finally {
		fs.rmSync(patched, { recursive: true, force: true });
	}
	process.stdout.write(`${documents} documents\n${rows.join('\n')}\n`);
}

async function diagnoseTrigger(argv: string[]) {
	const arg = (name: string, fallback: number) => (argv.includes(`--${name}`) ? Number(argv[argv.indexOf(`--${name}`) + 1]) : fallback);
	const events = arg('events', 200);
	const eventsPerSecond = arg('event-rate', 5);
	const log = (message: string) => process.stderr.write(`[diagnose] ${message}\n`);
	const rows: string[] = [
		'| receiver | executed | redeliveries | latency median / p95 | n8n CPU per event |',
		'|---|---:|---:|---:|---:|',
	];
	const patched = triggerV2();
	try {
		for (const variant of ['as shipped (typeVersion 1)', 'patched copy (typeVersion 2)']) {
			const sandbox = await startSandbox({ port: 0 });
			const n8n = await createN8n({ sandboxBaseUrl: sandbox.baseUrl, logLevel: 'warn', packageDir: variant.startsWith('patched') ? patched : undefined });
			try {
				await n8n.start();
				const ctx = { sandbox, n8n, log };
				const results = [
					{ label: `Document Signing Trigger, ${variant}`, result: await runTrigger(ctx, { events, eventsPerSecond, receiver: 'trigger', triggerTypeVersion: variant.startsWith('patched') ? 2 : 1 }) },
				];
				if (!variant.startsWith('patched')) results.push({ label: "n8n's Webhook node (v2)", result: await runTrigger(ctx, { events, eventsPerSecond, receiver: 'webhook' }) });
				for (const { label, result } of results) {
					rows.push(
						`| ${label} | ${result.executed}/${events} | ${result.redeliveries} | ${Math.round(result.latencyMs.median)} / ${Math.round(result.latencyMs.p95)} ms | ${Math.round(result.n8nCpuMsPerEvent)} ms |`,
					);
				}
			} finally {
				await n8n.dispose();
				await sandbox.close();
			}
		}
	} finally {
		fs.rmSync(patched, { recursive: true, force: true });
	}
	process.stdout.write(`${events} events at ${eventsPerSecond}/s\n${rows.join('\n')}\n`);
}

async function main() {
	const argv = process.argv.slice(2);
	if (argv.includes('--trigger')) return await diagnoseTrigger(argv);
	if (argv.includes('--return-all')) return await diagnoseReturnAll(argv);
	const arg = (name: string, fallback: number) => (argv.includes(`--${name}`) ? Number(argv[argv.indexOf(`--${name}`) + 1]) : fallback);
	const itemsCount = arg('items', 1000);
	const rate = arg('rate', 0);
	let sandbox: Sandbox | undefined;
	let n8n: N8nInstance | undefined;
	const proxy = { current: undefined as Awaited<ReturnType<typeof startRecordingProxy>> | undefined };
	try {
		sandbox = await startSandbox({ port: 0, rateLimit: rate ? { requestsPerSecond: rate } : null });
		proxy.current = await startRecordingProxy(sandbox.origin);
		n8n = await createN8n({ sandboxBaseUrl: proxy.current.baseUrl, logLevel: 'warn' });
		await n8n.start();
		const parameters = { resource: 'document', operation: 'create', name: '={{ $json.name }}', signers: { signer: [{ email: '={{ $json.email }}', name: 'Bulk Signer' }] } };
		const contenders = [
			{ label: 'Document Signing node', nodeName: 'Document Signing', build: (cred: { id: string; name: string }) => signingNode('Document Signing', parameters, { credential: cred }) },
			{ label: 'HTTP Request node', nodeName: 'HTTP Request', build: (cred: { id: string; name: string }) => httpRequestCreateNode(proxy.current!.baseUrl, cred) },
		];
		const lines = [
			'| contender | execution | exec start -> node start | node start -> 1st request | 1st -> last request | last request -> node end | requests | 429s | created/s after the first 429 |',
			'|---|---:|---:|---:|---:|---:|---:|---:|---:|',
		];
		for (const contender of contenders) {
			for (const round of ['warm-up', 'measured']) {
				const account = sandbox.createAccount();
				const cred = await createCredential(n8n, `${contender.label} ${round}`, account.apiKey, proxy.current.baseUrl);
				const path = `diag-${Date.now()}`;
				const id = await createWorkflow(n8n, chain(`diagnose ${contender.label}`, [webhookNode(path), splitItemsNode(), contender.build(cred)]));
				await n8n.activate(id);
				const count = round === 'warm-up' ? 10 : itemsCount;
				const items = Array.from({ length: count }, (_, i) => ({ name: `d-${i}.pdf`, email: `s${i}@example.com` }));
				const from = proxy.current.arrivals.length;
				const execution = await runOnce(n8n, id, path, { items }, 600_000);
				if (round === 'warm-up') continue;
				const arrivals = proxy.current.arrivals.slice(from).filter((a) => a.path.includes('/documents'));
				const run = execution.data!.resultData.runData[contender.nodeName][0] as any;
				const nodeStart = Number(run.startTime);
				const nodeEnd = nodeStart + Number(run.executionTime);
				const first = arrivals[0]?.at ?? NaN;
				const last = arrivals[arrivals.length - 1]?.at ?? NaN;
				const limited = arrivals.filter((a) => a.status === 429);
				const firstLimited = limited[0]?.at;
				const createdAfter = arrivals.filter((a) => a.status === 201 && firstLimited !== undefined && a.at >= firstLimited);
				const lastCreated = createdAfter[createdAfter.length - 1]?.at;
				const steadyRate = firstLimited !== undefined && lastCreated !== undefined ? Math.round((createdAfter.length / (lastCreated - firstLimited)) * 10000) / 10 : NaN;
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
