/**
 * `n8n-node cloud-support` (from @n8n/node-cli, run offline) reports the package eligible for
 * n8n Cloud verification: strict mode on and the default eslint.config.mjs.
 */
import { spawnSync } from 'child_process';
import path from 'path';

const root = path.resolve(__dirname, '../..');

test('n8n-node cloud-support reports eligible for n8n Cloud verification', () => {
	const result = spawnSync(path.join(root, 'node_modules/.bin/n8n-node'), ['cloud-support'], {
		cwd: root,
		encoding: 'utf8',
		input: '',
		timeout: 60_000,
		env: { ...process.env, NO_COLOR: '1', npm_config_offline: 'true' },
	});
	const output = `${result.stdout}${result.stderr}`;
	expect({ status: result.status, output }).toEqual({
		status: 0,
		output: expect.stringContaining('Cloud support is ENABLED'),
	});
	expect(output).toContain('Strict mode: enabled');
	expect(output).toContain('ESLint config: using default config');
	expect(output).toMatch(/Status: eligible for n8n Cloud verification/);
}, 90_000);
