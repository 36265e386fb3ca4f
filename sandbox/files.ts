/**
 * A document's files (docs/api-contract.md, "Files"): the original (the upload as sent, or a
 * generated PDF for a document created without a file), the signed copy (once completed) and the
 * audit trail, plus the download links of the `fileLinks` option.
 *
 * Generated PDFs are made lazily and cached per document row (a WeakMap, so a deleted document
 * takes its cache with it). Generation is deterministic, so a cache miss (after a restart)
 * gives the same bytes again.
 */
import { createHmac, timingSafeEqual } from 'crypto';

import type {
	AuditLogEntry,
	AuditTrail,
	AuditTrailFormat,
	DocumentFileVersion,
	DocumentRecord,
} from '../contract';
import { ApiError, notFound } from './http';
import { auditTrailPdf, generatedOriginal, signedCopy, type UploadedFile } from './pdf';
import type { Account, DocumentRow } from './store';

export interface DocumentFile {
	data: Buffer;
	contentType: string;
	fileName: string;
}

interface Cache {
	/** The generated original, with the fields it was made from (a draft's signers can change). */
	original?: { key: string; file: Promise<Buffer> };
	signed?: Promise<Buffer>;
}

const caches = new WeakMap<DocumentRow, Cache>();

function cacheOf(row: DocumentRow): Cache {
	let cache = caches.get(row);
	if (!cache) {
		cache = {};
		caches.set(row, cache);
	}
	return cache;
}

/** Failed generations are not kept, so a later call tries again. */
function remember(promise: Promise<Buffer>, forget: () => void): Promise<Buffer> {
	promise.catch(forget);
	return promise;
}

/** `contract.docx` → `contract`; names without an extension stay whole. */
function baseName(name: string): string {
	const dot = name.lastIndexOf('.');
	return dot > 0 ? name.slice(0, dot) : name;
}

export function uploadedFile(row: DocumentRow): UploadedFile | null {
	const info = row.record.file;
	if (!info || row.fileData === undefined) return null;
	return { info, data: Buffer.from(row.fileData, 'base64') };
}

export async function originalFile(row: DocumentRow): Promise<DocumentFile> {
	const upload = uploadedFile(row);
	if (upload)
		return { data: upload.data, contentType: upload.info.content_type, fileName: upload.info.name };
	const document = row.record;
	const cache = cacheOf(row);
	const key = JSON.stringify([
		document.name,
		document.message,
		document.signers.map(({ name, email, order, role }) => [name, email, order, role]),
	]);
	if (cache.original?.key !== key) {
		const file = remember(generatedOriginal(structuredClone(document)), () => {
			if (cache.original?.key === key) cache.original = undefined;
		});
		cache.original = { key, file };
	}
	return {
		data: await cache.original.file,
		contentType: 'application/pdf',
		fileName: `${baseName(document.name)}.pdf`,
	};
}

export function notCompleted(document: DocumentRecord): ApiError {
	const why =
		document.status === 'draft' || document.status === 'pending'
			? 'the signed file exists once every signer has signed'
			: 'only a completed document has a signed file';
	return new ApiError(
		409,
		'document_not_completed',
		`The document is ${document.status}: ${why}`,
		'version',
	);
}

export async function signedFile(row: DocumentRow, account: Account): Promise<DocumentFile> {
	const document = row.record;
	if (document.status !== 'completed') throw notCompleted(document);
	const cache = cacheOf(row);
	if (!cache.signed) {
		const ipBySigner: Record<string, string | null> = {};
		for (const entry of documentEvents(account, document.id)) {
			if (entry.event === 'document.signed' && typeof entry.details.signer_id === 'string')
				ipBySigner[entry.details.signer_id] = entry.ip;
		}
		cache.signed = remember(
			signedCopy(structuredClone(document), uploadedFile(row), { ipBySigner }),
			() => {
				cache.signed = undefined;
			},
		);
	}
	return {
		data: await cache.signed,
		contentType: 'application/pdf',
		fileName: `${baseName(document.name)}-signed.pdf`,
	};
}

export function documentFile(
	row: DocumentRow,
	account: Account,
	version: DocumentFileVersion,
): Promise<DocumentFile> {
	return version === 'signed' ? signedFile(row, account) : originalFile(row);
}

/** The document's audit-log entries, oldest first (entries of a deleted document stay in the log). */
export function documentEvents(account: Account, documentId: string): AuditLogEntry[] {
	return account.audit
		.filter(({ record }) => record.document_id === documentId)
		.map(({ record }) => structuredClone(record));
}

export async function auditTrailFile(
	row: DocumentRow,
	account: Account,
	format: AuditTrailFormat,
): Promise<DocumentFile> {
	const document = row.record;
	const events = documentEvents(account, document.id);
	const fileName = `audit-trail-${document.id}.${format}`;
	if (format === 'json') {
		const trail: AuditTrail = {
			document_id: document.id,
			document_name: document.name,
			status: document.status,
			events,
		};
		return {
			data: Buffer.from(JSON.stringify(trail), 'utf8'),
			contentType: 'application/json; charset=utf-8',
			fileName,
		};
	}
	return {
		data: await auditTrailPdf(structuredClone(document), events),
		contentType: 'application/pdf',
		fileName,
	};
}

/**
 * `attachment; filename="…"` with an ASCII fallback, plus `filename*=UTF-8''…` (RFC 6266 /
 * RFC 8187) when the name has anything the plain form cannot carry.
 */
export function contentDisposition(fileName: string): string {
	const fallback = fileName
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.replace(/[^\x20-\x7e]|["\\]/g, '_');
	const plain = fallback === fileName;
	const encoded = encodeURIComponent(fileName).replace(
		/['()*]/g,
		(char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
	);
	return plain
		? `attachment; filename="${fileName}"`
		: `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

// ---------------------------------------------------------------------------------------------
// Download links (`fileLinks` option)
// ---------------------------------------------------------------------------------------------

export type LinkTarget = DocumentFileVersion | 'audit_trail';
const LINK_TARGETS: readonly LinkTarget[] = ['original', 'signed', 'audit_trail'];

/**
 * Tokens are not secrets (every download still needs the account's API key); the MAC binds a
 * token to its account, document and version so it cannot be edited into another one, and it
 * stays valid across restarts.
 */
const LINK_KEY = 'document-signing-sandbox/file-links/v1';

function linkMac(accountId: string, payload: string): Buffer {
	return createHmac('sha256', LINK_KEY).update(`${accountId}|${payload}`).digest().subarray(0, 16);
}

export function fileToken(accountId: string, documentId: string, target: LinkTarget): string {
	const payload = `${documentId}.${target}`;
	return `${Buffer.from(payload, 'utf8').toString('base64url')}.${linkMac(accountId, payload).toString('base64url')}`;
}

/** The document id and target of a token issued to this account, or a 404. */
export function readFileToken(
	accountId: string,
	token: string,
): { documentId: string; target: LinkTarget } {
	const fail = () => notFound('file');
	const [encoded, mac, extra] = token.split('.');
	if (!encoded || !mac || extra !== undefined) throw fail();
	const payload = Buffer.from(encoded, 'base64url').toString('utf8');
	// Compared as text: base64 decoding ignores the last character's spare bits, so a token with a
	// different last character could decode to the same bytes.
	const given = Buffer.from(mac, 'utf8');
	const expected = Buffer.from(linkMac(accountId, payload).toString('base64url'), 'utf8');
	if (Buffer.from(payload, 'utf8').toString('base64url') !== encoded) throw fail();
	if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw fail();
	const dot = payload.lastIndexOf('.');
	const target = payload.slice(dot + 1) as LinkTarget;
	if (dot <= 0 || !LINK_TARGETS.includes(target)) throw fail();
	return { documentId: payload.slice(0, dot), target };
}

/** A copy of the record as the API answers it: with `files` and `audit_trail_url` when `fileLinks` is on. */
export function presentDocument(
	record: DocumentRecord,
	accountId: string,
	options: { fileLinks: boolean; origin: string },
): DocumentRecord {
	const copy = structuredClone(record);
	if (!options.fileLinks) return copy;
	const url = (target: LinkTarget) =>
		`${options.origin}/v1/files/${fileToken(accountId, record.id, target)}`;
	copy.files = {
		original: { url: url('original') },
		signed: record.status === 'completed' ? { url: url('signed') } : null,
	};
	copy.audit_trail_url = url('audit_trail');
	return copy;
}
