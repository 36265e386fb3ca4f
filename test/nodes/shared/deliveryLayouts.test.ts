/**
 * nodes/shared/deliveryLayouts.ts: a delivery verifies in each layout, and is refused in each way a
 * layout can fail. Expected signatures are computed here with crypto, never with the code under test.
 */
import { createHmac } from 'crypto';

import { signWebhookPayload } from '../../../sandbox/deliverySignature';
import { SIGNATURE_TOLERANCE_SECONDS } from '../../../nodes/shared/vocabulary';
import { verifyDelivery } from '../../../nodes/shared/deliveryLayouts';

/** What verifyDelivery is given. */
type VerifyDeliveryInput = Parameters<typeof verifyDelivery>[0];

/** Builds throwaway test keys at run time (they are fixtures, not credentials). */
function fixtureKey(label: string): string {
	return `whsec_${label}_`.padEnd(40, '0');
}
const SECRET = fixtureKey('test');
const OTHER_SECRET = fixtureKey('other');
const NOW = 1_763_805_600;
const BODY =
	'{"id":"dlv_1","event":"document.completed","data":{"document":{"name":"Vertrag – ü.pdf"}}}';

/** The contract's v1 signature: hex HMAC of "<t>.<body>". */
function hmac(secret: string, t: number | string, body: string | Buffer): string {
	return createHmac('sha256', secret).update(`${t}.`, 'utf8').update(body).digest('hex');
}
const good = hmac(SECRET, NOW, BODY);

const SW_KEY = Buffer.from('a fixture key of 24 bytes');
const SW_SECRET = `whsec_${SW_KEY.toString('base64')}`;
const SW_ID = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';

function digest(key: string | Buffer, content: string): Buffer {
	return createHmac('sha256', key).update(content, 'utf8').digest();
}

function deliveryInput(
	headers: Record<string, string>,
	overrides: Partial<VerifyDeliveryInput> = {},
): VerifyDeliveryInput {
	const lower = Object.fromEntries(
		Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
	);
	return {
		header: (name) => lower[name],
		rawBody: BODY,
		secret: SECRET,
		nowSeconds: NOW,
		...overrides,
	};
}

const standardWebhooks = (t = NOW, key: string | Buffer = SW_KEY, id = SW_ID, body = BODY) => ({
	'webhook-id': id,
	'webhook-timestamp': String(t),
	'webhook-signature': `v1,${digest(key, `${id}.${t}.${body}`).toString('base64')}`,
});
const hubSha256 = (key = SECRET) => ({
	'X-Hub-Signature-256': `sha256=${digest(key, BODY).toString('hex')}`,
});
const base64Body = (key = SECRET) => ({ Signature: digest(key, BODY).toString('base64') });
const timestampHeader = (t = NOW, key = SECRET) => ({
	'X-Webhook-Signature': digest(key, `${t}.${BODY}`).toString('hex'),
	'X-Webhook-Timestamp': String(t),
});

describe('verifyDelivery', () => {
	describe('each layout verifies', () => {
		it('Standard Webhooks: whsec_ base64 key over "<id>.<t>.<body>", the id signed', () => {
			expect(verifyDelivery(deliveryInput(standardWebhooks(), { secret: SW_SECRET }))).toEqual({
				valid: true,
				layout: 'standard-webhooks',
				timestamp: NOW,
				signedId: SW_ID,
			});
		});

		it('Standard Webhooks: any one of several space-separated signatures, other versions skipped', () => {
			const headers = standardWebhooks();
			headers['webhook-signature'] =
				`v1a,${'A'.repeat(86)}== v1,${digest('old key', 'x').toString('base64')} ${headers['webhook-signature']}`;
			expect(verifyDelivery(deliveryInput(headers, { secret: SW_SECRET }))).toMatchObject({
				valid: true,
				layout: 'standard-webhooks',
			});
		});

		it('X-Signature t=…,v1=… (the contract)', () => {
			expect(verifyDelivery(deliveryInput({ 'X-Signature': `t=${NOW},v1=${good}` }))).toEqual({
				valid: true,
				layout: 'timestamped-header',
				timestamp: NOW,
			});
		});

		it.each([
			['X-Hub-Signature-256: sha256=<hex>', hubSha256()],
			['Signature: <base64>', base64Body()],
			['X-Signature: <hex>', { 'X-Signature': digest(SECRET, BODY).toString('hex') }],
			[
				'X-Webhook-Signature: <base64url, no padding>',
				{ 'X-Webhook-Signature': digest(SECRET, BODY).toString('base64url') },
			],
		])('HMAC of the body alone in %s', (_name, headers) => {
			expect(verifyDelivery(deliveryInput(headers))).toEqual({ valid: true, layout: 'body-hmac' });
		});

		it('HMAC of "<t>.<body>" with the time in its own header', () => {
			expect(verifyDelivery(deliveryInput(timestampHeader()))).toEqual({
				valid: true,
				layout: 'body-hmac-timestamp',
				timestamp: NOW,
			});
		});

		it('a timestamp in milliseconds is read as its second', () => {
			const ms = `${NOW}123`;
			const headers = {
				'X-Signature': digest(SECRET, `${ms}.${BODY}`).toString('hex'),
				'X-Timestamp': ms,
			};
			expect(verifyDelivery(deliveryInput(headers))).toEqual({
				valid: true,
				layout: 'body-hmac-timestamp',
				timestamp: NOW,
			});
		});

		it('a timestamp header the HMAC does not cover counts for nothing: the layout is body-hmac', () => {
			const headers = {
				'X-Signature': digest(SECRET, BODY).toString('hex'),
				'X-Timestamp': String(NOW - 86_400),
			};
			expect(verifyDelivery(deliveryInput(headers))).toEqual({ valid: true, layout: 'body-hmac' });
		});
	});

	describe('forged, unsigned, stale and malformed deliveries are refused, naming the layout seen', () => {
		it.each<[string, Record<string, string>, Partial<VerifyDeliveryInput>, object]>([
			[
				'no signature at all',
				{ 'X-Delivery-Id': 'dlv_1' },
				{},
				{ valid: false, reason: 'missing_header' },
			],
			[
				'Standard Webhooks with another key',
				standardWebhooks(NOW, Buffer.from('another key')),
				{ secret: SW_SECRET },
				{ valid: false, layout: 'standard-webhooks', reason: 'signature_mismatch' },
			],
			[
				'Standard Webhooks, stale',
				standardWebhooks(NOW - 301),
				{ secret: SW_SECRET },
				{ valid: false, layout: 'standard-webhooks', reason: 'stale_timestamp' },
			],
			[
				'Standard Webhooks, from the future',
				standardWebhooks(NOW + 301),
				{ secret: SW_SECRET },
				{ valid: false, layout: 'standard-webhooks', reason: 'stale_timestamp' },
			],
			[
				'Standard Webhooks without its timestamp',
				{ 'webhook-id': SW_ID, 'webhook-signature': standardWebhooks()['webhook-signature'] },
				{ secret: SW_SECRET },
				{ valid: false, layout: 'standard-webhooks', reason: 'missing_timestamp' },
			],
			[
				'Standard Webhooks without its id',
				{
					'webhook-timestamp': String(NOW),
					'webhook-signature': standardWebhooks()['webhook-signature'],
				},
				{ secret: SW_SECRET },
				{ valid: false, layout: 'standard-webhooks', reason: 'malformed_header' },
			],
			[
				'Standard Webhooks with another id than signed',
				{ ...standardWebhooks(), 'webhook-id': 'msg_other' },
				{ secret: SW_SECRET },
				{ valid: false, layout: 'standard-webhooks', reason: 'signature_mismatch' },
			],
			[
				'Standard Webhooks with only v1a signatures',
				{ ...standardWebhooks(), 'webhook-signature': `v1a,${'A'.repeat(86)}==` },
				{ secret: SW_SECRET },
				{ valid: false, layout: 'standard-webhooks', reason: 'unsupported_scheme' },
			],
			[
				'a body HMAC with another key',
				hubSha256(OTHER_SECRET),
				{},
				{ valid: false, layout: 'body-hmac', reason: 'signature_mismatch' },
			],
			[
				'a body HMAC that is not 32 bytes',
				{ 'X-Hub-Signature-256': 'sha256=abcd' },
				{},
				{ valid: false, layout: 'body-hmac', reason: 'malformed_header' },
			],
			[
				'a timestamped HMAC, stale',
				timestampHeader(NOW - 301),
				{},
				{ valid: false, layout: 'body-hmac-timestamp', reason: 'stale_timestamp' },
			],
			[
				'a timestamped HMAC whose time was changed',
				{ ...timestampHeader(), 'X-Webhook-Timestamp': String(NOW + 1) },
				{},
				{ valid: false, layout: 'body-hmac-timestamp', reason: 'signature_mismatch' },
			],
			[
				't=…,v1=…, stale',
				{ 'X-Signature': `t=${NOW - 301},v1=${hmac(SECRET, NOW - 301, BODY)}` },
				{},
				{ valid: false, layout: 'timestamped-header', reason: 'stale_timestamp' },
			],
			[
				'an empty secret, even with an HMAC keyed by the empty string',
				{ 'X-Hub-Signature-256': `sha256=${digest('', BODY).toString('hex')}` },
				{ secret: '' },
				{ valid: false, layout: 'body-hmac', reason: 'signature_mismatch' },
			],
			[
				'an empty body',
				hubSha256(),
				{ rawBody: '' },
				{ valid: false, layout: 'body-hmac', reason: 'empty_body' },
			],
		])('%s', (_name, headers, overrides, expected) => {
			expect(verifyDelivery(deliveryInput(headers, overrides))).toEqual(expected);
		});
	});

	describe('never a weaker layout than the one accepted', () => {
		it('the strongest layout present decides: a failing Standard Webhooks signature is not rescued by a valid body HMAC', () => {
			const headers = { ...standardWebhooks(NOW - 3600), ...hubSha256() };
			expect(verifyDelivery(deliveryInput(headers, { secret: SW_SECRET }))).toMatchObject({
				valid: false,
				layout: 'standard-webhooks',
				reason: 'stale_timestamp',
			});
		});

		it('a stale timestamped HMAC is refused, never retried as body-only', () => {
			const t = NOW - 3600;
			const headers = {
				'X-Signature': digest(SECRET, `${t}.${BODY}`).toString('hex'),
				'X-Timestamp': String(t),
			};
			expect(verifyDelivery(deliveryInput(headers))).toMatchObject({
				valid: false,
				layout: 'body-hmac-timestamp',
				reason: 'stale_timestamp',
			});
		});

		it('a registration fixed to a timestamped layout refuses a body-only HMAC', () => {
			for (const accepted of [
				['timestamped-header'],
				['standard-webhooks'],
				['body-hmac-timestamp'],
			] as const) {
				expect(verifyDelivery(deliveryInput(hubSha256(), { accepted }))).toMatchObject({
					valid: false,
				});
			}
			expect(
				verifyDelivery(deliveryInput(hubSha256(), { accepted: ['timestamped-header'] })),
			).toEqual({ valid: false, layout: 'body-hmac', reason: 'layout_not_accepted' });
		});

		it('body-hmac-timestamp, fixed: the same signature with its timestamp header stripped is refused', () => {
			const headers = { 'X-Signature': digest(SECRET, BODY).toString('hex') };
			expect(verifyDelivery(deliveryInput(headers, { accepted: ['body-hmac-timestamp'] }))).toEqual(
				{ valid: false, layout: 'body-hmac-timestamp', reason: 'missing_timestamp' },
			);
			const unsignedTime = { ...headers, 'X-Timestamp': String(NOW) };
			expect(
				verifyDelivery(deliveryInput(unsignedTime, { accepted: ['body-hmac-timestamp'] })),
			).toEqual({ valid: false, layout: 'body-hmac-timestamp', reason: 'signature_mismatch' });
		});

		it('Standard Webhooks, fixed: a delivery re-signed in another layout is refused even when it verifies there', () => {
			const headers = { 'X-Signature': `t=${NOW},v1=${good}` };
			expect(verifyDelivery(deliveryInput(headers, { accepted: ['standard-webhooks'] }))).toEqual({
				valid: false,
				layout: 'timestamped-header',
				reason: 'layout_not_accepted',
			});
		});
	});

	it('never throws on hostile input', () => {
		const hostile = [
			'',
			' ',
			','.repeat(10_000),
			'v1,'.repeat(5000),
			`sha256=${'z'.repeat(64)}`,
			't=,v1=',
			'v1,@@@',
		];
		for (const value of hostile) {
			for (const name of ['webhook-signature', 'x-signature', 'signature']) {
				expect(() =>
					verifyDelivery(
						deliveryInput({
							[name]: value,
							'webhook-id': SW_ID,
							'webhook-timestamp': String(NOW),
							'x-timestamp': value,
						}),
					),
				).not.toThrow();
			}
		}
	});
});

describe('verifyDelivery, the contract layout alone (X-Signature t=…,v1=…)', () => {
	type Contract = Partial<Omit<VerifyDeliveryInput, 'header'>> & { header?: string };
	const contract = ({ header = `t=${NOW},v1=${good}`, ...overrides }: Contract = {}) =>
		verifyDelivery({
			...deliveryInput({ 'X-Signature': header }),
			accepted: ['timestamped-header'],
			...overrides,
		});
	const layout = 'timestamped-header';
	const verified = { valid: true, layout, timestamp: NOW };
	const refused = (reason: string) => ({ valid: false, layout, reason });
	// A header that is not `t=…,v1=…` reads as a bare body HMAC, which this layout does not accept.
	const notContract = { valid: false, layout: 'body-hmac', reason: 'layout_not_accepted' };

	it.each<[string, Contract, object]>([
		['valid signature', {}, verified],
		['valid with a Buffer body', { rawBody: Buffer.from(BODY, 'utf8') }, verified],
		['valid with uppercase hex', { header: `t=${NOW},v1=${good.toUpperCase()}` }, verified],
		[
			'valid with extra whitespace around parts and "="',
			{ header: `  t = ${NOW} ,  v1=${good}  ` },
			verified,
		],
		['valid with the parts in another order', { header: `v1=${good},t=${NOW}` }, verified],
		[
			'valid when one of several v1 entries matches (secret rotation)',
			{ header: `t=${NOW},v1=${hmac(OTHER_SECRET, NOW, BODY)},v1=${good}` },
			verified,
		],
		[
			'valid when an unknown scheme sits next to v1',
			{ header: `t=${NOW},v0=deadbeef,v1=${good}` },
			verified,
		],
		[
			'valid at exactly the tolerance in the past',
			{ nowSeconds: NOW + SIGNATURE_TOLERANCE_SECONDS },
			verified,
		],
		[
			'valid at exactly the tolerance in the future',
			{ nowSeconds: NOW - SIGNATURE_TOLERANCE_SECONDS },
			verified,
		],
		['valid with a custom tolerance', { nowSeconds: NOW + 1000, toleranceSeconds: 1000 }, verified],
		[
			'valid with duplicated headers folded with ", "',
			{ header: `t=${NOW}, v1=${good}` },
			verified,
		],

		['missing header (empty)', { header: '' }, { valid: false, reason: 'missing_header' }],
		['missing header (blank)', { header: '   ' }, { valid: false, reason: 'missing_header' }],

		['wrong secret', { secret: OTHER_SECRET }, refused('signature_mismatch')],
		['empty secret never accepts', { secret: '' }, refused('signature_mismatch')],
		[
			'tampered body',
			{ rawBody: BODY.replace('completed', 'declined') },
			refused('signature_mismatch'),
		],
		[
			'body re-serialised (whitespace added)',
			{ rawBody: JSON.stringify(JSON.parse(BODY), null, 2) },
			refused('signature_mismatch'),
		],
		['tampered timestamp', { header: `t=${NOW + 1},v1=${good}` }, refused('signature_mismatch')],
		[
			'signature of the wrong length',
			{ header: `t=${NOW},v1=${good.slice(0, 62)}` },
			refused('signature_mismatch'),
		],
		['signature too long', { header: `t=${NOW},v1=${good}00` }, refused('signature_mismatch')],

		[
			'stale timestamp (past)',
			{ nowSeconds: NOW + SIGNATURE_TOLERANCE_SECONDS + 1 },
			refused('stale_timestamp'),
		],
		[
			'stale timestamp (future)',
			{ nowSeconds: NOW - SIGNATURE_TOLERANCE_SECONDS - 1 },
			refused('stale_timestamp'),
		],
		[
			'stale timestamp with a custom tolerance',
			{ nowSeconds: NOW + 11, toleranceSeconds: 10 },
			refused('stale_timestamp'),
		],
		['receiver clock not a number', { nowSeconds: Number.NaN }, refused('stale_timestamp')],

		['no timestamp', { header: `v1=${good}` }, notContract],
		['not key=value', { header: 'garbage' }, notContract],
		['a bare signature', { header: good }, notContract],
		['an empty key', { header: `=${NOW},v1=${good}` }, notContract],
		['malformed: no signature at all', { header: `t=${NOW}` }, refused('malformed_header')],
		['malformed: empty value', { header: `t=,v1=${good}` }, refused('malformed_header')],
		[
			'malformed: non-numeric timestamp',
			{ header: `t=abc,v1=${good}` },
			refused('malformed_header'),
		],
		[
			'malformed: negative timestamp',
			{ header: `t=-${NOW},v1=${good}` },
			refused('malformed_header'),
		],
		[
			'malformed: fractional timestamp',
			{ header: `t=${NOW}.5,v1=${good}` },
			refused('malformed_header'),
		],
		[
			'malformed: two timestamps',
			{ header: `t=${NOW},t=${NOW},v1=${good}` },
			refused('malformed_header'),
		],
		[
			'malformed: non-hex signature',
			{ header: `t=${NOW},v1=${'z'.repeat(64)}` },
			refused('malformed_header'),
		],
		[
			'malformed: odd-length hex',
			{ header: `t=${NOW},v1=${good.slice(1)}` },
			refused('malformed_header'),
		],
		[
			'malformed: semicolons instead of commas',
			{ header: `t=${NOW};v1=${good}` },
			refused('malformed_header'),
		],
		['malformed: trailing comma', { header: `t=${NOW},v1=${good},` }, refused('malformed_header')],

		['unsupported scheme v0', { header: `t=${NOW},v0=${good}` }, refused('unsupported_scheme')],
		[
			'unsupported scheme sha1',
			{ header: `t=${NOW},sha1=${createHmac('sha1', SECRET).update(BODY).digest('hex')}` },
			refused('unsupported_scheme'),
		],
		[
			'unsupported scheme V1 (case matters)',
			{ header: `t=${NOW},V1=${good}` },
			refused('unsupported_scheme'),
		],

		['empty string body', { rawBody: '' }, refused('empty_body')],
		['empty Buffer body', { rawBody: Buffer.alloc(0) }, refused('empty_body')],
		['undefined body', { rawBody: undefined }, refused('empty_body')],
	])('%s', (_name, input, expected) => {
		expect(contract(input)).toEqual(expected);
	});

	it('no X-Signature header at all: missing_header, no layout named', () => {
		expect(verifyDelivery({ ...deliveryInput({}), accepted: ['timestamped-header'] })).toEqual({
			valid: false,
			reason: 'missing_header',
		});
	});

	it('accepts what signWebhookPayload produces, for string and Buffer bodies alike', () => {
		const header = signWebhookPayload(SECRET, NOW, BODY);
		expect(contract({ header, rawBody: Buffer.from(BODY) })).toEqual(verified);
	});

	it('verifies a binary (non UTF-8) Buffer body byte for byte', () => {
		const binary = Buffer.from([0xff, 0x00, 0xfe, 0x7b]);
		const header = `t=${NOW},v1=${hmac(SECRET, NOW, binary)}`;
		expect(contract({ header, rawBody: binary })).toEqual(verified);
		expect(contract({ header, rawBody: Buffer.from([0xff, 0x00, 0xfe, 0x7c]) })).toEqual(
			refused('signature_mismatch'),
		);
	});

	it('never throws on hostile input', () => {
		for (const header of ['t='.repeat(10_000), `t=${'9'.repeat(400)},v1=${good}`])
			expect(() => contract({ header })).not.toThrow();
	});
});
