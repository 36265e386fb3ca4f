/**
 * Verification of signed webhook deliveries (docs/delivery-signatures.md). Signing lives with the
 * sandbox (sandbox/deliverySignature.ts): the published package only ever verifies.
 *
 * Every layout is an HMAC-SHA256 keyed by the webhook's secret; they differ in where the
 * signature and time travel and in what is signed (SIGNATURE_LAYOUTS in vocabulary.ts). A
 * timestamp counts only when it is signed: a time in a header the HMAC does not cover protects
 * nothing, so such a delivery verifies as `body-hmac`, the weakest layout.
 *
 * Pure functions: only Node's `crypto`, and the caller supplies the clock. Nothing here throws on
 * bad input; every refusal is a reason, and names the layout it saw.
 */
import { createHmac, timingSafeEqual } from 'crypto';

import {
	BODY_SIGNATURE_HEADERS,
	SIGNATURE_SCHEME,
	SIGNATURE_TIMESTAMP_HEADERS,
	SIGNATURE_TOLERANCE_SECONDS,
	STANDARD_WEBHOOKS_HEADERS,
	type SignatureLayout,
} from './vocabulary';

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

/** How strongly each layout binds a delivery: a fixed layout never gives way to a weaker one. */
export const LAYOUT_STRENGTH: Readonly<Record<SignatureLayout, number>> = Object.freeze({
	// The delivery id is signed too, so it is a repeat key no one can alter.
	'standard-webhooks': 3,
	'timestamped-header': 2,
	'body-hmac-timestamp': 2,
	// No signed time: a captured delivery stays valid forever.
	'body-hmac': 1,
});

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
const BASE64_PATTERN = /^[A-Za-z0-9+/_-]+={0,2}$/;
const SHA256_BYTES = 32;
/** A delivery id longer than this is not one (it would also be a costly repeat key). */
const MAX_SIGNED_ID_LENGTH = 256;
/** Signature entries looked at per header: a real service rotating secrets sends two or three. */
const MAX_SIGNATURE_CANDIDATES = 16;

type Bytes = string | Buffer;

function asBuffer(value: Bytes): Buffer {
	// A Buffer is hashed byte for byte; a string is the UTF-8 text the sender wrote.
	return typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
}

function hmac(key: Buffer, prefix: string, rawBody: Bytes): Buffer {
	return createHmac('sha256', key).update(prefix, 'utf8').update(asBuffer(rawBody)).digest();
}

/** Whether any candidate equals `expected`; checks every one, so timing does not tell which. */
function anyMatches(candidates: Buffer[], expected: Buffer): boolean {
	let matched = false;
	for (const candidate of candidates) {
		// timingSafeEqual throws on unequal lengths; a wrong length is simply not a match.
		if (candidate.length === expected.length && timingSafeEqual(candidate, expected))
			matched = true;
	}
	return matched;
}

/** A 32-byte digest written as hex or as base64 (standard or URL alphabet), else undefined. */
function digestBytes(text: string): Buffer | undefined {
	if (text.length === SHA256_BYTES * 2 && HEX_PATTERN.test(text)) return Buffer.from(text, 'hex');
	if (!BASE64_PATTERN.test(text)) return undefined;
	const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
	return bytes.length === SHA256_BYTES ? bytes : undefined;
}

/**
 * The HMAC key of a Standard Webhooks secret: `whsec_` then base64 is decoded, as the
 * specification's libraries do; a secret that is not base64 is used as its UTF-8 text.
 */
export function standardWebhooksKey(secret: string): Buffer {
	const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
	if (encoded !== '' && /^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
		const key = Buffer.from(encoded, 'base64');
		if (key.length > 0) return key;
	}
	return Buffer.from(secret, 'utf8');
}

function bodyIsEmpty(rawBody: Bytes | undefined | null): rawBody is undefined | null {
	return (
		rawBody === undefined ||
		rawBody === null ||
		(typeof rawBody === 'string' ? rawBody.length : rawBody.byteLength) === 0
	);
}

/** Seconds of a timestamp header: Unix seconds, or milliseconds (13 digits and more). */
function secondsOf(text: string): number | undefined {
	if (!TIMESTAMP_PATTERN.test(text)) return undefined;
	const value = Number(text);
	return value >= 1e12 ? Math.floor(value / 1000) : value;
}

function fresh(seconds: number, nowSeconds: number, toleranceSeconds: number): boolean {
	return Number.isFinite(nowSeconds) && Math.abs(nowSeconds - seconds) <= toleranceSeconds;
}

// --- `t=…,v1=…` ------------------------------------------------------------------------------

interface TimestampedHeader {
	timestamp: number;
	signatures: string[];
}

/** Parses `t=…,v1=…[,v1=…]`; tolerant of whitespace, strict about everything else. */
function parseTimestampedHeader(
	header: string,
): TimestampedHeader | 'malformed_header' | 'unsupported_scheme' {
	let timestamp: number | undefined;
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
			if (timestamp !== undefined || !TIMESTAMP_PATTERN.test(value)) return 'malformed_header';
			timestamp = Number(value);
		} else if (key === SIGNATURE_SCHEME) {
			if (!HEX_PATTERN.test(value)) return 'malformed_header';
			signatures.push(value.toLowerCase());
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
function looksTimestamped(header: string): boolean {
	return /(?:^|,)\s*t\s*=/.test(header);
}

/**
 * Checks one delivery in the contract's `X-Signature: t=…,v1=…` layout (the key is the secret's
 * UTF-8 text, the signed content `<t>.<raw body>`).
 */
export function verifyWebhookSignature(input: VerifyWebhookSignatureInput): SignatureVerification {
	const { rawBody, secret, nowSeconds } = input;
	const toleranceSeconds = input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;

	const header = Array.isArray(input.header) ? input.header.join(',') : input.header;
	if (typeof header !== 'string' || header.trim() === '')
		return { valid: false, reason: 'missing_header' };

	const parsed = parseTimestampedHeader(header);
	if (typeof parsed === 'string') return { valid: false, reason: parsed };
	if (!fresh(parsed.timestamp, nowSeconds, toleranceSeconds))
		return { valid: false, reason: 'stale_timestamp' };
	if (bodyIsEmpty(rawBody)) return { valid: false, reason: 'empty_body' };
	// An empty secret means the receiver is not configured; it must never accept anything.
	if (typeof secret !== 'string' || secret === '')
		return { valid: false, reason: 'signature_mismatch' };

	const expected = hmac(Buffer.from(secret, 'utf8'), `${parsed.timestamp}.`, rawBody);
	const candidates = parsed.signatures.map((hex) => Buffer.from(hex, 'hex'));
	return anyMatches(candidates, expected)
		? { valid: true, timestamp: parsed.timestamp }
		: { valid: false, reason: 'signature_mismatch' };
}

// --- every layout ---------------------------------------------------------------------------

export type HeaderReader = (name: string) => string | undefined;

export interface VerifyDeliveryInput {
	/** Reads one request header by lower-case name (undefined when absent). */
	header: HeaderReader;
	rawBody: Bytes | undefined | null;
	secret: string;
	nowSeconds: number;
	toleranceSeconds?: number;
	/** The layouts this registration accepts; absent: any. */
	accepted?: readonly SignatureLayout[];
}

export type DeliveryVerification =
	| {
			valid: true;
			layout: SignatureLayout;
			/** The signed time, when the layout has one. */
			timestamp?: number;
			/** The delivery id the signature covers (Standard Webhooks' `webhook-id`), when there is one. */
			signedId?: string;
	  }
	| {
			valid: false;
			/** The layout the delivery seemed to use, when any. */
			layout?: SignatureLayout;
			reason: SignatureFailureReason;
	  };

type LayoutCheck = DeliveryVerification;

function firstHeader(
	read: HeaderReader,
	names: readonly string[],
): { name: string; value: string } | undefined {
	for (const name of names) {
		const value = read(name);
		if (value !== undefined && value.trim() !== '') return { name, value: value.trim() };
	}
	return undefined;
}

function checkStandardWebhooks(input: VerifyDeliveryInput, tolerance: number): LayoutCheck {
	const layout: SignatureLayout = 'standard-webhooks';
	const id = input.header(STANDARD_WEBHOOKS_HEADERS.id)?.trim();
	const timestampText = input.header(STANDARD_WEBHOOKS_HEADERS.timestamp)?.trim();
	const signatureText = input.header(STANDARD_WEBHOOKS_HEADERS.signature)?.trim();
	if (!signatureText) return { valid: false, layout, reason: 'missing_header' };
	if (!timestampText) return { valid: false, layout, reason: 'missing_timestamp' };
	// The id is signed, and '.' separates the signed parts: an id may not contain it.
	if (!id || id.length > MAX_SIGNED_ID_LENGTH || id.includes('.'))
		return { valid: false, layout, reason: 'malformed_header' };
	if (!TIMESTAMP_PATTERN.test(timestampText))
		return { valid: false, layout, reason: 'malformed_header' };
	const timestamp = Number(timestampText);

	const candidates: Buffer[] = [];
	let otherVersionSeen = false;
	// Space-delimited `<version>,<base64>` entries; versions other than v1 (v1a: asymmetric) are skipped.
	for (const entry of signatureText.split(/[ \t]+/).slice(0, MAX_SIGNATURE_CANDIDATES)) {
		const comma = entry.indexOf(',');
		if (comma <= 0) return { valid: false, layout, reason: 'malformed_header' };
		if (entry.slice(0, comma) !== SIGNATURE_SCHEME) {
			otherVersionSeen = true;
			continue;
		}
		const bytes = digestBytes(entry.slice(comma + 1));
		if (!bytes) return { valid: false, layout, reason: 'malformed_header' };
		candidates.push(bytes);
	}
	if (candidates.length === 0)
		return {
			valid: false,
			layout,
			reason: otherVersionSeen ? 'unsupported_scheme' : 'malformed_header',
		};
	if (!fresh(timestamp, input.nowSeconds, tolerance))
		return { valid: false, layout, reason: 'stale_timestamp' };
	if (bodyIsEmpty(input.rawBody)) return { valid: false, layout, reason: 'empty_body' };

	const expected = hmac(
		standardWebhooksKey(input.secret),
		`${id}.${timestampText}.`,
		input.rawBody,
	);
	return anyMatches(candidates, expected)
		? { valid: true, layout, timestamp, signedId: id }
		: { valid: false, layout, reason: 'signature_mismatch' };
}

/** Bare HMACs in a signature header: comma- or space-separated, each hex or base64, `sha256=` allowed. */
function bareDigests(value: string): Buffer[] | undefined {
	const digests: Buffer[] = [];
	for (const rawEntry of value
		.split(/[,\s]+/)
		.filter(Boolean)
		.slice(0, MAX_SIGNATURE_CANDIDATES)) {
		const entry = /^sha256=/i.test(rawEntry) ? rawEntry.slice('sha256='.length) : rawEntry;
		const bytes = digestBytes(entry);
		if (!bytes) return undefined;
		digests.push(bytes);
	}
	return digests.length > 0 ? digests : undefined;
}

/**
 * A bare HMAC: of `<timestamp>.<body>` when a timestamp header came and the HMAC covers it
 * (`body-hmac-timestamp`), else of the body alone (`body-hmac`, the timestamp header unsigned and
 * ignored). `accepted` may rule either out.
 */
function checkBareHmac(
	input: VerifyDeliveryInput,
	signature: string,
	tolerance: number,
	accepts: (layout: SignatureLayout) => boolean,
): LayoutCheck {
	const timestampHeader = firstHeader(input.header, SIGNATURE_TIMESTAMP_HEADERS);
	const seen: SignatureLayout =
		timestampHeader && accepts('body-hmac-timestamp') ? 'body-hmac-timestamp' : 'body-hmac';
	const digests = bareDigests(signature);
	if (!digests) return { valid: false, layout: seen, reason: 'malformed_header' };
	if (bodyIsEmpty(input.rawBody)) return { valid: false, layout: seen, reason: 'empty_body' };
	const utf8Key = Buffer.from(input.secret, 'utf8');

	if (timestampHeader && accepts('body-hmac-timestamp')) {
		const seconds = secondsOf(timestampHeader.value);
		if (
			seconds !== undefined &&
			anyMatches(digests, hmac(utf8Key, `${timestampHeader.value}.`, input.rawBody))
		) {
			// Signed, so the time is binding: a stale one is refused, never retried as body-only.
			return fresh(seconds, input.nowSeconds, tolerance)
				? { valid: true, layout: 'body-hmac-timestamp', timestamp: seconds }
				: { valid: false, layout: 'body-hmac-timestamp', reason: 'stale_timestamp' };
		}
	}
	if (!accepts('body-hmac')) {
		return {
			valid: false,
			layout: 'body-hmac-timestamp',
			reason: timestampHeader ? 'signature_mismatch' : 'missing_timestamp',
		};
	}
	return anyMatches(digests, hmac(utf8Key, '', input.rawBody))
		? { valid: true, layout: 'body-hmac' }
		: { valid: false, layout: seen, reason: 'signature_mismatch' };
}

function checkTimestampedHeader(
	input: VerifyDeliveryInput,
	header: string,
	tolerance: number,
): LayoutCheck {
	const layout: SignatureLayout = 'timestamped-header';
	const result = verifyWebhookSignature({
		header,
		rawBody: input.rawBody,
		secret: input.secret,
		nowSeconds: input.nowSeconds,
		toleranceSeconds: tolerance,
	});
	return result.valid
		? { valid: true, layout, timestamp: result.timestamp }
		: { valid: false, layout, reason: result.reason };
}

/**
 * Checks one delivery in whichever accepted layout it carries. The strongest layout whose headers
 * are present decides: when it fails, the delivery is refused, never retried in a weaker layout
 * (a replayed delivery stripped of its timestamped signature stays refused when the registration
 * has fixed that layout; see the trigger's delivery.ts).
 */
export function verifyDelivery(input: VerifyDeliveryInput): DeliveryVerification {
	const tolerance = input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
	const accepted = input.accepted;
	const accepts = (layout: SignatureLayout) => accepted === undefined || accepted.includes(layout);
	// An empty secret means the receiver is not configured; it must never accept anything.
	const secretMissing = typeof input.secret !== 'string' || input.secret === '';

	const checks: Array<() => LayoutCheck> = [];
	const seen: SignatureLayout[] = [];

	if (input.header(STANDARD_WEBHOOKS_HEADERS.signature) !== undefined) {
		seen.push('standard-webhooks');
		if (accepts('standard-webhooks')) checks.push(() => checkStandardWebhooks(input, tolerance));
	}
	const signatureHeader = firstHeader(input.header, BODY_SIGNATURE_HEADERS);
	if (signatureHeader && looksTimestamped(signatureHeader.value)) {
		seen.push('timestamped-header');
		if (accepts('timestamped-header'))
			checks.push(() => checkTimestampedHeader(input, signatureHeader.value, tolerance));
	} else if (signatureHeader) {
		const hasTimestamp = firstHeader(input.header, SIGNATURE_TIMESTAMP_HEADERS) !== undefined;
		seen.push(hasTimestamp ? 'body-hmac-timestamp' : 'body-hmac');
		if (accepts('body-hmac-timestamp') || accepts('body-hmac'))
			checks.push(() => checkBareHmac(input, signatureHeader.value, tolerance, accepts));
	}

	if (checks.length === 0) {
		// Headers of a layout this registration does not accept, or none at all.
		return seen.length > 0
			? { valid: false, layout: seen[0], reason: 'layout_not_accepted' }
			: { valid: false, reason: 'missing_header' };
	}
	// Checks were queued strongest first; the first present decides.
	const result = checks[0]();
	if (result.valid && secretMissing)
		return { valid: false, layout: result.layout, reason: 'signature_mismatch' };
	return result;
}
