/**
 * nodes/shared/webhookSignature.ts: the Signature Layout setting narrows the layouts a delivery may
 * use, and Automatic fixes the first that verifies. The layouts themselves: deliveryLayouts.test.ts.
 */
/**
 * nodes/shared/webhookSignature.ts: one verification for both receivers. The Signature Layout
 * setting narrows the layouts a delivery may use, and Automatic fixes the first that verifies; the
 * secret is recomputed once per registration. The layouts themselves: deliveryLayouts.test.ts.
 */
import { createHmac } from 'crypto';
import type { IWebhookFunctions } from 'n8n-workflow';

import { AUTOMATIC_LAYOUT, layoutChoice, verifyCall } from '../../../nodes/shared/webhookSignature';
import { signingSecret } from '../../../nodes/shared/webhooks';

const API_KEY = ['sk', 'test', 'signature', 'key'].join('_');
const NOW = Math.floor(Date.now() / 1000);
const BODY = '{"id":"dlv_1","event":"document.completed"}';

let node = 0;
/** A fresh workflow node (its own memory) and the secret the service holds for `nonce`. */
function freshNode() {
	const nodeId = `node_${++node}`;
	const secretOf = (nonce: string) =>
		signingSecret({ apiKey: API_KEY, workflowId: 'wf_signature', nodeId, nonce }) as string;
	let keyReads = 0;
	/** webhook() called with these headers, as n8n-core's WebhookContext gives them. */
	const verify = (headers: Record<string, string>, nonce = 'reg_1', choice = 'auto' as const) =>
		verifyCall(
			{
				getWorkflow: () => ({ id: 'wf_signature' }),
				getNode: () => ({ id: nodeId, name: 'Trigger' }),
				getHeaderData: () => headers,
				getRequestObject: () => ({ rawBody: Buffer.from(BODY) }),
			} as unknown as IWebhookFunctions,
			async () => {
				keyReads++;
				return API_KEY;
			},
			{ nonce },
			layoutChoice(choice),
		);
	return { verify, secretOf, keyReads: () => keyReads };
}

// Expected signatures are computed here with crypto directly, never with the code under test.
const hex = (content: string, secret: string) =>
	createHmac('sha256', secret).update(content, 'utf8').digest('hex');
/** The contract's X-Signature t=…,v1=… */
const timestamped = (secret: string, at = NOW) => ({
	'x-signature': `t=${at},v1=${hex(`${at}.${BODY}`, secret)}`,
});
/** A bare HMAC of the body. */
const bodyOnly = (secret: string) => ({ 'x-hub-signature-256': `sha256=${hex(BODY, secret)}` });

describe('layoutChoice', () => {
	it.each([
		[undefined, AUTOMATIC_LAYOUT],
		['', AUTOMATIC_LAYOUT],
		['auto', AUTOMATIC_LAYOUT],
		['body-hmac', 'body-hmac'],
		['timestamped-header', 'timestamped-header'],
		['hmac-sha1', 'unknown'],
		[42, 'unknown'],
	])('%p reads as %p', (value, expected) => {
		expect(layoutChoice(value)).toBe(expected);
	});
});

describe('verifyCall', () => {
	it('Automatic: the first layout that verifies becomes the only one for its registration', async () => {
		const { verify, secretOf } = freshNode();
		const secret = secretOf('reg_1');
		expect(await verify(timestamped(secret))).toEqual({
			valid: true,
			layout: 'timestamped-header',
			timestamp: NOW,
			newlyFixed: true,
		});
		expect(await verify(timestamped(secret))).toMatchObject({ valid: true, newlyFixed: false });
		expect(await verify(bodyOnly(secret))).toEqual({
			valid: false,
			layout: 'body-hmac',
			reason: 'layout_not_accepted',
			accepted: ['timestamped-header'],
		});
		// Another registration of the same node is fixed by its own first delivery.
		expect(await verify(bodyOnly(secretOf('reg_2')), 'reg_2')).toEqual({
			valid: true,
			layout: 'body-hmac',
			newlyFixed: true,
		});
	});

	it('Automatic: a refused delivery fixes nothing', async () => {
		const { verify, secretOf } = freshNode();
		expect(await verify(bodyOnly(secretOf('another')))).toEqual({
			valid: false,
			layout: 'body-hmac',
			reason: 'signature_mismatch',
			accepted: undefined,
		});
		expect(await verify(timestamped(secretOf('reg_1')))).toMatchObject({
			valid: true,
			layout: 'timestamped-header',
			newlyFixed: true,
		});
	});

	it('a chosen layout accepts only itself and fixes nothing', async () => {
		const { verify, secretOf } = freshNode();
		const secret = secretOf('reg_1');
		const choose = 'body-hmac' as 'auto';
		expect(await verify(timestamped(secret), 'reg_1', choose)).toEqual({
			valid: false,
			layout: 'timestamped-header',
			reason: 'layout_not_accepted',
			accepted: ['body-hmac'],
		});
		expect(await verify(bodyOnly(secret), 'reg_1', choose)).toEqual({
			valid: true,
			layout: 'body-hmac',
			newlyFixed: false,
		});
		// Nothing was fixed: Automatic still takes the first layout that verifies.
		expect(await verify(timestamped(secret))).toMatchObject({ valid: true, newlyFixed: true });
	});

	it('an unknown Signature Layout accepts nothing', async () => {
		const { verify, secretOf } = freshNode();
		expect(await verify(timestamped(secretOf('reg_1')), 'reg_1', 'hmac-sha1' as 'auto')).toEqual({
			valid: false,
			layout: 'timestamped-header',
			reason: 'layout_not_accepted',
			accepted: [],
		});
	});

	it('reads the API key once per registration, however many deliveries come', async () => {
		const { verify, secretOf, keyReads } = freshNode();
		for (let i = 0; i < 5; i++) await verify(timestamped(secretOf('reg_1')));
		expect(keyReads()).toBe(1);
		await verify(timestamped(secretOf('reg_2')), 'reg_2');
		expect(keyReads()).toBe(2);
	});

	it('refuses a delivery signed outside the replay window', async () => {
		const { verify, secretOf } = freshNode();
		expect(await verify(timestamped(secretOf('reg_1'), NOW - 3600))).toMatchObject({
			valid: false,
			reason: 'stale_timestamp',
		});
	});
});
