import { createHmac } from 'crypto';

import { signWebhookPayload } from '../../../sandbox/deliverySignature';
import {
	verifyWebhookSignature,
	type SignatureVerification,
	type VerifyWebhookSignatureInput,
} from '../../../nodes/shared/webhookSignature';
import { SIGNATURE_TOLERANCE_SECONDS } from '../../../nodes/shared/vocabulary';

// Expected signatures are computed here with crypto directly, never with the code under test.
/** Builds throwaway test keys at run time (they are fixtures, not credentials). */
function fixtureKey(label: string): string {
	return `whsec_${label}_`.padEnd(40, '0');
}
const SECRET = fixtureKey('test');
const OTHER_SECRET = fixtureKey('other');
const NOW = 1_763_805_600;
const BODY =
	'{"id":"dlv_1","event":"document.completed","data":{"document":{"name":"Vertrag – ü.pdf"}}}';

function hmac(secret: string, t: number | string, body: string | Buffer): string {
	return createHmac('sha256', secret)
		.update(
			Buffer.concat([
				Buffer.from(`${t}.`, 'utf8'),
				Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
			]),
		)
		.digest('hex');
}

const good = hmac(SECRET, NOW, BODY);

type Case = [
	name: string,
	input: Partial<VerifyWebhookSignatureInput>,
	expected: SignatureVerification,
];

const base: VerifyWebhookSignatureInput = {
	header: `t=${NOW},v1=${good}`,
	rawBody: BODY,
	secret: SECRET,
	nowSeconds: NOW,
};

const cases: Case[] = [
	['valid signature', {}, { valid: true, timestamp: NOW }],
	[
		'valid with a Buffer body',
		{ rawBody: Buffer.from(BODY, 'utf8') },
		{ valid: true, timestamp: NOW },
	],
	[
		'valid with uppercase hex',
		{ header: `t=${NOW},v1=${good.toUpperCase()}` },
		{ valid: true, timestamp: NOW },
	],
	[
		'valid with extra whitespace around parts and "="',
		{ header: `  t = ${NOW} ,  v1=${good}  ` },
		{ valid: true, timestamp: NOW },
	],
	[
		'valid with the parts in another order',
		{ header: `v1=${good},t=${NOW}` },
		{ valid: true, timestamp: NOW },
	],
	[
		'valid when one of several v1 entries matches (secret rotation)',
		{ header: `t=${NOW},v1=${hmac(OTHER_SECRET, NOW, BODY)},v1=${good}` },
		{ valid: true, timestamp: NOW },
	],
	[
		'valid when an unknown scheme sits next to v1',
		{ header: `t=${NOW},v0=deadbeef,v1=${good}` },
		{ valid: true, timestamp: NOW },
	],
	[
		'valid at exactly the tolerance in the past',
		{ nowSeconds: NOW + SIGNATURE_TOLERANCE_SECONDS },
		{ valid: true, timestamp: NOW },
	],
	[
		'valid at exactly the tolerance in the future',
		{ nowSeconds: NOW - SIGNATURE_TOLERANCE_SECONDS },
		{ valid: true, timestamp: NOW },
	],
	[
		'valid with a custom tolerance',
		{ nowSeconds: NOW + 1000, toleranceSeconds: 1000 },
		{ valid: true, timestamp: NOW },
	],
	[
		'valid with duplicated headers given as an array',
		{ header: [`t=${NOW}`, `v1=${good}`] },
		{ valid: true, timestamp: NOW },
	],

	['missing header (undefined)', { header: undefined }, { valid: false, reason: 'missing_header' }],
	['missing header (null)', { header: null }, { valid: false, reason: 'missing_header' }],
	['missing header (empty)', { header: '' }, { valid: false, reason: 'missing_header' }],
	['missing header (blank)', { header: '   ' }, { valid: false, reason: 'missing_header' }],
	['missing header (empty array)', { header: [] }, { valid: false, reason: 'missing_header' }],

	['wrong secret', { secret: OTHER_SECRET }, { valid: false, reason: 'signature_mismatch' }],
	['empty secret never accepts', { secret: '' }, { valid: false, reason: 'signature_mismatch' }],
	[
		'tampered body',
		{ rawBody: BODY.replace('completed', 'declined') },
		{ valid: false, reason: 'signature_mismatch' },
	],
	[
		'body re-serialised (whitespace added)',
		{ rawBody: JSON.stringify(JSON.parse(BODY), null, 2) },
		{ valid: false, reason: 'signature_mismatch' },
	],
	[
		'tampered timestamp',
		{ header: `t=${NOW + 1},v1=${good}`, nowSeconds: NOW },
		{ valid: false, reason: 'signature_mismatch' },
	],
	[
		'signature of the wrong length',
		{ header: `t=${NOW},v1=${good.slice(0, 62)}` },
		{ valid: false, reason: 'signature_mismatch' },
	],
	[
		'signature too long',
		{ header: `t=${NOW},v1=${good}00` },
		{ valid: false, reason: 'signature_mismatch' },
	],

	[
		'stale timestamp (past)',
		{ nowSeconds: NOW + SIGNATURE_TOLERANCE_SECONDS + 1 },
		{ valid: false, reason: 'stale_timestamp' },
	],
	[
		'stale timestamp (future)',
		{ nowSeconds: NOW - SIGNATURE_TOLERANCE_SECONDS - 1 },
		{ valid: false, reason: 'stale_timestamp' },
	],
	[
		'stale timestamp with a custom tolerance',
		{ nowSeconds: NOW + 11, toleranceSeconds: 10 },
		{ valid: false, reason: 'stale_timestamp' },
	],
	[
		'receiver clock not a number',
		{ nowSeconds: Number.NaN },
		{ valid: false, reason: 'stale_timestamp' },
	],

	[
		'malformed: no timestamp',
		{ header: `v1=${good}` },
		{ valid: false, reason: 'malformed_header' },
	],
	[
		'malformed: no signature at all',
		{ header: `t=${NOW}` },
		{ valid: false, reason: 'malformed_header' },
	],
	['malformed: not key=value', { header: 'garbage' }, { valid: false, reason: 'malformed_header' }],
	['malformed: bare signature', { header: good }, { valid: false, reason: 'malformed_header' }],
	[
		'malformed: empty value',
		{ header: `t=,v1=${good}` },
		{ valid: false, reason: 'malformed_header' },
	],
	[
		'malformed: empty key',
		{ header: `=${NOW},v1=${good}` },
		{ valid: false, reason: 'malformed_header' },
	],
	[
		'malformed: non-numeric timestamp',
		{ header: `t=abc,v1=${good}` },
		{ valid: false, reason: 'malformed_header' },
	],
	[
		'malformed: negative timestamp',
		{ header: `t=-${NOW},v1=${good}` },
		{ valid: false, reason: 'malformed_header' },
	],
	[
		'malformed: fractional timestamp',
		{ header: `t=${NOW}.5,v1=${good}` },
		{ valid: false, reason: 'malformed_header' },
	],
	[
		'malformed: two timestamps',
		{ header: `t=${NOW},t=${NOW},v1=${good}` },
		{ valid: false, reason: 'malformed_header' },
	],
	[
		'malformed: non-hex signature',
		{ header: `t=${NOW},v1=${'z'.repeat(64)}` },
		{ valid: false, reason: 'malformed_header' },
	],
	[
		'malformed: odd-length hex',
		{ header: `t=${NOW},v1=${good.slice(1)}` },
		{ valid: false, reason: 'malformed_header' },
	],
	[
		'malformed: semicolons instead of commas',
		{ header: `t=${NOW};v1=${good}` },
		{ valid: false, reason: 'malformed_header' },
	],
	[
		'malformed: trailing comma',
		{ header: `t=${NOW},v1=${good},` },
		{ valid: false, reason: 'malformed_header' },
	],

	[
		'unsupported scheme v0',
		{ header: `t=${NOW},v0=${good}` },
		{ valid: false, reason: 'unsupported_scheme' },
	],
	[
		'unsupported scheme sha1',
		{ header: `t=${NOW},sha1=${createHmac('sha1', SECRET).update(BODY).digest('hex')}` },
		{ valid: false, reason: 'unsupported_scheme' },
	],
	[
		'unsupported scheme V1 (case matters)',
		{ header: `t=${NOW},V1=${good}` },
		{ valid: false, reason: 'unsupported_scheme' },
	],

	['empty string body', { rawBody: '' }, { valid: false, reason: 'empty_body' }],
	['empty Buffer body', { rawBody: Buffer.alloc(0) }, { valid: false, reason: 'empty_body' }],
	['undefined body', { rawBody: undefined }, { valid: false, reason: 'empty_body' }],
];

describe('verifyWebhookSignature', () => {
	it.each(cases)('%s', (_name, overrides, expected) => {
		expect(verifyWebhookSignature({ ...base, ...overrides })).toEqual(expected);
	});

	it('accepts what signWebhookPayload produces, for string and Buffer bodies alike', () => {
		const header = signWebhookPayload(SECRET, NOW, BODY);
		expect(verifyWebhookSignature({ ...base, header, rawBody: Buffer.from(BODY) })).toEqual({
			valid: true,
			timestamp: NOW,
		});
	});

	it('verifies a binary (non UTF-8) Buffer body byte for byte', () => {
		const binary = Buffer.from([0xff, 0x00, 0xfe, 0x7b]);
		const header = `t=${NOW},v1=${hmac(SECRET, NOW, binary)}`;
		expect(verifyWebhookSignature({ ...base, header, rawBody: binary })).toEqual({
			valid: true,
			timestamp: NOW,
		});
		expect(
			verifyWebhookSignature({ ...base, header, rawBody: Buffer.from([0xff, 0x00, 0xfe, 0x7c]) }),
		).toEqual({
			valid: false,
			reason: 'signature_mismatch',
		});
	});

	it('never throws on hostile input', () => {
		const hostile: unknown[] = [
			{},
			42,
			['t=1', 7],
			't='.repeat(10_000),
			`t=${'9'.repeat(400)},v1=${good}`,
		];
		for (const header of hostile) {
			expect(() => verifyWebhookSignature({ ...base, header: header as string })).not.toThrow();
		}
	});
});
