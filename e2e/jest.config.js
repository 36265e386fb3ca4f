/* global module, __dirname */
/**
 * End-to-end tests against a real n8n (the pinned ones of e2e/n8n-host*, installed on demand by
 * scripts/n8n-host.sh). They need the package built first (`npm run build`): n8n loads dist/.
 * Run with `npx jest -c e2e/jest.config.js`.
 */
module.exports = {
	rootDir: __dirname,
	testEnvironment: 'node',
	roots: ['<rootDir>'],
	testMatch: ['**/*.e2e.test.ts'],
	modulePathIgnorePatterns: ['<rootDir>/n8n-host[^/]*/'],
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/n8n-host[^/]*/'],
	transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] },
	// Installs the n8n hosts (scripts/n8n-host.sh ensure 2 | 1 | 1.110) before the tests, outside their timeouts.
	globalSetup: '<rootDir>/harness/global-setup.ts',
	// One n8n at a time on a 2-core machine. Every wait in the harness is bounded well below this.
	// Two suites at a time: each starts its own n8n (own user folder, free ports, own sandbox) and
	// counts only its own executions, so they do not see each other; much of a suite's time is
	// waiting (for n8n to start, a poll minute, a delivery), which the other suite's work fills.
	maxWorkers: 2,
	testTimeout: 600000,
};
