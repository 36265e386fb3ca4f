import {
	BODY_SIGNATURE_HEADERS,
	SIGNATURE_TIMESTAMP_HEADERS,
	SIGNATURE_TOLERANCE_SECONDS,
	STANDARD_WEBHOOKS_HEADERS,
	type SignatureLayout,
} from './vocabulary';
import * as signature from './webhookSignature';

/**
 * A delivery checked in whichever common layout it is signed (docs/delivery-signatures.md). Pure;
 * every refusal is a reason that names the layout seen.
 */

export type HeaderReader = (name: string) => string | undefined;

export interface VerifyDeliveryInput {
	/** Reads one request header by lower-case name (undefined when absent). */
	header: HeaderReader;
	rawBody: signature.Bytes | undefined | null;
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
			/** Standard Webhooks' `webhook-id`, which the signature covers. */
			signedId?: string;
	  }
	| {
			valid: false;
			/** The layout the delivery seemed to use, when any. */
			layout?: SignatureLayout;
			reason: signature.SignatureFailureReason;
	  };

/** The input with its defaults resolved. */
interface Delivery extends VerifyDeliveryInput {
	toleranceSeconds: number;
	accepts: (layout: SignatureLayout) => boolean;
}

const refuse = (
	layout: SignatureLayout,
	reason: signature.SignatureFailureReason,
): DeliveryVerification => ({ valid: false, layout, reason });

/** The first of `names` present and not blank, trimmed. */
function firstHeader(read: HeaderReader, names: readonly string[]): string | undefined {
	for (const name of names) {
		const value = read(name)?.trim();
		if (value) return value;
	}
	return undefined;
}

function checkStandardWebhooks(input: Delivery): DeliveryVerification {
	const layout: SignatureLayout = 'standard-webhooks';
	const id = input.header(STANDARD_WEBHOOKS_HEADERS.id)?.trim();
	const timestamp = input.header(STANDARD_WEBHOOKS_HEADERS.timestamp)?.trim();
	const header = input.header(STANDARD_WEBHOOKS_HEADERS.signature)?.trim();
	if (!header) return refuse(layout, 'missing_header');
	if (!timestamp) return refuse(layout, 'missing_timestamp');
	// The id is signed, and '.' separates the signed parts: an id may not contain it.
	if (!id || id.length > signature.MAX_SIGNED_ID_LENGTH || id.includes('.'))
		return refuse(layout, 'malformed_header');
	if (!signature.TIMESTAMP_PATTERN.test(timestamp)) return refuse(layout, 'malformed_header');

	const candidates: Buffer[] = [];
	let otherVersionSeen = false;
	// Space-delimited `<version>,<base64>`; other versions than v1 (v1a: asymmetric) are skipped.
	for (const entry of header.split(/[ \t]+/).slice(0, signature.MAX_SIGNATURE_CANDIDATES)) {
		const comma = entry.indexOf(',');
		if (comma <= 0) return refuse(layout, 'malformed_header');
		if (entry.slice(0, comma) !== signature.SIGNATURE_SCHEME) {
			otherVersionSeen = true;
			continue;
		}
		const bytes = signature.digestBytes(entry.slice(comma + 1));
		if (!bytes) return refuse(layout, 'malformed_header');
		candidates.push(bytes);
	}
	if (candidates.length === 0)
		return refuse(layout, otherVersionSeen ? 'unsupported_scheme' : 'malformed_header');
	if (!signature.fresh(Number(timestamp), input.nowSeconds, input.toleranceSeconds))
		return refuse(layout, 'stale_timestamp');
	if (signature.bodyIsEmpty(input.rawBody)) return refuse(layout, 'empty_body');
	const key = signature.standardWebhooksKey(input.secret);
	return signature.anyMatches(candidates, signature.hmac(key, `${id}.${timestamp}.`, input.rawBody))
		? { valid: true, layout, timestamp: Number(timestamp), signedId: id }
		: refuse(layout, 'signature_mismatch');
}

/** Bare HMACs: comma- or space-separated, each hex or base64, `sha256=` allowed. */
function bareDigests(value: string): Buffer[] | undefined {
	const entries = value
		.split(/[,\s]+/)
		.filter(Boolean)
		.slice(0, signature.MAX_SIGNATURE_CANDIDATES);
	const digests = entries.map((entry) => signature.digestBytes(entry.replace(/^sha256=/i, '')));
	return digests.length > 0 && digests.every(Boolean) ? (digests as Buffer[]) : undefined;
}

/**
 * A bare HMAC: of `<timestamp>.<body>` when a timestamp header came and the HMAC covers it
 * (`body-hmac-timestamp`), else of the body alone (`body-hmac`, the timestamp header ignored).
 */
function checkBareHmac(input: Delivery, header: string): DeliveryVerification {
	const time = firstHeader(input.header, SIGNATURE_TIMESTAMP_HEADERS);
	const signedTime = input.accepts('body-hmac-timestamp') ? time : undefined;
	const seen = signedTime ? 'body-hmac-timestamp' : 'body-hmac';
	const digests = bareDigests(header);
	if (!digests) return refuse(seen, 'malformed_header');
	if (signature.bodyIsEmpty(input.rawBody)) return refuse(seen, 'empty_body');
	const key = Buffer.from(input.secret, 'utf8');
	const seconds = signedTime === undefined ? undefined : signature.secondsOf(signedTime);
	if (
		seconds !== undefined &&
		signature.anyMatches(digests, signature.hmac(key, `${signedTime}.`, input.rawBody))
	) {
		// Signed, so the time is binding: a stale one is refused, never retried as body-only.
		return signature.fresh(seconds, input.nowSeconds, input.toleranceSeconds)
			? { valid: true, layout: 'body-hmac-timestamp', timestamp: seconds }
			: refuse('body-hmac-timestamp', 'stale_timestamp');
	}
	if (!input.accepts('body-hmac'))
		return refuse('body-hmac-timestamp', time ? 'signature_mismatch' : 'missing_timestamp');
	return signature.anyMatches(digests, signature.hmac(key, '', input.rawBody))
		? { valid: true, layout: 'body-hmac' }
		: refuse(seen, 'signature_mismatch');
}

/** The check of the strongest accepted layout whose headers are present; none after it. */
function strongestCheck(input: Delivery): DeliveryVerification {
	const { accepts } = input;
	let notAccepted: SignatureLayout | undefined;
	if (input.header(STANDARD_WEBHOOKS_HEADERS.signature) !== undefined) {
		if (accepts('standard-webhooks')) return checkStandardWebhooks(input);
		notAccepted = 'standard-webhooks';
	}
	const header = firstHeader(input.header, BODY_SIGNATURE_HEADERS);
	if (header && signature.looksTimestamped(header)) {
		if (accepts('timestamped-header')) {
			const result = signature.verifyWebhookSignature({ ...input, header });
			return result.valid
				? { valid: true, layout: 'timestamped-header', timestamp: result.timestamp }
				: refuse('timestamped-header', result.reason);
		}
		notAccepted ??= 'timestamped-header';
	} else if (header) {
		if (accepts('body-hmac-timestamp') || accepts('body-hmac')) return checkBareHmac(input, header);
		const timed = firstHeader(input.header, SIGNATURE_TIMESTAMP_HEADERS) !== undefined;
		notAccepted ??= timed ? 'body-hmac-timestamp' : 'body-hmac';
	}
	return notAccepted
		? refuse(notAccepted, 'layout_not_accepted')
		: { valid: false, reason: 'missing_header' };
}

/**
 * Checks one delivery. When the strongest layout present fails, the delivery is refused, never
 * retried in a weaker one (see the trigger's delivery.ts).
 */
export function verifyDelivery(input: VerifyDeliveryInput): DeliveryVerification {
	const result = strongestCheck({
		...input,
		toleranceSeconds: input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS,
		accepts: (layout) => !input.accepted || input.accepted.includes(layout),
	});
	// An empty secret means the receiver is not configured; it must never accept anything.
	if (result.valid && (typeof input.secret !== 'string' || input.secret === ''))
		return refuse(result.layout, 'signature_mismatch');
	return result;
}
