/**
 * scripts/scan-package.ts (`npm run scan`, in `npm test` after the build) runs n8n's
 * community-package scan; this shows it fails on what the scan forbids, in the source and in the
 * packed package alike. The real package passing is `npm test`'s own scan step.
 */
import { spawnSync } from 'child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import os from 'os';
import path from 'path';

const root = path.resolve(__dirname, '../..');

test('a node that requires child_process and logs to the console fails the scan', () => {
	const temp = mkdtempSync(path.join(os.tmpdir(), 'scan-fixture-'));
	try {
		const pkg = {
			name: 'n8n-nodes-scan-fixture',
			version: '0.0.1',
			description: 'Fixture',
			license: 'MIT',
			author: { name: 'A', email: 'a@example.com' },
			keywords: ['n8n-community-node-package'],
			files: ['dist'],
			n8n: { n8nNodesApiVersion: 1, nodes: ['dist/nodes/Fixture/Fixture.node.js'] },
			peerDependencies: { 'n8n-workflow': '*' },
		};
		const source = path.join(temp, 'source');
		const packed = path.join(temp, 'package');
		mkdirSync(path.join(source, 'nodes/Fixture'), { recursive: true });
		mkdirSync(path.join(packed, 'dist/nodes/Fixture'), { recursive: true });
		writeFileSync(path.join(source, 'package.json'), JSON.stringify(pkg, null, 2));
		writeFileSync(path.join(packed, 'package.json'), JSON.stringify(pkg, null, 2));
		writeFileSync(
			path.join(source, 'nodes/Fixture/Fixture.node.ts'),
			"import { exec } from 'child_process';\nconsole.log(exec);\n",
		);
		writeFileSync(
			path.join(packed, 'dist/nodes/Fixture/Fixture.node.js'),
			"const cp = require('child_process');\nconsole.log(cp);\n",
		);

		const result = spawnSync(
			process.execPath,
			[
				require.resolve('ts-node/dist/bin'),
				'--transpile-only',
				'scripts/scan-package.ts',
				'--source',
				source,
				'--package',
				packed,
			],
			{
				cwd: root,
				encoding: 'utf8',
			},
		);
		const output = `${result.stdout}${result.stderr}`;
		expect({ status: result.status, output }).toEqual({
			status: 1,
			output: expect.stringContaining('scan: source: ESLint violations found'),
		});
		expect(output).toContain('scan: package: ESLint violations found');
		expect(output).toMatch(/Fixture\.node\.ts[\s\S]*no-restricted-imports/);
		expect(output).toMatch(/Fixture\.node\.js[\s\S]*no-restricted-imports/);
		expect(output).toContain('no-console');
	} finally {
		rmSync(temp, { recursive: true, force: true });
	}
}, 120_000);
