/**
 * nodes/shared/transport/request.ts through apiRequest, as n8n's request helper answers it (the
 * body a stream, for `encoding: 'stream'`): which answers are refused, how bodies are read, the
 * settings every request carries, and the Idempotency-Key (deriveIdempotencyKey). The requests
 * through n8n itself are tested in test/nodes/DocumentSigning and test/nodes/DocumentSigningTrigger.
 */
import { Readable } from 'stream';

import type {
	IExecuteFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INode,
	NodeApiError,
} from 'n8n-workflow';

import {
	apiRequest,
	deriveIdempotencyKey,
	recordOf,
	type ApiRequestOptions,
} from '../../../../nodes/shared/transport';

const node: INode = {
	id: 'n1',
	name: 'Document Signing',
	type: 'n8n-nodes-document-signing.documentSigning',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** A context whose request helper answers `statusCode` with `body` as n8n's does: a stream. */
function contextAnswering(
	statusCode: number,
	body: string | Buffer = '{}',
	headers: Record<string, string> = {},
	credentials: Record<string, unknown> = {},
) {
	const sent: IHttpRequestOptions[] = [];
	const context = {
		getNode: () => node,
		getCredentials: async () => ({
			baseUrl: 'https://api.signing.test/v1',
			apiKey: 'k',
			...credentials,
		}),
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
				sent.push(options);
				const stream = Readable.from([Buffer.from(body)]);
				return { statusCode, body: stream, headers, statusMessage: '' };
			},
		},
	} as unknown as IExecuteFunctions;
	return { context, sent };
}

/** The response apiRequest returns, or the error it throws. */
async function answer(
	statusCode: number,
	body?: string | Buffer,
	headers?: Record<string, string>,
	options: ApiRequestOptions = {},
): Promise<IN8nHttpFullResponse | NodeApiError> {
	const { context } = contextAnswering(statusCode, body, headers);
	try {
		return await apiRequest(context, 'GET', '/documents', options);
	} catch (error) {
		return error as NodeApiError;
	}
}

const json = (value: unknown) => JSON.stringify(value);

describe('which answers are refused', () => {
	test('a 2xx JSON answer is read; an empty one is empty', async () => {
		expect(((await answer(200, json({ id: 'doc_1' }))) as IN8nHttpFullResponse).body).toEqual({
			id: 'doc_1',
		});
		expect(((await answer(201, json({ id: 'doc_1' }))) as IN8nHttpFullResponse).statusCode).toBe(
			201,
		);
		expect(((await answer(204, '')) as IN8nHttpFullResponse).body).toBe('');
	});

	test("an error status is the service's error, with its words and HTTP code", async () => {
		const error = (await answer(409, json({ error: { message: 'not yet' } }))) as NodeApiError;
		expect(error.message).toBe('not yet');
		expect(error.httpCode).toBe('409');
	});

	test('acceptStatuses are returned as answers, not thrown', async () => {
		const accepted = (await answer(
			404,
			json({ error: { code: 'not_found' } }),
			{},
			{
				acceptStatuses: [404],
			},
		)) as IN8nHttpFullResponse;
		expect(accepted.statusCode).toBe(404);
		expect(accepted.body).toEqual({ error: { code: 'not_found' } });
		const other = (await answer(410, '', {}, { acceptStatuses: [404] })) as NodeApiError;
		expect(other.httpCode).toBe('410');
	});

	test.each([301, 302, 303, 307, 308])(
		'a redirect (%i) is refused and names its Location',
		async (status) => {
			const error = (await answer(status, '', {
				Location: 'https://elsewhere.test/v1/documents',
			})) as NodeApiError;
			expect(error.message).toBe(
				`The service answered with a redirect (HTTP ${status}) to https://elsewhere.test/v1/documents; it was not followed`,
			);
			expect(error.description).toMatch(/never followed/);
			expect(error.httpCode).toBe(String(status));
		},
	);

	test('a redirect without Location is refused too; a long Location is cut to 200 characters', async () => {
		expect(((await answer(302, '')) as NodeApiError).message).toBe(
			'The service answered with a redirect (HTTP 302); it was not followed',
		);
		const long = `https://elsewhere.test/${'x'.repeat(400)}`;
		expect(((await answer(302, '', { location: long })) as NodeApiError).message).toContain(
			`to ${long.slice(0, 200)};`,
		);
	});

	test('an HTML page answered 2xx is refused as a web page', async () => {
		const error = (await answer(
			200,
			'<!DOCTYPE html><html><title>Sign in</title></html>',
		)) as NodeApiError;
		expect(error.message).toBe(
			'The service answered HTTP 200 with a web page instead of an API response',
		);
		expect(error.description).toMatch(/Base URL/);
		expect(error.httpCode).toBe('200');
	});

	test('a text/html content type makes any text a web page', async () => {
		const error = (await answer(200, 'maintenance', {
			'Content-Type': 'text/html; charset=utf-8',
		})) as NodeApiError;
		expect(error.message).toBe(
			'The service answered HTTP 200 with a web page instead of an API response',
		);
	});

	test('other text where JSON was expected (garbage, a cut-off body) is refused as not JSON', async () => {
		const error = (await answer(200, '{"id": "doc_1", "na')) as NodeApiError;
		expect(error.message).toBe('The service answered HTTP 200 with a body that is not valid JSON');
		expect(error.description).toMatch(/cut off/);
	});

	test('text is fine for a file, and a blank body always', async () => {
		const file = (await answer(200, '%PDF-1.4 ...', {}, { binary: true })) as IN8nHttpFullResponse;
		expect(file.body).toEqual(Buffer.from('%PDF-1.4 ...'));
		expect(((await answer(200, ' \n')) as IN8nHttpFullResponse).body).toBe('');
	});

	test("a download's error body is read as JSON: the service's words", async () => {
		const error = (await answer(
			409,
			json({ error: { message: 'not completed yet' } }),
			{},
			{
				binary: true,
			},
		)) as NodeApiError;
		expect(error.message).toBe('not completed yet');
	});

	test('a body larger than its limit, or declaring so, is not read', async () => {
		const big = await answer(200, Buffer.alloc(16 * 1024 * 1024 + 1, 32));
		expect((big as NodeApiError).message).toBe(
			"The service's response is larger than the 16 MB allowed for an API response; it was not read",
		);
		const declared = await answer(
			200,
			'{}',
			{ 'Content-Length': String(101 * 1024 * 1024) },
			{
				binary: true,
			},
		);
		expect((declared as NodeApiError).message).toMatch(/larger than the 100 MB allowed for a file/);
	});
});

describe('the settings every request carries', () => {
	test('redirects are never followed and no credential goes with one; no allowedDomains unless listed', async () => {
		const { context, sent } = contextAnswering(200);
		await apiRequest(context, 'GET', '/documents');
		expect(sent[0]).toMatchObject({
			url: 'https://api.signing.test/v1/documents',
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
			encoding: 'stream',
		});
		expect(sent[0]).not.toHaveProperty('allowedDomains');
	});

	test("n8n's Allowed HTTP Request Domains: the listed ones and the Base URL's host", async () => {
		const { context, sent } = contextAnswering(
			200,
			'{}',
			{},
			{
				allowedHttpRequestDomains: 'domains',
				allowedDomains: 'files.signing.test',
			},
		);
		await apiRequest(context, 'GET', '/documents');
		expect(sent[0].allowedDomains).toBe('api.signing.test, files.signing.test');
	});

	test('an Idempotency-Key goes as a header when given', async () => {
		const { context, sent } = contextAnswering(200);
		await apiRequest(context, 'POST', '/documents', { idempotencyKey: 'n8n-1', body: {} });
		expect(sent[0].headers).toMatchObject({ 'Idempotency-Key': 'n8n-1' });
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

test('the record of an answer, bare or under data', () => {
	expect(recordOf({ id: 5, name: 'x' })).toEqual({ id: 5, name: 'x' });
	expect(recordOf({ data: { id: 'doc_1' } })).toEqual({ id: 'doc_1' });
	expect(recordOf([1])).toEqual({});
});
