/**
 * How the sandbox (playing the service) signs a webhook delivery, in each layout a real service
 * may use (the dialect axis `deliverySignature`). Written apart from the trigger's verifier
 * (nodes/shared/webhookSignature.ts), so the two agree only where the published layouts do.
 * Test-only: nothing in nodes/ imports this, so the published package carries no signer.
 */
import { createHmac } from 'crypto';

/** The ways a delivery can be signed (`none`: not at all). */
export const DELIVERY_SIGNATURE_STYLES = [
	// `X-Signature: t=<seconds>,v1=<hex of "<t>.<body>">` (the contract's).
	'v1',
	// Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature: v1,<base64 of "<id>.<t>.<body>">.
	'standard-webhooks',
	// `X-Hub-Signature-256: sha256=<hex of the body>`.
	'hub-sha256',
	// `Signature: <base64 of the body>`.
	'signature-base64',
	// `X-Webhook-Signature: <hex of "<t>.<body>">` with `X-Webhook-Timestamp: <t>`.
	'timestamp-header',
	// `X-Signature: <hex of the body>` with an unsigned `X-Timestamp`: verifies as a body-only HMAC.
	'unsigned-timestamp',
	'none',
] as const;
export type DeliverySignatureStyle = (typeof DELIVERY_SIGNATURE_STYLES)[number];

function hmacOf(key: Buffer | string, content: string | Buffer): Buffer {
	return createHmac('sha256', key).update(content).digest();
}

function signedContent(prefix: string, rawBody: string | Buffer): Buffer {
	return Buffer.concat([
		Buffer.from(prefix, 'utf8'),
		typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody,
	]);
}

/** Builds the `X-Signature` header value (`t=…,v1=…`) for one delivery attempt. */
export function signWebhookPayload(
	secret: string,
	timestampSeconds: number,
	rawBody: string | Buffer,
): string {
	if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
		throw new TypeError('timestampSeconds must be a non-negative integer (Unix seconds)');
	}
	const hex = hmacOf(
		Buffer.from(secret, 'utf8'),
		signedContent(`${timestampSeconds}.`, rawBody),
	).toString('hex');
	return `t=${timestampSeconds},v1=${hex}`;
}

/**
 * The Standard Webhooks HMAC key: the specification's secrets are `whsec_` + base64 of the key;
 * its reference libraries decode any other secret as base64 too, and a secret that is not base64
 * is taken as text.
 */
function standardWebhooksKeyOf(secret: string): Buffer {
	const body = secret.replace(/^whsec_/, '');
	const decoded = /^[A-Za-z0-9+/]+={0,2}$/.test(body)
		? Buffer.from(body, 'base64')
		: Buffer.alloc(0);
	return decoded.length > 0 ? decoded : Buffer.from(secret, 'utf8');
}

/** `v1,<base64>` for a Standard Webhooks delivery. */
export function standardWebhooksSignature(
	secret: string,
	id: string,
	timestampSeconds: number,
	rawBody: string | Buffer,
): string {
	return `v1,${hmacOf(standardWebhooksKeyOf(secret), signedContent(`${id}.${timestampSeconds}.`, rawBody)).toString('base64')}`;
}

/** The signature headers of one delivery attempt in `style` (none for `none`). */
export function deliverySignatureHeaders(
	style: DeliverySignatureStyle,
	secret: string,
	timestampSeconds: number,
	deliveryId: string,
	rawBody: string | Buffer,
): Record<string, string> {
	const utf8Key = Buffer.from(secret, 'utf8');
	switch (style) {
		case 'v1':
			return { 'X-Signature': signWebhookPayload(secret, timestampSeconds, rawBody) };
		case 'standard-webhooks':
			return {
				'webhook-id': deliveryId,
				'webhook-timestamp': String(timestampSeconds),
				'webhook-signature': standardWebhooksSignature(
					secret,
					deliveryId,
					timestampSeconds,
					rawBody,
				),
			};
		case 'hub-sha256':
			return {
				'X-Hub-Signature-256': `sha256=${hmacOf(utf8Key, signedContent('', rawBody)).toString('hex')}`,
			};
		case 'signature-base64':
			return { Signature: hmacOf(utf8Key, signedContent('', rawBody)).toString('base64') };
		case 'timestamp-header':
			return {
				'X-Webhook-Signature': hmacOf(
					utf8Key,
					signedContent(`${timestampSeconds}.`, rawBody),
				).toString('hex'),
				'X-Webhook-Timestamp': String(timestampSeconds),
			};
		case 'unsigned-timestamp':
			return {
				'X-Signature': hmacOf(utf8Key, signedContent('', rawBody)).toString('hex'),
				'X-Timestamp': String(timestampSeconds),
			};
		default:
			return {};
	}
}
