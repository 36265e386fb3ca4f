/**
 * The environment of an npm that a test runs, so that what npm does depends on the test and never
 * on the machine: a user config of its own (`<dir>/npmrc`, empty unless the test writes to it, e.g.
 * a registry token; the machine's ~/.npmrc is never read), a cache of its own (`<dir>/npm-cache`;
 * the machine's ~/.npm is neither read nor written), no update check (a fresh npm asks the registry
 * for its own newest version: a request the test would count), and none of the `npm_config_*`
 * settings of an npm that started this process (`npm test`). Nothing here depends on jest.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

export interface NpmEnvOptions {
	/** The environment to start from (default: this process's). */
	base?: NodeJS.ProcessEnv;
	/** A folder put first on PATH (the Node that npm runs on). */
	binDir?: string;
}

export function npmEnv(dir: string, options: NpmEnvOptions = {}): NodeJS.ProcessEnv {
	mkdirSync(dir, { recursive: true });
	const userconfig = path.join(dir, 'npmrc');
	if (!existsSync(userconfig)) writeFileSync(userconfig, '');
	const env: NodeJS.ProcessEnv = { ...(options.base ?? process.env) };
	// npm reads its settings from the environment whatever their case.
	for (const key of Object.keys(env)) if (/^npm_config_/i.test(key)) delete env[key];
	Object.assign(env, {
		npm_config_userconfig: userconfig,
		npm_config_cache: path.join(dir, 'npm-cache'),
		npm_config_update_notifier: 'false',
		npm_config_fund: 'false',
		npm_config_audit: 'false',
	});
	if (options.binDir) env.PATH = `${options.binDir}${path.delimiter}${env.PATH ?? ''}`;
	return env;
}
