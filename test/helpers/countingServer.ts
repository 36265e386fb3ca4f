import { createServer, type IncomingMessage, type Server } from 'http';
import type { AddressInfo } from 'net';

export interface RecordedRequest {
	method: string;
	url: string;
	headers: IncomingMessage['headers'];
	body: string;
}

/** An answer, or `reset` to drop the connection without one (as a crashing proxy would). */
export type ServerAnswer =
	| { status: number; body?: unknown; headers?: Record<string, string> }
	| { reset: true };

/**
 * A bare 127.0.0.1 server that records every request and answers with `respond` (default 200 {}).
 * Used where a test must prove how many requests reached the network, including none.
 */
export async function startCountingServer(
	respond: (request: RecordedRequest) => ServerAnswer = () => ({ status: 200, body: {} }),
): Promise<{ baseUrl: string; requests: RecordedRequest[]; close: () => Promise<void> }> {
	const requests: RecordedRequest[] = [];
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const recorded = {
				method: req.method ?? '',
				url: req.url ?? '',
				headers: req.headers,
				body: Buffer.concat(chunks).toString(),
			};
			requests.push(recorded);
			const answer = respond(recorded);
			if ('reset' in answer) {
				req.socket.destroy();
				return;
			}
			res.writeHead(answer.status, {
				'content-type': 'application/json',
				...(answer.headers ?? {}),
			});
			res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
