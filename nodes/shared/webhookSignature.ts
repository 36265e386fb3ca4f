import type { IDataObject, INodeProperties, IWebhookFunctions } from 'n8n-workflow';

import { verifyDelivery, type DeliveryVerification } from './deliveryLayouts';
import { memoryOf, remember } from './nodeMemory';
import { headerValue } from './transport';
import { SIGNATURE_LAYOUTS, SIGNATURE_TOLERANCE_SECONDS, type SignatureLayout } from './vocabulary';
import { rawBodyOf, secretScope, signingSecret } from './webhooks';

/**
 * A delivery's signature, checked alike for the trigger and Send and Wait. Automatic fixes the first
 * layout that verifies (no replay in a weaker one), per process: n8n drops webhook()'s static data.
 */
export const AUTOMATIC_LAYOUT = 'auto';

/** Signature Tolerance is capped, so the replay window can never be turned off by a large value. */
export const MAX_SIGNATURE_TOLERANCE_SECONDS = 3600;

type LayoutChoice = SignatureLayout | typeof AUTOMATIC_LAYOUT | 'unknown';

/** The layout a Signature Layout value names; an unknown value is refused, never widened. */
export function layoutChoice(value: unknown): LayoutChoice {
	if (value === undefined || value === '' || value === AUTOMATIC_LAYOUT) return AUTOMATIC_LAYOUT;
	return SIGNATURE_LAYOUTS.find((layout) => layout === value) ?? 'unknown';
}

/** What a delivery is signed for: a registration or a wait, by its nonce and sealed secret. */
interface SignedFor {
	nonce: string;
	/** A secret the service chose itself, sealed with a key derived from the API key. */
	sealedSecret?: string;
}

/**
 * Verifies webhook()'s request in the layouts `choice` accepts now; the secret is held in node memory
 * (a burst costs one credential read). `accepted` (undefined: any): what a refusal was checked against.
 */
export async function verifyCall(
	context: IWebhookFunctions,
	apiKey: () => Promise<string>,
	signedFor: SignedFor,
	choice: LayoutChoice,
	toleranceSeconds: number = SIGNATURE_TOLERANCE_SECONDS,
): Promise<DeliveryVerification & { accepted?: SignatureLayout[]; newlyFixed?: boolean }> {
	const memory = memoryOf(context.getWorkflow().id, context.getNode().id);
	const key = `${signedFor.nonce}\u0000${signedFor.sealedSecret ?? ''}`;
	let secret = memory.secrets.get(key);
	if (secret === undefined) {
		const scope = secretScope(context, await apiKey(), signedFor.nonce);
		secret = signingSecret(scope, signedFor.sealedSecret);
		if (secret !== undefined) remember(memory.secrets, key, secret);
	}
	const fixed = memory.layouts.get(key);
	const accepted =
		choice === 'unknown' ? [] : choice !== AUTOMATIC_LAYOUT ? [choice] : fixed && [fixed];
	const headers = (context.getHeaderData() ?? {}) as IDataObject;
	const result = verifyDelivery({
		header: (name) => headerValue(headers, name),
		rawBody: rawBodyOf(context),
		secret: secret ?? '',
		nowSeconds: Math.floor(Date.now() / 1000),
		toleranceSeconds:
			Number.isFinite(toleranceSeconds) && toleranceSeconds > 0
				? Math.min(toleranceSeconds, MAX_SIGNATURE_TOLERANCE_SECONDS)
				: SIGNATURE_TOLERANCE_SECONDS,
		accepted,
	});
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
