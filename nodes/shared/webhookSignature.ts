/**
 * Signature primitives and the contract's `X-Signature: t=…,v1=…` layout
 * (docs/delivery-signatures.md). Verification only (the sandbox signs); a refusal is a reason.
 */
import { createHmac, timingSafeEqual } from 'crypto';

import { SIGNATURE_TOLERANCE_SECONDS } from './vocabulary';

export type SignatureFailureReason =
	| 'missing_header'
	| 'malformed_header'
	| 'unsupported_scheme'
	| 'missing_timestamp'
	| 'stale_timestamp'
	| 'empty_body'
	| 'signature_mismatch'
	| 'layout_not_accepted';

export type SignatureVerification =
	| { valid: true; timestamp: number }
	| { valid: false; reason: SignatureFailureReason };

export interface VerifyWebhookSignatureInput {
	/** The raw `X-Signature` header value (Node gives duplicated headers as an array). */
	header: string | string[] | undefined | null;
	/** The body exactly as received: never re-serialised JSON. */
	rawBody: string | Buffer | undefined | null;
	secret: string;
	/** The receiver's clock, Unix seconds. */
	nowSeconds: number;
	toleranceSeconds?: number;
}

export const SIGNATURE_SCHEME = 'v1';
/** Unix seconds are integers; 15 digits is far beyond any real clock and keeps Number exact. */
export const TIMESTAMP_PATTERN = /^\d{1,15}$/;
const HEX_PATTERN = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64_PATTERN = /^[A-Za-z0-9+/_-]+={0,2}$/;
const SHA256_BYTES = 32;
/** A delivery id longer than this is not one (it would also be a costly repeat key). */
export const MAX_SIGNED_ID_LENGTH = 256;
/** Signature entries looked at per header: a real service rotating secrets sends two or three. */
export const MAX_SIGNATURE_CANDIDATES = 16;

export type Bytes = string | Buffer;

/** A string body is hashed as its UTF-8 text, a Buffer byte for byte. */
export function hmac(key: Buffer, prefix: string, rawBody: Bytes): Buffer {
	return createHmac('sha256', key).update(prefix, 'utf8').update(rawBody).digest();
}

/** Whether any candidate equals `expected`; checks every one, so timing does not tell which. */
export function anyMatches(candidates: Buffer[], expected: Buffer): boolean {
	let matched = false;
	for (const candidate of candidates) {
		// timingSafeEqual throws on unequal lengths; a wrong length is simply not a match.
		if (candidate.length === expected.length && timingSafeEqual(candidate, expected))
			matched = true;
	}
	return matched;
}

/** A 32-byte digest written as hex or as base64 (standard or URL alphabet), else undefined. */
export function digestBytes(text: string): Buffer | undefined {
	if (text.length === SHA256_BYTES * 2 && HEX_PATTERN.test(text)) return Buffer.from(text, 'hex');
	if (!BASE64_PATTERN.test(text)) return undefined;
	const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
	return bytes.length === SHA256_BYTES ? bytes : undefined;
}

/** Standard Webhooks' key: the base64 after `whsec_`, as its libraries do; else the UTF-8 text. */
export function standardWebhooksKey(secret: string): Buffer {
	const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
	if (encoded !== '' && /^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
		const key = Buffer.from(encoded, 'base64');
		if (key.length > 0) return key;
	}
	return Buffer.from(secret, 'utf8');
}

export function bodyIsEmpty(rawBody: Bytes | undefined | null): rawBody is undefined | null {
	return !rawBody || rawBody.length === 0;
}

/** Seconds of a timestamp header: Unix seconds, or milliseconds (13 digits and more). */
export function secondsOf(text: string): number | undefined {
	if (!TIMESTAMP_PATTERN.test(text)) return undefined;
	const value = Number(text);
	return value >= 1e12 ? Math.floor(value / 1000) : value;
}

export function fresh(seconds: number, nowSeconds: number, toleranceSeconds: number): boolean {
	return Number.isFinite(nowSeconds) && Math.abs(nowSeconds - seconds) <= toleranceSeconds;
}

/** Parses `t=…,v1=…[,v1=…]`; tolerant of whitespace, strict about everything else. */
function parseTimestampedHeader(
	header: string,
): { timestamp: number; signatures: Buffer[] } | SignatureFailureReason {
	let timestamp: number | undefined;
	const signatures: Buffer[] = [];
	let otherSchemeSeen = false;
	for (const part of header.split(',')) {
		const equals = part.indexOf('=');
		const key = part.slice(0, Math.max(equals, 0)).trim();
		const value = part.slice(equals + 1).trim();
		if (equals < 0 || key === '' || value === '') return 'malformed_header';
		if (key === 't') {
			// Two timestamps would make it ambiguous which one was signed.
			if (timestamp !== undefined || !TIMESTAMP_PATTERN.test(value)) return 'malformed_header';
			timestamp = Number(value);
		} else if (key === SIGNATURE_SCHEME) {
			if (!HEX_PATTERN.test(value)) return 'malformed_header';
			signatures.push(Buffer.from(value, 'hex'));
		} else {
			// Other schemes (v0=, …) are skipped, so a future scheme can be added alongside v1.
			otherSchemeSeen = true;
		}
	}
	if (timestamp === undefined) return 'malformed_header';
	if (signatures.length === 0) return otherSchemeSeen ? 'unsupported_scheme' : 'malformed_header';
	return { timestamp, signatures: signatures.slice(0, MAX_SIGNATURE_CANDIDATES) };
}

/** Whether a signature header's value is in the `t=…,v1=…` form rather than a bare HMAC. */
export function looksTimestamped(header: string): boolean {
	return /(?:^|,)\s*t\s*=/.test(header);
}

/** Checks the contract's layout: an HMAC of `<t>.<raw body>` keyed by the secret's UTF-8. */
export function verifyWebhookSignature(input: VerifyWebhookSignatureInput): SignatureVerification {
	const { rawBody, secret } = input;
	const header = Array.isArray(input.header) ? input.header.join(',') : input.header;
	if (typeof header !== 'string' || header.trim() === '')
		return { valid: false, reason: 'missing_header' };
	const parsed = parseTimestampedHeader(header);
	if (typeof parsed === 'string') return { valid: false, reason: parsed };
	const tolerance = input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
	if (!fresh(parsed.timestamp, input.nowSeconds, tolerance))
		return { valid: false, reason: 'stale_timestamp' };
	if (bodyIsEmpty(rawBody)) return { valid: false, reason: 'empty_body' };
	// An empty secret means the receiver is not configured; it must never accept anything.
	const expected =
		typeof secret === 'string' && secret !== ''
			? hmac(Buffer.from(secret, 'utf8'), `${parsed.timestamp}.`, rawBody)
			: undefined;
	return expected && anyMatches(parsed.signatures, expected)
		? { valid: true, timestamp: parsed.timestamp }
		: { valid: false, reason: 'signature_mismatch' };
}
