/** Unit, contract and routing-engine tests. The real-n8n suite has its own config (e2e/jest.config.js). */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	testTimeout: 30000,
	setupFiles: ['<rootDir>/test/setupEnv.ts'],
};
