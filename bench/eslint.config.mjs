// Support code (tests, sandbox, scripts) is never published or loaded by n8n, so the community-node
// rules of the root config do not apply here; plain TypeScript rules do.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(js.configs.recommended, tseslint.configs.recommended, {
	files: ['**/*.ts'],
	rules: { '@typescript-eslint/no-explicit-any': 'off' },
});
