/* global module, __dirname */
/**
 * `npm run test:reliability`: the reliability checks against a real n8n (the pinned one of the
 * e2e harness) and the sandbox. Needs the package built (`npm run build`): n8n loads dist/.
 * One suite file, one n8n, run in order; every wait is bounded. Summary lines go to stdout.
 */
module.exports = {
	rootDir: `${__dirname}/..`,
	testEnvironment: 'node',
	roots: ['<rootDir>/reliability'],
	testMatch: ['**/*.reliability.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	// Installs the n8n host once, outside the tests' timeouts (shared with the e2e suite).
	globalSetup: '<rootDir>/e2e/harness/global-setup.ts',
	maxWorkers: 1,
	testTimeout: 600000,
};
