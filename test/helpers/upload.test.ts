/**
 * uploadUntilAnswered (upload.ts) against a 127.0.0.1 server that answers 413 as soon as the first
 * body bytes arrive and then resets the connection, while the client still has most of the body
 * to write: the order that lost the sandbox's early 413 to a write error in CI, produced on purpose
 * on every upload here.
 */
import net from 'net';

import { uploadUntilAnswered } from './upload';

const TOTAL = 64 * 1024 * 1024;
const ANSWER = JSON.stringify({ error: { code: 'payload_too_large', message: 'Too large' } });

type Framing = 'content-length' | 'chunked' | 'until-close';

interface EarlyServer {
	url: string;
	/** Body bytes the server had received when it answered, one entry per connection. */
	receivedAtAnswer: number[];
	close: () => Promise<void>;
}

/** Answers 413 on the first body bytes of each request, then resets the connection (RST). */
async function earlyAnswerServer(framing: Framing): Promise<EarlyServer> {
	const receivedAtAnswer: number[] = [];
	const head = (extra: string) =>
		`HTTP/1.1 413 Payload Too Large\r\nContent-Type: application/json\r\nConnection: close\r\n${extra}\r\n`;
	const answer = {
		'content-length': `${head(`Content-Length: ${Buffer.byteLength(ANSWER)}\r\n`)}${ANSWER}`,
		chunked: `${head('Transfer-Encoding: chunked\r\n')}${Buffer.byteLength(ANSWER).toString(16)}\r\n${ANSWER}\r\n0\r\n\r\n`,
		'until-close': `${head('')}${ANSWER}`,
	}[framing];
	const server = net.createServer((socket) => {
		let received = Buffer.alloc(0);
		let answered = false;
		socket.on('error', () => {});
		socket.on('data', (data: Buffer) => {
			if (answered) return;
			received = Buffer.concat([received, data]);
			const bodyStart = received.indexOf('\r\n\r\n');
			if (bodyStart < 0 || received.length <= bodyStart + 4) return;
			answered = true;
			receivedAtAnswer.push(received.length - bodyStart - 4);
			// Reset (not a graceful close) once the answer is handed to the kernel: the client's
			// next write fails with ECONNRESET or EPIPE while the answer waits in its receive buffer.
			socket.write(answer, () => socket.resetAndDestroy());
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as net.AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/documents`,
		receivedAtAnswer,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/** Repeated: each upload is one more chance for the write error to be reported before the answer. */
const UPLOADS = 20;

describe('uploadUntilAnswered', () => {
	describe.each<[Framing, boolean]>([
		['content-length', true],
		['content-length', false],
		['chunked', true],
		['until-close', true],
		['until-close', false],
	])(
		'a 413 (%s) answered while the client is still uploading (declared length: %s)',
		(framing, declareLength) => {
			let server: EarlyServer;
			beforeAll(async () => {
				server = await earlyAnswerServer(framing);
			});
			afterAll(async () => {
				await server.close();
			});

			it(`is returned whole, ${UPLOADS} uploads out of ${UPLOADS}, and the client stops writing`, async () => {
				for (let upload = 0; upload < UPLOADS; upload++) {
					const answer = await uploadUntilAnswered(
						server.url,
						{ 'Content-Type': 'application/json' },
						TOTAL,
						{ declareLength },
					);
					expect([answer.status, answer.headers['content-type'], answer.text]).toEqual([
						413,
						'application/json',
						ANSWER,
					]);
					// The client was still writing when the answer came, and stopped short of the body.
					expect(server.receivedAtAnswer[upload]).toBeLessThan(TOTAL);
					expect(answer.sent).toBeLessThan(TOTAL);
				}
				expect(server.receivedAtAnswer).toHaveLength(UPLOADS);
			});
		},
	);

	it('a connection closed before any answer is an error, not an answer', async () => {
		const server = net.createServer((socket) => {
			socket.on('error', () => {});
			socket.once('data', () => socket.resetAndDestroy());
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as net.AddressInfo;
		try {
			await expect(
				uploadUntilAnswered(`http://127.0.0.1:${port}/documents`, {}, TOTAL),
			).rejects.toThrow(/connection closed without a complete answer/);
		} finally {
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	});
});
