/**
 * The document state machine (docs/api-contract.md, "States and transitions"): creation and
 * sending, viewing, signing (with order and authentication), declining, expiry, reminders and
 * deletion. Every transition updates the document and its signing request together and emits
 * its events with a snapshot of the state at that moment.
 */
import { createHash } from 'crypto';

import type {
	AuditActor,
	CreateDocumentBody,
	DocumentField,
	DocumentRecord,
	FileInfo,
	SignerInput,
	SignerRecord,
	SigningRequestRecord,
	SigningRequestStatus,
} from '../contract';
import type { Clock } from './clock';
import { EventBus, SYSTEM_ACTOR } from './events';
import { ApiError, conflict } from './http';
import { randomDigits, randomToken } from './ids';
import type { DocumentRow, SignerSecrets, Store } from './store';

/** Who did something, for the audit log. */
export interface ActedBy {
	actor: AuditActor;
	ip: string | null;
}

export interface NewDocument {
	name: string;
	signers: SignerInput[];
	draft: boolean;
	message: string | null;
	expiresAt: string | null;
	templateId: string | null;
	/** The template's fields with their values ([] without a template). */
	fields: DocumentField[];
	metadata: Record<string, string>;
	file: CreateDocumentBody['file'];
}

export function signerActor(signer: SignerRecord, ip: string | null): ActedBy {
	return { actor: { type: 'signer', email: signer.email }, ip };
}

/** A signer with an order may sign once every signer with a lower order has signed. */
export function signersBlocking(document: DocumentRecord, signer: SignerRecord): SignerRecord[] {
	if (signer.order === null) return [];
	const order = signer.order;
	return document.signers.filter(
		(other) => other.order !== null && other.order < order && other.status !== 'signed',
	);
}

export function needsAuthentication(signer: SignerRecord, secrets: SignerSecrets): boolean {
	return signer.authentication !== 'none' && secrets.authenticatedAt === null;
}

export class Lifecycle {
	constructor(
		private readonly store: Store,
		private readonly clock: Clock,
		private readonly events: EventBus,
		private readonly signingOrigin: () => string,
	) {}

	// --- creation and sending ----------------------------------------------------------------

	create(accountId: string, input: NewDocument, by: ActedBy): DocumentRow {
		const now = this.clock.iso();
		const id = this.store.newId('document');
		// The overview page lists every signer's own link, so it needs a token of its own.
		const pageToken = randomToken();
		const row: DocumentRow = {
			seq: this.store.nextSeq(),
			accountId,
			signerSecrets: {},
			...(input.file ? { fileData: input.file.data } : {}),
			pageToken,
			record: {
				id,
				name: input.name,
				status: 'draft',
				signers: [],
				signing_url: `${this.signingOrigin()}/sign/${id}?token=${pageToken}`,
				signature_request_id: null,
				message: input.message,
				expires_at: input.expiresAt,
				template_id: input.templateId,
				fields: structuredClone(input.fields),
				metadata: { ...input.metadata },
				file: input.file ? fileInfo(input.file, input.name) : null,
				created_at: now,
				updated_at: now,
				completed_at: null,
			},
		};
		this.replaceSigners(row, input.signers);
		this.store.insertDocument(row);

		if (input.draft) {
			this.emitDocument(row, 'document.created', by, { name: input.name });
		} else {
			// Build the final state first so every event of the creation shows the sent document.
			const request = this.openRequest(row);
			this.emitDocument(row, 'document.created', by, { name: input.name });
			this.emitRequested(row, request, by);
		}
		return row;
	}

	/** POST /signatures/request: sends a draft. */
	send(
		row: DocumentRow,
		changes: { signers?: SignerInput[]; message?: string | null; expiresAt?: string | null },
		by: ActedBy,
	): SigningRequestRecord {
		if (row.record.status !== 'draft') {
			throw conflict(
				`Document ${row.record.id} is ${row.record.status}; only a draft can be sent`,
				'document_id',
			);
		}
		if (changes.signers) this.replaceSigners(row, changes.signers);
		if (row.record.signers.length === 0) {
			throw new ApiError(
				400,
				'validation_error',
				'signers is required: the draft has no signers yet',
				'signers',
			);
		}
		if (changes.message !== undefined) row.record.message = changes.message;
		if (changes.expiresAt !== undefined) row.record.expires_at = changes.expiresAt;
		const request = this.openRequest(row);
		this.emitRequested(row, request, by);
		return structuredClone(request);
	}

	private replaceSigners(row: DocumentRow, inputs: SignerInput[]): void {
		row.signerSecrets = {};
		row.record.signers = inputs.map((input) => {
			const id = this.store.newId('signer');
			const authentication = input.authentication ?? 'none';
			const secrets: SignerSecrets = {
				token: randomToken(),
				otpCode:
					authentication === 'email_otp' || authentication === 'sms_otp' ? randomDigits(6) : null,
				eidPending: null,
				authenticatedAt: null,
			};
			row.signerSecrets[id] = secrets;
			return {
				id,
				email: input.email,
				name: input.name,
				role: input.role ?? null,
				order: input.order ?? null,
				authentication,
				phone: input.phone ?? null,
				status: 'pending',
				signing_url: `${this.signingOrigin()}/sign/${row.record.id}/${id}?token=${secrets.token}`,
				viewed_at: null,
				signed_at: null,
				declined_at: null,
				decline_reason: null,
			};
		});
	}

	private openRequest(row: DocumentRow): SigningRequestRecord {
		const account = this.store.account(row.accountId);
		const now = this.clock.iso();
		const request: SigningRequestRecord = {
			id: this.store.newId('signingRequest'),
			document_id: row.record.id,
			status: 'pending',
			signers: [],
			message: row.record.message,
			expires_at: row.record.expires_at,
			reminders_sent: 0,
			last_reminded_at: null,
			created_at: now,
			updated_at: now,
		};
		account.signingRequests.set(request.id, { seq: this.store.nextSeq(), record: request });
		row.record.status = 'pending';
		row.record.signature_request_id = request.id;
		if (row.record.expires_at) this.store.expirable.add(row.record.id);
		this.touch(row);
		return request;
	}

	private emitRequested(row: DocumentRow, request: SigningRequestRecord, by: ActedBy): void {
		this.events.emit({
			accountId: row.accountId,
			event: 'signature.requested',
			...by,
			documentId: row.record.id,
			details: { signature_request_id: request.id, signer_count: row.record.signers.length },
			data: { signature_request: structuredClone(request) },
		});
		this.emitDocument(row, 'document.sent', by, { signature_request_id: request.id });
	}

	// --- signer actions ----------------------------------------------------------------------

	/** Opening the signing page. Only the first opening of a pending signer counts. */
	view(row: DocumentRow, signerId: string, ip: string | null): void {
		const signer = this.signer(row, signerId);
		if (row.record.status !== 'pending' || signer.status !== 'pending') return;
		signer.status = 'viewed';
		signer.viewed_at = this.clock.iso();
		this.touch(row);
		this.emitDocument(
			row,
			'document.viewed',
			signerActor(signer, ip),
			{ signer_id: signer.id },
			signer,
		);
	}

	/** Why `signerId` cannot sign now, or null when they can. */
	signBlocker(
		row: DocumentRow,
		signerId: string,
		options: { skipAuthentication?: boolean } = {},
	): string | null {
		const signer = this.signer(row, signerId);
		if (signer.status === 'signed') return 'You have already signed this document.';
		if (signer.status === 'declined') return 'You have declined this document.';
		if (row.record.status !== 'pending') return `The document is ${row.record.status}.`;
		const blocking = signersBlocking(row.record, signer);
		if (blocking.length > 0) {
			return `Waiting for ${blocking.map((other) => other.name).join(', ')} to sign first (signing order).`;
		}
		if (!options.skipAuthentication && needsAuthentication(signer, row.signerSecrets[signer.id])) {
			return 'Identity verification is required before signing.';
		}
		return null;
	}

	sign(
		row: DocumentRow,
		signerId: string,
		ip: string | null,
		options: { skipAuthentication?: boolean } = {},
	): void {
		const blocker = this.signBlocker(row, signerId, options);
		if (blocker) throw conflict(blocker);
		const signer = this.signer(row, signerId);
		this.view(row, signerId, ip);
		signer.status = 'signed';
		signer.signed_at = this.clock.iso();
		this.touch(row);
		this.emitDocument(
			row,
			'document.signed',
			signerActor(signer, ip),
			{ signer_id: signer.id },
			signer,
		);

		if (row.record.signers.every((other) => other.status === 'signed')) {
			row.record.status = 'completed';
			row.record.completed_at = this.clock.iso();
			this.store.expirable.delete(row.record.id);
			this.touch(row);
			this.emitDocument(row, 'document.completed', { actor: SYSTEM_ACTOR, ip: null }, {});
		}
	}

	/** Why `signerId` cannot decline now, or null when they can. Order does not matter here. */
	declineBlocker(
		row: DocumentRow,
		signerId: string,
		options: { skipAuthentication?: boolean } = {},
	): string | null {
		const signer = this.signer(row, signerId);
		if (signer.status === 'signed') return 'You have already signed this document.';
		if (signer.status === 'declined') return 'You have already declined this document.';
		if (row.record.status !== 'pending') return `The document is ${row.record.status}.`;
		if (!options.skipAuthentication && needsAuthentication(signer, row.signerSecrets[signer.id])) {
			return 'Identity verification is required before declining.';
		}
		return null;
	}

	decline(
		row: DocumentRow,
		signerId: string,
		reason: string,
		ip: string | null,
		options: { skipAuthentication?: boolean } = {},
	): void {
		const blocker = this.declineBlocker(row, signerId, options);
		if (blocker) throw conflict(blocker);
		const signer = this.signer(row, signerId);
		this.view(row, signerId, ip);
		const now = this.clock.iso();
		signer.status = 'declined';
		signer.declined_at = now;
		signer.decline_reason = reason;
		row.record.status = 'declined';
		this.store.expirable.delete(row.record.id);
		this.touch(row);
		this.emitDocument(
			row,
			'document.declined',
			signerActor(signer, ip),
			{ signer_id: signer.id, reason },
			signer,
		);
	}

	// --- reminders, deletion, expiry -----------------------------------------------------------

	remind(
		accountId: string,
		requestId: string,
		input: { signerIds?: string[]; message?: string | null },
		by: ActedBy,
	): SigningRequestRecord {
		const request = this.store.account(accountId).signingRequests.get(requestId)?.record;
		if (!request) throw new ApiError(404, 'not_found', 'No such signing request');
		if (request.status !== 'pending')
			throw conflict(
				`Signing request ${request.id} is ${request.status}; only a pending request can be reminded`,
			);
		const row = this.store.account(accountId).documents.get(request.document_id);
		if (!row) throw conflict(`The document of signing request ${request.id} no longer exists`);

		const waiting = row.record.signers.filter(
			(signer) => signer.status === 'pending' || signer.status === 'viewed',
		);
		let reminded = waiting;
		if (input.signerIds) {
			reminded = input.signerIds.map((id, index) => {
				const signer = row.record.signers.find((candidate) => candidate.id === id);
				if (!signer)
					throw new ApiError(
						400,
						'validation_error',
						`signer_ids[${index}] is not a signer of this request`,
						`signer_ids[${index}]`,
					);
				if (!waiting.includes(signer)) {
					throw new ApiError(
						400,
						'validation_error',
						`signer_ids[${index}] has already ${signer.status}`,
						`signer_ids[${index}]`,
					);
				}
				return signer;
			});
		}

		const now = this.clock.iso();
		request.reminders_sent += 1;
		request.last_reminded_at = now;
		request.updated_at = now;
		this.store.changed();
		this.events.emit({
			accountId,
			event: 'signature.reminded',
			...by,
			documentId: row.record.id,
			details: {
				signature_request_id: request.id,
				signer_ids: reminded.map((signer) => signer.id),
				message: input.message ?? null,
			},
			data: { signature_request: structuredClone(request) },
		});
		return structuredClone(request);
	}

	/** `pending → cancelled` (`document.cancelled`); false, changing nothing, in any other state. */
	cancel(row: DocumentRow, by: ActedBy): boolean {
		if (row.record.status !== 'pending') return false;
		row.record.status = 'cancelled';
		this.touch(row);
		this.emitDocument(row, 'document.cancelled', by, {});
		return true;
	}

	/** DELETE /documents/{id}: a pending document is cancelled first. Its signing request stays. */
	delete(row: DocumentRow, by: ActedBy): void {
		this.cancel(row, by);
		this.store.removeDocument(row);
		this.emitDocument(row, 'document.deleted', by, { name: row.record.name });
	}

	/** Expires every pending document whose `expires_at` has passed on the business clock. */
	expireDue(): void {
		const now = this.clock.now();
		for (const documentId of [...this.store.expirable]) {
			const row = this.store.findDocument(documentId);
			if (!row || row.record.status !== 'pending' || !row.record.expires_at) {
				this.store.expirable.delete(documentId);
				continue;
			}
			if (Date.parse(row.record.expires_at) > now) continue;
			row.record.status = 'expired';
			this.store.expirable.delete(documentId);
			this.touch(row);
			this.emitDocument(
				row,
				'document.expired',
				{ actor: SYSTEM_ACTOR, ip: null },
				{ expires_at: row.record.expires_at },
			);
		}
	}

	// --- helpers -----------------------------------------------------------------------------

	signer(row: DocumentRow, signerId: string): SignerRecord {
		const signer = row.record.signers.find((candidate) => candidate.id === signerId);
		if (!signer) throw new ApiError(404, 'not_found', 'No such signer');
		return signer;
	}

	/** Marks the document changed and mirrors it onto its signing request. */
	private touch(row: DocumentRow): void {
		const now = this.clock.iso();
		row.record.updated_at = now;
		const requestId = row.record.signature_request_id;
		const request = requestId
			? this.store.accounts.get(row.accountId)?.signingRequests.get(requestId)?.record
			: undefined;
		if (request) {
			request.status = requestStatus(row.record, request.status);
			request.signers = row.record.signers.map(({ id, email, name, status, signing_url }) => ({
				id,
				email,
				name,
				status,
				signing_url,
			}));
			request.message = row.record.message;
			request.expires_at = row.record.expires_at;
			request.updated_at = now;
		}
		this.store.changed();
	}

	private emitDocument(
		row: DocumentRow,
		event:
			| 'document.created'
			| 'document.sent'
			| 'document.viewed'
			| 'document.signed'
			| 'document.completed'
			| 'document.declined'
			| 'document.expired'
			| 'document.cancelled'
			| 'document.deleted',
		by: ActedBy,
		details: Record<string, unknown>,
		signer?: SignerRecord,
	): void {
		this.events.emit({
			accountId: row.accountId,
			event,
			...by,
			documentId: row.record.id,
			details,
			data: signer
				? { document: structuredClone(row.record), signer: structuredClone(signer) }
				: { document: structuredClone(row.record) },
		});
	}
}

function requestStatus(
	document: DocumentRecord,
	current: SigningRequestStatus,
): SigningRequestStatus {
	return document.status === 'draft' ? current : document.status;
}

function fileInfo(file: NonNullable<CreateDocumentBody['file']>, documentName: string): FileInfo {
	const bytes = Buffer.from(file.data, 'base64');
	return {
		name: file.name ?? documentName,
		content_type: file.content_type,
		size: bytes.length,
		sha256: createHash('sha256').update(bytes).digest('hex'),
	};
}
