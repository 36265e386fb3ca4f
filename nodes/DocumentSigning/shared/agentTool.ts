import { NodeOperationError, type INode } from 'n8n-workflow';

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
