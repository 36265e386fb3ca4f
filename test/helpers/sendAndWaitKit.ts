/**
 * What the Send and Wait suites share (test/nodes/DocumentSigning/resources/document/sendAndWait/):
 * the node's parameters, a stand-in n8n per workflow (waitingExecutions.ts), the sandbox's view of
 * an account, signing, and calls to a wait's resume URL as the service (or anyone) would send them.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox';
import {
	deliverySignatureHeaders,
	type DeliverySignatureStyle,
} from '../../sandbox/deliverySignature';
import { useSandbox, waitFor, webhookSecret } from './sandbox';
import { WaitingHost, type WaitingExecution } from './waitingExecutions';

export const signers = {
	signer: [
		{ email: 'ada@example.com', name: 'Ada Lovelace' },
		{ email: 'alan@example.com', name: 'Alan Turing' },
	],
};

/** Document › Send and Wait for Signature of a new document, plus `extra`. */
export const sendAndWait = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'document',
	operation: 'sendAndWait',
	name: 'nda.pdf',
	signers,
	...extra,
});

export interface Answer {
	status: number;
	body: unknown;
}

/** A POST as the service (or anyone holding the URL) sends it. */
export async function post(
	url: string,
	body: object,
	headers: Record<string, string> = {},
): Promise<Answer> {
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body: JSON.stringify(body),
	});
	return { status: response.status, body: await response.json().catch(() => undefined) };
}

/** A delivery body signed in `style` with `secret` (the sandbox's own signer). */
export function signed(
	secret: string,
	body: object,
	t = Math.floor(Date.now() / 1000),
	style: DeliverySignatureStyle = 'v1',
): { body: object; headers: Record<string, string> } {
	const id = String((body as IDataObject).id ?? 'dlv_test');
	return { body, headers: deliverySignatureHeaders(style, secret, t, id, JSON.stringify(body)) };
}

/** A final event's delivery body about `documentId`. */
export function finalEvent(documentId: string, extra: IDataObject = {}): IDataObject {
	return {
		id: `dlv_${Math.random().toString(36).slice(2)}`,
		event: 'document.completed',
		created_at: new Date().toISOString(),
		data: { document: { id: documentId, status: 'completed' } },
		...extra,
	};
}

export function sendAndWaitKit(sandbox: () => Sandbox) {
	const hosts: WaitingHost[] = [];
	afterAll(async () => {
		await Promise.all(hosts.map(async (host) => await host.close()));
	});

	const kit = {
		async newHost(
			apiKey: string,
			options: { workflowId?: string; nodeType?: string; baseUrl?: string } = {},
		): Promise<WaitingHost> {
			const host = new WaitingHost(
				{ baseUrl: options.baseUrl ?? sandbox().baseUrl, apiKey },
				options.workflowId,
				options.nodeType,
			);
			await host.start();
			hosts.push(host);
			return host;
		},
		webhooksOf: (apiKey: string) => sandbox().store.webhooksOf(apiKey),
		documentOf(apiKey: string, documentId: string): IDataObject {
			const found = sandbox()
				.store.documentsOf(apiKey)
				.find((document) => String(document.id) === documentId);
			if (!found) throw new Error(`no document ${documentId}`);
			return found as unknown as IDataObject;
		},
		/** The document a waiting run sent (its output while it waits). */
		documentIdOf: (execution: WaitingExecution) => String(execution.items[0]?.json.id),
		signerIdsOf: (apiKey: string, documentId: string): string[] =>
			(kit.documentOf(apiKey, documentId).signers as IDataObject[]).map((signer) =>
				String(signer.id),
			),
		signAll(apiKey: string, documentId: string): void {
			for (const signerId of kit.signerIdsOf(apiKey, documentId))
				sandbox().actAsSigner(documentId, signerId, 'sign');
		},
		decline(apiKey: string, documentId: string): void {
			sandbox().actAsSigner(documentId, kit.signerIdsOf(apiKey, documentId)[0], 'decline', 'No');
		},
		/** Waits until the run that follows a resume has finished. */
		async resumed(execution: WaitingExecution, resumes = 1): Promise<void> {
			await waitFor(
				() => execution.resumes >= resumes && execution.finished !== undefined,
				'the execution to resume',
			);
			await execution.finished;
		},
		/**
		 * A run that waits, whose document was then signed while n8n could not be reached: the
		 * service's own deliveries missed it, so the test's calls are the only ones.
		 */
		async missedCompletion(
			apiKey: string,
			host: WaitingHost,
			parameters: INodeParameters = sendAndWait(),
		) {
			const execution = await host.run({ parameters });
			const documentId = kit.documentIdOf(execution);
			const registration = kit.registration(apiKey, host, execution);
			host.unavailable = true;
			kit.signAll(apiKey, documentId);
			await sandbox().flushDeliveries();
			host.unavailable = false;
			return { execution, documentId, ...registration };
		},
		/** The wait's webhook at the service whose URL points at this execution, and its secret. */
		registration(apiKey: string, host: WaitingHost, execution: WaitingExecution) {
			const webhook = kit
				.webhooksOf(apiKey)
				.find((candidate) =>
					candidate.url.startsWith(`${host.origin}/webhook-waiting/${execution.id}/`),
				);
			if (!webhook) throw new Error(`no webhook for execution ${execution.id}`);
			// The secret the service signs the wait's deliveries with.
			const secret = webhookSecret(sandbox(), apiKey, String(webhook.id)) as string;
			return { webhook, url: webhook.url, secret };
		},
	};
	return kit;
}

/** One sandbox for the file (deliveries retried quickly) and the kit around it. */
export function useSendAndWait() {
	const sandbox = useSandbox({
		port: 0,
		host: '127.0.0.1',
		webhookRetry: { baseDelayMs: 5, maxAttempts: 3, timeoutMs: 5000 },
	});
	return { sandbox, kit: sendAndWaitKit(sandbox) };
}
