/** Shared types wiring the sandbox's parts together. */
import type { Clock } from './clock';
import type { Dialect } from './dialects';
import type { EventBus } from './events';
import type { Reply } from './http';
import type { ActedBy, Lifecycle } from './lifecycle';
import type { RuntimeConfig } from './options';
import type { Permission } from './permissions';
import type { Account, ApiKeyRow, Store } from './store';
import type { WebhookDispatcher } from './dispatcher';

export interface Services {
	store: Store;
	clock: Clock;
	events: EventBus;
	lifecycle: Lifecycle;
	dispatcher: WebhookDispatcher;
	config(): RuntimeConfig;
	/** Origin put into signing URLs (publicOrigin when set, else where the server listens). */
	signingOrigin(): string;
}

/** Everything a /v1 handler may use; `account` is the caller's own and nothing else. */
export interface ApiContext {
	services: Services;
	account: Account;
	key: ApiKeyRow;
	params: Record<string, string>;
	/** The request's path (`/v1/documents`), for the next-page URLs of some dialects. */
	pathname: string;
	query: Record<string, string | string[]>;
	/** The dialect in force when the request arrived. */
	dialect: Dialect;
	/** Parsed JSON body ({} when empty); undefined for GET and DELETE. */
	body: unknown;
	by: ActedBy;
}

export interface ApiHandler {
	permission: Permission;
	handle(ctx: ApiContext): Reply | Promise<Reply>;
}

export const ok = (body: unknown): Reply => ({ status: 200, body });
export const created = (body: unknown): Reply => ({ status: 201, body });
export const noContent = (): Reply => ({ status: 204 });
