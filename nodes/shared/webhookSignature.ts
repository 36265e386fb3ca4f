import type { INodeProperties } from 'n8n-workflow';

import {
	verifyDelivery,
	type SignatureFailureReason,
	type VerifyDeliveryInput,
} from './deliveryLayouts';
import { remember } from './nodeMemory';
import { BODY_SIGNATURE_HEADERS, SIGNATURE_LAYOUTS, type SignatureLayout } from './vocabulary';

/**
 * The contract's signature check, and the Signature Layout setting that narrows the layouts a
 * delivery may use (deliveryLayouts.ts checks them).
 */

/** The contract's `X-Signature: t=…,v1=…` alone; Node gives a duplicated header as an array. */
export type VerifyWebhookSignatureInput = Omit<VerifyDeliveryInput, 'header' | 'accepted'> & {
	header: string | string[] | undefined | null;
};

export type SignatureVerification =
	| { valid: true; timestamp: number }
	| { valid: false; reason: SignatureFailureReason };

/** The contract's layout only (the sandbox's tests check its own deliveries with it). */
export function verifyWebhookSignature(input: VerifyWebhookSignatureInput): SignatureVerification {
	const header = Array.isArray(input.header) ? input.header.join(',') : input.header;
	const result = verifyDelivery({
		...input,
		header: (name) =>
			name === BODY_SIGNATURE_HEADERS[0] && typeof header === 'string' ? header : undefined,
		accepted: ['timestamped-header'],
	});
	if (result.valid) return { valid: true, timestamp: Number(result.timestamp) };
	// A header that is not `t=…,v1=…` reads as another layout there; here it is malformed.
	const reason = result.reason === 'layout_not_accepted' ? 'malformed_header' : result.reason;
	return { valid: false, reason };
}

/**
 * Signature Layout: Automatic fixes the first layout that verifies, so a capture cannot be replayed
 * in a weaker one; it is remembered per process (nodeMemory.ts), as n8n drops what webhook() writes
 * to static data.
 */
export const AUTOMATIC_LAYOUT = 'auto';

export type LayoutChoice = SignatureLayout | typeof AUTOMATIC_LAYOUT | 'unknown';

/** The layout a Signature Layout value names; an unknown value is refused, never widened. */
export function layoutChoice(value: unknown): LayoutChoice {
	if (value === undefined || value === '' || value === AUTOMATIC_LAYOUT) return AUTOMATIC_LAYOUT;
	return SIGNATURE_LAYOUTS.find((layout) => layout === value) ?? 'unknown';
}

/** The layouts a delivery for `key` may use now, given the layouts fixed so far; undefined: any. */
export function acceptedLayouts(
	fixed: ReadonlyMap<string, SignatureLayout>,
	choice: LayoutChoice,
	key: string,
): SignatureLayout[] | undefined {
	if (choice === 'unknown') return [];
	if (choice !== AUTOMATIC_LAYOUT) return [choice];
	const layout = fixed.get(key);
	return layout ? [layout] : undefined;
}

/** Under Automatic, a verified delivery's layout becomes the only one for `key`; true if newly. */
export function fixLayout(
	fixed: Map<string, SignatureLayout>,
	choice: LayoutChoice,
	key: string,
	layout: SignatureLayout,
): boolean {
	if (choice !== AUTOMATIC_LAYOUT || fixed.has(key)) return false;
	remember(fixed, key, layout);
	return true;
}

export const signatureLayoutOption: INodeProperties = {
	displayName: 'Signature Layout',
	name: 'signatureLayout',
	type: 'options',
	default: AUTOMATIC_LAYOUT,
	description:
		'How the service signs its deliveries. Automatic accepts the layout of the first delivery that verifies, and from then on only that one; choosing a layout fixes it in every n8n process.',
	options: [
		{
			name: 'Automatic',
			value: AUTOMATIC_LAYOUT,
			description: 'Fixed by the first delivery that verifies',
		},
		{
			name: 'HMAC of Body Only',
			value: 'body-hmac',
			description:
				'Hex or base64 HMAC of the body in X-Signature, X-Hub-Signature-256, X-Webhook-Signature or Signature. No signed time, so a captured delivery can be replayed.',
		},
		{
			name: 'HMAC of Timestamp and Body',
			value: 'body-hmac-timestamp',
			description:
				'Hex or base64 HMAC of "timestamp.body", the time in X-Timestamp, X-Webhook-Timestamp or X-Signature-Timestamp',
		},
		{
			name: 'Standard Webhooks',
			value: 'standard-webhooks',
			description:
				'Webhook-ID, Webhook-Timestamp and Webhook-Signature: v1,base64 (standardwebhooks.com)',
		},
		{
			name: 'X-Signature T=…,v1=…',
			value: 'timestamped-header',
			description: 'HMAC of "t.body" as hex, with its time, in X-Signature',
		},
	],
};
