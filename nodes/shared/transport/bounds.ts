/** Bounds on what a server may send (read by readResponse in request.ts) and on how long anything takes. */

export const MB = 1024 * 1024;

export type ResponseKind = 'json' | 'file' | 'export';

/** A file's or an export's limit is the credential's "Largest Download (MB)" when set, up to 2 GB. */
export const BODY_LIMITS = { json: 16 * MB, download: 100 * MB, maxDownload: 2048 * MB };

export const TIME_LIMITS = {
	/** One attempt of a request (connecting, sending, the whole response): then it is abandoned as timed out. */
	attemptMs: 120_000,
	/** One list search in the editor, retries and 429 waits included (n8n gives it no cancel signal). */
	listSearchMs: 30_000,
};
