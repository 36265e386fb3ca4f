/**
 * Strict mode: the root eslint.config.mjs is n8n-node's one-line default, unchanged, and
 * `npm run lint` runs `n8n-node lint` with ESLint's config lookup from the linted file, so each
 * support folder's own eslint.config.mjs (eslint.support.mjs) governs that folder. These tests
 * check that the files n8n loads get exactly the default config's rules, that support code gets
 * none of the community-node rules, and that the lint really fails on a node-rule violation in
 * nodes/ and on a TypeScript-rule violation in support code.
 */
import { execFileSync, spawnSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import path from 'path';

const root = path.resolve(__dirname, '../..');
const packageJson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const LOOKUP_FLAG = 'unstable_config_lookup_from_file';
const SUPPORT_FOLDERS = ['sandbox', 'contract', 'test', 'e2e', 'bench', 'scripts', 'reliability'];
const n8nRule = (rule: string) => rule.startsWith('@n8n/') || rule.startsWith('n8n-nodes-base/');

/** Rules ESLint applies to each file, as `npm run lint` sees them and with n8n's default config alone. */
function rulesFor(
	files: string[],
): Record<string, { repo: Record<string, unknown>; n8nDefault: Record<string, unknown> }> {
	const script = `
		import { ESLint } from 'eslint';
		import { config } from '@n8n/node-cli/eslint';
		const files = ${JSON.stringify(files)};
		const repo = new ESLint({ cwd: process.cwd(), flags: [${JSON.stringify(LOOKUP_FLAG)}] });
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
	return JSON.parse(
		execFileSync(process.execPath, ['--input-type=module', '-e', script], {
			cwd: root,
			encoding: 'utf8',
		}),
	);
}

/** Lints `files` the way `npm run lint` does (its ESLint, its flag), as JSON results. */
function lint(files: string[]): Array<{ filePath: string; messages: Array<{ ruleId: string }> }> {
	const result = spawnSync(
		process.execPath,
		[path.join(root, 'node_modules/eslint/bin/eslint.js'), '-f', 'json', ...files],
		{
			cwd: root,
			encoding: 'utf8',
			env: { ...process.env, ESLINT_FLAGS: LOOKUP_FLAG },
		},
	);
	return JSON.parse(result.stdout);
}

test('the root eslint.config.mjs is n8n-node strict mode default, and strict mode is on', () => {
	const template = readFileSync(
		path.join(
			root,
			'node_modules/@n8n/node-cli/dist/template/templates/shared/default/eslint.config.mjs',
		),
		'utf8',
	);
	expect(readFileSync(path.join(root, 'eslint.config.mjs'), 'utf8')).toBe(template);
	expect(packageJson.n8n.strict).toBe(true);
	expect(packageJson.scripts.lint).toBe(`ESLINT_FLAGS=${LOOKUP_FLAG} n8n-node lint`);
});

test('node, credential and package.json files get n8n default rules; support code gets its own, without community-node rules', () => {
	const supportFiles = [
		'sandbox/server.ts',
		'contract/schemas.ts',
		'test/setupEnv.ts',
		'e2e/harness/n8n.ts',
		'bench/run.ts',
		'scripts/changelog.ts',
		'reliability/lib.ts',
	];
	const loaded = [
		'nodes/DocumentSigning/DocumentSigning.node.ts',
		'nodes/DocumentSigningTrigger/DocumentSigningTrigger.node.ts',
		'credentials/DocumentSigningApi.credentials.ts',
		'package.json',
	];
	const result = rulesFor([...loaded, ...supportFiles]);
	for (const file of loaded) {
		expect({ file, rules: result[file].repo }).toEqual({ file, rules: result[file].n8nDefault });
	}
	for (const file of supportFiles) {
		const rules = result[file].repo;
		expect({ file, n8nRules: Object.keys(rules).filter(n8nRule) }).toEqual({ file, n8nRules: [] });
		expect({
			file,
			noExplicitAny: rules['@typescript-eslint/no-explicit-any'],
			noUnusedVars: rules['@typescript-eslint/no-unused-vars'],
		}).toEqual({ file, noExplicitAny: [0], noUnusedVars: [2] });
	}
}, 120_000);

test('every support folder has its own eslint.config.mjs using the support config', () => {
	for (const folder of SUPPORT_FOLDERS) {
		expect({
			folder,
			config: readFileSync(path.join(root, folder, 'eslint.config.mjs'), 'utf8'),
		}).toEqual({ folder, config: expect.stringContaining("from '../eslint.support.mjs'") });
	}
});

test('the lint reports a community-node violation in nodes/ and a TypeScript one in support code, not the reverse', () => {
	const dirs = [
		mkdtempSync(path.join(root, 'nodes/lint-probe-')),
		mkdtempSync(path.join(root, 'sandbox/lint-probe-')),
	];
	try {
		// A global n8n forbids in nodes (allowed in the sandbox), and an unused variable.
		const source =
			'export function probe(): string {\n\tconst unused = 1;\n\treturn String(process.pid);\n}\n';
		const [nodeFile, supportFile] = dirs.map((dir) => path.join(dir, 'probe.ts'));
		writeFileSync(nodeFile, source);
		writeFileSync(supportFile, source);
		const rules = Object.fromEntries(
			lint([nodeFile, supportFile]).map((r) => [
				path.relative(root, r.filePath).split(path.sep)[0],
				r.messages.map((m) => m.ruleId).sort(),
			]),
		);
		expect(rules).toEqual({
			nodes: ['@n8n/community-nodes/no-restricted-globals', '@typescript-eslint/no-unused-vars'],
			sandbox: ['@typescript-eslint/no-unused-vars'],
		});
	} finally {
		for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
	}
}, 120_000);
