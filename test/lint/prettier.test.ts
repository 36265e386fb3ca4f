/**
 * Formatting: .prettierrc.js holds the n8n-nodes-starter's Prettier settings (the ones
 * @n8n/node-cli's project template ships), and .prettierignore keeps generated and large files
 * out of `npm run format:check`.
 */
import { execFileSync } from 'child_process';
import path from 'path';

const root = path.resolve(__dirname, '../..');

test('.prettierrc.js has the settings of the starter template in @n8n/node-cli', () => {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const ours = require(path.join(root, '.prettierrc.js'));
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const starter = require(
		path.join(
			root,
			'node_modules/@n8n/node-cli/dist/template/templates/shared/default/.prettierrc.js',
		),
	);
	expect(ours).toEqual(starter);
});

const CASES: Array<[string, boolean]> = [
	['package-lock.json', true],
	['docs/openapi.json', true],
	['e2e/n8n-host/package.json', true],
	['e2e/n8n-host-1x/package.json', true],
	['bench/results/baseline.json', true],
	['dist/nodes/DocumentSigning/DocumentSigning.node.js', true],
	['nodes/DocumentSigning/DocumentSigning.node.ts', false],
	['package.json', false],
	['docs/api-contract.md', false],
	['.github/workflows/publish.yml', false],
];

test('format:check skips generated and large files, and checks the rest', () => {
	// Prettier's API is ESM-only inside jest's CommonJS runtime: ask it from a child process, as
	// the CLI would (ignore files .gitignore and .prettierignore, from the repository root).
	const script = `
		import * as prettier from 'prettier';
		const out = {};
		for (const file of ${JSON.stringify(CASES.map(([file]) => file))}) {
			out[file] = (await prettier.getFileInfo(file, { ignorePath: ['.gitignore', '.prettierignore'] })).ignored;
		}
		console.log(JSON.stringify(out));
	`;
	const ignored = JSON.parse(
		execFileSync(process.execPath, ['--input-type=module', '-e', script], {
			cwd: root,
			encoding: 'utf8',
		}),
	);
	expect(ignored).toEqual(Object.fromEntries(CASES));
}, 60_000);
