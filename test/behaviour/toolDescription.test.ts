/**
 * What an AI Agent's model reads about each operation of the node used as a tool, as n8n 2.41
 * generates it (n8n-workflow's NodeHelpers, the code n8n runs): with "Tool Description: Set
 * Automatically" the tool's description is the operation's `action` + " in Document Signing", and a
 * new tool node is named the same, which becomes the tool's name (spaces → `_`). The words are
 * reviewed where they are written, in each operation's entry; this checks that n8n's code still
 * derives the tool from them and that every action keeps to the rules below (docs/ai-agents.md).
 * And what a Create tool from a template gives the model: one argument per template field filled
 * by `$fromAI()` (n8n-core's getSchema, the code that builds the tool), and a description that
 * names the fields. The fields are the rows the editor lists for a sandbox template (the node's
 * getTemplateFields in n8n-core's load-options context).
 */
import { getSchema } from 'n8n-core/dist/execution-engine/node-execution-context/utils/create-node-as-tool';
import {
	NodeHelpers,
	nodeNameToToolName,
	Workflow,
	type INode,
	type INodePropertyOptions,
	type INodeTypeDescription,
	type ResourceMapperField,
} from 'n8n-workflow';

import { DocumentSigning } from '../../nodes/DocumentSigning/DocumentSigning.node';
import { NodeTypes } from '../helpers/n8nHost';
import { loadOptionsContext } from '../helpers/n8nWorkflow';
import { api, useSandbox } from '../helpers/sandbox';

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

describe('a Create tool from a template with fields', () => {
	const sandbox = useSandbox();
	/** A field as n8n's "let the model define this" button fills it: its label is the key. */
	const byModel = (key: string, type: string) =>
		`={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('${key}', \`\`, '${type}') }}`;
	/**
	 * The tool node as saved from the editor: the template chosen, Template Fields with the rows the
	 * editor listed for it (the node's getTemplateFields), each filled by the model.
	 */
	const toolNode = (templateId: string, schema: ResourceMapperField[]): INode => ({
		id: 'tool',
		name: 'Create Contract',
		type: toolDescription.name,
		typeVersion: 1,
		position: [0, 0],
		parameters: {
			resource: 'document',
			operation: 'create',
			descriptionType: 'manual',
			// docs/ai-agents.md: the description names the fields the template requires.
			toolDescription:
				"={{ 'Create the sales contract and send it for signing. Required fields: ' + $parameter.templateFields.schema.filter(field => field.required).map(field => field.displayName).join(', ') }}",
			additionalFields: { template_id: { __rl: true, mode: 'id', value: templateId } },
			templateFields: {
				mappingMode: 'defineBelow',
				value: {
					customer_name: byModel('Customer_name', 'string'),
					price: byModel('Price', 'number'),
					start_date: byModel('Start_date', 'string'),
					auto_renew: byModel('Renews_automatically', 'boolean'),
				},
				matchingColumns: [],
				schema: schema as never,
				attemptToConvertTypes: false,
				convertFieldsToString: false,
			},
		},
	});
	let node: INode;

	beforeAll(async () => {
		const { apiKey } = sandbox().createAccount();
		const template = await api(sandbox(), apiKey).post('/templates', {
			name: 'Sales contract',
			fields: [
				{ key: 'customer_name', label: 'Customer name', required: true },
				{ key: 'price', label: 'Price', type: 'number', required: true },
				{ key: 'start_date', label: 'Start date', type: 'date', required: true },
				{ key: 'auto_renew', label: 'Renews automatically', type: 'checkbox' },
			],
		});
		expect(template.status).toBe(201);
		const templateId = String(template.data.id);
		const { fields } = await new DocumentSigning().methods.resourceMapping.getTemplateFields.call(
			loadOptionsContext(
				{ baseUrl: sandbox().baseUrl, apiKey },
				toolNode(templateId, []).parameters,
			),
		);
		node = toolNode(templateId, fields);
	});

	it("gives the model one argument per field, named by the field's label and typed by its type", () => {
		const { shape } = getSchema(node);
		expect(
			Object.fromEntries(
				Object.entries(shape).map(([key, type]) => [
					key,
					[(type._def as { typeName: string }).typeName, type.isOptional()],
				]),
			),
		).toEqual({
			Customer_name: ['ZodString', false],
			Price: ['ZodNumber', false],
			Start_date: ['ZodString', false],
			Renews_automatically: ['ZodBoolean', false],
		});
	});

	it('with the description set as the docs show, names the fields the template requires', () => {
		const nodeTypes = new NodeTypes({ [toolDescription.name]: new DocumentSigning() });
		// The tool's Description and Tool Description are n8n's (added to the tool variant): the
		// workflow keeps the node's own parameters, which is what $parameter reads.
		const workflow = new Workflow({
			nodes: [structuredClone(node)],
			connections: {},
			active: false,
			nodeTypes,
		});
		const resolved = NodeHelpers.getToolDescriptionForNode(
			node,
			{ description: toolDescription },
			() =>
				workflow.expression.getParameterValue(
					node.parameters.toolDescription as string,
					null,
					0,
					0,
					node.name,
					[{ json: {} }],
					'internal',
					{},
				) as string,
		);
		expect(resolved).toBe(
			'Create the sales contract and send it for signing. Required fields: Customer name, Price, Start date',
		);
	});
});
