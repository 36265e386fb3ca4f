import type { INodeProperties } from 'n8n-workflow';

import { remember } from './nodeMemory';
import { SIGNATURE_LAYOUTS, type SignatureLayout } from './vocabulary';

/**
 * Which signature layouts the trigger and Send and Wait accept (docs/delivery-signatures.md).
 * Automatic fixes the first layout that verifies, so a capture cannot be replayed in a weaker one;
 * it is remembered per process (nodeMemory.ts), as n8n drops what webhook() writes to static data.
 */

export const AUTOMATIC_LAYOUT = 'auto';

export type LayoutChoice = SignatureLayout | typeof AUTOMATIC_LAYOUT | 'unknown';

/** The layout a Signature Layout value names; an unknown value is refused, never widened. */
export function layoutChoice(value: unknown): LayoutChoice {
	if (value === undefined || value === '' || value === AUTOMATIC_LAYOUT) return AUTOMATIC_LAYOUT;
	return (SIGNATURE_LAYOUTS as readonly unknown[]).includes(value)
		? (value as SignatureLayout)
		: 'unknown';
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
