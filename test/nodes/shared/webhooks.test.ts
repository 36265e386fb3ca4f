import {
	derivedSecret,
	keyCheck,
	sealSecret,
	signingSecret,
	type SecretScope,
} from '../../../nodes/shared/webhooks';

const scope: SecretScope = {
	apiKey: 'sk_live_key_one',
	workflowId: 'wf1',
	nodeId: 'node1',
	nonce: '00112233445566778899aabbccddeeff',
};

test('the derived secret is 64 hex characters, the same for the same scope, different for any other', () => {
	const secret = derivedSecret(scope);
	expect(secret).toMatch(/^[0-9a-f]{64}$/);
	expect(derivedSecret({ ...scope })).toBe(secret);
	for (const change of [
		{ apiKey: 'sk_live_key_two' },
		{ workflowId: 'wf2' },
		{ nodeId: 'node2' },
		{ nonce: 'ff'.repeat(16) },
	]) {
		expect(derivedSecret({ ...scope, ...change })).not.toBe(secret);
	}
});

test('the key check changes with the key and reveals neither key nor secret', () => {
	const check = keyCheck(scope);
	expect(check).toMatch(/^[0-9a-f]{16}$/);
	expect(keyCheck({ ...scope, apiKey: 'sk_other' })).not.toBe(check);
	expect(derivedSecret(scope).includes(check)).toBe(false);
});

test('a sealed secret opens with the same scope only, and a tampered one not at all', () => {
	expect(signingSecret(scope)).toBe(derivedSecret(scope));
	const sealed = sealSecret('whsec_service_chosen_secret', scope);
	expect(sealed).not.toContain('whsec');
	expect(signingSecret(scope, sealed)).toBe('whsec_service_chosen_secret');
	expect(signingSecret({ ...scope, apiKey: 'sk_other' }, sealed)).toBeUndefined();
	const bytes = Buffer.from(sealed, 'base64');
	bytes[bytes.length - 1] ^= 1;
	expect(signingSecret(scope, bytes.toString('base64'))).toBeUndefined();
	expect(signingSecret(scope, 'not base64 at all')).toBeUndefined();
});
