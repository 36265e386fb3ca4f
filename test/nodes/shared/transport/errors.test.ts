/**
 * nodes/shared/transport/errors.ts: the error users see for an error status (toNodeError), with
 * the service's own words from every error body shape, or an HTML page's title and first words
 * (read within 8,000 characters).
 */
import { inspect } from 'util';

import {
	NodeApiError,
	NodeOperationError,
	type IN8nHttpFullResponse,
	type INode,
	type JsonObject,
} from 'n8n-workflow';

import {
	HttpStatusError,
	isHtml,
	networkCode,
	ServiceBehaviourError,
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

interface Words {
	message?: string;
	code?: string;
	field?: string;
	more?: number;
}

/** What an HTTP 400 with `body` shows: the service's words, its code, field and further problems. */
function serviceWords(body: unknown): { message: string; description?: string } {
	const { message, description } = statusError(400, body);
	// What follows the service's words in the description (n8n fills a missing one with its own).
	return {
		message,
		description: /(The service said|It reported) .*$/.exec(description ?? '')?.[0],
	};
}

/** The message and description of a 400 whose body says `words`. */
function shownFor({ message, code, field, more }: Words) {
	const details = [code && `code: ${code}`, field && `field: ${field}`].filter(Boolean).join(', ');
	const description = [
		details && `The service said ${details}.`,
		more && `It reported ${more} more problem${more > 1 ? 's' : ''}.`,
	].filter(Boolean);
	return {
		message: message ?? 'The service answered HTTP 400',
		description: description.length > 0 ? description.join(' ') : undefined,
	};
}

describe("the service's words in an error body", () => {
	test.each<[string, unknown, Words]>([
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
		expect(serviceWords(body)).toEqual(shownFor(words));
	});

	test('text bodies are the message, trimmed and cut to 500 characters; blank text is none', () => {
		expect(serviceWords('  Service Unavailable \n')).toEqual(
			shownFor({ message: 'Service Unavailable' }),
		);
		expect(serviceWords('x'.repeat(800)).message).toHaveLength(500);
		expect(serviceWords('   ')).toEqual(shownFor({}));
	});

	test.each([null, undefined, 42, true])('%p has no words', (body) => {
		expect(serviceWords(body)).toEqual(shownFor({}));
	});

	test('blank strings are not words', () => {
		expect(serviceWords({ error: { message: '  ', code: '' }, message: 'the real one' })).toEqual(
			shownFor({ message: 'the real one' }),
		);
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

	test("n8n's own errors are built anew from their words; anything else keeps only its message", () => {
		const own = new NodeOperationError(node, 'mine', { description: 'why', itemIndex: 3 });
		const again = toNodeError(node, own);
		expect(again).not.toBe(own);
		expect(again).toBeInstanceOf(NodeOperationError);
		expect([again.message, again.description, again.context.itemIndex]).toEqual(['mine', 'why', 3]);
		const other = toNodeError(node, new TypeError('boom'));
		expect(other).toBeInstanceOf(NodeOperationError);
		expect(other.message).toBe('boom');
	});
});

const SECRET = 'sk_live_unit_secret_0000';

/** The request library's error as n8n's request helper receives it: the request's headers and socket text. */
const requestLibraryError = (message: string, code?: string) =>
	Object.assign(new Error(message), {
		...(code ? { code } : {}),
		isAxiosError: true,
		config: { method: 'get', headers: { Authorization: `Bearer ${SECRET}` } },
		request: { _header: `GET /v1/documents HTTP/1.1\r\nAuthorization: Bearer ${SECRET}\r\n\r\n` },
	});

/** n8n's request helper: `new NodeApiError(node, error)` around the request library's error. */
const wrappedByN8n = (message: string, code?: string) =>
	new NodeApiError(node, requestLibraryError(message, code) as unknown as JsonObject);

/** Whatever a logger could print of `value` (hidden properties, any depth) or n8n could store. */
const shown = (value: unknown) =>
	[inspect(value, { depth: Infinity, showHidden: true }), JSON.stringify(value)].join('\n');

describe('47.8: no error carries the request (its headers, config or socket)', () => {
	test("the premise: n8n's NodeApiError keeps the request library's error as its cause", () => {
		expect(shown(wrappedByN8n('self-signed certificate', 'DEPTH_ZERO_SELF_SIGNED_CERT'))).toContain(
			SECRET,
		);
		// Given plain data, it keeps that data (errorResponse) and no cause.
		const plain = new NodeApiError(node, { message: 'm' }, { message: 'm', httpCode: 'none' });
		expect(plain.cause).toBeUndefined();
		expect(plain.errorResponse).toEqual({ message: 'm' });
	});

	test.each([
		[
			'DEPTH_ZERO_SELF_SIGNED_CERT',
			'Could not connect securely',
			/^The service's TLS certificate is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\)/,
		],
		[
			'SELF_SIGNED_CERT_IN_CHAIN',
			'Could not connect securely',
			/^The service's TLS certificate is not trusted \(SELF_SIGNED_CERT_IN_CHAIN\)/,
		],
		[
			'CERT_HAS_EXPIRED',
			'Could not connect securely',
			/^The service's TLS certificate is not trusted \(CERT_HAS_EXPIRED\)/,
		],
		[
			'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
			'Could not connect securely',
			/^The service's TLS certificate is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/,
		],
		[
			'ERR_TLS_CERT_ALTNAME_INVALID',
			'Could not connect securely',
			/^The service's TLS certificate is not trusted \(ERR_TLS_CERT_ALTNAME_INVALID\)/,
		],
		[
			'ERR_SSL_WRONG_VERSION_NUMBER',
			'Could not connect securely',
			/^The secure \(TLS\) connection to the service failed \(ERR_SSL_WRONG_VERSION_NUMBER\)/,
		],
		[
			'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION',
			'Could not connect securely',
			/^The secure \(TLS\) connection to the service failed \(ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION\)/,
		],
		[
			'EPROTO',
			'Could not connect securely',
			/^The secure \(TLS\) connection to the service failed \(EPROTO\)/,
		],
		[
			'HPE_INVALID_HEADER_TOKEN',
			"The Document Signing service's answer could not be read",
			/^The service's answer is not valid HTTP \(HPE_INVALID_HEADER_TOKEN\)/,
		],
		[
			'HPE_INVALID_CONSTANT',
			"The Document Signing service's answer could not be read",
			/^The service's answer is not valid HTTP \(HPE_INVALID_CONSTANT\)/,
		],
		['ECONNRESET', 'Could not reach the Document Signing service', /^Network error ECONNRESET\./],
		['ETIMEDOUT', 'Could not reach the Document Signing service', /\(ETIMEDOUT\)/],
	])(
		"%s, wrapped by n8n's request helper: our words for its family, nothing of the request",
		(code, message, description) => {
			const error = toNodeError(node, wrappedByN8n('failed', code), 2) as NodeApiError;
			expect(error).toBeInstanceOf(NodeApiError);
			expect(error.message).toMatch(new RegExp(`^${message}`));
			expect(error.description).toMatch(description);
			expect([error.httpCode, error.context.itemIndex, error.cause]).toEqual([
				'none',
				2,
				undefined,
			]);
			expect(shown(error)).not.toMatch(new RegExp(`${SECRET}|bearer|authorization`, 'i'));
		},
	);

	test('networkCode: codes of the connection, in the error or its causes; nothing else', () => {
		const inCause = new Error('outer', { cause: requestLibraryError('x', 'CERT_HAS_EXPIRED') });
		expect(networkCode(inCause)).toBe('CERT_HAS_EXPIRED');
		expect(networkCode({ code: 'HPE_HEADER_OVERFLOW' })).toBe('HPE_HEADER_OVERFLOW');
		expect(networkCode({ code: 'ECONNREFUSED' })).toBe('ECONNREFUSED');
		for (const code of ['ABORT_ERR', 'not_a_code', 'validation_failed', 42, 'X'.repeat(200)])
			expect(networkCode({ code })).toBeUndefined();
	});

	test("any other n8n error around the request library's error is rebuilt from its words: same kind, message, description, HTTP code", () => {
		const original = wrappedByN8n('Request aborted', 'ABORT_ERR');
		original.description = 'The request was cancelled';
		const error = toNodeError(node, original, 1) as NodeApiError;
		expect(error).not.toBe(original);
		expect(error).toBeInstanceOf(NodeApiError);
		expect([error.message, error.description, error.httpCode, error.context.itemIndex]).toEqual([
			original.message,
			'The request was cancelled',
			original.httpCode ?? 'none',
			1,
		]);
		expect(error.cause).toBeUndefined();
		expect(shown(error)).not.toMatch(new RegExp(`${SECRET}|bearer|authorization`, 'i'));
	});

	test('a NodeOperationError whose cause, or a NodeApiError whose errorResponse, holds the request is rebuilt', () => {
		const operation = new NodeOperationError(node, requestLibraryError('boom') as Error, {
			description: 'what happened',
		});
		const rebuiltOperation = toNodeError(node, operation);
		expect(rebuiltOperation).toBeInstanceOf(NodeOperationError);
		expect([rebuiltOperation.message, rebuiltOperation.description]).toEqual([
			'boom',
			'what happened',
		]);
		const withHeaders = new NodeApiError(
			node,
			{ message: 'x', nested: { headers: { Authorization: `Bearer ${SECRET}` } } },
			{ message: 'Refused', httpCode: '401' },
		);
		const rebuiltApi = toNodeError(node, withHeaders) as NodeApiError;
		expect(rebuiltApi).not.toBe(withHeaders);
		expect([rebuiltApi.message, rebuiltApi.httpCode]).toEqual(['Refused', '401']);
		for (const error of [rebuiltOperation, rebuiltApi])
			expect(shown(error)).not.toMatch(new RegExp(`${SECRET}|bearer|authorization`, 'i'));
	});

	test('an error of ours is built anew with the same words, the body it kept, and no reference to it', () => {
		const body = { error: { code: 'invalid', message: 'name is required' } };
		const ours = statusError(422, body);
		const again = toNodeError(node, ours, 0) as NodeApiError;
		const twice = toNodeError(node, again) as NodeApiError;
		for (const error of [again, twice]) {
			expect(error).not.toBe(ours);
			expect([error.message, error.description, error.httpCode]).toEqual([
				ours.message,
				ours.description,
				'422',
			]);
			expect(error.errorResponse).toEqual(body);
			expect(error.cause).toBeUndefined();
		}
		const network = toNodeError(node, Object.assign(new Error('x'), { code: 'ECONNRESET' }));
		const rebuilt = toNodeError(node, network) as NodeApiError;
		expect(rebuilt).not.toBe(network);
		expect([rebuilt.message, rebuilt.description]).toEqual([network.message, network.description]);
	});

	test('an unexpected error keeps only its message', () => {
		const error = toNodeError(node, requestLibraryError('Unexpected failure'));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe('Unexpected failure');
		expect(shown(error)).not.toMatch(new RegExp(`${SECRET}|bearer|authorization`, 'i'));
	});
});

test('a page is told by its start or by a text/html content type', () => {
	expect(isHtml('<!DOCTYPE html><html></html>')).toBe(true);
	expect(isHtml('Gateway Timeout', 'text/html')).toBe(true);
	expect(isHtml('Gateway Timeout', 'text/plain')).toBe(false);
});

/** An HTML page's title and words as an HTTP 502 with it shows them. */
function readPage(page: string): { title?: string; words: string } {
	const { message, description } = statusError(502, page, { 'Content-Type': 'text/html' });
	const title = /with a web page \("(.*)"\) instead/s.exec(message)?.[1];
	return {
		title,
		words: /^The page says: "(.*)"\. Such pages/s.exec(description ?? '')?.[1] ?? '',
	};
}

/** The most of a page that is read. */
const MAX_PAGE_READ = 8_000;

describe('an HTML error page', () => {
	test.each<[string, string, { title?: string; words: string }]>([
		[
			'comments, scripts, styles, templates and noscript are not text',
			'<html><head><style>p{}</style></head><body><!-- <h1>hidden</h1> --><script>x()</script><template>t</template><noscript>n</noscript><p>shown</p></body></html>',
			{ title: undefined, words: 'shown' },
		],
		[
			'a heading with markup inside; entities read; a lone "<" is text',
			'<body><h1>Down <b>for</b><br>maintenance</h1><p>1 &lt; 2 &amp;&nbsp;3 < 4 &quot;ok&quot;</p></body>',
			{ title: 'Down for maintenance', words: 'Down for maintenance 1 ‹ 2 & 3 ‹ 4 "ok"' },
		],
		[
			'the first title wins over a heading; upper-case tags',
			'<HTML><HEAD><TITLE>Service\n  Unavailable</TITLE></HEAD><BODY><H1>Sorry</H1></BODY></HTML>',
			{ title: 'Service Unavailable', words: 'Sorry' },
		],
		[
			'an unclosed script hides the rest; a tag without ">" ends the page',
			'<p>before</p><script>var a = "<p>never</p>";',
			{ title: undefined, words: 'before' },
		],
		['a tag that never ends', '<p>kept</p><div class="x', { title: undefined, words: 'kept' }],
	])('%s', (_title, page, expected) => {
		expect(readPage(page)).toEqual(expected);
	});

	test('a long title and long text are cut, with an ellipsis', () => {
		const { title, words } = readPage(
			`<title>${'t'.repeat(500)}</title><p>${'word '.repeat(200)}</p>`,
		);
		expect(title).toHaveLength(200);
		expect(title?.endsWith('…')).toBe(true);
		expect(words.length).toBeLessThanOrEqual(300);
	});

	test('nothing past MAX_PAGE_READ characters is read', () => {
		const filler = '<p>x</p>'.repeat(MAX_PAGE_READ / 8);
		expect(readPage(`${filler}<title>late</title>`).title).toBeUndefined();
		expect(readPage(`<title>early</title>${filler}`).title).toBe('early');
	});
});
