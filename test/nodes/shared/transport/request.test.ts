/**
 * nodes/shared/transport/request.ts, pure parts: which answers are refused (checkResponse, in
 * errors.ts), the Idempotency-Key (deriveIdempotencyKey) and the settings every request carries
 * (safeRequestSettings). The requests themselves are tested through n8n in
 * test/nodes/DocumentSigning and test/nodes/DocumentSigningTrigger.
 */
import type { IN8nHttpFullResponse } from 'n8n-workflow';

import {
	checkResponse,
	HttpStatusError,
	ServiceBehaviourError,
} from '../../../../nodes/shared/transport/errors';
import {
	recordOf,
	deriveIdempotencyKey,
	readResponse,
	safeRequestSettings,
	type ServiceClient,
} from '../../../../nodes/shared/transport/request';

const answer = (
	statusCode: number,
	body: unknown = {},
	headers: Record<string, string> = {},
): IN8nHttpFullResponse =>
	({ statusCode, body, headers, statusMessage: '' }) as IN8nHttpFullResponse;

function refusal(
	response: IN8nHttpFullResponse,
	options: { expectJson: boolean; acceptStatuses?: number[] },
): unknown {
	try {
		checkResponse(response, options);
	} catch (error) {
		return error;
	}
	return undefined;
}

describe('checkAnswer', () => {
	test('a 2xx JSON answer passes', () => {
		expect(refusal(answer(200, { id: 'doc_1' }), { expectJson: true })).toBeUndefined();
		expect(refusal(answer(201, { id: 'doc_1' }), { expectJson: true })).toBeUndefined();
		expect(refusal(answer(204, ''), { expectJson: true })).toBeUndefined();
	});

	test('an error status is thrown whole as HttpStatusError (for the retry policy)', () => {
		const response = answer(503, { error: { message: 'down' } }, { 'retry-after': '2' });
		const error = refusal(response, { expectJson: true });
		expect(error).toBeInstanceOf(HttpStatusError);
		expect((error as HttpStatusError).response).toBe(response);
	});

	test('answerStatuses are returned as answers, not thrown', () => {
		expect(
			refusal(answer(404, { error: { code: 'not_found' } }), {
				expectJson: true,
				acceptStatuses: [404],
			}),
		).toBeUndefined();
		expect(refusal(answer(410, ''), { expectJson: true, acceptStatuses: [404] })).toBeInstanceOf(
			HttpStatusError,
		);
	});

	test.each([301, 302, 303, 307, 308])(
		'a redirect (%i) is refused and names its Location',
		(status) => {
			const error = refusal(
				answer(status, '', { Location: 'https://elsewhere.test/v1/documents' }),
				{ expectJson: true },
			);
			expect(error).toBeInstanceOf(ServiceBehaviourError);
			expect((error as ServiceBehaviourError).message).toBe(
				`The service answered with a redirect (HTTP ${status}) to https://elsewhere.test/v1/documents; it was not followed`,
			);
			expect((error as ServiceBehaviourError).description).toMatch(/never followed/);
			expect((error as ServiceBehaviourError).httpCode).toBe(String(status));
		},
	);

	test('a redirect without Location is refused too; a long Location is cut to 200 characters', () => {
		expect((refusal(answer(302, ''), { expectJson: false }) as ServiceBehaviourError).message).toBe(
			'The service answered with a redirect (HTTP 302); it was not followed',
		);
		const long = `https://elsewhere.test/${'x'.repeat(400)}`;
		expect(
			(refusal(answer(302, '', { location: long }), { expectJson: false }) as ServiceBehaviourError)
				.message,
		).toContain(`to ${long.slice(0, 200)};`);
	});

	test('an HTML page answered 2xx is refused as a web page', () => {
		const error = refusal(answer(200, '<!DOCTYPE html><html><title>Sign in</title></html>'), {
			expectJson: true,
		}) as ServiceBehaviourError;
		expect(error).toBeInstanceOf(ServiceBehaviourError);
		expect(error.message).toBe(
			'The service answered HTTP 200 with a web page instead of an API response',
		);
		expect(error.description).toMatch(/Base URL/);
		expect(error.httpCode).toBe('200');
	});

	test('a text/html content type makes any text a web page', () => {
		const error = refusal(
			answer(200, 'maintenance', { 'Content-Type': 'text/html; charset=utf-8' }),
			{ expectJson: true },
		) as ServiceBehaviourError;
		expect(error.message).toBe(
			'The service answered HTTP 200 with a web page instead of an API response',
		);
	});

	test('other text where JSON was expected (garbage, a cut-off body) is refused as not JSON', () => {
		const error = refusal(answer(200, '{"id": "doc_1", "na'), {
			expectJson: true,
		}) as ServiceBehaviourError;
		expect(error).toBeInstanceOf(ServiceBehaviourError);
		expect(error.message).toBe('The service answered HTTP 200 with a body that is not valid JSON');
		expect(error.description).toMatch(/cut off/);
	});

	test('text is fine where no JSON is expected (a file, a DELETE), and an empty or blank body always', () => {
		expect(refusal(answer(200, '%PDF-1.4 ...'), { expectJson: false })).toBeUndefined();
		expect(refusal(answer(200, '   '), { expectJson: true })).toBeUndefined();
		expect(refusal(answer(200, ''), { expectJson: true })).toBeUndefined();
	});
});

describe('deriveIdempotencyKey', () => {
	test('the same parts always give the same key; other parts another', () => {
		const key = deriveIdempotencyKey('exec-1', 'node-1', 0, 3);
		expect(deriveIdempotencyKey('exec-1', 'node-1', 0, 3)).toBe(key);
		expect(deriveIdempotencyKey('exec-1', 'node-1', 0, 4)).not.toBe(key);
		expect(deriveIdempotencyKey('exec-2', 'node-1', 0, 3)).not.toBe(key);
	});

	test('n8n- and 40 hex digits', () => {
		expect(deriveIdempotencyKey('a', 1)).toMatch(/^n8n-[0-9a-f]{40}$/);
	});

	test('parts are separated: moving text from one part to the next changes the key', () => {
		expect(deriveIdempotencyKey('ab', 'c')).not.toBe(deriveIdempotencyKey('a', 'bc'));
	});

	test('undefined counts as empty, numbers as their text', () => {
		expect(deriveIdempotencyKey('a', undefined)).toBe(deriveIdempotencyKey('a', ''));
		expect(deriveIdempotencyKey('a', 1)).toBe(deriveIdempotencyKey('a', '1'));
	});
});

describe('safeRequestSettings', () => {
	test('redirects are never followed and no credential goes with one', () => {
		expect(safeRequestSettings(undefined)).toEqual({
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
		});
	});

	test('allowedDomains is set when given', () => {
		expect(safeRequestSettings('api.signing.test')).toEqual({
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
			allowedDomains: 'api.signing.test',
		});
	});

	test('an empty allowedDomains is left out', () => {
		expect(safeRequestSettings('')).not.toHaveProperty('allowedDomains');
	});
});

test('the record of an answer, bare or under data', () => {
	expect(recordOf({ id: 5, name: 'x' })).toEqual({ id: 5, name: 'x' });
	expect(recordOf({ data: { id: 'doc_1' } })).toEqual({ id: 'doc_1' });
	expect(recordOf([1])).toEqual({});
});

describe('readResponse', () => {
	const client = { credentials: {} } as ServiceClient;

	test("a download's error body comes as bytes and is read as JSON, a file's bytes stay bytes", async () => {
		const error = { error: { message: 'not completed yet' } };
		const failed = await readResponse(
			answer(409, Buffer.from(JSON.stringify(error))),
			'file',
			client,
		);
		expect(failed.body).toEqual(error);
		const file = await readResponse(answer(200, Buffer.from('%PDF-1.4')), 'file', client);
		expect(file.body).toEqual(Buffer.from('%PDF-1.4'));
	});

	test('a JSON response that is not JSON stays text; a blank one is empty', async () => {
		expect((await readResponse(answer(200, Buffer.from('plain words')), 'json', client)).body).toBe(
			'plain words',
		);
		expect((await readResponse(answer(200, Buffer.from(' \n')), 'json', client)).body).toBe('');
	});
});
