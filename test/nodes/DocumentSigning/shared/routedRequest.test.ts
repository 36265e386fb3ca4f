/**
 * The action node's request hook (nodes/DocumentSigning/shared/routedRequest.ts) through n8n-core's
 * routing engine and the sandbox: what a bulk send costs n8n beyond the requests themselves, and
 * what its failures carry into the execution.
 */
import http from 'http';
import type { AddressInfo } from 'net';
import { inspect } from 'util';

import { Expression } from 'n8n-workflow';

import { CredentialsHelper } from '../../../helpers/n8nHost';
import { runDocumentSigning } from '../../../helpers/n8nWorkflow';
import { useSandbox } from '../../../helpers/sandbox';

const sandbox = useSandbox({ port: 0 });

const bulkCreate = {
	resource: 'document',
	operation: 'create',
	name: '={{ $json.name }}',
	signers: { signer: [{ email: '={{ $json.email }}', name: 'Bulk Signer' }] },
};
const itemsOf = (count: number) =>
	Array.from({ length: count }, (_, i) => ({
		json: { name: `d-${i}.pdf`, email: `s${i}@example.com` },
	}));

async function bulkSend(count: number) {
	const credentials = { baseUrl: sandbox().baseUrl, apiKey: sandbox().createAccount().apiKey };
	// The package's own reads (n8n's routing engine reads it again for every request it sends).
	let credentialReads = 0;
	const read = CredentialsHelper.prototype.getDecrypted;
	const reads = jest
		.spyOn(CredentialsHelper.prototype, 'getDecrypted')
		.mockImplementation(function (this: CredentialsHelper) {
			if (new Error().stack?.includes('serviceClient')) credentialReads++;
			return read.call(this);
		});
	const evaluate = jest.spyOn(Expression.prototype, 'resolveSimpleParameterValue');
	try {
		const result = await runDocumentSigning({
			parameters: bulkCreate,
			items: itemsOf(count),
			credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(count);
		expect(sandbox().store.documentsOf(credentials.apiKey)).toHaveLength(count);
		return { credentialReads, evaluations: evaluate.mock.calls.length };
	} finally {
		reads.mockRestore();
		evaluate.mockRestore();
	}
}

describe('a bulk send (Document Create, one request per item)', () => {
	it('reads the credential through the context once per item, no more', async () => {
		const one = await bulkSend(1);
		const many = await bulkSend(25);
		expect(one.credentialReads).toBe(1);
		expect(many.credentialReads).toBe(25);
	});

	it("costs n8n's expression engine at most 8 evaluations per item for a name and a signer email given as expressions", async () => {
		// Per item, n8n's routing engine resolves every parameter twice (two loops over the description,
		// once more inside a fixed collection) before any request leaves; the node reads name and
		// signers once more. Each evaluation runs in n8n's expression sandbox, the largest share of a
		// bulk send's preparation (docs/performance.md). A duplicated parameter name or an expression in
		// the node's own description adds to it.
		const base = await bulkSend(1);
		const many = await bulkSend(21);
		expect((many.evaluations - base.evaluations) / 20).toBeLessThanOrEqual(8);
	});
});

describe('as an AI Agent tool (the node type n8n generates: documentSigningTool)', () => {
	const create = (email: string) => ({
		resource: 'document',
		operation: 'create',
		name: 'nda.pdf',
		signers: { signer: [{ email, name: 'Ada Lovelace' }] },
	});
	const account = () => ({ baseUrl: sandbox().baseUrl, apiKey: sandbox().createAccount().apiKey });
	const V1 = { executionOrder: 'v1' };

	it("answers a failure as the tool's result, for the agent's model to read: the error, with the node's hint", async () => {
		const credentials = account();
		const result = await runDocumentSigning({
			parameters: { ...create('ada@example.com'), attachFile: true },
			credentials,
			asTool: true,
			settings: V1,
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json)).toEqual([
			{
				error: 'Input Binary Field: the input item has no binary field "data"',
				hint: 'Use the name of the field holding the file, or switch off Attach File.',
			},
		]);
		expect(sandbox().store.documentsOf(credentials.apiKey)).toEqual([]);
	});

	it('still stops on a failure when its On Error is Stop Workflow, and as a regular node', async () => {
		const credentials = account();
		const asTool = await runDocumentSigning({
			parameters: create('not-an-email'),
			credentials,
			asTool: true,
			settings: V1,
			onError: 'stopWorkflow',
		});
		const regular = await runDocumentSigning({
			parameters: create('not-an-email'),
			credentials,
			settings: V1,
		});
		for (const result of [asTool, regular]) {
			expect(result.items).toEqual([]);
			expect(result.error?.message).toBe(
				'Signers › Signer 1 › Email: "not-an-email" is not a valid email address',
			);
		}
	});

	it('refuses, unsent, a call from AI Agent 3 (its input carries a toolCallId) when the Execution Order is not v1', async () => {
		const credentials = account();
		const call = { json: { documentName: 'nda.pdf', toolCallId: 'call_1' } };
		const legacy = await runDocumentSigning({
			parameters: create('ada@example.com'),
			items: [call],
			credentials,
			asTool: true,
			settings: {},
		});
		expect(legacy.error?.message).toBe(
			'This workflow\'s Execution Order must be "v1 (recommended)" for an AI Agent to read this tool\'s results',
		);
		expect(sandbox().store.documentsOf(credentials.apiKey)).toEqual([]);

		// Under v1, and for AI Agent 2's calls (no toolCallId) in any order, the call goes through.
		const current = await runDocumentSigning({
			parameters: create('ada@example.com'),
			items: [call],
			credentials,
			asTool: true,
			settings: V1,
		});
		const agent2 = await runDocumentSigning({
			parameters: create('ada@example.com'),
			items: [{ json: { documentName: 'nda.pdf' } }],
			credentials,
			asTool: true,
			settings: {},
		});
		expect([current.error, agent2.error]).toEqual([undefined, undefined]);
		expect(sandbox().store.documentsOf(credentials.apiKey)).toHaveLength(2);
	});
});

describe("the credential's key in the service's own words (#54, finding 3)", () => {
	const KEY = 'sk_live_revoked_echo_0123456789';
	const JSON_TYPE = { 'Content-Type': 'application/json' };
	/** Answers the service may give a revoked key, each repeating it: plain, as `Bearer`, nested. */
	const answers: Array<[string, number, Record<string, string>, string, string]> = [
		[
			'a JSON 401: in the message, the description and nested JSON',
			401,
			JSON_TYPE,
			JSON.stringify({
				error: {
					message: `API key ${KEY} has been revoked`,
					code: 'key_revoked',
					description: `Sent with Authorization: Bearer ${KEY}`,
					details: {
						request: { headers: { authorization: `Bearer ${KEY}` } },
						echo: JSON.stringify({ key: KEY }),
					},
				},
			}),
			'API key [redacted] has been revoked',
		],
		[
			'a text 403',
			403,
			{ 'Content-Type': 'text/plain' },
			`Bearer ${KEY} may not read this`,
			'Bearer [redacted] may not read this',
		],
		[
			'a redirect whose Location carries it',
			302,
			{ Location: `https://sso.example.com/login?api_key=${KEY}` },
			'',
			'The service answered with a redirect (HTTP 302) to https://sso.example.com/login?api_key=[redacted]; it was not followed',
		],
	];
	let server: http.Server;
	let answer: (response: http.ServerResponse) => void;
	beforeAll(async () => {
		server = http.createServer((_request, response) => answer(response));
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	});
	afterAll(async () => {
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
	});
	/** Whatever n8n could save or a logger print: hidden properties, any depth, and JSON. */
	const shown = (value: unknown) =>
		[inspect(value, { depth: Infinity, showHidden: true }), JSON.stringify(value)].join('\n');

	it.each(answers)(
		'%s: neither the error (thrown or in an item) nor the saved execution holds it; the words do',
		async (_name, status, headers, body, message) => {
			answer = (response) => void response.writeHead(status, headers).end(body);
			const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
			for (const continueOnFail of [false, true]) {
				const result = await runDocumentSigning({
					parameters: {
						resource: 'document',
						operation: 'get',
						documentId: { __rl: true, mode: 'id', value: 'doc_1' },
					},
					credentials: { baseUrl, apiKey: KEY },
					continueOnFail,
				});
				const error = continueOnFail ? result.items[0]?.error : result.error;
				expect(error?.message).toBe(message);
				expect(shown(error)).not.toContain(KEY);
				expect(shown(result.items)).not.toContain(KEY);
				expect(JSON.stringify(result.run)).not.toContain(KEY);
			}
		},
	);
});
