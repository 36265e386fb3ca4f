/**
 * Document › Send and Wait for Signature through n8n-core's real WorkflowExecute and
 * WebhookContext (test/helpers/waitingExecutions.ts), against the sandbox, whose deliveries reach
 * a 127.0.0.1 stand-in for n8n's waiting-webhook endpoint.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { DocumentSigning } from '../../../../../../nodes/DocumentSigning/DocumentSigning.node';
import { derivedSecret } from '../../../../../../nodes/shared/webhookSecret';
import { signWebhookPayload } from '../../../../../../sandbox/deliverySignature';
import { useSandbox, waitFor } from '../../../../../helpers/sandbox';
import {
	REVIEW_GATE_TYPE,
	WAIT_NODE_ID,
	WaitingHost,
	type WaitingExecution,
} from '../../../../../helpers/waitingExecutions';

const sandbox = useSandbox({
	port: 0,
	host: '127.0.0.1',
	webhookRetry: { baseDelayMs: 5, maxAttempts: 3, timeoutMs: 5000 },
});

const signers = {
	signer: [
		{ email: 'ada@example.com', name: 'Ada Lovelace' },
		{ email: 'alan@example.com', name: 'Alan Turing' },
	],
};
const sendAndWait = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'document',
	operation: 'sendAndWait',
	name: 'nda.pdf',
	signers,
	...extra,
});

const hosts: WaitingHost[] = [];
async function newHost(
	apiKey: string,
	workflowId?: string,
	nodeType?: string,
): Promise<WaitingHost> {
	const host = new WaitingHost({ baseUrl: sandbox().baseUrl, apiKey }, workflowId, nodeType);
	await host.start();
	hosts.push(host);
	return host;
}
afterAll(async () => {
	await Promise.all(hosts.map(async (host) => await host.close()));
});

function account() {
	return sandbox().createAccount();
}

const webhooksOf = (apiKey: string) => sandbox().store.webhooksOf(apiKey);
const documentsOf = (apiKey: string) => sandbox().store.documentsOf(apiKey);
const documentIdOf = (execution: WaitingExecution) => String(execution.items[0]?.json.id);

function signAll(documentId: string): void {
	const record = sandboxDocument(documentId);
	for (const signer of record.signers as IDataObject[])
		sandbox().actAsSigner(documentId, String(signer.id), 'sign');
}

let currentKey = '';
function sandboxDocument(documentId: string): IDataObject {
	const found = documentsOf(currentKey).find((document) => String(document.id) === documentId);
	if (!found) throw new Error(`no document ${documentId}`);
	return found as unknown as IDataObject;
}

async function resumed(execution: WaitingExecution): Promise<void> {
	// A promise as the polled value would be awaited by waitFor itself: poll for its presence.
	await waitFor(() => execution.finished !== undefined, 'the execution to resume');
	await execution.finished;
}

/** The URL the wait registered, and the secret the node derives for it. */
function registration(apiKey: string, host: WaitingHost) {
	const [webhook] = webhooksOf(apiKey);
	const url = new URL(webhook.url);
	const secret = derivedSecret({
		apiKey,
		workflowId: host.workflowId,
		nodeId: WAIT_NODE_ID,
		nonce: url.searchParams.get('nonce')!,
	});
	return { webhook, url: webhook.url, secret };
}

async function post(
	url: string,
	body: object,
	headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body: JSON.stringify(body),
	});
	return { status: response.status, body: await response.json().catch(() => undefined) };
}

function signed(
	secret: string,
	body: object,
	t = Math.floor(Date.now() / 1000),
): { body: object; headers: Record<string, string> } {
	return { body, headers: { 'x-signature': signWebhookPayload(secret, t, JSON.stringify(body)) } };
}

describe('a new document', () => {
	it('is sent, the execution waits, and signing resumes it once with the document as the service reports it; its webhook is removed', async () => {
		const { apiKey } = account();
		currentKey = apiKey;
		const host = await newHost(apiKey);
		const execution = await host.run({
			parameters: sendAndWait({ additionalFields: { message: 'Please sign' } }),
			items: [{ json: { dealId: 'D-1' } }],
		});

		expect(execution.error).toBeUndefined();
		expect(execution.status).toBe('waiting');
		const documentId = documentIdOf(execution);
		const document = sandboxDocument(documentId);
		expect(document).toMatchObject({ name: 'nda.pdf', status: 'pending', message: 'Please sign' });

		// One webhook, for this document's completion, at this execution's signed resume URL.
		const webhooks = webhooksOf(apiKey);
		expect(webhooks).toHaveLength(1);
		expect(webhooks[0].events).toEqual(['document.completed']);
		expect(
			webhooks[0].url.startsWith(`${host.origin}/webhook-waiting/${execution.id}/${WAIT_NODE_ID}?`),
		).toBe(true);
		expect(webhooks[0].description).toMatch(
			new RegExp(`^n8n Send and Wait · workflow ${host.workflowId} · instance \\S+ · until none$`),
		);

		signAll(documentId);
		await resumed(execution);

		expect(execution.resumes).toBe(1);
		expect(execution.status).toBe('success');
		expect(execution.items).toHaveLength(1);
		const output = execution.items[0].json;
		expect(output).toMatchObject({ id: documentId, status: 'completed' });
		expect((output.signers as IDataObject[]).map((signer) => signer.status)).toEqual([
			'signed',
			'signed',
		]);
		expect(output.timedOut).toBeUndefined();
		// What n8n's human-review gate reads (docs/ai-agents.md): signed is approved.
		expect(output.approved).toBe(true);
		expect(execution.items[0].pairedItem).toEqual({ item: 0 });
		expect(webhooksOf(apiKey)).toHaveLength(0);
	});

	it('Attach Signed File adds the signed PDF under the chosen field', async () => {
		const { apiKey } = account();
		currentKey = apiKey;
		const host = await newHost(apiKey);
		const execution = await host.run({
			parameters: sendAndWait({
				waitOptions: { attachSignedFile: true, binaryPropertyName: 'signed' },
			}),
		});
		const documentId = documentIdOf(execution);
		signAll(documentId);
		await resumed(execution);

		const binary = execution.items[0].binary?.signed;
		expect(binary).toBeDefined();
		const expected = await sandbox().documentFile(documentId, 'signed');
		expect(Buffer.from(binary!.data, 'base64').equals(expected.data)).toBe(true);
		expect(binary!.mimeType).toBe('application/pdf');
	});
});

describe('Resume On', () => {
	it('Completed: a decline does not resume the wait', async () => {
		const { apiKey } = account();
		currentKey = apiKey;
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: sendAndWait() });
		const documentId = documentIdOf(execution);
		const signer = (sandboxDocument(documentId).signers as IDataObject[])[0];
		sandbox().actAsSigner(documentId, String(signer.id), 'decline', 'Wrong amount');
		await sandbox().flushDeliveries();

		expect(execution.status).toBe('waiting');
		expect(execution.resumes).toBe(0);
		expect(webhooksOf(apiKey)).toHaveLength(1);
	});

	it('Any Final State: a decline resumes the wait with the declined document', async () => {
		const { apiKey } = account();
		currentKey = apiKey;
		const host = await newHost(apiKey);
		const execution = await host.run({
			parameters: sendAndWait({ waitOptions: { resumeOn: 'anyFinal', attachSignedFile: true } }),
		});
		expect(webhooksOf(apiKey)[0].events).toEqual([
			'document.completed',
			'document.declined',
			'document.expired',
			'document.cancelled',
		]);
		const documentId = documentIdOf(execution);
		const signer = (sandboxDocument(documentId).signers as IDataObject[])[1];
		sandbox().actAsSigner(documentId, String(signer.id), 'decline', 'Wrong amount');
		await resumed(execution);

		expect(execution.resumes).toBe(1);
		expect(execution.items[0].json).toMatchObject({
			id: documentId,
			status: 'declined',
			approved: false,
		});
		// A declined document has no signed file.
		expect(execution.items[0].binary).toBeUndefined();
		expect(webhooksOf(apiKey)).toHaveLength(0);
	});
});

describe('as the human-review gate n8n generates for AI agents (…HitlTool)', () => {
	const gateMessage = 'The agent wants to run this tool: Create_Document';

	it('sends the gate’s Message to the approver and resumes on a decline too: not approved', async () => {
		const { apiKey } = account();
		currentKey = apiKey;
		const host = await newHost(apiKey, undefined, REVIEW_GATE_TYPE);
		const execution = await host.run({ parameters: sendAndWait({ message: gateMessage }) });
		const documentId = documentIdOf(execution);
		expect(sandboxDocument(documentId)).toMatchObject({ message: gateMessage });
		expect(webhooksOf(apiKey)[0].events).toContain('document.declined');

		const signer = (sandboxDocument(documentId).signers as IDataObject[])[0];
		sandbox().actAsSigner(documentId, String(signer.id), 'decline', 'Not this customer');
		await resumed(execution);
		expect(execution.items[0].json).toMatchObject({
			id: documentId,
			status: 'declined',
			approved: false,
		});
	});

	it('keeps Additional Fields › Message and an explicit Resume On › Completed', async () => {
		const { apiKey } = account();
		currentKey = apiKey;
		const host = await newHost(apiKey, undefined, REVIEW_GATE_TYPE);
		const execution = await host.run({
			parameters: sendAndWait({
				message: gateMessage,
				additionalFields: { message: 'Please approve the Acme NDA' },
				waitOptions: { resumeOn: 'completed' },
			}),
		});
		const documentId = documentIdOf(execution);
		expect(sandboxDocument(documentId)).toMatchObject({ message: 'Please approve the Acme NDA' });
		expect(webhooksOf(apiKey)[0].events).toEqual(['document.completed']);
		signAll(documentId);
		await resumed(execution);
		expect(execution.items[0].json).toMatchObject({ status: 'completed', approved: true });
	});

	it('called by AI Agent 3 (a toolCallId) in a workflow whose Execution Order is not v1: fails naming the fix, before any request', async () => {
		const { apiKey } = account();
		currentKey = apiKey;
		const host = await newHost(apiKey, undefined, REVIEW_GATE_TYPE);
		const execution = await host.run({
			parameters: sendAndWait({ message: gateMessage }),
			items: [{ json: { chatInput: 'Send the NDA', toolCallId: 'call_1' } }],
		});
		expect(execution.status).toBe('error');
		expect(execution.error?.message).toBe(
			'This workflow\'s Execution Order must be "v1 (recommended)" for an AI Agent to read this tool\'s results',
		);
		expect(sandbox().store.documentsOf(apiKey)).toEqual([]);
		expect(webhooksOf(apiKey)).toEqual([]);
	});

	it('as the node itself, ignores a Message parameter (only the gate has one)', async () => {
		const { apiKey } = account();
		currentKey = apiKey;
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: sendAndWait({ message: gateMessage }) });
		expect(sandboxDocument(documentIdOf(execution)).message ?? null).toBeNull();
		expect(webhooksOf(apiKey)[0].events).toEqual(['document.completed']);
	});
});

describe('an existing draft', () => {
	it('is sent and waited for', async () => {
		const { apiKey } = account();
		currentKey = apiKey;
		const host = await newHost(apiKey);
		const draft = await post(
			`${sandbox().baseUrl}/documents`,
			{ name: 'draft.pdf', signers: signers.signer, draft: true },
			{ authorization: `Bearer ${apiKey}` },
		);
		const draftId = String((draft.body as IDataObject).id);
		const execution = await host.run({
			parameters: {
				resource: 'document',
				operation: 'sendAndWait',
				documentSource: 'draft',
				waitDocumentId: { __rl: true, mode: 'id', value: draftId },
			},
		});

		expect(execution.status).toBe('waiting');
		expect(sandboxDocument(draftId).status).toBe('pending');
		signAll(draftId);
		await resumed(execution);
		expect(execution.items[0].json).toMatchObject({ id: draftId, status: 'completed' });
	});

	it('a document that is no draft fails with the service’s answer, and no webhook is left', async () => {
		const { apiKey } = account();
		currentKey = apiKey;
		const host = await newHost(apiKey);
		const sent = await post(
			`${sandbox().baseUrl}/documents`,
			{ name: 'sent.pdf', signers: signers.signer },
			{ authorization: `Bearer ${apiKey}` },
		);
		const execution = await host.run({
			parameters: {
				resource: 'document',
				operation: 'sendAndWait',
				documentSource: 'draft',
				waitDocumentId: { __rl: true, mode: 'id', value: String((sent.body as IDataObject).id) },
			},
		});

		expect(execution.status).toBe('error');
		expect(execution.error?.httpCode).toBe('409');
		expect(webhooksOf(apiKey)).toHaveLength(0);
		// The user's document is left alone.
		expect(sandboxDocument(String((sent.body as IDataObject).id)).status).toBe('pending');
	});
});

describe('calls that must not resume a wait', () => {
	let apiKey: string;
	let host: WaitingHost;
	let execution: WaitingExecution;
	let documentId: string;
	let url: string;
	let secret: string;

	beforeAll(async () => {
		({ apiKey } = account());
		currentKey = apiKey;
		host = await newHost(apiKey);
		execution = await host.run({
			parameters: sendAndWait({ waitOptions: { resumeOn: 'anyFinal' } }),
		});
		documentId = documentIdOf(execution);
		({ url, secret } = registration(apiKey, host));
	});

	const completedBody = (extra: IDataObject = {}) => ({
		id: `dlv_${Math.random().toString(36).slice(2)}`,
		event: 'document.completed',
		created_at: new Date().toISOString(),
		webhook_id: webhooksOf(apiKey)[0]?.id,
		data: { document: { id: documentId, status: 'completed' } },
		...extra,
	});

	it.each([
		['unsigned', () => ({ body: completedBody(), headers: {} })],
		['signed with another secret', () => signed('x'.repeat(64), completedBody())],
		[
			'signed long ago (a replay)',
			() => signed(secret, completedBody(), Math.floor(Date.now() / 1000) - 3600),
		],
		[
			'about another document',
			() =>
				signed(
					secret,
					completedBody({ data: { document: { id: 'doc_other', status: 'completed' } } }),
				),
		],
		[
			'of an event that is not final',
			() => signed(secret, completedBody({ event: 'document.signed' })),
		],
		['from another webhook', () => signed(secret, completedBody({ webhook_id: 'wh_other' }))],
		['saying "completed" while the service says pending', () => signed(secret, completedBody())],
	])('%s: answered 200, the execution keeps waiting', async (_name, make) => {
		const { body, headers } = make();
		const answer = await post(url, body, headers);
		expect(answer.status).toBe(200);
		expect(answer.body).toMatchObject({ received: true, ignored: true });
		expect(execution.status).toBe('waiting');
		expect(execution.resumes).toBe(0);
		expect(webhooksOf(apiKey)).toHaveLength(1);
	});

	it('a link whose query was changed is refused by n8n', async () => {
		const changed = new URL(url);
		changed.searchParams.set('document', 'doc_other');
		const answer = await post(changed.toString(), signed(secret, completedBody()).body);
		expect(answer.status).toBe(401);
	});

	it('after all of them, the real signing resumes the wait exactly once', async () => {
		signAll(documentId);
		await resumed(execution);
		expect(execution.resumes).toBe(1);
		expect(execution.items[0].json).toMatchObject({ id: documentId, status: 'completed' });
		// A later call finds the execution finished: n8n's "no action required" answer, no second resume.
		const late = await post(
			url,
			signed(secret, completedBody()).body,
			signed(secret, completedBody()).headers,
		);
		expect(late.status).toBe(200);
		expect(execution.resumes).toBe(1);
	});
});

describe('a document the service reports completed, whose delivery n8n missed', () => {
	it('resumes only on a delivery signed with the wait’s secret, recent, about its document and from its webhook', async () => {
		const { apiKey } = account();
		currentKey = apiKey;
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: sendAndWait() });
		const documentId = documentIdOf(execution);
		const { url, secret, webhook } = registration(apiKey, host);
		host.unavailable = true;
		signAll(documentId);
		await sandbox().flushDeliveries();
		host.unavailable = false;
		expect(sandboxDocument(documentId).status).toBe('completed');
		expect(execution.status).toBe('waiting');

		const body = (extra: IDataObject = {}) => ({
			id: 'dlv_late',
			event: 'document.completed',
			created_at: new Date().toISOString(),
			webhook_id: webhook.id,
			data: { document: { id: documentId } },
			...extra,
		});
		const refused = [
			{ body: body(), headers: {} },
			signed('y'.repeat(64), body()),
			signed(secret, body(), Math.floor(Date.now() / 1000) - 3600),
			signed(secret, body({ data: { document: { id: 'doc_other' } } })),
			signed(secret, body({ event: 'document.signed' })),
			signed(secret, body({ webhook_id: 'wh_other' })),
		];
		for (const call of refused) {
			const answer = await post(url, call.body, call.headers);
			expect({ status: answer.status, ignored: (answer.body as IDataObject)?.ignored }).toEqual({
				status: 200,
				ignored: true,
			});
		}
		expect(execution.status).toBe('waiting');
		expect(execution.resumes).toBe(0);

		// The service's own delivery, as its retry would send it.
		const real = signed(secret, body());
		expect((await post(url, real.body, real.headers)).status).toBe(200);
		await resumed(execution);
		expect(execution.resumes).toBe(1);
		expect(execution.items[0].json).toMatchObject({ id: documentId, status: 'completed' });
		expect(webhooksOf(apiKey)).toHaveLength(0);
	});
});

describe('dialects', () => {
	afterEach(() => {
		sandbox().configure({ dialect: 'default' });
	});

	it.each([
		['numeric-ids+items-links', {}],
		// The service ignores the secret the node sends and issues its own: kept sealed in custom data.
		['server-secret', {}],
		// Unsigned deliveries, no delivery endpoints, other error bodies, DELETE answers 200.
		['minimal', { verifySignature: false }],
	])('%s: signing resumes the wait once and removes its webhook', async (dialect, waitOptions) => {
		sandbox().configure({ dialect });
		const { apiKey } = account();
		currentKey = apiKey;
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: sendAndWait({ waitOptions }) });
		expect(execution.status).toBe('waiting');
		const stored = JSON.parse(execution.customData.documentSigningWait) as {
			webhookId: string;
			secret?: string;
		};
		expect(String(stored.webhookId)).toBe(String(webhooksOf(apiKey)[0].id));
		if (dialect === 'server-secret') {
			expect(stored.secret).toBeDefined();
			expect(stored.secret).not.toContain('whsec_');
		} else {
			expect(stored.secret).toBeUndefined();
		}
		const documentId = documentIdOf(execution);
		signAll(documentId);
		await resumed(execution);
		expect(execution.resumes).toBe(1);
		expect(String(execution.items[0].json.id)).toBe(documentId);
		expect(execution.items[0].json.status).toBe('completed');
		expect(webhooksOf(apiKey)).toHaveLength(0);
	});

	it('unsigned deliveries do not resume a wait that verifies signatures', async () => {
		sandbox().configure({ dialect: 'unsigned' });
		const { apiKey } = account();
		currentKey = apiKey;
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: sendAndWait() });
		signAll(documentIdOf(execution));
		await sandbox().flushDeliveries();
		expect(execution.calls.length).toBeGreaterThan(0);
		expect(execution.calls.every((call) => !call.resumed && call.status === 200)).toBe(true);
		expect(execution.status).toBe('waiting');
	});
});

describe('the time limit', () => {
	it('passes on the document as sent, marked timedOut, and the next run removes the webhook', async () => {
		const { apiKey } = account();
		currentKey = apiKey;
		const host = await newHost(apiKey);
		const before = Date.now();
		const execution = await host.run({
			parameters: sendAndWait({
				waitOptions: {
					limitWaitTime: {
						values: { limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'hours' },
					},
				},
			}),
			items: [{ json: { dealId: 'D-7' } }],
		});
		expect(execution.status).toBe('waiting');
		const waitTill = execution.waitTill!.getTime();
		expect(waitTill).toBeGreaterThanOrEqual(before + 2 * 3600_000);
		expect(waitTill).toBeLessThanOrEqual(Date.now() + 2 * 3600_000);
		const documentId = documentIdOf(execution);
		expect(webhooksOf(apiKey)[0].description).toContain(
			`until ${new Date(waitTill).toISOString()}`,
		);

		await host.timeOut(execution);
		expect(execution.status).toBe('success');
		expect(execution.items).toHaveLength(1);
		expect(execution.items[0].json).toMatchObject({
			id: documentId,
			status: 'pending',
			timedOut: true,
			approved: false,
		});
		expect(execution.items[0].json.dealId).toBeUndefined();

		// n8n told no node; the next Send and Wait of this workflow finds the execution ended.
		const next = await host.run({ parameters: sendAndWait() });
		expect(next.status).toBe('waiting');
		const left = webhooksOf(apiKey);
		expect(left).toHaveLength(1);
		expect(left[0].url).toContain(`/webhook-waiting/${next.id}/`);
	});
});

describe('waits past their time limit', () => {
	it('lose their webhook on the next run even when n8n cannot be asked about them', async () => {
		const { apiKey } = account();
		currentKey = apiKey;
		const host = await newHost(apiKey);
		const limited = await host.run({
			parameters: sendAndWait({
				waitOptions: {
					limitWaitTime: {
						values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'minutes' },
					},
				},
			}),
		});
		const unlimited = await host.run({ parameters: sendAndWait() });
		// n8n unreachable from itself: every probe fails, so only the limit can decide.
		host.unavailable = true;
		const realNow = Date.now.bind(Date);
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 10 * 60_000);
		let next: WaitingExecution;
		try {
			next = await host.run({ parameters: sendAndWait() });
		} finally {
			clock.mockRestore();
			host.unavailable = false;
		}
		expect(next.status).toBe('waiting');
		const urls = webhooksOf(apiKey).map((webhook) => webhook.url);
		const has = (execution: WaitingExecution) =>
			urls.some((u) => u.startsWith(`${host.origin}/webhook-waiting/${execution.id}/`));
		expect(has(limited)).toBe(false);
		expect(has(unlimited)).toBe(true);
		expect(has(next)).toBe(true);
	});
});

describe('waits whose execution was cancelled or deleted', () => {
	it('lose their webhook on the next run of the workflow; other workflows’ and other webhooks stay', async () => {
		const { apiKey } = account();
		currentKey = apiKey;
		const host = await newHost(apiKey);
		const otherWorkflow = await newHost(apiKey);
		const cancelled = await host.run({ parameters: sendAndWait() });
		const deleted = await host.run({ parameters: sendAndWait() });
		const stillWaiting = await host.run({ parameters: sendAndWait() });
		const otherWait = await otherWorkflow.run({ parameters: sendAndWait() });
		otherWorkflow.cancel(otherWait);
		const foreign = await post(
			`${sandbox().baseUrl}/webhooks`,
			{
				url: `${host.origin}/webhook-waiting/123/x`,
				events: ['document.completed'],
				description: 'someone else',
			},
			{ authorization: `Bearer ${apiKey}` },
		);
		expect(foreign.status).toBe(201);
		host.cancel(cancelled);
		host.delete(deleted);

		const next = await host.run({ parameters: sendAndWait() });
		expect(next.status).toBe('waiting');
		const urls = webhooksOf(apiKey).map((webhook) => webhook.url);
		const has = (execution: WaitingExecution, on: WaitingHost) =>
			urls.some((u) => u.startsWith(`${on.origin}/webhook-waiting/${execution.id}/`));
		expect(has(cancelled, host)).toBe(false);
		expect(has(deleted, host)).toBe(false);
		expect(has(stillWaiting, host)).toBe(true);
		expect(has(next, host)).toBe(true);
		expect(has(otherWait, otherWorkflow)).toBe(true);
		expect(urls).toContain(`${host.origin}/webhook-waiting/123/x`);
		// The probes did not disturb the wait that still runs.
		expect(stillWaiting.status).toBe('waiting');
		expect(stillWaiting.resumes).toBe(0);
	});
});

describe('waits started at the same moment', () => {
	it('keep each other’s webhooks: a run still inside execute() is answered 409 "running already" and is not taken for gone', async () => {
		const { apiKey } = account();
		currentKey = apiKey;
		const host = await newHost(apiKey);
		const starting = await host.run({ parameters: sendAndWait() });
		host.markRunning(starting);

		await host.run({ parameters: sendAndWait() });
		const urls = webhooksOf(apiKey).map((webhook) => webhook.url);
		expect(urls.some((u) => u.startsWith(`${host.origin}/webhook-waiting/${starting.id}/`))).toBe(
			true,
		);
	});
});

describe('bad input', () => {
	it.each([
		['no signers', { signers: {} }, 'Signers'],
		['Save as Draft', { additionalFields: { draft: true } }, 'Additional Fields › Save as Draft'],
		[
			'an Amount of 0',
			{
				waitOptions: {
					limitWaitTime: {
						values: { limitType: 'afterTimeInterval', resumeAmount: 0, resumeUnit: 'hours' },
					},
				},
			},
			'Options › Limit Wait Time › Amount',
		],
		[
			'a past Max Date and Time',
			{
				waitOptions: {
					limitWaitTime: {
						values: { limitType: 'atSpecifiedTime', maxDateAndTime: '2020-01-01T00:00:00Z' },
					},
				},
			},
			'Options › Limit Wait Time › Max Date and Time',
		],
		[
			'an empty signed file field',
			{ waitOptions: { attachSignedFile: true, binaryPropertyName: ' ' } },
			'Options › Put Signed File in Field',
		],
		[
			'a draft without ID',
			{ documentSource: 'draft', waitDocumentId: { __rl: true, mode: 'id', value: '' } },
			'Draft',
		],
	])('%s fails naming the parameter, before any request', async (_name, extra, parameter) => {
		const { apiKey } = account();
		currentKey = apiKey;
		const host = await newHost(apiKey);
		const requestsBefore = sandbox().stats().requests;
		const execution = await host.run({ parameters: sendAndWait(extra as INodeParameters) });
		expect(execution.status).toBe('error');
		expect(execution.error?.message).toContain(parameter);
		expect(sandbox().stats().requests).toBe(requestsBefore);
	});

	it('more than one item fails: one document per execution', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({
			parameters: sendAndWait(),
			items: [{ json: {} }, { json: {} }],
		});
		expect(execution.error?.message).toContain('one document per execution');
		expect(documentsOf(apiKey)).toHaveLength(0);
	});

	it('with Continue On Fail the error becomes the item’s output, paired with its input', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({
			parameters: sendAndWait({ additionalFields: { draft: true } }),
			continueOnFail: true,
		});
		expect(execution.status).toBe('success');
		expect(execution.items).toHaveLength(1);
		expect(String(execution.items[0].json.error)).toContain('Save as Draft');
		expect(execution.items[0].pairedItem).toEqual({ item: 0 });
	});
});

describe('the node’s webhook()', () => {
	it('is handed out to n8n’s webhook runner only: anywhere else the node is no webhook node', async () => {
		const node = new DocumentSigning();
		// As the execution engine and the node loader read it.
		expect(node.webhook).toBeUndefined();
		// As WebhookService.runWebhook reads it.
		const runWebhook = () => node.webhook;
		expect(runWebhook()).toBeInstanceOf(Function);
	});
});
