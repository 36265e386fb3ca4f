/**
 * A recording pass-through in front of the sandbox, for diagnosis (bench/diagnose.ts) and for
 * counting one credential's requests (the poll scenario, where the seconds measured are a poll
 * minute's): notes when each request arrives and is answered and forwards it unchanged.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordingProxy {
	baseUrl: string;
	/** Arrival times (epoch ms) and methods+paths of every request, in order; status and answer time once answered. */
	arrivals: Array<{
		at: number;
		method: string;
		path: string;
		status?: number;
		answeredAt?: number;
	}>;
	close: () => Promise<void>;
}

export async function startRecordingProxy(targetOrigin: string): Promise<RecordingProxy> {
	const target = new URL(targetOrigin);
	const arrivals: RecordingProxy['arrivals'] = [];
	const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
	const server = http.createServer((req, res) => {
		const entry: RecordingProxy['arrivals'][number] = {
			at: Date.now(),
			method: req.method ?? '',
			path: req.url ?? '',
		};
		arrivals.push(entry);
		const upstream = http.request(
			{
				host: target.hostname,
				port: target.port,
				method: req.method,
				path: req.url,
				headers: req.headers,
				agent,
			},
			(response) => {
				entry.status = response.statusCode;
				entry.answeredAt = Date.now();
				res.writeHead(response.statusCode ?? 502, response.headers);
				response.pipe(res);
			},
		);
		upstream.on('error', () => res.destroy());
		req.pipe(upstream);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		arrivals,
		close: async () => {
			agent.destroy();
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
