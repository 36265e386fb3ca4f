/**
 * A scripted OpenAI-compatible chat model on 127.0.0.1, for AI Agent tests in a real n8n. Point an
 * `openAiApi` credential's Base URL (`url`) at `baseUrl` and switch the OpenAI Chat Model node's
 * "Use Responses API" off: n8n then calls `GET /models` and `POST /chat/completions` (plain JSON or,
 * with `stream: true`, server-sent events), both served here.
 *
 * Each conversation is a script keyed by the user's prompt (found in the latest user message): a list of turns, one per call the model
 * receives. A turn either calls tools (name and arguments, as a model would) or answers with text;
 * a turn may be a function of the request, to read the tool results the agent sent back.
 *
 *   const model = await startScriptedModel();
 *   model.script('Send the NDA to Ada', [
 *     { toolCalls: [{ name: 'Create_Document', arguments: { name: 'nda.pdf' } }] },
 *     (request) => ({ text: `Done: ${toolResults(request)[0]}` }),
 *   ]);
 *
 * Everything n8n sent is recorded (`requests`): the tools offered (name, description, JSON schema),
 * the messages, including the tool results the agent passed back.
 *
 * Nothing here depends on jest or on n8n.
 */
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolCall {
	name: string;
	arguments: Record<string, unknown>;
}

export type ScriptedReply = { toolCalls: ScriptedToolCall[] } | { text: string };
export type ScriptedTurn = ScriptedReply | ((request: ChatRequest) => ScriptedReply);

export interface OfferedTool {
	name: string;
	description: string;
	parameters: Record<string, any>;
}

export interface ChatMessage {
	role: 'system' | 'user' | 'assistant' | 'tool' | string;
	content?: unknown;
	tool_calls?: Array<{
		id: string;
		type: 'function';
		function: { name: string; arguments: string };
	}>;
	tool_call_id?: string;
	[key: string]: unknown;
}

/** One `/chat/completions` call as n8n sent it. */
export interface ChatRequest {
	model?: string;
	stream?: boolean;
	messages: ChatMessage[];
	tools?: Array<{
		type: 'function';
		function: { name: string; description?: string; parameters?: Record<string, any> };
	}>;
	[key: string]: unknown;
}

export interface RecordedRequest {
	method: string;
	path: string;
	body?: ChatRequest;
	/** Which script answered, by its prompt (undefined when none matched). */
	prompt?: string;
	/** The index of the turn that answered. */
	turn?: number;
}

/** The text of a message's content (a string, or parts with `text`). */
export function messageText(content: unknown): string {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) {
		return content
			.map((part) =>
				typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : '',
			)
			.join('');
	}
	return content === undefined || content === null ? '' : JSON.stringify(content);
}

/** The tools a request offered the model: name, description, JSON schema of the arguments. */
export function offeredTools(request: ChatRequest): OfferedTool[] {
	return (request.tools ?? []).map(({ function: fn }) => ({
		name: fn.name,
		description: fn.description ?? '',
		parameters: fn.parameters ?? {},
	}));
}

/** The tool results (role `tool`) the agent passed back, in order, as the model reads them. */
export function toolResults(request: ChatRequest): Array<{ toolCallId?: string; content: string }> {
	return request.messages
		.filter((message) => message.role === 'tool')
		.map((message) => ({
			toolCallId: message.tool_call_id,
			content: messageText(message.content),
		}));
}

/** The last tool result of a request, parsed (JSON, or the raw text). */
export function lastToolAnswer(request: ChatRequest): unknown {
	const results = toolResults(request);
	return parseToolResult(results[results.length - 1]?.content ?? '');
}

/** A tool result as JSON, or the raw text when it is not JSON. */
export function parseToolResult(content: string): unknown {
	try {
		return JSON.parse(content);
	} catch {
		return content;
	}
}

export class ScriptedModel {
	/** Every call received, in order. */
	readonly requests: RecordedRequest[] = [];
	private readonly scripts = new Map<string, { turns: ScriptedTurn[]; answered: number }>();
	private readonly server: http.Server;
	private port = 0;

	constructor() {
		this.server = http.createServer((request, response) => {
			void this.handle(request, response).catch((error: Error) => {
				if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
				response.end(
					JSON.stringify({
						error: { message: `scripted model: ${error.message}`, type: 'server_error' },
					}),
				);
			});
		});
	}

	/** `http://127.0.0.1:<port>/v1`: the credential's Base URL. */
	get baseUrl(): string {
		return `http://127.0.0.1:${this.port}/v1`;
	}

	async listen(): Promise<void> {
		await new Promise<void>((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(0, '127.0.0.1', () => resolve());
		});
		this.port = (this.server.address() as AddressInfo).port;
	}

	async close(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	/**
	 * The conversation for a prompt: a call whose latest user message contains `prompt` gets `turns[0]`
	 * at its first call, `turns[1]` at its second, and so on. A call past the last turn fails.
	 */
	script(prompt: string, turns: ScriptedTurn[]): void {
		this.scripts.set(prompt, { turns, answered: 0 });
	}

	/** The chat calls made in the conversation of `prompt`, in order. */
	callsFor(prompt: string): ChatRequest[] {
		return this.requests
			.filter((entry) => entry.prompt === prompt && entry.body)
			.map((entry) => entry.body!);
	}

	/** How many turns of a script have been answered. */
	answered(prompt: string): number {
		return this.scripts.get(prompt)?.answered ?? 0;
	}

	private async handle(
		request: http.IncomingMessage,
		response: http.ServerResponse,
	): Promise<void> {
		const url = new URL(request.url ?? '/', 'http://127.0.0.1');
		const chunks: Buffer[] = [];
		for await (const chunk of request) chunks.push(chunk as Buffer);
		const raw = Buffer.concat(chunks).toString('utf8');
		const path = url.pathname.replace(/^\/v1/, '');
		const entry: RecordedRequest = { method: request.method ?? 'GET', path };
		this.requests.push(entry);

		if (request.method === 'GET' && path === '/models') {
			return json(response, 200, {
				object: 'list',
				data: [{ id: 'scripted-model', object: 'model', created: 0, owned_by: 'e2e' }],
			});
		}
		if (request.method !== 'POST' || path !== '/chat/completions') {
			return json(response, 404, {
				error: {
					message: `scripted model serves no ${request.method} ${path}`,
					type: 'invalid_request_error',
				},
			});
		}

		const body = JSON.parse(raw) as ChatRequest;
		entry.body = body;
		// The latest user message: with chat memory, earlier ones come along too.
		const userText = messageText(
			body.messages.filter((message) => message.role === 'user').at(-1)?.content,
		);
		const match = [...this.scripts.entries()].find(([prompt]) => userText.includes(prompt));
		if (!match) {
			return json(response, 400, {
				error: {
					message: `scripted model: no script for the prompt ${JSON.stringify(userText.slice(0, 200))}`,
					type: 'invalid_request_error',
				},
			});
		}
		const [prompt, script] = match;
		entry.prompt = prompt;
		entry.turn = script.answered;
		const turn = script.turns[script.answered];
		if (!turn) {
			return json(response, 400, {
				error: {
					message: `scripted model: the script for ${JSON.stringify(prompt)} has only ${script.turns.length} turns`,
					type: 'invalid_request_error',
				},
			});
		}
		script.answered += 1;
		const reply = typeof turn === 'function' ? turn(body) : turn;
		const id = `chatcmpl-${randomUUID()}`;
		const toolCalls =
			'toolCalls' in reply
				? reply.toolCalls.map((call) => ({
						id: `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
						type: 'function' as const,
						function: { name: call.name, arguments: JSON.stringify(call.arguments) },
					}))
				: undefined;
		const content = 'text' in reply ? reply.text : null;
		const finishReason = toolCalls ? 'tool_calls' : 'stop';
		const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };

		if (body.stream) {
			response.writeHead(200, {
				'content-type': 'text/event-stream',
				'cache-control': 'no-cache',
				connection: 'keep-alive',
			});
			const base = {
				id,
				object: 'chat.completion.chunk',
				created: Math.floor(Date.now() / 1000),
				model: body.model ?? 'scripted-model',
			};
			const send = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
				response.write(
					`data: ${JSON.stringify({ ...base, choices: [{ index: 0, ...choice }], ...extra })}\n\n`,
				);
			send({ delta: { role: 'assistant', content: content ?? '' }, finish_reason: null });
			toolCalls?.forEach((call, index) =>
				send({
					delta: {
						tool_calls: [
							{
								index,
								id: call.id,
								type: 'function',
								function: { name: call.function.name, arguments: call.function.arguments },
							},
						],
					},
					finish_reason: null,
				}),
			);
			send({ delta: {}, finish_reason: finishReason });
			response.write(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
			response.end('data: [DONE]\n\n');
			return;
		}
		return json(response, 200, {
			id,
			object: 'chat.completion',
			created: Math.floor(Date.now() / 1000),
			model: body.model ?? 'scripted-model',
			choices: [
				{
					index: 0,
					message: { role: 'assistant', content, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
					finish_reason: finishReason,
				},
			],
			usage,
		});
	}
}

function json(response: http.ServerResponse, status: number, body: unknown): void {
	response.writeHead(status, { 'content-type': 'application/json' });
	response.end(JSON.stringify(body));
}

export async function startScriptedModel(): Promise<ScriptedModel> {
	const model = new ScriptedModel();
	await model.listen();
	return model;
}
