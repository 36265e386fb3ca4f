/** Unit, contract and routing-engine tests. The real-n8n suite has its own config (e2e/jest.config.js). */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	testTimeout: 30000,
	// Both cores (jest's default leaves one idle on a 2-core machine).
	maxWorkers: 2,
	// A few suites build pages of many megabytes; a worker that kept them would slow every later
	// suite's garbage collection, so it is replaced once idle above this.
	workerIdleMemoryLimit: '1GB',
	setupFiles: ['<rootDir>/test/setupEnv.ts'],
};
