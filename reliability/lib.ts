/**
 * Helpers of the reliability suite: summary lines, signed deliveries (a webhook's stored secret:
 * webhookSecret in test/helpers/sandbox.ts), and turning the bad-input table's items into a Code node.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { signWebhookPayload } from '../sandbox/deliverySignature';

/** Everything the suite printed, for the secret check. */
export const printed: string[] = [];

/** One summary line per check, printed at once (not buffered by jest). */
export function summary(line: string): void {
	const text = `[reliability] ${line}\n`;
	printed.push(text);
	process.stdout.write(text);
}

export interface Delivery {
	id: string;
	body: string;
}

let deliverySeq = 0;

/** A delivery body in the service's shape (docs/api-contract.md, "Webhook deliveries"). */
export function deliveryBody(webhookId: string, event = 'document.completed'): Delivery {
	const id = `dlv_rel${Date.now().toString(36)}${(deliverySeq++).toString(36).padStart(4, '0')}`;
	const now = new Date().toISOString();
	const body = JSON.stringify({
		id,
		event,
		created_at: now,
		webhook_id: webhookId,
		data: {
			document: {
				id: `doc_rel${deliverySeq}`,
				name: 'contract.pdf',
				status: 'completed',
				signers: [],
				created_at: now,
				updated_at: now,
			},
		},
	});
	return { id, body };
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

export function sign(secret: string, body: string, t = nowSeconds()): string {
	return signWebhookPayload(secret, t, body);
}

/** POSTs a delivery to n8n's production URL; resolves with the status. */
export async function post(
	url: string,
	body: string,
	headers: Record<string, string>,
): Promise<number> {
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body,
		signal: AbortSignal.timeout(30_000),
	});
	await response.arrayBuffer();
	return response.status;
}

/**
 * JavaScript for a Code node that returns these items. Binary data is inlined as base64, except
 * large buffers of one repeated byte (the "file over 10 MB" case), which are rebuilt in the node.
 */
export function codeForItems(items: INodeExecutionData[]): string {
	const parts = items.map((item) => {
		const binary: string[] = [];
		for (const [key, value] of Object.entries(item.binary ?? {})) {
			const bytes = Buffer.from(value.data, 'base64');
			const meta = JSON.stringify({ mimeType: value.mimeType, fileName: value.fileName });
			let data: string;
			if (bytes.length > 64 * 1024 && bytes.every((byte) => byte === bytes[0])) {
				data = `Buffer.alloc(${bytes.length}, ${bytes[0]}).toString('base64')`;
			} else {
				data = JSON.stringify(value.data);
			}
			binary.push(`${JSON.stringify(key)}: { ...${meta}, data: ${data} }`);
		}
		return `{ json: ${JSON.stringify(item.json)}${binary.length ? `, binary: { ${binary.join(', ')} }` : ''} }`;
	});
	return `return [\n${parts.join(',\n')}\n];`;
}
