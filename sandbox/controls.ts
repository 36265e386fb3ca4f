/** The programmatic face of a running sandbox (returned by startSandbox). */
import type {
	AuditLogEntry,
	DocumentFileVersion,
	DocumentRecord,
	WebhookDelivery,
} from '../contract';
import type { RawAuditEntry } from './events';
import type { DocumentFile } from './files';
import type { RuntimeConfig, RuntimeConfigPatch } from './options';
import type { SandboxStats } from './stats';
import type { Store } from './store';
import type { DeliveryAttempt } from './dispatcher';

/** Read access to the data, for assertions. Every method returns copies, newest first. */
export type SandboxStoreView = Pick<
	Store,
	| 'accountIdOf'
	| 'documentsOf'
	| 'signingRequestsOf'
	| 'templatesOf'
	| 'usersOf'
	| 'webhooksOf'
	| 'auditLogOf'
	| 'signerSecretsOf'
>;

export type SignerAction = 'view' | 'sign' | 'decline';

export interface Sandbox {
	/** `http://127.0.0.1:<port>` */
	readonly origin: string;
	/** origin + '/v1' */
	readonly baseUrl: string;
	/** The demo account's key (DEMO_API_KEY). */
	readonly apiKey: string;
	/** A new, empty account whose owner holds the returned key. */
	createAccount(): { accountId: string; apiKey: string };
	/** Another key for an account, acting as a new active member with `role` (for 403 tests). */
	createApiKey(
		accountId: string,
		role: 'admin' | 'member' | 'viewer',
	): { apiKey: string; userId: string; role: string };
	/**
	 * Logs an audit-log entry in an account exactly as given, as a hostile or careless log holds
	 * one: `event` and `created_at` any text (`'2099-01-01T00:00:00Z'`, a time without a zone, no
	 * time), `document_id` any id (another account's too). It is listed like any entry, by its time
	 * (newest first: a future one at the top), and never delivered to webhooks. Returns the entry;
	 * throws for an unknown account. Over HTTP: `POST /__sandbox/accounts/{accountId}/audit-log`.
	 */
	appendAuditEntry(accountId: string, entry: RawAuditEntry): AuditLogEntry;
	/** Changes run-time options (rate limit, failure injection, webhook retry, public origin, dialect). */
	configure(patch: RuntimeConfigPatch): RuntimeConfig;
	config(): RuntimeConfig;
	stats(): SandboxStats;
	readonly store: SandboxStoreView;
	/** Every webhook delivery attempt (most recent 10 000), oldest first. */
	deliveries(): DeliveryAttempt[];
	/** A delivery's record (status, attempts, received_at, acknowledged_at), or undefined. */
	deliveryRecord(deliveryId: string): WebhookDelivery | undefined;
	/** Resolves when no webhook delivery is pending (each succeeded or gave up). */
	flushDeliveries(): Promise<void>;
	/** Moves the business clock forward (timestamps, expiry) and runs the expiry check. */
	advanceClock(seconds: number): void;
	/** The business clock: real time plus every advanceClock() so far, as an ISO timestamp. */
	now(): string;
	/**
	 * Acts as a signer without the browser, skipping the authentication step but keeping the
	 * state machine's other rules (order, state). Returns the document afterwards.
	 */
	actAsSigner(
		documentId: string,
		signerId: string,
		action: SignerAction,
		reason?: string,
	): DocumentRecord;
	/**
	 * The bytes GET /documents/{id}/file?version= answers (any account's document), with its
	 * content type and file name. Rejects with the API's error: 404 unknown, 409 not completed.
	 */
	documentFile(documentId: string, version?: DocumentFileVersion): Promise<DocumentFile>;
	/** Deletes all data (the demo account is recreated), deliveries, statistics and the clock offset. */
	reset(): void;
	close(): Promise<void>;
}
