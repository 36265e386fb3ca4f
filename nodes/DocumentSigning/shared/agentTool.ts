import {
	NodeOperationError,
	type IDataObject,
	type IExecutePaginationFunctions,
	type INode,
} from 'n8n-workflow';

/** The node as an AI Agent's tool: what differs from a step in a workflow. */

/**
 * A tool call from n8n's AI Agent 3 in a workflow whose Execution Order is not v1. The agent asks
 * the engine to run its tools (an engine request; the engine adds the call's `toolCallId` to the
 * tool's input item) and resumes when they have run, but the legacy order v0 queues the agent
 * ahead of its tools: it reads an empty result (`""`) and the tool runs afterwards, unseen. So the
 * call is refused, unsent, with the fix. AI Agent 2 runs its tools itself, in any order.
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
 * Whether a failure is the agent's tool result rather than the workflow's end: the node runs as an
 * AI Agent's tool (n8n gives the tool variant of a `usableAsTool` node the type name + `Tool`) and
 * the user did not choose "Stop Workflow" on error. n8n 2.x's AI Agent 3 does the same for any
 * tool; its version 2 (and n8n 1.x) would hand the model an empty result instead of the error.
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
