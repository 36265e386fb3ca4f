import http from 'http';
import type { AddressInfo } from 'net';

/**
 * A 127.0.0.1 pass-through in front of the sandbox that can rewrite chosen answers after the
 * sandbox has acted on the request: the way to play a service that did the work but answered
 * something unusable (no id, another shape, a dropped connection). `hold` is awaited before a
 * request is passed on: the way to keep one at the door until a test has reached a state.
 */
type Rewritten = { status: number; body: string } | 'reset' | undefined;

/** Reads the answer the sandbox gave; may hold it (a promise) until the test lets it through. */
export type Rewrite = (
	request: { method: string; path: string },
	answer: { status: number; body: string },
) => Rewritten | Promise<Rewritten>;

export async function startRewritingProxy(
	targetOrigin: string,
	rewrite: Rewrite,
	hold?: (request: { method: string; path: string }) => Promise<void> | void,
): Promise<{ baseUrl: string; close: () => Promise<void> }> {
	const target = new URL(targetOrigin);
	const server = http.createServer(async (req, res) => {
		await hold?.({ method: req.method ?? '', path: req.url ?? '' });
		const upstream = http.request(
			{
				host: target.hostname,
				port: target.port,
				method: req.method,
				path: req.url,
				headers: req.headers,
			},
			(response) => {
				const chunks: Buffer[] = [];
				response.on('data', (chunk: Buffer) => chunks.push(chunk));
				response.on('end', async () => {
					const raw = Buffer.concat(chunks);
					const answer = { status: response.statusCode ?? 502, body: raw.toString('utf8') };
					const changed = await rewrite({ method: req.method ?? '', path: req.url ?? '' }, answer);
					if (changed === 'reset') {
						req.socket.destroy();
						return;
					}
					const headers = { ...response.headers };
					delete headers['content-length'];
					delete headers['transfer-encoding'];
					// Untouched answers pass on byte for byte (a PDF is no UTF-8 text).
					if (changed) res.writeHead(changed.status, headers).end(changed.body);
					else res.writeHead(answer.status, headers).end(raw);
				});
			},
		);
		upstream.on('error', () => res.destroy());
		req.pipe(upstream);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
