/**
 * In-memory data of the sandbox: accounts, API keys and every record, kept per account so
 * isolation is structural (a handler only ever sees its own account's maps).
 *
 * Records are stored in their API shape (contract types) next to a creation sequence number
 * (`seq`, used for newest-first ordering and cursors) and any internal secrets that must never
 * appear in a response (signing tokens, simulated one-time codes, webhook secrets).
 */
import { randomBytes } from 'crypto';

import type {
	AuditLogEntry,
	DocumentRecord,
	SigningRequestRecord,
	TeamMemberRecord,
	TeamMemberRole,
	TemplateRecord,
	WebhookRecord,
} from '../contract';
import { instantOf } from './clock';
import { newId, randomToken, type IdKind } from './ids';

/** The demo account's key: fixed and documented so `npm run sandbox` users can paste it once. */
export const DEMO_API_KEY = 'sk_sandbox_demo_00000000000000000000000000000000';
export const DEMO_ACCOUNT_ID = 'acct_demo';
export const DEMO_OWNER_EMAIL = 'demo@example.com';

export interface SignerSecrets {
	token: string;
	/** Simulated one-time code for email_otp/sms_otp signers (shown on the signing page). */
	otpCode: string | null;
	/** A national e-ID identification started but not yet confirmed. */
	eidPending: { personalCode: string; controlCode: string } | null;
	/** When the signer passed their authentication step (null: not yet / not needed). */
	authenticatedAt: string | null;
}

export interface Row<T> {
	seq: number;
	record: T;
}

export interface DocumentRow extends Row<DocumentRecord> {
	accountId: string;
	/** The token in the document's own `signing_url` (the overview page); absent in old data files. */
	pageToken?: string;
	signerSecrets: Record<string, SignerSecrets>;
	/** The uploaded file's bytes as sent (base64), for GET /documents/{id}/file; never in a response. */
	fileData?: string;
}

export interface AuditRow extends Row<AuditLogEntry> {
	/**
	 * When an entry appended as given (EventBus.append) was logged, business clock in ms: its
	 * place in time when its `created_at` is no time.
	 */
	loggedAt?: number;
}

/**
 * Where an audit entry stands in time: its `created_at` (a zone-less time read as UTC), else when
 * it was logged.
 */
export function auditInstant(row: AuditRow): number {
	const ms = instantOf(row.record.created_at);
	return Number.isNaN(ms) ? (row.loggedAt ?? 0) : ms;
}

/**
 * The audit log as the service lists it: newest first by time, as a real service orders by
 * `created_at` (an entry dated in the future stays at the top); at one instant, the last logged
 * first. Entries the service logs itself come in time order, so for them this is the logging order.
 */
export function auditNewestFirst(rows: Iterable<AuditRow>): AuditRow[] {
	return [...rows]
		.map((row) => ({ row, at: auditInstant(row) }))
		.sort((a, b) => b.at - a.at || b.row.seq - a.row.seq)
		.map(({ row }) => row);
}

export interface WebhookRow extends Row<WebhookRecord> {
	secret: string;
}

export interface ApiKeyRow {
	key: string;
	accountId: string;
	userId: string;
	role: TeamMemberRole;
}

export interface Account {
	id: string;
	createdAt: string;
	documents: Map<string, DocumentRow>;
	signingRequests: Map<string, Row<SigningRequestRecord>>;
	templates: Map<string, Row<TemplateRecord>>;
	users: Map<string, Row<TeamMemberRecord>>;
	webhooks: Map<string, WebhookRow>;
	/** Append-only, in logging order (auditNewestFirst gives the listing order). */
	audit: AuditRow[];
}

/** The JSON written by --data-file. Maps become arrays; everything else is already plain data. */
export interface StoreSnapshot {
	version: 1;
	seq: number;
	/** The last numeric id issued (dialect `ids: 'numeric'`); absent in older files. */
	numericSeq?: number;
	keys: ApiKeyRow[];
	accounts: Array<{
		id: string;
		createdAt: string;
		documents: DocumentRow[];
		signingRequests: Array<Row<SigningRequestRecord>>;
		templates: Array<Row<TemplateRecord>>;
		users: Array<Row<TeamMemberRecord>>;
		webhooks: WebhookRow[];
		audit: AuditRow[];
	}>;
}

function emptyAccount(id: string, createdAt: string): Account {
	return {
		id,
		createdAt,
		documents: new Map(),
		signingRequests: new Map(),
		templates: new Map(),
		users: new Map(),
		webhooks: new Map(),
		audit: [],
	};
}

/** Newest first: the order every list endpoint uses. */
function newestFirst<T>(rows: Iterable<Row<T>>): T[] {
	return [...rows].sort((a, b) => b.seq - a.seq).map((row) => structuredClone(row.record));
}

/** Numeric ids (dialect `ids: 'numeric'`) start after this. */
const FIRST_NUMERIC_ID = 1000;

export class Store {
	private seq = 0;
	private numericSeq = FIRST_NUMERIC_ID;
	/** Secret that signs list cursors, so a cursor not issued here is refused. */
	readonly cursorSecret = randomBytes(32);
	readonly accounts = new Map<string, Account>();
	private readonly keys = new Map<string, ApiKeyRow>();
	/** Signing pages carry only a document id, so they need a way back to the account. */
	private readonly documentAccounts = new Map<string, string>();
	/** Pending documents with an `expires_at`, checked by the expiry sweep. */
	readonly expirable = new Set<string>();
	/** Webhooks with an `expires_at` (webhook id → account id), checked by the expiry sweep. */
	readonly expiringWebhooks = new Map<string, string>();

	constructor(
		private readonly nowIso: () => string,
		private readonly onChange: () => void = () => undefined,
		/** How new resource ids look (the dialect's `ids` axis), read at each creation. */
		private readonly idStyle: () => 'prefixed' | 'numeric' = () => 'prefixed',
	) {
		this.seedDemo();
	}

	nextSeq(): number {
		return ++this.seq;
	}

	/** A new resource id: `doc_…` (prefixed) or sequential decimal digits (numeric, unique across kinds). */
	newId(kind: Exclude<IdKind, 'request'>): string {
		if (this.idStyle() === 'numeric') return String(++this.numericSeq);
		return newId(kind);
	}

	/** Called by every mutation so persistence can schedule a save. */
	changed(): void {
		this.onChange();
	}

	// --- accounts and keys -------------------------------------------------------------------

	createAccount(
		options: { accountId?: string; apiKey?: string; ownerEmail?: string; ownerName?: string } = {},
	): {
		accountId: string;
		apiKey: string;
	} {
		const accountId = options.accountId ?? `acct_${randomToken(9).replace(/[-_]/g, 'x')}`;
		const now = this.nowIso();
		const account = emptyAccount(accountId, now);
		this.accounts.set(accountId, account);
		const owner = this.addUser(account, {
			email: options.ownerEmail ?? `owner@${accountId.replace(/_/g, '-')}.sandbox.test`,
			name: options.ownerName ?? 'Account Owner',
			role: 'owner',
			status: 'active',
			invited: false,
		});
		const apiKey = options.apiKey ?? `sk_sandbox_${randomToken(24).replace(/[-_]/g, 'x')}`;
		this.keys.set(apiKey, { key: apiKey, accountId, userId: owner.id, role: 'owner' });
		this.changed();
		return { accountId, apiKey };
	}

	/** A key acting as a new active team member with `role` (to exercise 403 answers). */
	createApiKey(accountId: string, role: Exclude<TeamMemberRole, 'owner'>): ApiKeyRow {
		const account = this.accounts.get(accountId);
		if (!account) throw new Error(`No such account: ${accountId}`);
		const user = this.addUser(account, {
			email: `${role}-${account.users.size + 1}@${accountId.replace(/_/g, '-')}.sandbox.test`,
			name: `API ${role}`,
			role,
			status: 'active',
			invited: false,
		});
		const row: ApiKeyRow = {
			key: `sk_sandbox_${randomToken(24).replace(/[-_]/g, 'x')}`,
			accountId,
			userId: user.id,
			role,
		};
		this.keys.set(row.key, row);
		this.changed();
		return row;
	}

	addUser(
		account: Account,
		input: {
			email: string;
			name: string | null;
			role: TeamMemberRole;
			status: 'invited' | 'active';
			invited: boolean;
		},
	): TeamMemberRecord {
		const now = this.nowIso();
		const record: TeamMemberRecord = {
			id: this.newId('user'),
			email: input.email,
			name: input.name,
			role: input.role,
			status: input.status,
			invited_at: input.invited ? now : null,
			created_at: now,
			updated_at: now,
		};
		account.users.set(record.id, { seq: this.nextSeq(), record });
		this.changed();
		return record;
	}

	/** The key's row, reading the member's current role (a role change applies at once). */
	authenticate(apiKey: string): ApiKeyRow | undefined {
		const row = this.keys.get(apiKey);
		if (!row) return undefined;
		const user = this.accounts.get(row.accountId)?.users.get(row.userId);
		if (!user) return undefined;
		return { ...row, role: user.record.role };
	}

	account(accountId: string): Account {
		const account = this.accounts.get(accountId);
		if (!account) throw new Error(`No such account: ${accountId}`);
		return account;
	}

	userOfKey(key: ApiKeyRow): TeamMemberRecord | undefined {
		return this.accounts.get(key.accountId)?.users.get(key.userId)?.record;
	}

	// --- documents ---------------------------------------------------------------------------

	insertDocument(row: DocumentRow): void {
		this.account(row.accountId).documents.set(row.record.id, row);
		this.documentAccounts.set(row.record.id, row.accountId);
		this.changed();
	}

	removeDocument(row: DocumentRow): void {
		this.account(row.accountId).documents.delete(row.record.id);
		this.documentAccounts.delete(row.record.id);
		this.expirable.delete(row.record.id);
		this.changed();
	}

	/** Any account's document: only for the signing pages, which authenticate by token. */
	findDocument(documentId: string): DocumentRow | undefined {
		const accountId = this.documentAccounts.get(documentId);
		return accountId === undefined
			? undefined
			: this.accounts.get(accountId)?.documents.get(documentId);
	}

	// --- read access for tests (copies, newest first) ----------------------------------------

	accountIdOf(apiKey: string): string | undefined {
		return this.keys.get(apiKey)?.accountId;
	}

	private accountOfKey(apiKey: string): Account | undefined {
		const accountId = this.accountIdOf(apiKey);
		return accountId === undefined ? undefined : this.accounts.get(accountId);
	}

	documentsOf(apiKey: string): DocumentRecord[] {
		return newestFirst(this.accountOfKey(apiKey)?.documents.values() ?? []);
	}

	signingRequestsOf(apiKey: string): SigningRequestRecord[] {
		return newestFirst(this.accountOfKey(apiKey)?.signingRequests.values() ?? []);
	}

	templatesOf(apiKey: string): TemplateRecord[] {
		return newestFirst(this.accountOfKey(apiKey)?.templates.values() ?? []);
	}

	usersOf(apiKey: string): TeamMemberRecord[] {
		return newestFirst(this.accountOfKey(apiKey)?.users.values() ?? []);
	}

	webhooksOf(apiKey: string): WebhookRecord[] {
		return newestFirst(this.accountOfKey(apiKey)?.webhooks.values() ?? []);
	}

	/** Newest first by time, as GET /reports/audit-log lists it (auditNewestFirst). */
	auditLogOf(apiKey: string): AuditLogEntry[] {
		return auditNewestFirst(this.accountOfKey(apiKey)?.audit ?? []).map((row) =>
			structuredClone(row.record),
		);
	}

	/** The signer's page token and simulated codes, for tests that drive the signing pages. */
	signerSecretsOf(documentId: string, signerId: string): Readonly<SignerSecrets> | undefined {
		const secrets = this.findDocument(documentId)?.signerSecrets[signerId];
		return secrets ? structuredClone(secrets) : undefined;
	}

	// --- lifecycle of the whole store ----------------------------------------------------------

	/** Wipes everything and recreates the demo account. */
	reset(): void {
		this.accounts.clear();
		this.keys.clear();
		this.documentAccounts.clear();
		this.expirable.clear();
		this.expiringWebhooks.clear();
		this.seedDemo();
		this.changed();
	}

	private seedDemo(): void {
		this.createAccount({
			accountId: DEMO_ACCOUNT_ID,
			apiKey: DEMO_API_KEY,
			ownerEmail: DEMO_OWNER_EMAIL,
			ownerName: 'Demo Owner',
		});
	}

	snapshot(): StoreSnapshot {
		return structuredClone({
			version: 1 as const,
			seq: this.seq,
			numericSeq: this.numericSeq,
			keys: [...this.keys.values()],
			accounts: [...this.accounts.values()].map((account) => ({
				id: account.id,
				createdAt: account.createdAt,
				documents: [...account.documents.values()],
				signingRequests: [...account.signingRequests.values()],
				templates: [...account.templates.values()],
				users: [...account.users.values()],
				webhooks: [...account.webhooks.values()],
				audit: account.audit,
			})),
		});
	}

	restore(snapshot: StoreSnapshot): void {
		if (
			snapshot?.version !== 1 ||
			!Array.isArray(snapshot.accounts) ||
			!Array.isArray(snapshot.keys)
		) {
			throw new Error('Unsupported sandbox data file (expected version 1)');
		}
		this.accounts.clear();
		this.keys.clear();
		this.documentAccounts.clear();
		this.expirable.clear();
		this.expiringWebhooks.clear();
		this.seq = snapshot.seq;
		this.numericSeq = Math.max(this.numericSeq, snapshot.numericSeq ?? FIRST_NUMERIC_ID);
		for (const key of snapshot.keys) this.keys.set(key.key, key);
		for (const saved of snapshot.accounts) {
			const account = emptyAccount(saved.id, saved.createdAt);
			for (const row of saved.documents) {
				if (row.pageToken === undefined && !row.record.signing_url.includes('?')) {
					// Data files from before the overview page needed a token.
					row.pageToken = randomToken();
					row.record.signing_url = `${row.record.signing_url}?token=${row.pageToken}`;
				}
				// Data files from before template fields and roles.
				row.record.fields ??= [];
				for (const signer of row.record.signers) signer.role ??= null;
				account.documents.set(row.record.id, row);
				this.documentAccounts.set(row.record.id, account.id);
				if (row.record.status === 'pending' && row.record.expires_at)
					this.expirable.add(row.record.id);
			}
			for (const row of saved.signingRequests) account.signingRequests.set(row.record.id, row);
			for (const row of saved.templates) {
				row.record.fields ??= [];
				account.templates.set(row.record.id, row);
			}
			for (const row of saved.users) account.users.set(row.record.id, row);
			for (const row of saved.webhooks) {
				account.webhooks.set(row.record.id, row);
				if (row.record.expires_at) this.expiringWebhooks.set(row.record.id, account.id);
			}
			account.audit = saved.audit;
			this.accounts.set(account.id, account);
		}
		// The demo key must always work, even with a data file from before it existed.
		if (!this.keys.has(DEMO_API_KEY)) this.seedDemo();
	}
}
