import {
	BODY_SIGNATURE_HEADERS,
	SIGNATURE_SCHEME,
	SIGNATURE_TIMESTAMP_HEADERS,
	SIGNATURE_TOLERANCE_SECONDS,
	STANDARD_WEBHOOKS_HEADERS,
	type SignatureLayout,
} from './vocabulary';
import {
	anyMatches,
	bodyIsEmpty,
	digestBytes,
	fresh,
	hmac,
	looksTimestamped,
	MAX_SIGNATURE_CANDIDATES,
	MAX_SIGNED_ID_LENGTH,
	secondsOf,
	standardWebhooksKey,
	TIMESTAMP_PATTERN,
	verifyWebhookSignature,
	type Bytes,
	type SignatureFailureReason,
} from './webhookSignature';

/**
 * A delivery in whichever common layout it is signed (docs/delivery-signatures.md): Standard
 * Webhooks, the contract's `t=…,v1=…`, or a bare HMAC of the body with or without a signed time.
 * Pure; every refusal is a reason that names the layout seen.
 */

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
