/**
 * A local implementation of docs/api-contract.md for tests, benchmarks and development.
 * See the "Sandbox" section of the contract for its switches and admin endpoints.
 */
export { startSandbox, type StartOptions } from './server';
export type { Sandbox, SandboxStoreView, SignerAction } from './controls';
export type { SandboxOptions, RuntimeConfig, RuntimeConfigPatch } from './options';
export type { SandboxStats } from './stats';
export {
	DEFAULT_DIALECT,
	DIALECT_NAMES,
	DIALECT_PRESETS,
	parseDialect,
	type Dialect,
	type DialectSpec,
	type ErrorBodyStyle,
	type ListEnvelope,
} from './dialects';
export type { DeliveryAttempt, WebhookRetryOptions } from './dispatcher';
export type { RawAuditEntry } from './events';
export type { RateLimitOptions } from './rateLimit';
export { DEMO_API_KEY, DEMO_ACCOUNT_ID, DEMO_OWNER_EMAIL } from './store';
export type { DocumentFile } from './files';
