// One lint config for the whole repository (`n8n-node lint` runs `eslint .` with it).
//
// - nodes/** and credentials/** (and package.json) get n8n's community-node config from
//   @n8n/node-cli unchanged — the same rule set `n8n-node lint` applies in strict mode and that
//   n8n's verification scan enforces (scripts/scan-package.ts runs that scan in `npm test`).
// - Support code (sandbox, contract, test, e2e, bench, scripts, reliability) is never published or
//   loaded by n8n, so the community-node rules do not apply there; plain TypeScript rules do.
//
// package.json sets `"n8n": { "strict": false }` because strict mode makes `n8n-node lint` refuse
// any eslint.config.mjs other than the one-line default; test/lint/eslintConfig.test.ts checks
// instead that the node and credential files get exactly the default config's rules.
import js from '@eslint/js';
import { config as n8nCommunityNodeConfig } from '@n8n/node-cli/eslint';
import tseslint from 'typescript-eslint';

/** The files n8n loads: the only ones the community-node rules are for. */
export const NODE_FILES = ['nodes/**/*.ts', 'credentials/**/*.ts'];

/** Support code: these folders, and TypeScript anywhere else outside nodes/ and credentials/. */
export const SUPPORT_FOLDERS = ['sandbox', 'contract', 'test', 'e2e', 'bench', 'scripts', 'reliability'];
const SUPPORT_SCOPE = [...SUPPORT_FOLDERS.map((folder) => `${folder}/**`), '**/*.ts'];

/** The rules each support folder had in its own eslint.config.mjs before they were merged here. */
const supportConfig = tseslint.config(js.configs.recommended, tseslint.configs.recommended, {
	files: ['**/*.ts'],
	rules: { '@typescript-eslint/no-explicit-any': 'off' },
});

/**
 * Applies `entries` to `scope` only: a file must match a scope glob and the entry's own `files`
 * (an inner array in `files` means all of its patterns must match).
 */
function within(scope, entries, ignores) {
	return entries.map((entry) => ({
		...entry,
		files: entry.files ? scope.flatMap((glob) => entry.files.map((pattern) => [glob, pattern])) : scope,
		ignores: [...(entry.ignores ?? []), ...ignores],
	}));
}

export default tseslint.config(
	// n8n's config targets every `**/*.ts`; narrow those entries to the node and credential files.
	...n8nCommunityNodeConfig.map((entry) =>
		entry.files?.includes('**/*.ts') ? { ...entry, files: NODE_FILES } : entry,
	),
	...within(SUPPORT_SCOPE, supportConfig, NODE_FILES),
);
