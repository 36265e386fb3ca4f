import {
	NodeOperationError,
	type IDataObject,
	type IExecutePaginationFunctions,
	type INode,
} from 'n8n-workflow';

/**
 * A tool call from n8n's AI Agent 3 (its input item carries `toolCallId`) under the legacy
 * Execution Order v0, which queues the agent ahead of its tools: it would read an empty result and
 * the tool run afterwards, unseen. So the call is refused, unsent. AI Agent 2 runs tools itself.
 */
export function legacyOrderToolCall(
	context: IExecutePaginationFunctions,
	node: INode,
): NodeOperationError | undefined {
	if (!node.type.endsWith('Tool')) return undefined;
	const order = context.getWorkflowSettings?.()?.executionOrder;
	if (order === 'v1') return undefined;
	const input = context.getInputData?.()?.json;
	if (typeof input?.toolCallId !== 'string') return undefined;
	return legacyOrderError(node, context.getItemIndex());
}

/** The refusal of a tool call (or of a review gate's) under the legacy Execution Order v0. */
export function legacyOrderError(node: INode, itemIndex: number): NodeOperationError {
	return new NodeOperationError(
		node,
		'This workflow\'s Execution Order must be "v1 (recommended)" for an AI Agent to read this tool\'s results',
		{
			itemIndex,
			description:
				'Under the legacy order the AI Agent reads an empty result before its tools run. Nothing was sent. Set Workflow Settings → Execution Order to "v1 (recommended)", which n8n gives every new workflow.',
		},
	);
}

/**
 * Whether a failure is the agent's tool result rather than the workflow's end: the node runs as a
 * tool (type name + `Tool`) and on error does not stop the workflow. AI Agent 2 (and n8n 1.x)
 * would otherwise hand the model an empty result instead of the error.
 */
export function returnsErrorsToAgent(node: INode): boolean {
	return node.type.endsWith('Tool') && node.onError !== 'stopWorkflow';
}

/** What the model reads when a call failed: the error, and how to fix it when the node knows. */
export function toolErrorResult(error: {
	message: string;
	description?: string | null;
	httpCode?: string | null;
}): IDataObject {
	return {
		error: error.message,
		...(error.description && error.description !== error.message
			? { hint: error.description }
			: {}),
		...(error.httpCode ? { httpCode: error.httpCode } : {}),
	};
}
