/**
 * nodes/shared/transport/errors.ts: the service's own words from every error body shape
 * (serviceWords), and the error users see for an error status (toNodeError), an HTML page's
 * title and text included.
 */
import {
	NodeApiError,
	NodeOperationError,
	type IN8nHttpFullResponse,
	type INode,
} from 'n8n-workflow';

import {
	HttpStatusError,
	ServiceBehaviourError,
	serviceWords,
	toNodeError,
} from '../../../../nodes/shared/transport/errors';

const node: INode = {
	id: 'n1',
	name: 'Document Signing',
	type: 'n8n-nodes-document-signing.documentSigning',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

const statusError = (statusCode: number, body: unknown, headers: Record<string, string> = {}) =>
	toNodeError(
		node,
		new HttpStatusError({ statusCode, body, headers, statusMessage: '' } as IN8nHttpFullResponse),
	) as NodeApiError;

describe('serviceWords', () => {
	test.each<[string, unknown, ReturnType<typeof serviceWords>]>([
		[
			'the contract: { error: { code, message, field } }',
			{ error: { code: 'validation_failed', message: 'name is required', field: 'name' } },
			{ message: 'name is required', code: 'validation_failed', field: 'name', more: undefined },
		],
		[
			'a flat body: { message, code }',
			{ message: 'Not allowed', code: 'forbidden' },
			{ message: 'Not allowed', code: 'forbidden', field: undefined, more: undefined },
		],
		[
			'a numeric code',
			{ error: { code: 4001, message: 'Bad' } },
			{ message: 'Bad', code: '4001', field: undefined, more: undefined },
		],
		[
			'{ error: "text", error_description }',
			{ error: 'invalid_token', error_description: 'The token expired' },
			{ message: 'invalid_token', code: undefined, field: undefined, more: undefined },
		],
		[
			'{ error_description } alone',
			{ error_description: 'The token expired' },
			{ message: 'The token expired', code: undefined, field: undefined, more: undefined },
		],
		[
			'problem+json: { title, detail }',
			{
				type: 'about:blank',
				title: 'Bad Request',
				detail: 'signers[0].email is invalid',
				status: 400,
			},
			{
				message: 'signers[0].email is invalid',
				code: undefined,
				field: undefined,
				more: undefined,
			},
		],
		[
			'problem+json: { title } only',
			{ title: 'Bad Request', status: 400 },
			{ message: 'Bad Request', code: undefined, field: undefined, more: undefined },
		],
		[
			'{ msg }',
			{ msg: 'Oops' },
			{ message: 'Oops', code: undefined, field: undefined, more: undefined },
		],
		[
			'a list: { errors: [{ message, param }, …] }',
			{
				errors: [
					{ message: 'email is invalid', param: 'signers[0].email', code: 'invalid' },
					{ message: 'name is missing' },
					{ message: 'x' },
				],
			},
			{ message: 'email is invalid', code: 'invalid', field: 'signers[0].email', more: 2 },
		],
		[
			'a list of strings: { errors: ["…"] }',
			{ errors: ['name is missing'] },
			{ message: 'name is missing', code: undefined, field: undefined, more: undefined },
		],
		[
			'JSON:API: { errors: [{ detail, source: { pointer } }] }',
			{
				errors: [{ detail: 'must be a date', source: { pointer: '/data/attributes/expires_at' } }],
			},
			{
				message: 'must be a date',
				code: undefined,
				field: '/data/attributes/expires_at',
				more: undefined,
			},
		],
		[
			'a { pointer } field',
			{ error: { message: 'bad', pointer: '/name' } },
			{ message: 'bad', code: undefined, field: '/name', more: undefined },
		],
		[
			'{ detail } on the top level with an empty error object',
			{ error: {}, detail: 'Not found' },
			{ message: 'Not found', code: undefined, field: undefined, more: undefined },
		],
	])('%s', (_name, body, words) => {
		expect(serviceWords(body)).toEqual(words);
	});

	test('text bodies are the message, trimmed and cut to 500 characters; blank text is none', () => {
		expect(serviceWords('  Service Unavailable \n')).toEqual({ message: 'Service Unavailable' });
		expect(serviceWords('x'.repeat(800)).message).toHaveLength(500);
		expect(serviceWords('   ')).toEqual({ message: undefined });
	});

	test.each([null, undefined, 42, true])('%p has no words', (body) => {
		expect(serviceWords(body)).toEqual({});
	});

	test('blank strings are not words', () => {
		expect(serviceWords({ error: { message: '  ', code: '' }, message: 'the real one' })).toEqual({
			message: 'the real one',
			code: undefined,
			field: undefined,
			more: undefined,
		});
	});
});

describe('the error of an error status', () => {
	test("the service's message, its code and field in the description, the status hint, the HTTP code", () => {
		const error = statusError(422, {
			error: { code: 'validation_failed', message: 'name is required', field: 'name' },
		});
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe('name is required');
		expect(error.description).toBe('The service said code: validation_failed, field: name.');
		expect(error.httpCode).toBe('422');
	});

	test('more problems are counted; a known status adds its hint', () => {
		const error = statusError(404, { errors: [{ message: 'a' }, { message: 'b' }] });
		expect(error.message).toBe('a');
		expect(error.description).toBe(
			'It reported 1 more problem. No record with this ID in the account.',
		);
	});

	test('no words at all: the status says it', () => {
		expect(statusError(500, {}).message).toBe('The service answered HTTP 500');
		expect(statusError(502, '').message).toBe('The service answered HTTP 502');
	});

	test('an HTML page: its <title>, and what the page says without scripts or styles', () => {
		const page =
			'<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body { color: red }</style></head><body><script>track()</script><h1>Bad Gateway</h1><p>The&nbsp;upstream   server failed.</p></body></html>';
		const error = statusError(502, page);
		expect(error.message).toBe(
			'The service answered HTTP 502 with a web page ("502 Bad Gateway") instead of an API response',
		);
		expect(error.description).toMatch(
			/^The page says: "Bad Gateway The upstream server failed\."\. Such pages come from a proxy/,
		);
		expect(error.description).not.toMatch(/track|color/);
		expect(error.httpCode).toBe('502');
	});

	test('an HTML page without <title> is named by its <h1>; one with neither is not named', () => {
		expect(
			statusError(503, '<html><body><h1>Down for maintenance</h1></body></html>').message,
		).toBe(
			'The service answered HTTP 503 with a web page ("Down for maintenance") instead of an API response',
		);
		expect(statusError(503, '<html><body>later</body></html>').message).toBe(
			'The service answered HTTP 503 with a web page instead of an API response',
		);
	});

	test('a text/html content type makes the answer a page whatever the body', () => {
		expect(statusError(504, 'Gateway Timeout', { 'content-type': 'text/html' }).message).toBe(
			'The service answered HTTP 504 with a web page instead of an API response',
		);
	});
});

describe('other failures', () => {
	test('a network error: our own words and its code, never the original error', () => {
		const error = toNodeError(
			node,
			Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9 Authorization: Bearer sk_secret'), {
				code: 'ECONNREFUSED',
			}),
		) as NodeApiError;
		expect(error.message).toBe('Could not reach the Document Signing service');
		expect(error.description).toMatch(/^Network error ECONNREFUSED\./);
		expect(JSON.stringify(error)).not.toContain('sk_secret');
	});

	test('a refused service behaviour keeps its message, description and HTTP code', () => {
		const error = toNodeError(
			node,
			new ServiceBehaviourError('The next page repeats', 'Stopped.', '200'),
		) as NodeApiError;
		expect([error.message, error.description, error.httpCode]).toEqual([
			'The next page repeats',
			'Stopped.',
			'200',
		]);
	});

	test("n8n's own errors pass through; anything else keeps only its message", () => {
		const own = new NodeOperationError(node, 'mine');
		expect(toNodeError(node, own)).toBe(own);
		const other = toNodeError(node, new TypeError('boom'));
		expect(other).toBeInstanceOf(NodeOperationError);
		expect(other.message).toBe('boom');
	});
});
