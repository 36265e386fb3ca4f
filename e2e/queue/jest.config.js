/* global module, __dirname */
/**
 * The queue-mode suite: the real n8n as main + workers + webhook processors on Redis and
 * PostgreSQL (see cluster.ts). Its own config, because it needs those two servers (installed by
 * global-setup.ts) and runs apart from the single-process e2e suite (`e2e/jest.config.js`, whose
 * pattern `*.e2e.test.ts` does not match `*.queue.test.ts`).
 * Needs the package built (`npm run build`). Run with `npx jest -c e2e/queue/jest.config.js`.
 */
module.exports = {
	rootDir: __dirname,
	testEnvironment: 'node',
	roots: ['<rootDir>'],
	testMatch: ['**/*.queue.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] },
	// Installs the n8n host, Redis and PostgreSQL before the tests, outside their timeouts.
	globalSetup: '<rootDir>/global-setup.ts',
	// Two clusters at a time (each has its own Redis, PostgreSQL, ports and folders). Side by side,
	// n8n 2.41 once never started a polled execution; the poll now emits that event again
	// (docs/trigger.md, "Polling"). Every wait is bounded below this.
	maxWorkers: 2,
	testTimeout: 600000,
};
