/**
 * Node builders of the benchmarks and the reliability suite, beside the e2e ones: a Webhook node
 * (so a running n8n executes a workflow on an HTTP call, without a CLI cold start), splitting
 * items, a No Op, and n8n's HTTP Request node set up as a user would. Workflows are created through
 * n8n's public API (see n8nApi.ts).
 */
import { randomUUID } from 'node:crypto';

import { CREDENTIAL_TYPE } from './n8n';
// The workflow JSON shapes and the general builders (chain, codeNode, signingNode, triggerNode)
// are in workflows.ts; this file adds only the builders of the benchmarks and the reliability suite.
import { credentialsRef, node, type CredentialRef, type WorkflowNode } from './workflows';

/**
 * A Webhook node on `POST /webhook/<path>`. `lastNode` (default) answers when the workflow has
 * finished (with no data), so a caller learns of the end without polling n8n during the run;
 * `onReceived` answers at once.
 */
export function webhookNode(
	path: string,
	name = 'Webhook',
	responseMode: 'lastNode' | 'onReceived' = 'lastNode',
	typeVersion = 2,
): WorkflowNode {
	const parameters: Record<string, unknown> = {
		httpMethod: 'POST',
		path,
		responseMode,
		options: {},
	};
	if (responseMode === 'lastNode') parameters.responseData = 'noData';
	return node(name, 'n8n-nodes-base.webhook', typeVersion, parameters, { webhookId: randomUUID() });
}

/** One item per element of the request body's `items` array (objects are spread into json). */
export function splitItemsNode(name = 'Items'): WorkflowNode {
	return node(name, 'n8n-nodes-base.splitOut', 1, {
		fieldToSplitOut: 'body.items',
		include: 'noOtherFields',
		options: {},
	});
}

export function noOpNode(name = 'Done'): WorkflowNode {
	return node(name, 'n8n-nodes-base.noOp', 1, {});
}

/**
 * n8n's HTTP Request node as a user would set it up for `POST /documents`: the package's
 * credential as "predefined credential type", a JSON body from the item, every option at its
 * default unless `options` says otherwise.
 */
export function httpRequestCreateNode(
	baseUrl: string,
	credential: CredentialRef,
	options: Record<string, unknown> = {},
	name = 'HTTP Request',
): WorkflowNode {
	return node(
		name,
		'n8n-nodes-base.httpRequest',
		4.5,
		{
			method: 'POST',
			url: `${baseUrl}/documents`,
			authentication: 'predefinedCredentialType',
			nodeCredentialType: CREDENTIAL_TYPE,
			sendBody: true,
			specifyBody: 'json',
			jsonBody:
				'={\n  "name": "{{ $json.name }}",\n  "signers": [{ "email": "{{ $json.email }}", "name": "Bulk Signer" }]\n}',
			options,
		},
		{ credentials: credentialsRef(credential) },
	);
}

/**
 * n8n's HTTP Request node reading every page of `GET /documents` with its Pagination option, as
 * n8n's documentation shows for cursor APIs: the cursor from the last response as a query
 * parameter, complete when the response says there is no more. One output item per page.
 */
export function httpRequestListAllNode(
	baseUrl: string,
	credential: CredentialRef,
	pageSize: number,
	name = 'HTTP Request',
): WorkflowNode {
	return node(
		name,
		'n8n-nodes-base.httpRequest',
		4.5,
		{
			method: 'GET',
			url: `${baseUrl}/documents`,
			authentication: 'predefinedCredentialType',
			nodeCredentialType: CREDENTIAL_TYPE,
			sendQuery: true,
			queryParameters: { parameters: [{ name: 'limit', value: String(pageSize) }] },
			options: {
				pagination: {
					pagination: {
						paginationMode: 'updateAParameterInEachRequest',
						parameters: {
							parameters: [
								{ type: 'qs', name: 'cursor', value: '={{ $response.body.next_cursor }}' },
							],
						},
						paginationCompleteWhen: 'other',
						completeExpression: '={{ !$response.body.has_more }}',
					},
				},
			},
		},
		{ credentials: credentialsRef(credential) },
	);
}
