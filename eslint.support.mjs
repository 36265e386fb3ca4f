// Lint rules for the support code (sandbox, contract, test, e2e, bench, scripts, reliability).
// That code is never published nor loaded by n8n, so n8n's community-node rules (no `process`,
// no file system, no timers...) are not for it; plain TypeScript rules are.
//
// The root eslint.config.mjs stays n8n-node's one-line default, as strict mode requires. Each
// support folder has an eslint.config.mjs that re-exports this config; `npm run lint` runs
// `n8n-node lint` with ESLint's config lookup from the linted file
// (ESLINT_FLAGS=unstable_config_lookup_from_file, the default from ESLint 10 on), so every file
// gets the config nearest to it: nodes/, credentials/ and package.json the root default, each
// support folder its own.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(js.configs.recommended, tseslint.configs.recommended, {
	files: ['**/*.ts'],
	rules: { '@typescript-eslint/no-explicit-any': 'off' },
});
