/**
 * errors.ts words a failure of the connection without its code in the message (networkError,
 * docs/node-behaviour.md, "Where the nodes depend on n8n"): n8n-workflow's NodeError
 * (`setDescriptiveErrorMessage`, errors/abstract/node.error.js) swaps a message that names one of
 * its common error codes for its own generic text, in NodeApiError and NodeOperationError alike.
 * Run on the installed n8n-workflow (2.41.0): fails when n8n stops doing so.
 */
import { NodeApiError, NodeOperationError, type INode } from 'n8n-workflow';

import { toNodeError } from '../../nodes/shared/transport/errors';

const node: INode = {
	id: 'n1',
	name: 'Document Signing',
	type: 'n8n-nodes-document-signing.documentSigning',
	typeVersion: 2,
	position: [0, 0],
	parameters: {},
};

describe("n8n's errors replace a message that names a common error code", () => {
	const message = 'Could not reach the Document Signing service (ECONNREFUSED)';
	const generic = 'The service refused the connection - perhaps it is offline';

	test('NodeApiError, given the message and HTTP code "none" as errors.ts gives them', () => {
		const error = new NodeApiError(node, { message }, { message, httpCode: 'none' });
		expect(error.message).toBe(generic);
		expect(error.messages).toContain(message);
	});

	test('NodeOperationError', () => {
		expect(new NodeOperationError(node, message).message).toBe(generic);
	});

	test('a message without a code is kept as written', () => {
		const plain = 'Could not reach the Document Signing service';
		expect(new NodeApiError(node, { message: plain }, { message: plain }).message).toBe(plain);
	});
});

test('so a failure of the connection reaches the user in our words, its code in the description', () => {
	const codes = [
		'ECONNREFUSED',
		'ECONNRESET',
		'ETIMEDOUT',
		'EAI_AGAIN',
		'ENOTFOUND',
		'EHOSTUNREACH',
	];
	for (const code of codes) {
		const error = toNodeError(node, Object.assign(new Error(`connect ${code}`), { code }));
		expect(error.message).toBe('Could not reach the Document Signing service');
		expect(error.description).toContain(code);
	}
});
