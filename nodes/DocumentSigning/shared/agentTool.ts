import { NodeOperationError, type IExecuteSingleFunctions, type INode } from 'n8n-workflow';

/**
 * A tool call from n8n's AI Agent 3 (its input item carries `toolCallId`) under the legacy
 * Execution Order v0, which queues the agent ahead of its tools: it would read an empty result and
 * the tool run afterwards, unseen. So the call is refused, unsent. AI Agent 2 runs tools itself.
 */
export function legacyOrderToolCall(
	context: IExecuteSingleFunctions,
	node: INode,
): NodeOperationError | undefined {
	if (!node.type.endsWith('Tool') || context.getWorkflowSettings?.()?.executionOrder === 'v1')
		return undefined;
	if (typeof context.getInputData?.()?.json?.toolCallId !== 'string') return undefined;
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
