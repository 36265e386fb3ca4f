/**
 * What the Polling suites share (e2e/triggerPolling.e2e.test.ts, and its queue-mode run
 * e2e/queue/triggerPolling.queue.test.ts): the workflow, the item a poll gives for an audit-log
 * entry, and the 30 events on 5 documents they both make at the sandbox.
 */
import type { AuditLogEntry } from '../../contract';
import type { Sandbox } from '../../sandbox';
import {
	createDocument,
	sandboxPost,
	triggerNode,
	type CredentialRef,
	type WorkflowJson,
} from './workflows';

export const TRIGGER_NAME = 'Document Signing Trigger';

/** The trigger alone, polling every minute for any event. */
export function pollingWorkflow(
	name: string,
	credential: CredentialRef,
	webhookId?: string,
): WorkflowJson {
	return {
		name,
		nodes: [
			triggerNode(TRIGGER_NAME, {
				events: ['*'],
				credential,
				webhookId,
				parameters: { receiveEventsBy: 'polling', pollMinutes: 1 },
			}),
		],
		connections: {},
		settings: { executionOrder: 'v1' },
	};
}

/** The item a poll gives for an audit-log entry (the document as the service has it now). */
export function expectedItem(entry: AuditLogEntry) {
	const details = entry.details as { signer_id?: string; signature_request_id?: string };
	return {
		event: entry.event,
		eventId: entry.id,
		timestamp: entry.created_at,
		data: expect.objectContaining({
			document: expect.objectContaining({ id: entry.document_id }),
			...(details.signer_id ? { signer: expect.objectContaining({ id: details.signer_id }) } : {}),
			...(entry.event.startsWith('signature.')
				? { signature_request: expect.objectContaining({ id: details.signature_request_id }) }
				: {}),
		}),
	};
}

/** A document for two signers, Ann and Bo. */
export const twoSigners = (name: string) => ({
	name: `${name}.pdf`,
	signers: [
		{ email: `ann+${name}@example.com`, name: 'Ann Example' },
		{ email: `bo+${name}@example.com`, name: 'Bo Example' },
	],
});

export async function remind(sandbox: Sandbox, apiKey: string, requestId: string): Promise<void> {
	await sandboxPost(sandbox, apiKey, `/signatures/${requestId}/remind`, {});
}

export async function deleteDocument(
	sandbox: Sandbox,
	apiKey: string,
	documentId: string,
): Promise<void> {
	const response = await fetch(`${sandbox.baseUrl}/documents/${documentId}`, {
		method: 'DELETE',
		headers: { authorization: `Bearer ${apiKey}` },
		signal: AbortSignal.timeout(10_000),
	});
	if (response.status !== 204)
		throw new Error(`DELETE /documents/${documentId}: ${response.status} ${await response.text()}`);
}

/**
 * 30 webhook events on 5 documents of two signers: each created and sent (document.created,
 * signature.requested, document.sent: 15), then alpha signed by both (viewed, signed, viewed,
 * signed, completed), bravo reminded twice, charlie declined (viewed, declined), delta deleted
 * while pending (cancelled, deleted), echo opened by both, signed by one and reminded (viewed,
 * viewed, signed, reminded). Returns the documents as created.
 */
export async function thirtyEvents(
	sandbox: Sandbox,
	apiKey: string,
): Promise<Array<Record<string, any>>> {
	const made: Array<Record<string, any>> = [];
	for (const name of ['alpha', 'bravo', 'charlie', 'delta', 'echo'])
		made.push(await createDocument(sandbox, apiKey, twoSigners(name)));
	const [alpha, bravo, charlie, delta, echo] = made;
	sandbox.actAsSigner(alpha.id, alpha.signers[0].id, 'sign');
	sandbox.actAsSigner(alpha.id, alpha.signers[1].id, 'sign');
	await remind(sandbox, apiKey, bravo.signature_request_id);
	await remind(sandbox, apiKey, bravo.signature_request_id);
	sandbox.actAsSigner(charlie.id, charlie.signers[0].id, 'decline', 'Wrong price');
	await deleteDocument(sandbox, apiKey, delta.id);
	sandbox.actAsSigner(echo.id, echo.signers[0].id, 'view');
	sandbox.actAsSigner(echo.id, echo.signers[1].id, 'view');
	sandbox.actAsSigner(echo.id, echo.signers[0].id, 'sign');
	await remind(sandbox, apiKey, echo.signature_request_id);
	return made;
}
