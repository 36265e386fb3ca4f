/**
 * Document › Send and Wait for Signature, execute(): what a run sends, registers and keeps before
 * the execution waits, through n8n-core's real WorkflowExecute (test/helpers/waitingExecutions.ts)
 * against the sandbox. What a call to the wait does is webhook.test.ts's; the cleanup of earlier
 * waits' webhooks is waitWebhooks.test.ts's.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { DocumentSigning } from '../../../../../../nodes/DocumentSigning/DocumentSigning.node';
import { ownerTag, registrationNote } from '../../../../../../nodes/shared/webhooks';
import { n8nAssignsExecute } from '../../../../../helpers/n8nHost';
import { startRewritingProxy } from '../../../../../helpers/rewritingProxy';
import { post, sendAndWait, useSendAndWait, signers } from '../../../../../helpers/sendAndWaitKit';
import { REVIEW_GATE_TYPE, WAIT_NODE_ID } from '../../../../../helpers/waitingExecutions';

const { sandbox, kit } = useSendAndWait();
const { newHost, webhooksOf, documentIdOf, resumed } = kit;
const account = () => sandbox().createAccount();
const documentsOf = (apiKey: string) => sandbox().store.documentsOf(apiKey);

describe('a new document', () => {
	it('is sent, the execution waits, and signing resumes it once with the document as the service reports it; its webhook is removed', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({
			parameters: sendAndWait({ additionalFields: { message: 'Please sign' } }),
			items: [{ json: { dealId: 'D-1' } }],
		});

		expect(execution.error).toBeUndefined();
		expect(execution.status).toBe('waiting');
		const documentId = documentIdOf(execution);
		expect(kit.documentOf(apiKey, documentId)).toMatchObject({
			name: 'nda.pdf',
			status: 'pending',
			message: 'Please sign',
		});

		// One webhook, for every final event (a decline ends a Completed wait too), at this
		// execution's signed resume URL; its owner tag (the trigger's) in the description and URL.
		const webhooks = webhooksOf(apiKey);
		expect(webhooks).toHaveLength(1);
		expect(webhooks[0].events).toEqual([
			'document.completed',
			'document.declined',
			'document.expired',
			'document.cancelled',
		]);
		const url = new URL(webhooks[0].url);
		expect(`${url.origin}${url.pathname}`).toBe(
			`${host.origin}/webhook-waiting/${execution.id}/${WAIT_NODE_ID}`,
		);
		const owner = ownerTag(host.workflowId, WAIT_NODE_ID);
		expect(url.searchParams.get('owner')).toBe(owner);
		expect(registrationNote(webhooks[0].description)?.owner).toBe(owner);
		expect(url.searchParams.has('workflow')).toBe(false);
		expect(url.searchParams.has('instance')).toBe(false);
		expect(url.searchParams.get('until')).toBe('');
		expect(url.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
		// The wait n8n keeps with the execution: its nonce (the URL's) and its webhook.
		expect(JSON.parse(execution.customData.documentSigningWait)).toEqual({
			n: url.searchParams.get('nonce'),
			w: webhooks[0].id,
		});

		kit.signAll(apiKey, documentId);
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
		// What n8n's human-review gate reads (docs/ai-agents.md): signed is approved.
		expect(output.approved).toBe(true);
		expect(execution.items[0].pairedItem).toEqual({ item: 0 });
		expect(execution.after).toHaveLength(1);
		expect(webhooksOf(apiKey)).toHaveLength(0);
	});

	it('Attach Signed File adds the signed PDF under the chosen field', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({
			parameters: sendAndWait({
				waitOptions: { attachSignedFile: true, binaryPropertyName: 'signed' },
			}),
		});
		const documentId = documentIdOf(execution);
		kit.signAll(apiKey, documentId);
		await resumed(execution);

		const binary = execution.items[0].binary?.signed;
		const expected = await sandbox().documentFile(documentId, 'signed');
		expect(Buffer.from(binary!.data, 'base64').equals(expected.data)).toBe(true);
		expect(binary!.mimeType).toBe('application/pdf');
	});

	it('each run of the node in one execution (a loop) sends its own document', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: sendAndWait(), loops: 2 });
		const first = documentIdOf(execution);
		kit.signAll(apiKey, first);
		await resumed(execution);
		expect(execution.status).toBe('waiting');
		const second = documentIdOf(execution);
		expect(second).not.toBe(first);
		expect(kit.documentOf(apiKey, first).status).toBe('completed');
		expect(kit.documentOf(apiKey, second).status).toBe('pending');
		expect(documentsOf(apiKey)).toHaveLength(2);
	});
});

describe('keeping the wait with the execution', () => {
	it('an execution whose custom data is full (10 keys) is refused before the document goes out; nothing is left behind', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: sendAndWait(), customDataKeys: 10 });
		expect(execution.status).toBe('error');
		expect(execution.error?.message).toBe(
			'Send and Wait for Signature could not keep this wait with the execution: the execution already holds 10 custom data keys',
		);
		// The draft and its webhook were removed again; nothing was sent.
		expect(documentsOf(apiKey)).toEqual([]);
		expect(webhooksOf(apiKey)).toEqual([]);
	});

	it('nine keys of the workflow’s own leave room for the wait', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: sendAndWait(), customDataKeys: 9 });
		expect(execution.status).toBe('waiting');
	});
});

describe('the time limit', () => {
	it('the wait ends at the limit; n8n passes the node’s input on unchanged (no node code runs then)', async () => {
		const { apiKey } = account();
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
		// The limit travels in the URL, so a later run's cleanup knows it from the URL alone.
		expect(new URL(webhooksOf(apiKey)[0].url).searchParams.get('until')).toBe(String(waitTill));

		await host.timeOut(execution);
		expect(execution.status).toBe('success');
		expect(execution.items.map((item) => item.json)).toEqual([{ dealId: 'D-7' }]);
	});
});

describe('as the human-review gate n8n generates for AI agents (…HitlTool)', () => {
	const gateMessage = 'The agent wants to run this tool: Create_Document';

	it('sends the gate’s Message to the approver and resumes on a decline too: not approved', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey, { nodeType: REVIEW_GATE_TYPE });
		const execution = await host.run({ parameters: sendAndWait({ message: gateMessage }) });
		const documentId = documentIdOf(execution);
		expect(kit.documentOf(apiKey, documentId)).toMatchObject({ message: gateMessage });
		expect(webhooksOf(apiKey)[0].events).toContain('document.declined');

		kit.decline(apiKey, documentId);
		await resumed(execution);
		expect(execution.items[0].json).toMatchObject({
			id: documentId,
			status: 'declined',
			approved: false,
		});
	});

	it('keeps Additional Fields › Message and an explicit Resume On › Completed', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey, { nodeType: REVIEW_GATE_TYPE });
		const execution = await host.run({
			parameters: sendAndWait({
				message: gateMessage,
				additionalFields: { message: 'Please approve the Acme NDA' },
				waitOptions: { resumeOn: 'completed' },
			}),
		});
		const documentId = documentIdOf(execution);
		expect(kit.documentOf(apiKey, documentId)).toMatchObject({
			message: 'Please approve the Acme NDA',
		});
		kit.signAll(apiKey, documentId);
		await resumed(execution);
		expect(execution.items[0].json).toMatchObject({ status: 'completed', approved: true });
	});

	it('called by AI Agent 3 (a toolCallId) in a workflow whose Execution Order is not v1: fails naming the fix, before any request', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey, { nodeType: REVIEW_GATE_TYPE });
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
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: sendAndWait({ message: gateMessage }) });
		expect(kit.documentOf(apiKey, documentIdOf(execution)).message ?? null).toBeNull();
	});
});

describe('an existing draft', () => {
	it('is sent and waited for', async () => {
		const { apiKey } = account();
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
		expect(kit.documentOf(apiKey, draftId).status).toBe('pending');
		kit.signAll(apiKey, draftId);
		await resumed(execution);
		expect(execution.items[0].json).toMatchObject({ id: draftId, status: 'completed' });
	});

	it('a document that is no draft fails with the service’s answer, and no webhook is left', async () => {
		const { apiKey } = account();
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
		expect(kit.documentOf(apiKey, String((sent.body as IDataObject).id)).status).toBe('pending');
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

describe('the node as n8n loads it', () => {
	it('has a plain webhook(), and n8n still gives it the execute() that runs its routed operations', () => {
		const node = new DocumentSigning();
		expect(typeof node.webhook).toBe('function');
		expect((node as { execute?: unknown }).execute).toBeUndefined();
		// n8n's NodeTypes (e2e/harnessParity.e2e.test.ts checks this rule against the installed n8n).
		expect(n8nAssignsExecute(node)).toBe(true);
	});
});

describe('version 2: one document per input item, one wait for the batch', () => {
	const pdf = {
		data: Buffer.from('%PDF-1.7 test').toString('base64'),
		mimeType: 'application/pdf',
	};
	const named = (...names: string[]) =>
		names.map((name) => ({ json: { name }, binary: { data: { ...pdf, fileName: 'nda.pdf' } } }));
	const batch = (extra: INodeParameters = {}) =>
		sendAndWait({ name: '={{ $json.name }}', ...extra });
	/**
	 * A proxy in front of the sandbox that makes the `nth` request matching `route` fail with 501 (not retried)
	 * (before the sandbox acts on it); `sent` collects the documents of the sends that succeeded.
	 */
	async function failingAt(route: RegExp, nth: number) {
		let seen = 0;
		let failing = false;
		const sent: string[] = [];
		const proxy = await startRewritingProxy(
			sandbox().origin,
			(request, answer) => {
				if (failing) sandbox().configure({ failureRate: 0 });
				failing = false;
				if (answer.status < 300 && request.path.endsWith('/signatures/request'))
					sent.push(String(JSON.parse(answer.body).document_id));
				return undefined;
			},
			({ method, path }) => {
				if (!route.test(`${method} ${path}`) || ++seen !== nth) return;
				failing = true;
				sandbox().configure({ failureRate: 1, failureStatuses: [501] });
			},
		);
		return { ...proxy, sent };
	}

	it('sends one document per item and waits once; the output is one item per input item, in order', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({
			parameters: batch(),
			items: named('a.pdf', 'b.pdf', 'c.pdf'),
			typeVersion: 2,
		});
		expect(execution.status).toBe('waiting');
		const ids = execution.items.map((item) => String(item.json.id));
		expect(execution.items.map((item) => item.json.name)).toEqual(['a.pdf', 'b.pdf', 'c.pdf']);
		expect(new Set(ids).size).toBe(3);
		const webhooks = webhooksOf(apiKey);
		expect(webhooks).toHaveLength(1);
		expect(new URL(webhooks[0].url).searchParams.get('documents')).toBe(ids.join(','));

		kit.signAll(apiKey, ids[2]);
		kit.decline(apiKey, ids[1]);
		await sandbox().flushDeliveries();
		expect(execution.status).toBe('waiting');
		kit.signAll(apiKey, ids[0]);
		await resumed(execution);
		expect(execution.resumes).toBe(1);
		expect(execution.items.map((item) => [item.json.id, item.json.approved])).toEqual([
			[ids[0], true],
			[ids[1], false],
			[ids[2], true],
		]);
		expect(execution.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		expect(webhooksOf(apiKey)).toHaveLength(0);
	});

	it('an invalid third item sends nothing, naming the item', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const requestsBefore = sandbox().stats().requests;
		const execution = await host.run({
			parameters: batch(),
			items: named('a.pdf', 'b.pdf', ''),
			typeVersion: 2,
		});
		expect(execution.status).toBe('error');
		expect(execution.error?.message).toContain('Name');
		expect(sandbox().stats().requests).toBe(requestsBefore);
	});

	it('101 items are refused before any request, saying how to split them', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const requestsBefore = sandbox().stats().requests;
		const execution = await host.run({
			parameters: batch(),
			items: named(...Array.from({ length: 101 }, () => 'nda.pdf')),
			typeVersion: 2,
		});
		expect(execution.error?.message).toBe(
			'Send and Wait for Signature takes at most 100 items per execution, and received 101',
		);
		expect(execution.error?.description).toContain('Loop Over Items node with a batch size of 100');
		expect(sandbox().stats().requests).toBe(requestsBefore);
	});

	it('a create answer lost once still makes one document per item (the retry carries the same key)', async () => {
		const { apiKey } = account();
		let lost = false;
		const proxy = await startRewritingProxy(sandbox().origin, (request) => {
			if (lost || request.method !== 'POST' || !/\/documents$/.test(request.path)) return undefined;
			lost = true;
			return 'reset';
		});
		try {
			const host = await newHost(apiKey, { baseUrl: proxy.baseUrl });
			const execution = await host.run({
				parameters: batch(),
				items: named('a.pdf', 'b.pdf'),
				typeVersion: 2,
			});
			expect(lost).toBe(true);
			expect(execution.status).toBe('waiting');
			expect(
				documentsOf(apiKey)
					.map((document) => document.name)
					.sort(),
			).toEqual(['a.pdf', 'b.pdf']);
		} finally {
			await proxy.close();
		}
	});

	it('a create failure without Continue On Fail leaves nothing at the service', async () => {
		const { apiKey } = account();
		const proxy = await failingAt(/^POST \/v1\/documents$/, 2);
		try {
			const host = await newHost(apiKey, { baseUrl: proxy.baseUrl });
			const execution = await host.run({
				parameters: batch(),
				items: named('a.pdf', 'b.pdf', 'c.pdf'),
				typeVersion: 2,
			});
			expect(execution.status).toBe('error');
			expect(documentsOf(apiKey)).toHaveLength(0);
			expect(webhooksOf(apiKey)).toHaveLength(0);
		} finally {
			await proxy.close();
		}
	});

	it('a send failure halfway cancels the documents already sent, names them, and removes the webhook', async () => {
		const { apiKey } = account();
		const proxy = await failingAt(/^POST \/v1\/signatures\/request$/, 2);
		try {
			const host = await newHost(apiKey, { baseUrl: proxy.baseUrl });
			const execution = await host.run({
				parameters: batch(),
				items: named('a.pdf', 'b.pdf', 'c.pdf'),
				typeVersion: 2,
			});
			expect(execution.status).toBe('error');
			expect(proxy.sent).toHaveLength(1);
			expect(execution.error?.description).toContain(
				`Cancelled the documents already sent: ${proxy.sent[0]}.`,
			);
			expect(documentsOf(apiKey)).toHaveLength(0);
			expect(webhooksOf(apiKey)).toHaveLength(0);
		} finally {
			await proxy.close();
		}
	});

	it('with Continue On Fail a failed item is its error item, paired with it, and the others wait', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({
			parameters: batch(),
			items: named('a.pdf', '', 'c.pdf'),
			typeVersion: 2,
			continueOnFail: true,
		});
		expect(execution.status).toBe('waiting');
		expect(documentsOf(apiKey)).toHaveLength(2);
		const [first, , third] = execution.items.map((item) => String(item.json.id));
		kit.signAll(apiKey, first);
		kit.signAll(apiKey, third);
		await resumed(execution);
		expect(execution.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		expect(execution.items.map((item) => item.json.approved)).toEqual([true, undefined, true]);
		expect(execution.items[1].json.error).toBe('No document was sent for this item');
	});

	it('a single item makes the same requests as version 1, with a document-filtered webhook', async () => {
		const routesOf = async (typeVersion: number) => {
			const { apiKey } = account();
			const host = await newHost(apiKey);
			const before = { ...sandbox().stats().routes };
			const execution = await host.run({
				parameters: typeVersion === 1 ? sendAndWait() : batch(),
				items: named('nda.pdf'),
				typeVersion,
			});
			const after = sandbox().stats().routes;
			const documentId = documentIdOf(execution);
			expect(webhooksOf(apiKey)[0]).toMatchObject({ document_id: documentId });
			expect(new URL(webhooksOf(apiKey)[0].url).searchParams.get('document')).toBe(documentId);
			return Object.fromEntries(
				Object.entries(after)
					.map(([route, count]) => [route, count - (before[route] ?? 0)])
					.filter(([, count]) => count !== 0),
			);
		};
		expect(await routesOf(2)).toEqual(await routesOf(1));
	});
});
