/**
 * `npm run sandbox`: runs the sandbox until SIGINT/SIGTERM.
 *
 *   --port N          / SANDBOX_PORT          (default 4010; 0 = any free port)
 *   --data-file PATH  / SANDBOX_DATA_FILE     keep data across restarts (JSON)
 *   --rate-limit N    / SANDBOX_RATE_LIMIT    requests per second per key (burst N)
 *   --failure-rate X  / SANDBOX_FAILURE_RATE  0..1, injected 500/503 on /v1
 *   --public-origin U / SANDBOX_PUBLIC_ORIGIN origin written into signing URLs
 *   --dialect SPEC    / SANDBOX_DIALECT       e.g. numeric-ids+items-links (docs/api-contract.md, "Dialects")
 */
import { parseArgs } from 'util';

import { DIALECT_NAMES, parseDialect } from './dialects';
import { startSandbox } from './index';

const DEFAULT_PORT = 4010;

function numberOption(
	name: string,
	value: string | undefined,
	min: number,
	max: number,
): number | undefined {
	if (value === undefined || value === '') return undefined;
	const parsed = Number(value);
	if (!Number.isFinite(parsed) || parsed < min || parsed > max) {
		throw new Error(`${name} must be a number from ${min} to ${max}, got "${value}"`);
	}
	return parsed;
}

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			port: { type: 'string' },
			'data-file': { type: 'string' },
			'rate-limit': { type: 'string' },
			'failure-rate': { type: 'string' },
			'public-origin': { type: 'string' },
			dialect: { type: 'string' },
			help: { type: 'boolean', short: 'h' },
		},
		strict: true,
	});
	if (values.help) {
		console.log(
			'Usage: npm run sandbox -- [--port 4010] [--data-file FILE] [--rate-limit N] [--failure-rate X] [--public-origin URL] [--dialect NAME[+NAME…]]',
		);
		console.log(`Dialects: ${DIALECT_NAMES.join(', ')}`);
		return;
	}

	const port =
		numberOption('--port', values.port ?? process.env.SANDBOX_PORT, 0, 65535) ?? DEFAULT_PORT;
	const rate = numberOption(
		'--rate-limit',
		values['rate-limit'] ?? process.env.SANDBOX_RATE_LIMIT,
		0.001,
		1_000_000,
	);
	const failureRate = numberOption(
		'--failure-rate',
		values['failure-rate'] ?? process.env.SANDBOX_FAILURE_RATE,
		0,
		1,
	);
	const dataFile = values['data-file'] ?? process.env.SANDBOX_DATA_FILE ?? undefined;
	const publicOrigin = values['public-origin'] ?? process.env.SANDBOX_PUBLIC_ORIGIN ?? undefined;
	const dialect = values.dialect ?? process.env.SANDBOX_DIALECT ?? undefined;
	parseDialect(dialect); // an unknown name stops here with the list of valid ones

	const sandbox = await startSandbox({
		port,
		dataFile: dataFile || undefined,
		rateLimit: rate === undefined ? null : { requestsPerSecond: rate },
		failureRate,
		publicOrigin: publicOrigin || undefined,
		dialect: dialect || undefined,
		onError: (error) => console.error('[sandbox] internal error:', error),
	});

	console.log(`Document signing sandbox
  Base URL:       ${sandbox.baseUrl}
  Demo API key:   ${sandbox.apiKey}
  Signing pages:  ${sandbox.config().publicOrigin ?? sandbox.origin}/sign/<documentId>?token=… (a document's signing_url)
  Admin:          ${sandbox.origin}/__sandbox
  Dialect:        ${sandbox.config().dialectSpec}${sandbox.config().dialectSpec === 'default' ? '' : ` ${JSON.stringify(sandbox.config().dialect)}`}
${dataFile ? `  Data file:      ${dataFile}\n` : ''}Press Ctrl+C to stop.`);

	let stopping = false;
	const stop = (signal: string) => {
		if (stopping) return;
		stopping = true;
		console.log(`\n${signal}: stopping the sandbox…`);
		sandbox.close().then(
			() => process.exit(0),
			(error) => {
				console.error(error);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error) => {
	console.error(error instanceof Error ? error.message : error);
	process.exit(1);
});
