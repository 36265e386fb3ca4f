import { createHmac, timingSafeEqual } from 'crypto';

import {
	BODY_SIGNATURE_HEADERS,
	SIGNATURE_LAYOUTS,
	SIGNATURE_TIMESTAMP_HEADERS,
	SIGNATURE_TOLERANCE_SECONDS,
	STANDARD_WEBHOOKS_HEADERS,
	type SignatureLayout,
} from './vocabulary';

/** A delivery verified in whichever layout it is signed (docs/delivery-signatures.md); pure. */

export type SignatureFailureReason =
	| 'missing_header'
	| 'malformed_header'
	| 'unsupported_scheme'
	| 'missing_timestamp'
	| 'stale_timestamp'
	| 'empty_body'
	| 'signature_mismatch'
	| 'layout_not_accepted';

interface VerifyDeliveryInput {
	/** Reads one request header by lower-case name (undefined when absent). */
	header: (name: string) => string | undefined;
	/** The body exactly as received: never re-serialised JSON. */
	rawBody: string | Buffer | undefined | null;
	secret: string;
	/** The receiver's clock, Unix seconds. */
	nowSeconds: number;
	toleranceSeconds?: number;
	/** The layouts this registration accepts; absent: any. */
	accepted?: readonly SignatureLayout[];
}

/** `signedId`: Standard Webhooks' `webhook-id`, which the signature covers. */
export type DeliveryVerification =
	| { valid: true; layout: SignatureLayout; timestamp?: number; signedId?: string }
	| { valid: false; layout?: SignatureLayout; reason: SignatureFailureReason };

type Delivery = Required<VerifyDeliveryInput>;

/** Unix seconds are integers; 15 digits is far beyond any real clock and keeps Number exact. */
const TIMESTAMP_PATTERN = /^\d{1,15}$/;
const HEX_PATTERN = /^(?:[0-9a-fA-F]{2})+$/;
/** A delivery id longer than this is not one (it would also be a costly repeat key). */
const MAX_SIGNED_ID_LENGTH = 256;
/** Signature entries looked at per header: a real service rotating secrets sends two or three. */
const MAX_SIGNATURE_CANDIDATES = 16;

const refuse = (layout: SignatureLayout, reason: SignatureFailureReason) =>
	({ valid: false, layout, reason }) as const;

const hexBytes = (text: string) => (HEX_PATTERN.test(text) ? Buffer.from(text, 'hex') : undefined);

/** A 32-byte digest written as hex or as base64 (standard or URL alphabet), else undefined. */
function digestBytes(text: string): Buffer | undefined {
	// 64 characters of base64 are 46 bytes or more: only hex can be a digest.
	if (text.length === 64) return hexBytes(text);
	if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return undefined;
	const bytes = Buffer.from(text, 'base64');
	return bytes.length === 32 ? bytes : undefined;
}

/** `<key><separator><value>` entries as [key, value]; ['', ''] without the separator. */
const pairsOf = (entries: string[], separator: string) =>
	entries.map((entry) => {
		const at = entry.indexOf(separator);
		return at < 0 ? ['', ''] : [entry.slice(0, at), entry.slice(at + 1)];
	});

/** The digests of the `v1` entries; other schemes are skipped, so a new one can come alongside. */
function v1Digests(
	entries: string[][],
	decode: (text: string) => Buffer | undefined,
): Buffer[] | SignatureFailureReason {
	if (entries.some(([scheme]) => !scheme)) return 'malformed_header';
	const digests = entries.filter(([scheme]) => scheme === 'v1').map(([, text]) => decode(text));
	if (digests.length === 0) return entries.length > 0 ? 'unsupported_scheme' : 'malformed_header';
	if (!digests.every(Boolean)) return 'malformed_header';
	return (digests as Buffer[]).slice(0, MAX_SIGNATURE_CANDIDATES);
}

/** Whether any digest is the HMAC of `prefix` and the body; checks all, so timing tells nothing. */
function matches(input: Delivery, digests: Buffer[], key: Buffer, prefix: string): boolean {
	const hmac = createHmac('sha256', key).update(prefix, 'utf8');
	const expected = hmac.update(input.rawBody ?? '').digest();
	let matched = false;
	for (const digest of digests)
		if (digest.length === expected.length && timingSafeEqual(digest, expected)) matched = true;
	return matched;
}

const fresh = (input: Delivery, seconds: number) =>
	Math.abs(input.nowSeconds - seconds) <= input.toleranceSeconds;

/** A layout whose header carries the signed time: the time, the body, then the signature. */
function settle(
	input: Delivery,
	layout: SignatureLayout,
	timestamp: number,
	signed: () => boolean,
): DeliveryVerification {
	if (!fresh(input, timestamp)) return refuse(layout, 'stale_timestamp');
	if (!input.rawBody?.length) return refuse(layout, 'empty_body');
	return signed() ? { valid: true, layout, timestamp } : refuse(layout, 'signature_mismatch');
}

/** Standard Webhooks: space-separated `v1,<base64>` over `<id>.<t>.<body>`, the key `whsec_…`. */
function checkStandardWebhooks(input: Delivery): DeliveryVerification {
	const layout = 'standard-webhooks';
	const [id, timestamp, header] = (['id', 'timestamp', 'signature'] as const).map((name) =>
		input.header(STANDARD_WEBHOOKS_HEADERS[name])?.trim(),
	);
	if (!header) return refuse(layout, 'missing_header');
	if (!timestamp) return refuse(layout, 'missing_timestamp');
	// The id is signed, and '.' separates the signed parts: an id may not contain it.
	if (!id || id.length > MAX_SIGNED_ID_LENGTH || id.includes('.'))
		return refuse(layout, 'malformed_header');
	if (!TIMESTAMP_PATTERN.test(timestamp)) return refuse(layout, 'malformed_header');
	const entries = pairsOf(header.split(/[ \t]+/).slice(0, MAX_SIGNATURE_CANDIDATES), ',');
	const digests = v1Digests(entries, digestBytes);
	if (typeof digests === 'string') return refuse(layout, digests);
	// As its libraries do: the base64 after `whsec_`, else the UTF-8 text.
	const encoded = input.secret.replace(/^whsec_/, '');
	let key = Buffer.from(/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? encoded : '', 'base64');
	if (key.length === 0) key = Buffer.from(input.secret, 'utf8');
	const result = settle(input, layout, Number(timestamp), () =>
		matches(input, digests, key, `${id}.${timestamp}.`),
	);
	return result.valid ? { ...result, signedId: id } : result;
}

/** The contract's `t=…,v1=…[,v1=…]`: hex HMACs of `<t>.<body>`, keyed by the secret's UTF-8. */
function checkTimestamped(input: Delivery, header: string): DeliveryVerification {
	const layout = 'timestamped-header';
	const parts = pairsOf(header.split(','), '=').map(([key, value]) => [key.trim(), value.trim()]);
	const [time, ...more] = parts.filter(([key]) => key === 't').map(([, value]) => value);
	// Two timestamps would make it ambiguous which one was signed.
	if (parts.some(([key, value]) => !key || !value) || more.length > 0)
		return refuse(layout, 'malformed_header');
	if (!TIMESTAMP_PATTERN.test(time ?? '')) return refuse(layout, 'malformed_header');
	const signatures = parts.filter(([key]) => key !== 't');
	const digests = v1Digests(signatures, hexBytes);
	if (typeof digests === 'string') return refuse(layout, digests);
	const key = Buffer.from(input.secret, 'utf8');
	return settle(input, layout, Number(time), () => matches(input, digests, key, `${time}.`));
}

const firstHeader = (input: Delivery, names: readonly string[]) =>
	names.map((name) => input.header(name)?.trim()).find(Boolean);

/**
 * Bare HMACs (comma- or space-separated, hex or base64, `sha256=` allowed): of `<timestamp>.<body>`
 * when a timestamp header came and the HMAC covers it, else of the body alone (the time ignored).
 */
function checkBareHmac(input: Delivery, header: string): DeliveryVerification {
	const time = firstHeader(input, SIGNATURE_TIMESTAMP_HEADERS);
	const signedTime = input.accepted.includes('body-hmac-timestamp') ? time : undefined;
	const seen = signedTime ? 'body-hmac-timestamp' : 'body-hmac';
	// Bare HMACs are v1 digests without the scheme.
	const v1 = header
		.split(/[,\s]+/)
		.filter(Boolean)
		.slice(0, MAX_SIGNATURE_CANDIDATES)
		.map((entry) => ['v1', entry.replace(/^sha256=/i, '')]);
	const digests = v1Digests(v1, digestBytes);
	if (typeof digests === 'string') return refuse(seen, digests);
	if (!input.rawBody?.length) return refuse(seen, 'empty_body');
	const key = Buffer.from(input.secret, 'utf8');
	if (
		signedTime &&
		TIMESTAMP_PATTERN.test(signedTime) &&
		matches(input, digests, key, `${signedTime}.`)
	) {
		// Milliseconds (13 digits and more) are read as their second.
		const value = Number(signedTime);
		const seconds = value >= 1e12 ? Math.floor(value / 1000) : value;
		// Signed, so the time is binding: a stale one is refused, never retried as body-only.
		return fresh(input, seconds)
			? { valid: true, layout: 'body-hmac-timestamp', timestamp: seconds }
			: refuse('body-hmac-timestamp', 'stale_timestamp');
	}
	if (!input.accepted.includes('body-hmac'))
		return refuse('body-hmac-timestamp', time ? 'signature_mismatch' : 'missing_timestamp');
	return matches(input, digests, key, '')
		? { valid: true, layout: 'body-hmac' }
		: refuse(seen, 'signature_mismatch');
}

/** The check of the strongest accepted layout whose headers are present; none after it. */
function strongestCheck(input: Delivery): DeliveryVerification {
	const accepts = (layout: SignatureLayout) => input.accepted.includes(layout);
	let notAccepted: SignatureLayout | undefined;
	if (input.header(STANDARD_WEBHOOKS_HEADERS.signature) !== undefined) {
		if (accepts('standard-webhooks')) return checkStandardWebhooks(input);
		notAccepted = 'standard-webhooks';
	}
	const header = firstHeader(input, BODY_SIGNATURE_HEADERS);
	if (header && /(?:^|,)\s*t\s*=/.test(header)) {
		if (accepts('timestamped-header')) return checkTimestamped(input, header);
		notAccepted ??= 'timestamped-header';
	} else if (header) {
		if (accepts('body-hmac-timestamp') || accepts('body-hmac')) return checkBareHmac(input, header);
		notAccepted ??= firstHeader(input, SIGNATURE_TIMESTAMP_HEADERS)
			? 'body-hmac-timestamp'
			: 'body-hmac';
	}
	return notAccepted
		? refuse(notAccepted, 'layout_not_accepted')
		: { valid: false, reason: 'missing_header' };
}

/** Checks one delivery: when the strongest layout present fails, it is refused, never tried weaker. */
export function verifyDelivery(input: VerifyDeliveryInput): DeliveryVerification {
	const result = strongestCheck({
		...input,
		toleranceSeconds: input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS,
		accepted: input.accepted ?? SIGNATURE_LAYOUTS,
	});
	// An empty secret means the receiver is not configured; it must never accept anything.
	return result.valid && !input.secret ? refuse(result.layout, 'signature_mismatch') : result;
}
