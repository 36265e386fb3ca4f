/**
 * nodes/shared/webhookSignature.ts: the Signature Layout setting narrows the layouts a delivery may
 * use, and Automatic fixes the first that verifies. The layouts themselves: deliveryLayouts.test.ts.
 */
import { createHmac } from 'crypto';

import { memoryOf } from '../../../nodes/shared/nodeMemory';
import {
	AUTOMATIC_LAYOUT,
	layoutChoice,
	verifyWithLayout,
} from '../../../nodes/shared/webhookSignature';

/** Builds throwaway test keys at run time (they are fixtures, not credentials). */
function fixtureKey(label: string): string {
	return `whsec_${label}_`.padEnd(40, '0');
}
const SECRET = fixtureKey('test');
const NOW = 1_763_805_600;
const BODY = '{"id":"dlv_1","event":"document.completed"}';

// Expected signatures are computed here with crypto directly, never with the code under test.
const hex = (content: string, secret = SECRET) =>
	createHmac('sha256', secret).update(content, 'utf8').digest('hex');
/** The contract's X-Signature t=…,v1=… */
const timestamped = { 'x-signature': `t=${NOW},v1=${hex(`${NOW}.${BODY}`)}` };
/** A bare HMAC of the body. */
const bodyOnly = { 'x-hub-signature-256': `sha256=${hex(BODY)}` };

const delivery = (headers: Record<string, string>, secret = SECRET) => ({
	header: (name: string) => headers[name],
	rawBody: BODY,
	secret,
	nowSeconds: NOW,
});

let node = 0;
const freshMemory = () => memoryOf('wf_signature', `node_${++node}`);

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

describe('verifyWithLayout', () => {
	it('Automatic: the first layout that verifies becomes the only one for its key', () => {
		const memory = freshMemory();
		expect(verifyWithLayout(memory, 'reg_1', AUTOMATIC_LAYOUT, delivery(timestamped))).toEqual({
			valid: true,
			layout: 'timestamped-header',
			timestamp: NOW,
			newlyFixed: true,
		});
		expect(
			verifyWithLayout(memory, 'reg_1', AUTOMATIC_LAYOUT, delivery(timestamped)),
		).toMatchObject({ valid: true, newlyFixed: false });
		expect(verifyWithLayout(memory, 'reg_1', AUTOMATIC_LAYOUT, delivery(bodyOnly))).toEqual({
			valid: false,
			layout: 'body-hmac',
			reason: 'layout_not_accepted',
			accepted: ['timestamped-header'],
		});
		// Another registration of the same node is fixed by its own first delivery.
		expect(verifyWithLayout(memory, 'reg_2', AUTOMATIC_LAYOUT, delivery(bodyOnly))).toEqual({
			valid: true,
			layout: 'body-hmac',
			newlyFixed: true,
		});
	});

	it('Automatic: a refused delivery fixes nothing', () => {
		const memory = freshMemory();
		expect(
			verifyWithLayout(memory, 'reg_1', AUTOMATIC_LAYOUT, delivery(bodyOnly, fixtureKey('x'))),
		).toEqual({
			valid: false,
			layout: 'body-hmac',
			reason: 'signature_mismatch',
			accepted: undefined,
		});
		expect(memory.layouts.size).toBe(0);
		expect(
			verifyWithLayout(memory, 'reg_1', AUTOMATIC_LAYOUT, delivery(timestamped)),
		).toMatchObject({ valid: true, layout: 'timestamped-header', newlyFixed: true });
	});

	it('a chosen layout accepts only itself and fixes nothing', () => {
		const memory = freshMemory();
		expect(verifyWithLayout(memory, 'reg_1', 'body-hmac', delivery(timestamped))).toEqual({
			valid: false,
			layout: 'timestamped-header',
			reason: 'layout_not_accepted',
			accepted: ['body-hmac'],
		});
		expect(verifyWithLayout(memory, 'reg_1', 'body-hmac', delivery(bodyOnly))).toEqual({
			valid: true,
			layout: 'body-hmac',
			newlyFixed: false,
		});
		expect(memory.layouts.size).toBe(0);
	});

	it('an unknown Signature Layout accepts nothing', () => {
		expect(verifyWithLayout(freshMemory(), 'reg_1', 'unknown', delivery(timestamped))).toEqual({
			valid: false,
			layout: 'timestamped-header',
			reason: 'layout_not_accepted',
			accepted: [],
		});
	});
});
