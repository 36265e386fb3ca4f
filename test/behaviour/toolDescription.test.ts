/**
 * What an AI Agent's model reads about each operation of the node used as a tool, as n8n 2.41
 * generates it (n8n-workflow's NodeHelpers, the code n8n runs): with "Tool Description: Set
 * Automatically" the tool's description is the operation's `action` + " in Document Signing", and a
 * new tool node is named the same, which becomes the tool's name (spaces → `_`). The words are
 * reviewed where they are written, in each operation's entry; this checks that n8n's code still
 * derives the tool from them and that every action keeps to the rules below (docs/ai-agents.md).
 */
import {
	NodeHelpers,
	nodeNameToToolName,
	type INodePropertyOptions,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { DocumentSigning } from '../../nodes/DocumentSigning/DocumentSigning.node';

const { description } = new DocumentSigning();

/** The description n8n gives the node's tool variant (type name + `Tool`, an `ai_tool` output). */
const toolDescription: INodeTypeDescription = {
	...description,
	name: `${description.name}Tool`,
	displayName: `${description.displayName} Tool`,
	inputs: [],
	outputs: ['ai_tool'],
};

const resources = (description.properties.find((property) => property.name === 'resource')
	?.options ?? []) as INodePropertyOptions[];
const operationsOf = (resource: string) =>
	(description.properties.find(
		(property) =>
			property.name === 'operation' && property.displayOptions?.show?.resource?.includes(resource),
	)?.options ?? []) as INodePropertyOptions[];

const operations = resources.flatMap(({ value: resource }) =>
	operationsOf(String(resource)).map((option) => ({ resource, option })),
);
const tools = operations.map(({ resource, option: { value: operation, action } }) => {
	const parameters = { resource, operation, descriptionType: 'auto' };
	const nodeName = NodeHelpers.makeNodeName(parameters, toolDescription);
	return {
		operation: `${resource}.${operation}`,
		action: String(action),
		toolDescription: NodeHelpers.makeDescription(parameters, toolDescription),
		defaultToolName: nodeNameToToolName(nodeName),
	};
});

describe('the node as an AI Agent tool, with its description set automatically', () => {
	it('describes every operation by its action + " in Document Signing", and names its tool the same', () => {
		expect(tools).toHaveLength(
			resources.reduce((sum, { value }) => sum + operationsOf(String(value)).length, 0),
		);
		for (const { operation, action, toolDescription, defaultToolName } of tools) {
			expect({ operation, toolDescription, defaultToolName }).toEqual({
				operation,
				toolDescription: `${action} in Document Signing`,
				defaultToolName: `${action} in Document Signing`.replace(/[^A-Za-z0-9_-]/g, '_'),
			});
		}
		expect(tools.find(({ operation }) => operation === 'signingRequest.remind')).toEqual({
			operation: 'signingRequest.remind',
			action: 'Send a reminder for a signing request',
			toolDescription: 'Send a reminder for a signing request in Document Signing',
			defaultToolName: 'Send_a_reminder_for_a_signing_request_in_Document_Signing',
		});
	});

	it('words each action as an instruction: a capitalised verb, then lower case, no final period, no markup', () => {
		for (const { operation, action } of tools) {
			expect({ operation, action, ok: /^[A-Z][a-z]+ [a-z][a-z ,'-]*[a-z]$/.test(action) }).toEqual({
				operation,
				action,
				ok: true,
			});
		}
	});

	it("names a new tool node so that its tool name is one OpenAI accepts (at most 64 of a-z, A-Z, 0-9, _ and -, with room for n8n's number suffix)", () => {
		for (const { operation, defaultToolName } of tools) {
			expect({
				operation,
				defaultToolName,
				valid: /^[A-Za-z0-9_-]{1,62}$/.test(defaultToolName),
			}).toEqual({ operation, defaultToolName, valid: true });
		}
	});

	it('tells each operation apart: no two tools get the same description', () => {
		expect(new Set(tools.map((tool) => tool.toolDescription)).size).toBe(tools.length);
	});
});
