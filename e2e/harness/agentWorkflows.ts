/**
 * Builders of AI Agent workflows for the end-to-end tests: Manual Trigger → "Chat Input" (a Set
 * node giving `chatInput`) → AI Agent, with an OpenAI Chat Model on its `ai_languageModel` input
 * and Document Signing tools on its `ai_tool` input. The node types and versions are those of
 * @n8n/n8n-nodes-langchain in the pinned n8n 2.41 host: the AI Agent's default version 3.1 and
 * the previous major version's last, 2.2.
 *
 * Nothing here depends on jest or on a running n8n.
 */
import { randomUUID } from 'node:crypto';

import { CREDENTIAL_TYPE, NODE_TYPE } from './n8n';
import { manualTrigger, node, setNode, type CredentialRef, type WorkflowNode } from './workflows';

export const AGENT_NODE_TYPE = '@n8n/n8n-nodes-langchain.agent';
export const OPENAI_CHAT_MODEL_NODE_TYPE = '@n8n/n8n-nodes-langchain.lmChatOpenAi';
export const OPENAI_CREDENTIAL_TYPE = 'openAiApi';
/** The tool variant n8n generates for a node with `usableAsTool` (type name + `Tool`). */
export const TOOL_NODE_TYPE = `${NODE_TYPE}Tool`;

/** The AI Agent versions the suite runs: n8n 2.41's default for a new agent, and 2.x's before it. */
export const AGENT_VERSIONS = { default: 3.1, previousMajor: 2.2 } as const;

export interface AgentWorkflowJson {
	id?: string;
	name: string;
	nodes: WorkflowNode[];
	connections: Record<
		string,
		Record<string, Array<Array<{ node: string; type: string; index: number }>>>
	>;
	settings?: Record<string, unknown>;
	[key: string]: unknown;
}

/** `={{ $fromAI('key', 'description', 'type') }}`: a parameter the model fills. */
export function fromAI(
	key: string,
	description: string,
	type: 'string' | 'number' | 'boolean' | 'json' = 'string',
): string {
	const quoted = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
	return `={{ $fromAI(${quoted(key)}, ${quoted(description)}, ${quoted(type)}) }}`;
}

/** A Document Signing tool (the generated `documentSigningTool` type) with its tool description set automatically. */
export function signingTool(
	name: string,
	parameters: Record<string, unknown>,
	credential: CredentialRef,
): WorkflowNode {
	return node(
		name,
		TOOL_NODE_TYPE,
		1,
		{ descriptionType: 'auto', ...parameters },
		{
			credentials: { [CREDENTIAL_TYPE]: { id: credential.id, name: credential.name } },
		},
	);
}

/** Document › Create as a tool, with the $fromAI() fields the README recommends. */
export function createDocumentTool(name: string, credential: CredentialRef): WorkflowNode {
	return signingTool(
		name,
		{
			resource: 'document',
			operation: 'create',
			name: fromAI(
				'documentName',
				'File name of the document, with its extension, e.g. nda-acme.pdf',
			),
			signers: {
				signer: [
					{
						email: fromAI('signerEmail', 'Email address of the person who signs'),
						name: fromAI('signerName', 'Full name of the person who signs'),
					},
				],
			},
		},
		credential,
	);
}

/** The OpenAI Chat Model on the Chat Completions API ("Use Responses API" off). */
export function openAiChatModel(credential: CredentialRef, model = 'scripted-model'): WorkflowNode {
	return node(
		'OpenAI Chat Model',
		OPENAI_CHAT_MODEL_NODE_TYPE,
		1.3,
		{
			model: { __rl: true, mode: 'id', value: model },
			responsesApiEnabled: false,
			options: { maxRetries: 0 },
		},
		{ credentials: { [OPENAI_CREDENTIAL_TYPE]: { id: credential.id, name: credential.name } } },
	);
}

/** The AI Agent reading the prompt from `chatInput`. */
export function agentNode(version: number, name = 'AI Agent'): WorkflowNode {
	return node(name, AGENT_NODE_TYPE, version, {
		promptType: 'define',
		text: '={{ $json.chatInput }}',
		options: {},
	});
}

/**
 * Manual Trigger → Chat Input (`chatInput` = prompt) → AI Agent, the model and the tools attached.
 */
export function agentWorkflow(options: {
	name: string;
	prompt: string;
	agentVersion: number;
	tools: WorkflowNode[];
	modelCredential: CredentialRef;
}): AgentWorkflowJson {
	const trigger = manualTrigger('Start');
	const input = setNode('Chat Input', { chatInput: options.prompt });
	const agent = agentNode(options.agentVersion);
	const model = openAiChatModel(options.modelCredential);
	const place = (entry: WorkflowNode, x: number, y: number): WorkflowNode => ({
		...entry,
		position: [x, y],
	});
	return {
		id: undefined,
		name: options.name,
		nodes: [
			place(trigger, 0, 0),
			place(input, 220, 0),
			place(agent, 460, 0),
			place(model, 380, 240),
			...options.tools.map((tool, index) => place(tool, 560 + index * 180, 240)),
		],
		connections: {
			[trigger.name]: { main: [[{ node: input.name, type: 'main', index: 0 }]] },
			[input.name]: { main: [[{ node: agent.name, type: 'main', index: 0 }]] },
			[model.name]: {
				ai_languageModel: [[{ node: agent.name, type: 'ai_languageModel', index: 0 }]],
			},
			...Object.fromEntries(
				options.tools.map((tool) => [
					tool.name,
					{ ai_tool: [[{ node: agent.name, type: 'ai_tool', index: 0 }]] },
				]),
			),
		},
		settings: { executionOrder: 'v1' },
		versionId: randomUUID(),
	};
}
