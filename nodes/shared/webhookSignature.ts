/**
 * Signing and verification of webhook deliveries (docs/api-contract.md, "Webhook deliveries").
 *
 * Header format: `X-Signature: t=<unix seconds>,v1=<lowercase hex HMAC-SHA256>` where the HMAC is
 * keyed by the webhook secret (UTF-8) over `<t>.<raw body>`. Several `v1=` entries may appear
 * (a service rotating secrets signs with both); any one matching is enough.
 *
 * Pure functions on purpose: this file ships inside the published node (the trigger uses it) and
 * the sandbox signs with it, so both sides share one implementation. Only Node's `crypto` is
 * used, and the caller supplies the clock, which keeps the functions deterministic and testable.
 */
import { createHmac, timingSafeEqual } from 'crypto';

import { SIGNATURE_SCHEME, SIGNATURE_TOLERANCE_SECONDS } from './vocabulary';

export type SignatureFailureReason =
	| 'missing_header'
	| 'malformed_header'
	| 'unsupported_scheme'
	| 'stale_timestamp'
	| 'empty_body'
	| 'signature_mismatch';

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

/** Unix seconds are integers; 15 digits is far beyond any real clock and keeps Number exact. */
const TIMESTAMP_PATTERN = /^\d{1,15}$/;
const HEX_PATTERN = /^(?:[0-9a-fA-F]{2})+$/;

function hmacHex(secret: string, timestampSeconds: number, rawBody: string | Buffer): string {
	const hmac = createHmac('sha256', Buffer.from(secret, 'utf8'));
	hmac.update(`${timestampSeconds}.`, 'utf8');
	// A Buffer is hashed byte for byte; a string is the UTF-8 text the sender wrote.
	hmac.update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody);
	return hmac.digest('hex');
}

/** Builds the `X-Signature` header value for one delivery attempt. */
export function signWebhookPayload(
	secret: string,
	timestampSeconds: number,
	rawBody: string | Buffer,
): string {
	if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
		throw new TypeError('timestampSeconds must be a non-negative integer (Unix seconds)');
	}
	return `t=${timestampSeconds},${SIGNATURE_SCHEME}=${hmacHex(secret, timestampSeconds, rawBody)}`;
}

interface ParsedHeader {
	timestamp: number;
	signatures: string[];
}

/** Parses `t=…,v1=…[,v1=…]`; tolerant of whitespace, strict about everything else. */
function parseHeader(header: string): ParsedHeader | Exclude<SignatureFailureReason, 'stale_timestamp'> {
	let timestamp: number | undefined;
	let timestampSeen = false;
	const signatures: string[] = [];
	let otherSchemeSeen = false;

	for (const rawPart of header.split(',')) {
		const part = rawPart.trim();
		const equals = part.indexOf('=');
		if (equals <= 0) return 'malformed_header';
		const key = part.slice(0, equals).trim();
		const value = part.slice(equals + 1).trim();
		if (key === '' || value === '') return 'malformed_header';

		if (key === 't') {
			// Two timestamps would make it ambiguous which one was signed.
			if (timestampSeen || !TIMESTAMP_PATTERN.test(value)) return 'malformed_header';
			timestampSeen = true;
			timestamp = Number(value);
		} else if (key === SIGNATURE_SCHEME) {
			if (!HEX_PATTERN.test(value)) return 'malformed_header';
			signatures.push(value.toLowerCase());
		} else {
			// Other schemes (v0=, sha1=, …) are skipped, so a future scheme can be added alongside v1.
			otherSchemeSeen = true;
		}
	}

	if (timestamp === undefined) return 'malformed_header';
	if (signatures.length === 0) return otherSchemeSeen ? 'unsupported_scheme' : 'malformed_header';
	return { timestamp, signatures };
}

function bodyLength(rawBody: string | Buffer): number {
	return typeof rawBody === 'string' ? rawBody.length : rawBody.byteLength;
}

/**
 * Checks one delivery. Never throws: any bad input is reported as a reason, so the caller can
 * answer 401 and log why.
 */
export function verifyWebhookSignature(input: VerifyWebhookSignatureInput): SignatureVerification {
	const { rawBody, secret, nowSeconds } = input;
	const toleranceSeconds = input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;

	const header = Array.isArray(input.header) ? input.header.join(',') : input.header;
	if (typeof header !== 'string' || header.trim() === '') {
		return { valid: false, reason: 'missing_header' };
	}

	const parsed = parseHeader(header);
	if (typeof parsed === 'string') return { valid: false, reason: parsed };

	if (!Number.isFinite(nowSeconds) || Math.abs(nowSeconds - parsed.timestamp) > toleranceSeconds) {
		return { valid: false, reason: 'stale_timestamp' };
	}

	if (rawBody === undefined || rawBody === null || bodyLength(rawBody) === 0) {
		return { valid: false, reason: 'empty_body' };
	}

	// An empty secret means the receiver is not configured; it must never accept anything.
	if (typeof secret !== 'string' || secret === '') {
		return { valid: false, reason: 'signature_mismatch' };
	}

	const expected = Buffer.from(hmacHex(secret, parsed.timestamp, rawBody), 'hex');
	// Check every candidate (no early exit) so timing does not reveal which entry matched.
	let matched = false;
	for (const candidateHex of parsed.signatures) {
		const candidate = Buffer.from(candidateHex, 'hex');
		// timingSafeEqual throws on unequal lengths; a wrong length is simply not a match.
		if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) {
			matched = true;
		}
	}
	return matched
		? { valid: true, timestamp: parsed.timestamp }
		: { valid: false, reason: 'signature_mismatch' };
}
