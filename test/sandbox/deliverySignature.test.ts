import { createHmac } from 'crypto';

import { deliverySignatureHeaders, signWebhookPayload } from '../../sandbox/deliverySignature';

// Expected signatures are computed here with crypto directly, never with the code under test.
const SECRET = 'whsec_test_'.padEnd(40, '0');
const NOW = 1_763_805_600;
const BODY =
	'{"id":"dlv_1","event":"document.completed","data":{"document":{"name":"Vertrag – ü.pdf"}}}';
const hmac = (key: string | Buffer, content: string) =>
	createHmac('sha256', key).update(content, 'utf8').digest();
const good = hmac(SECRET, `${NOW}.${BODY}`).toString('hex');

describe('signWebhookPayload', () => {
	it('produces t=<t>,v1=<hex HMAC-SHA256 of "<t>.<body>">', () => {
		expect(signWebhookPayload(SECRET, NOW, BODY)).toBe(`t=${NOW},v1=${good}`);
	});

	it('signs a Buffer body byte for byte, identical to the same UTF-8 string', () => {
		expect(signWebhookPayload(SECRET, NOW, Buffer.from(BODY, 'utf8'))).toBe(`t=${NOW},v1=${good}`);
	});

	it('matches the example in docs/api-contract.md format (64 lowercase hex chars)', () => {
		expect(signWebhookPayload(SECRET, NOW, BODY)).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
	});

	it.each([-1, 1.5, Number.NaN])('refuses the timestamp %p', (t) => {
		expect(() => signWebhookPayload(SECRET, t, BODY)).toThrow(TypeError);
	});
});

describe('deliverySignatureHeaders', () => {
	it('Standard Webhooks: the whsec_ secret base64-decoded is the key, over "<id>.<t>.<body>"', () => {
		const key = Buffer.from('twenty-four byte key 123');
		const headers = deliverySignatureHeaders(
			'standard-webhooks',
			`whsec_${key.toString('base64')}`,
			NOW,
			'dlv_9',
			BODY,
		);
		expect(headers).toEqual({
			'webhook-id': 'dlv_9',
			'webhook-timestamp': String(NOW),
			'webhook-signature': `v1,${hmac(key, `dlv_9.${NOW}.${BODY}`).toString('base64')}`,
		});
	});

	it.each([
		['v1', { 'X-Signature': `t=${NOW},v1=${good}` }],
		['hub-sha256', { 'X-Hub-Signature-256': `sha256=${hmac(SECRET, BODY).toString('hex')}` }],
		['signature-base64', { Signature: hmac(SECRET, BODY).toString('base64') }],
		[
			'timestamp-header',
			{
				'X-Webhook-Signature': hmac(SECRET, `${NOW}.${BODY}`).toString('hex'),
				'X-Webhook-Timestamp': String(NOW),
			},
		],
		[
			'unsigned-timestamp',
			{ 'X-Signature': hmac(SECRET, BODY).toString('hex'), 'X-Timestamp': String(NOW) },
		],
		['none', {}],
	] as const)('%s', (style, expected) => {
		expect(deliverySignatureHeaders(style, SECRET, NOW, 'dlv_1', BODY)).toEqual(expected);
	});
});
