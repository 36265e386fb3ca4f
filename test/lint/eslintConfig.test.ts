/**
 * The root eslint.config.mjs narrows n8n's community-node config to nodes/** and credentials/**
 * (package.json sets `"strict": false` so `n8n-node lint` accepts a config other than the
 * default). This stands in for strict mode's check: the files n8n loads get exactly the rules of
 * @n8n/node-cli's default config, and support code never gets the community-node rules.
 */
import { execFileSync } from 'child_process';
import path from 'path';

const root = path.resolve(__dirname, '../..');

/** Rules ESLint would apply to each file, with the repo's config and with n8n's default config. */
function rulesFor(files: string[]): Record<string, { repo: unknown; n8nDefault: unknown }> {
	const script = `
		import { ESLint } from 'eslint';
		import { config } from '@n8n/node-cli/eslint';
		const files = ${JSON.stringify(files)};
		const repo = new ESLint({ cwd: process.cwd() });
		const n8nDefault = new ESLint({ cwd: process.cwd(), overrideConfigFile: true, overrideConfig: config });
		const out = {};
		for (const file of files) {
			out[file] = {
				repo: (await repo.calculateConfigForFile(file))?.rules ?? null,
				n8nDefault: (await n8nDefault.calculateConfigForFile(file))?.rules ?? null,
			};
		}
		console.log(JSON.stringify(out));
	`;
	return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' }));
}

test('node, credential and package.json files get n8n default community-node rules; support code does not', () => {
	const result = rulesFor([
		'nodes/DocumentSigning/DocumentSigning.node.ts',
		'nodes/DocumentSigningTrigger/DocumentSigningTrigger.node.ts',
		'credentials/DocumentSigningApi.credentials.ts',
		'package.json',
		'sandbox/server.ts',
	]);
	for (const file of ['nodes/DocumentSigning/DocumentSigning.node.ts', 'nodes/DocumentSigningTrigger/DocumentSigningTrigger.node.ts', 'credentials/DocumentSigningApi.credentials.ts', 'package.json']) {
		expect({ file, rules: result[file].repo }).toEqual({ file, rules: result[file].n8nDefault });
	}
	const support = result['sandbox/server.ts'].repo as Record<string, unknown>;
	expect(Object.keys(support).filter((rule) => rule.startsWith('@n8n/') || rule.startsWith('n8n-nodes-base/'))).toEqual([]);
	expect(support['@typescript-eslint/no-explicit-any']).toEqual([0]);
}, 120_000);
