import net from 'net';

export interface EarlyAnswer {
	status: number;
	/** Header names in lower case. */
	headers: Record<string, string>;
	/** The body as text (de-chunked). */
	text: string;
	/** Body bytes written before the answer arrived. */
	sent: number;
}

/**
 * POSTs `total` body bytes over a raw socket, in 1 MiB pieces, until the server answers; resolves
 * with that answer. A raw socket, because a server may answer (413) and close the connection while
 * the client is still writing: an HTTP client then reports the write error (EPIPE, ECONNRESET,
 * ECANCELED, depending on timing) and drops the answer, although the answer's bytes arrived.
 */
export function uploadUntilAnswered(
	url: string,
	headers: Record<string, string>,
	total: number,
	{ declareLength = true }: { declareLength?: boolean } = {},
): Promise<EarlyAnswer> {
	return new Promise((resolve, reject) => {
		const { hostname, port, pathname, search } = new URL(url);
		const socket = net.connect(Number(port), hostname);
		const piece = Buffer.alloc(1024 * 1024, 0x20);
		const received: Buffer[] = [];
		let sent = 0;
		let settled = false;

		/** The answer once its whole body is here (by Content-Length, chunked end, or the connection's close). */
		const answer = (closed: boolean): EarlyAnswer | undefined => {
			const raw = Buffer.concat(received);
			const split = raw.indexOf('\r\n\r\n');
			if (split < 0) return undefined;
			const [statusLine, ...lines] = raw.subarray(0, split).toString('latin1').split('\r\n');
			const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
			if (!status) return undefined;
			const head: Record<string, string> = {};
			for (const line of lines) {
				const colon = line.indexOf(':');
				if (colon > 0)
					head[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
			}
			let body = raw.subarray(split + 4);
			if (/chunked/i.test(head['transfer-encoding'] ?? '')) {
				const parts: Buffer[] = [];
				for (let at = 0; ; ) {
					const lineEnd = body.indexOf('\r\n', at);
					if (lineEnd < 0) return undefined;
					const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
					if (size === 0) break;
					if (body.length < lineEnd + 2 + size) return undefined;
					parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
					at = lineEnd + 2 + size + 2;
				}
				body = Buffer.concat(parts);
			} else if (head['content-length'] !== undefined) {
				const length = Number(head['content-length']);
				if (body.length < length) return undefined;
				body = body.subarray(0, length);
			} else if (!closed) {
				return undefined;
			}
			return { status: Number(status[1]), headers: head, text: body.toString('utf8'), sent };
		};
		const finish = (closed = false) => {
			if (settled) return;
			const result = answer(closed);
			if (!result) return;
			settled = true;
			socket.destroy();
			resolve(result);
		};

		socket.on('data', (data: Buffer) => {
			received.push(data);
			finish();
		});
		socket.on('error', () => finish(true));
		socket.on('close', () => {
			finish(true);
			if (!settled)
				reject(new Error(`connection closed without a complete answer after ${sent} bytes`));
		});
		const headerLines = Object.entries({
			Host: `${hostname}:${port}`,
			...headers,
			Connection: 'close',
		}).map(([name, value]) => `${name}: ${value}\r\n`);
		socket.write(
			`POST ${pathname}${search} HTTP/1.1\r\n${headerLines.join('')}${declareLength ? `Content-Length: ${total}` : 'Transfer-Encoding: chunked'}\r\n\r\n`,
		);
		const pump = () => {
			while (!settled && !socket.destroyed && sent < total) {
				const bytes = piece.subarray(0, Math.min(piece.length, total - sent));
				sent += bytes.length;
				const framed = declareLength
					? bytes
					: Buffer.concat([
							Buffer.from(`${bytes.length.toString(16)}\r\n`),
							bytes,
							Buffer.from('\r\n'),
						]);
				if (!socket.write(framed)) return void socket.once('drain', pump);
			}
			if (!settled && !socket.destroyed && !declareLength) socket.write('0\r\n\r\n');
		};
		pump();
	});
}
