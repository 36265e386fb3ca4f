/**
 * nodes/DocumentSigning/shared/validation.ts with the node and item index it reports errors for:
 * IDs (requireId), the Signers collection (readSigners) within LIMITS,
 * the phone pattern, and metadata (readMetadata) within its key cap.
 */
import { NodeOperationError, type INode } from 'n8n-workflow';

import {
	readMetadata,
	readSigners,
	requireEmail,
	requireId,
} from '../../../../nodes/DocumentSigning/shared/validation';
import { ID_HINT } from '../../../../nodes/shared/ids';
import { LIMITS } from '../../../../nodes/shared/vocabulary';

const node: INode = {
	id: 'n1',
	name: 'Document Signing',
	type: 'n8n-nodes-document-signing.documentSigning',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** Whose input is checked: the node and the item's index (the checks read no context). */
const item = (itemIndex = 0) => ({ node, itemIndex });

function failure(run: () => unknown): NodeOperationError {
	try {
		run();
	} catch (error) {
		expect(error).toBeInstanceOf(NodeOperationError);
		return error as NodeOperationError;
	}
	throw new Error('expected a NodeOperationError');
}

const signer = (overrides: Record<string, unknown> = {}) => ({
	email: 'ann@example.com',
	name: 'Ann Signer',
	...overrides,
});
const signers = (...entries: Array<Record<string, unknown>>) =>
	readSigners(item(), { signer: entries }, true)!;

describe('requireId', () => {
	test.each([
		['a text id', 'doc_8f3k2j', 'doc_8f3k2j'],
		['a number', 1004, '1004'],
		['zero', 0, '0'],
		['an id with dots inside', 'a.b', 'a.b'],
	])('%s is accepted as its text', (_name, value, id) => {
		expect(requireId(item(), 'Document', value)).toBe(id);
	});

	test.each(['.', '..', 'a/b', 'a?b', 'a#b', 'a\\b', 'a b'])(
		'"%s" is refused before anything is sent, with the hint',
		(id) => {
			const error = failure(() => requireId(item(), 'Document', id));
			expect(error.message).toBe(`Document: "${id}" is not a valid ID`);
			expect(error.description).toBe(ID_HINT);
		},
	);

	test.each([
		['empty', ''],
		['blank', '   '],
		['missing', undefined],
	])('%s is refused as empty', (_name, value) => {
		expect(failure(() => requireId(item(), 'Document', value)).message).toBe(
			'Document: must not be empty',
		);
	});

	test('surrounding spaces are trimmed', () => {
		expect(requireId(item(), 'Document', ' doc_1 ')).toBe('doc_1');
	});

	test("the error carries the item's index", () => {
		const error = failure(() => requireId(item(3), 'Document', '..'));
		expect((error as unknown as { context: { itemIndex?: number } }).context.itemIndex).toBe(3);
	});
});

describe('readSigners', () => {
	test('email and name, trimmed; order and authentication only when set', () => {
		expect(
			signers(
				signer({ email: ' ann@example.com ', name: ' Ann ' }),
				signer({ email: 'bob@example.com', name: 'Bob', order: 2, authentication: 'email_otp' }),
			),
		).toEqual([
			{ email: 'ann@example.com', name: 'Ann' },
			{ email: 'bob@example.com', name: 'Bob', order: 2, authentication: 'email_otp' },
		]);
	});

	test('required: none is an error; not required: undefined', () => {
		expect(failure(() => readSigners(item(), undefined, true)).message).toBe(
			'Signers: add at least one signer',
		);
		expect(readSigners(item(), {}, false)).toBeUndefined();
	});

	test(`signing order from 0 to LIMITS.maxSigningOrder (${LIMITS.maxSigningOrder})`, () => {
		expect(signers(signer({ order: 0 }))).toEqual([
			{ email: 'ann@example.com', name: 'Ann Signer' },
		]);
		expect(signers(signer({ order: LIMITS.maxSigningOrder }))[0]?.order).toBe(
			LIMITS.maxSigningOrder,
		);
		for (const order of [LIMITS.maxSigningOrder + 1, -1, 1.5]) {
			expect(failure(() => signers(signer({ order }))).message).toBe(
				`Signers › Signer 1 › Signing Order: must be a whole number from 0 to ${LIMITS.maxSigningOrder}`,
			);
		}
	});

	test('a bad email, a missing name, an email listed twice (in any case) are named by their signer', () => {
		expect(failure(() => signers(signer(), signer({ email: 'not-an-email' }))).message).toBe(
			'Signers › Signer 2 › Email: "not-an-email" is not a valid email address',
		);
		expect(failure(() => signers(signer({ name: '' }))).message).toBe(
			'Signers › Signer 1 › Name: must not be empty',
		);
		expect(failure(() => signers(signer(), signer({ email: 'ANN@example.com' }))).message).toBe(
			'Signers › Signer 2 › Email: ANN@example.com is listed more than once',
		);
	});

	test('an unknown authentication method is refused', () => {
		expect(failure(() => signers(signer({ authentication: 'fingerprint' }))).message).toBe(
			'Signers › Signer 1 › Authentication: "fingerprint" is not a known method',
		);
	});

	describe('the phone of SMS authentication (E.164)', () => {
		test.each([
			['+15551234567', '+15551234567'],
			['+1 (555) 123-4567', '+15551234567'],
			['+3725550123', '+3725550123'],
			['+1234567', '+1234567'],
			['+123456789012345', '+123456789012345'],
		])('%s is sent as %s', (phone, sent) => {
			expect(signers(signer({ authentication: 'sms_otp', phone }))[0]).toEqual({
				email: 'ann@example.com',
				name: 'Ann Signer',
				authentication: 'sms_otp',
				phone: sent,
			});
		});

		test.each([
			'5551234567',
			'+0551234567',
			'+123456',
			'+1234567890123456',
			'+1555abc4567',
			'00155512345',
		])('%s is refused', (phone) => {
			expect(failure(() => signers(signer({ authentication: 'sms_otp', phone }))).message).toBe(
				`Signers › Signer 1 › Phone: "${phone}" is not an international number such as +15551234567`,
			);
		});

		test('it is required for SMS and ignored otherwise', () => {
			expect(failure(() => signers(signer({ authentication: 'sms_otp' }))).message).toBe(
				'Signers › Signer 1 › Phone: must not be empty',
			);
			expect(signers(signer({ phone: 'nonsense' }))[0]).not.toHaveProperty('phone');
		});
	});
});

describe('readMetadata', () => {
	const metadata = (raw: unknown) => readMetadata(item(), 'Metadata (JSON)', raw);
	const keys = (count: number) =>
		JSON.stringify(Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 'v'])));

	test('text as it is, numbers and booleans as text; empty is undefined', () => {
		expect(metadata('{"crm_id": "42", "count": 3, "vip": true}')).toEqual({
			crm_id: '42',
			count: '3',
			vip: 'true',
		});
		expect(metadata({ a: 'b' })).toEqual({ a: 'b' });
		expect(metadata('')).toBeUndefined();
		expect(metadata('{}')).toBeUndefined();
	});

	test(`at most LIMITS.maxMetadataKeys (${LIMITS.maxMetadataKeys}) keys`, () => {
		expect(Object.keys(metadata(keys(LIMITS.maxMetadataKeys))!)).toHaveLength(
			LIMITS.maxMetadataKeys,
		);
		expect(failure(() => metadata(keys(LIMITS.maxMetadataKeys + 1))).message).toBe(
			`Metadata (JSON): has ${LIMITS.maxMetadataKeys + 1} keys; at most ${LIMITS.maxMetadataKeys} are kept`,
		);
	});

	test('nested values, arrays, null and bad JSON are refused', () => {
		expect(failure(() => metadata('{"a": {"b": 1}}')).message).toBe(
			'Metadata (JSON): the value of "a" must be text, a number or true/false',
		);
		expect(failure(() => metadata('{"a": null}')).message).toBe(
			'Metadata (JSON): the value of "a" must be text, a number or true/false',
		);
		expect(failure(() => metadata('[1, 2]')).message).toBe(
			'Metadata (JSON): must be a JSON object',
		);
		expect(failure(() => metadata('{nope')).message).toMatch(
			/^Metadata \(JSON\): is not valid JSON \(/,
		);
	});
});

test('requireEmail refuses what is not an address', () => {
	expect(requireEmail(item(), 'Email', ' ann@example.com ')).toBe('ann@example.com');
	for (const value of ['ann', 'ann@', 'ann@example', 'ann @example.com', 'a"b@example.com']) {
		expect(failure(() => requireEmail(item(), 'Email', value)).message).toBe(
			`Email: "${value}" is not a valid email address`,
		);
	}
});
