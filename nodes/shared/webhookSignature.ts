import type { INodeProperties } from 'n8n-workflow';

import {
	verifyDelivery,
	type DeliveryVerification,
	type VerifyDeliveryInput,
} from './deliveryLayouts';
import { remember, type NodeMemory } from './nodeMemory';
import { SIGNATURE_LAYOUTS, type SignatureLayout } from './vocabulary';

/**
 * Signature Layout: Automatic fixes the first layout that verifies, so a capture cannot be replayed
 * in a weaker one; it is remembered per process (nodeMemory.ts), as n8n drops what webhook() writes
 * to static data. deliveryLayouts.ts checks the layouts.
 */
export const AUTOMATIC_LAYOUT = 'auto';

export type LayoutChoice = SignatureLayout | typeof AUTOMATIC_LAYOUT | 'unknown';

/** The layout a Signature Layout value names; an unknown value is refused, never widened. */
export function layoutChoice(value: unknown): LayoutChoice {
	if (value === undefined || value === '' || value === AUTOMATIC_LAYOUT) return AUTOMATIC_LAYOUT;
	return SIGNATURE_LAYOUTS.find((layout) => layout === value) ?? 'unknown';
}

/**
 * Verifies a delivery for `key` (a registration or a wait) in the layouts `choice` accepts now;
 * under Automatic the first verified layout becomes the only one. `accepted` (undefined: any) is
 * what a refusal was checked against; `newlyFixed`, whether this delivery fixed the layout.
 */
export function verifyWithLayout(
	memory: NodeMemory,
	key: string,
	choice: LayoutChoice,
	input: Omit<VerifyDeliveryInput, 'accepted'>,
): DeliveryVerification & { accepted?: SignatureLayout[]; newlyFixed?: boolean } {
	const fixed = memory.layouts.get(key);
	const accepted =
		choice === 'unknown' ? [] : choice !== AUTOMATIC_LAYOUT ? [choice] : fixed && [fixed];
	const result = verifyDelivery({ ...input, accepted });
	if (!result.valid) return { ...result, accepted };
	const newlyFixed = choice === AUTOMATIC_LAYOUT && !fixed;
	if (newlyFixed) remember(memory.layouts, key, result.layout);
	return { ...result, newlyFixed };
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
