/** nodes/shared/webhooks.ts: a webhook's secret and key check, from the credential's key and a nonce. */
import { keyCheck, signingSecret, type SecretScope } from '../../../nodes/shared/webhooks';

const scope: SecretScope = {
	apiKey: 'sk_live_key_one',
	workflowId: 'wf1',
	nodeId: 'node1',
	nonce: '00112233445566778899aabbccddeeff',
};

test('the derived secret is 64 hex characters, the same for the same scope, different for any other', () => {
	const secret = signingSecret(scope);
	expect(secret).toMatch(/^[0-9a-f]{64}$/);
	expect(signingSecret({ ...scope })).toBe(secret);
	for (const change of [
		{ apiKey: 'sk_live_key_two' },
		{ workflowId: 'wf2' },
		{ nodeId: 'node2' },
		{ nonce: 'ff'.repeat(16) },
	]) {
		expect(signingSecret({ ...scope, ...change })).not.toBe(secret);
	}
});

test('the key check changes with the key and reveals neither key nor secret', () => {
	const check = keyCheck(scope);
	expect(check).toMatch(/^[0-9a-f]{16}$/);
	expect(keyCheck({ ...scope, apiKey: 'sk_other' })).not.toBe(check);
	expect(signingSecret(scope)?.includes(check)).toBe(false);
});

// Sealing a secret the service chose, opened with the same key only: test/behaviour/webhookSecrets.test.ts (finding 7b).
test('a sealed secret that cannot be opened gives no secret', () => {
	expect(signingSecret(scope, 'not base64 at all')).toBeUndefined();
	expect(signingSecret(scope, Buffer.alloc(60, 7).toString('base64'))).toBeUndefined();
});
