/** Options of startSandbox() and the subset that can be changed while running. */
import { z } from 'zod';

import {
	dialectSpecString,
	DialectSpecSchema,
	parseDialect,
	type Dialect,
	type DialectSpec,
} from './dialects';
import type { RateLimitOptions } from './rateLimit';
import { DEFAULT_WEBHOOK_RETRY, type WebhookRetryOptions } from './dispatcher';

export interface SandboxOptions {
	/** 0 (default) picks a free port. */
	port?: number;
	/** Only loopback is allowed: the sandbox has unauthenticated admin routes. */
	host?: '127.0.0.1';
	/** Token bucket per API key; null/absent = no limit. */
	rateLimit?: RateLimitOptions | null;
	/** Probability (0..1) of answering a /v1 request with an injected 5xx before doing any work. */
	failureRate?: number;
	/** Statuses picked from for injected failures (default [500, 503]). */
	failureStatuses?: number[];
	/** Probability (0..1) of destroying the socket of a /v1 request without answering. */
	connectionResetRate?: number;
	/** Seed of the injected faults' random choices (faults.ts: faultRandom); null/absent = Math.random. */
	faultSeed?: number | null;
	webhookRetry?: Partial<WebhookRetryOptions>;
	/** JSON file to restore from at start and save to on changes and at close. */
	dataFile?: string;
	/** Origin used in signing URLs when clients reach the sandbox through another address. */
	publicOrigin?: string;
	/** Document records carry download links (`files`, `audit_trail_url`); default false. */
	fileLinks?: boolean;
	/** Dialect spec (`'numeric-ids+items-links'`) or axes over the default (sandbox/dialects.ts). */
	dialect?: DialectSpec;
}

/** What configure() and PUT /__sandbox/config may change at run time. */
export interface RuntimeConfig {
	rateLimit: RateLimitOptions | null;
	failureRate: number;
	failureStatuses: number[];
	connectionResetRate: number;
	faultSeed: number | null;
	webhookRetry: WebhookRetryOptions;
	publicOrigin: string | null;
	fileLinks: boolean;
	/** The resolved dialect (every axis). */
	dialect: Dialect;
	/** How it was asked for: preset names joined by `+`, or the JSON of the axes that differ. */
	dialectSpec: string;
}

export type RuntimeConfigPatch = Partial<
	Omit<RuntimeConfig, 'webhookRetry' | 'dialect' | 'dialectSpec'>
> & {
	webhookRetry?: Partial<WebhookRetryOptions>;
	/** Replaces the dialect: a spec string or axes over the default. */
	dialect?: DialectSpec;
};

const probability = z.number().min(0).max(1);

export const RuntimeConfigPatchSchema = z
	.object({
		rateLimit: z
			.object({
				requestsPerSecond: z.number().positive().max(1_000_000),
				burst: z.number().int().min(1).max(1_000_000).optional(),
				initialTokens: z.number().int().min(0).max(1_000_000).optional(),
			})
			.strict()
			.nullable()
			.optional(),
		failureRate: probability.optional(),
		failureStatuses: z.array(z.number().int().min(500).max(599)).min(1).max(20).optional(),
		connectionResetRate: probability.optional(),
		faultSeed: z.number().int().min(0).max(0xffffffff).nullable().optional(),
		webhookRetry: z
			.object({
				baseDelayMs: z.number().int().min(0).max(3_600_000).optional(),
				maxAttempts: z.number().int().min(1).max(50).optional(),
				timeoutMs: z.number().int().min(1).max(600_000).optional(),
				concurrencyPerUrl: z.number().int().min(0).max(10_000).optional(),
			})
			.strict()
			.optional(),
		publicOrigin: z
			.string()
			.regex(/^https?:\/\/[^/?#\s]+$/, {
				message: 'must be an origin such as http://localhost:4010',
			})
			.nullable()
			.optional(),
		fileLinks: z.boolean().optional(),
		dialect: DialectSpecSchema.optional(),
	})
	.strict()
	.superRefine((patch, ctx) => {
		if (patch.dialect === undefined) return;
		try {
			parseDialect(patch.dialect as DialectSpec);
		} catch (error) {
			ctx.addIssue({ code: 'custom', path: ['dialect'], message: (error as Error).message });
		}
	});

export function initialConfig(options: SandboxOptions): RuntimeConfig {
	parseDialect(options.dialect); // throws a clear error naming the valid dialects
	const patch = RuntimeConfigPatchSchema.parse({
		rateLimit: options.rateLimit ?? null,
		failureRate: options.failureRate ?? 0,
		failureStatuses: options.failureStatuses ?? [500, 503],
		connectionResetRate: options.connectionResetRate ?? 0,
		faultSeed: options.faultSeed ?? null,
		webhookRetry: options.webhookRetry ?? {},
		publicOrigin: options.publicOrigin?.replace(/\/+$/, '') ?? null,
		fileLinks: options.fileLinks ?? false,
		dialect: options.dialect ?? 'default',
	});
	return applyPatch(
		{
			rateLimit: null,
			failureRate: 0,
			failureStatuses: [500, 503],
			connectionResetRate: 0,
			faultSeed: null,
			webhookRetry: { ...DEFAULT_WEBHOOK_RETRY },
			publicOrigin: null,
			fileLinks: false,
			dialect: parseDialect(undefined),
			dialectSpec: 'default',
		},
		patch,
	);
}

/** Returns the config with `patch` applied; `patch` must already be validated. */
export function applyPatch(config: RuntimeConfig, patch: RuntimeConfigPatch): RuntimeConfig {
	return {
		rateLimit: patch.rateLimit !== undefined ? patch.rateLimit : config.rateLimit,
		failureRate: patch.failureRate ?? config.failureRate,
		failureStatuses: patch.failureStatuses ?? config.failureStatuses,
		connectionResetRate: patch.connectionResetRate ?? config.connectionResetRate,
		faultSeed: patch.faultSeed !== undefined ? patch.faultSeed : config.faultSeed,
		webhookRetry: { ...config.webhookRetry, ...(patch.webhookRetry ?? {}) },
		publicOrigin: patch.publicOrigin !== undefined ? patch.publicOrigin : config.publicOrigin,
		fileLinks: patch.fileLinks ?? config.fileLinks,
		...dialectOf(config, patch),
	};
}

function dialectOf(
	config: RuntimeConfig,
	patch: RuntimeConfigPatch,
): Pick<RuntimeConfig, 'dialect' | 'dialectSpec'> {
	if (patch.dialect === undefined)
		return { dialect: config.dialect, dialectSpec: config.dialectSpec };
	const dialect = parseDialect(patch.dialect);
	return { dialect, dialectSpec: dialectSpecString(patch.dialect, dialect) };
}
