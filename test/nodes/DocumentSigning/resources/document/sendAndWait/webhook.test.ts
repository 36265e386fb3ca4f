/**
 * Document › Send and Wait for Signature, webhook(): which calls to a wait's resume URL end the
 * wait, and that each wait ends once. n8n-core's real WorkflowExecute and WebhookContext
 * (test/helpers/waitingExecutions.ts) with the sandbox as the service; its deliveries reach a
 * 127.0.0.1 stand-in for n8n's waiting-webhook endpoint, which (as n8n does) routes every link of
 * the node to the execution's current wait.
 */
import type { IDataObject } from 'n8n-workflow';

import { waitOutput } from '../../../../../../nodes/DocumentSigning/resources/document/sendAndWait/webhook';
import { startRewritingProxy } from '../../../../../helpers/rewritingProxy';
import { api, waitFor } from '../../../../../helpers/sandbox';
import {
	finalEvent,
	post,
	sendAndWait,
	useSendAndWait,
	signed,
} from '../../../../../helpers/sendAndWaitKit';
import type { WaitingExecution, WaitingHost } from '../../../../../helpers/waitingExecutions';

const { sandbox, kit } = useSendAndWait();
const { newHost, webhooksOf, documentIdOf, resumed } = kit;
const account = () => sandbox().createAccount();

/** Answered, not resumed: the execution keeps waiting. */
function ignoredWith(reason: string) {
	return { status: 200, body: expect.objectContaining({ ignored: true, reason }) };
}

describe('each call is bound to its own wait', () => {
	it.each([
		[
			'Verify Signatures on: a retried delivery of the first document, validly signed, without webhook_id',
			true,
		],
		['Verify Signatures off: a made-up completion of the first document', false],
	])(
		'a loop waits twice at one node; %s, sent to the first wait’s link, cannot end the second',
		async (_name, verifySignature) => {
			const { apiKey } = account();
			const host = await newHost(apiKey);
			const execution = await host.run({
				parameters: sendAndWait({ waitOptions: { resumeOn: 'anyFinal', verifySignature } }),
				loops: 2,
			});
			const first = documentIdOf(execution);
			const firstWait = kit.registration(apiKey, host, execution);
			kit.signAll(apiKey, first);
			await resumed(execution);
			expect(execution.status).toBe('waiting');
			const second = documentIdOf(execution);
			expect(second).not.toBe(first);

			const replay = signed(firstWait.secret, finalEvent(first));
			const answer = await post(firstWait.url, replay.body, verifySignature ? replay.headers : {});
			expect(answer).toEqual(ignoredWith("a link of an earlier wait, or of another node's"));
			await sandbox().flushDeliveries();
			expect(execution.status).toBe('waiting');
			expect(execution.resumes).toBe(1);
			expect(kit.documentOf(apiKey, second).status).toBe('pending');
			// The second wait's own link still works.
			kit.signAll(apiKey, second);
			await resumed(execution, 2);
			expect(execution.status).toBe('success');
			expect(execution.items.map((item) => item.json.id)).toEqual([second]);
			expect(execution.after.flat().map((item) => item.json.id)).toEqual([first, second]);
		},
	);

	it('with Verify Signatures off, a body naming another webhook deletes nothing and ends nothing', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({
			parameters: sendAndWait({ waitOptions: { verifySignature: false } }),
		});
		const { url } = kit.registration(apiKey, host, execution);
		const other = await api(sandbox(), apiKey).post('/webhooks', {
			url: 'https://example.com/hook',
			events: ['document.completed'],
		});
		const answer = await post(
			url,
			finalEvent(documentIdOf(execution), { webhook_id: other.data.id }),
		);
		expect(answer).toEqual(ignoredWith("the delivery is not from this wait's webhook"));
		expect(webhooksOf(apiKey).map((webhook) => webhook.id)).toContain(other.data.id);
		expect(execution.status).toBe('waiting');
	});

	it('a call that is no event is ignored, telling nothing of the wait; the wait goes on', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: sendAndWait() });
		const { url } = kit.registration(apiKey, host, execution);
		const answer = await post(url, { hello: 'n8n-nodes-document-signing' });
		expect(answer).toEqual({
			status: 200,
			body: { received: true, ignored: true, reason: 'event (none) does not end a wait' },
		});
		expect(execution.status).toBe('waiting');
	});
});

describe('calls that do not end a wait', () => {
	let apiKey: string;
	let host: WaitingHost;
	let execution: WaitingExecution;
	let documentId: string;
	let url: string;
	let secret: string;
	let webhookId: string;

	beforeAll(async () => {
		({ apiKey } = account());
		host = await newHost(apiKey);
		execution = await host.run({
			parameters: sendAndWait({ waitOptions: { resumeOn: 'anyFinal' } }),
		});
		documentId = documentIdOf(execution);
		const registration = kit.registration(apiKey, host, execution);
		({ url, secret } = registration);
		webhookId = registration.webhook.id;
	});

	const body = (extra: IDataObject = {}) =>
		finalEvent(documentId, { webhook_id: webhookId, ...extra });

	it.each([
		[
			'unsigned',
			() => ({ body: body(), headers: {} }),
			'signature not valid (no layout: missing_header)',
		],
		[
			'signed with another secret',
			() => signed('x'.repeat(64), body()),
			'signature not valid (timestamped-header: signature_mismatch)',
		],
		[
			'signed long ago (a replay)',
			() => signed(secret, body(), Math.floor(Date.now() / 1000) - 3600),
			'signature not valid (timestamped-header: stale_timestamp)',
		],
		[
			'about another document',
			() => signed(secret, body({ data: { document: { id: 'doc_other' } } })),
			'the event is about another document',
		],
		[
			'of an event that is not final',
			() => signed(secret, body({ event: 'document.signed' })),
			'event document.signed does not end a wait',
		],
		[
			'from another webhook',
			() => signed(secret, body({ webhook_id: 'wh_other' })),
			"the delivery is not from this wait's webhook",
		],
		[
			'saying "completed" while the service says pending',
			() => signed(secret, body()),
			'the service reports the document pending',
		],
	])('%s: answered 200, the execution keeps waiting', async (_name, make, reason) => {
		const { body: payload, headers } = make();
		expect(await post(url, payload, headers)).toEqual(ignoredWith(reason));
		expect(execution.status).toBe('waiting');
		expect(execution.resumes).toBe(0);
		expect(webhooksOf(apiKey)).toHaveLength(1);
	});

	it('a link whose query was changed is refused by n8n', async () => {
		const changed = new URL(url);
		changed.searchParams.set('document', 'doc_other');
		expect((await post(changed.toString(), signed(secret, body()).body)).status).toBe(401);
	});

	it('after all of them, the real signing ends the wait exactly once', async () => {
		kit.signAll(apiKey, documentId);
		await resumed(execution);
		expect(execution.resumes).toBe(1);
		expect(execution.items[0].json).toMatchObject({ id: documentId, status: 'completed' });
		// A later call finds the execution finished: n8n's "no action required" answer, no second resume.
		const late = signed(secret, body());
		expect((await post(url, late.body, late.headers)).status).toBe(200);
		expect(execution.resumes).toBe(1);
	});
});

describe('each wait ends once', () => {
	it('two identical completions at the same moment (besides the service’s own): one resume, the next node runs once', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const { execution, documentId, url, secret, webhook } = await kit.missedCompletion(
			apiKey,
			host,
			sendAndWait(),
		);

		const delivery = signed(secret, finalEvent(documentId, { webhook_id: webhook.id }));
		const answers = await Promise.all([
			post(url, delivery.body, delivery.headers),
			post(url, delivery.body, delivery.headers),
		]);
		await resumed(execution);
		expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
		expect(answers.filter((answer) => (answer.body as IDataObject)?.resumed === true)).toHaveLength(
			1,
		);
		expect(execution.resumes).toBe(1);
		expect(execution.after).toHaveLength(1);
	});

	it('the service’s retry while the first call is still downloading the signed PDF is ignored; one resume', async () => {
		const { apiKey } = account();
		let openFile!: () => void;
		const fileHeld = new Promise<void>((resolve) => (openFile = resolve));
		let fileRequested = false;
		// The service as the node reaches it: the signed PDF's answer is held until the test opens it.
		const proxy = await startRewritingProxy(sandbox().origin, async (request) => {
			if (/\/documents\/[^/]+\/file/.test(request.path)) {
				fileRequested = true;
				await fileHeld;
			}
			return undefined;
		});
		try {
			const host = await newHost(apiKey, { baseUrl: proxy.baseUrl });
			const execution = await host.run({
				parameters: sendAndWait({ waitOptions: { attachSignedFile: true } }),
			});
			const documentId = documentIdOf(execution);
			const { url, secret, webhook } = kit.registration(apiKey, host, execution);
			kit.signAll(apiKey, documentId);
			await waitFor(() => fileRequested, 'the first call to download the signed PDF');

			const retry = signed(secret, finalEvent(documentId, { webhook_id: webhook.id }));
			expect(await post(url, retry.body, retry.headers)).toEqual(
				ignoredWith('another call for this wait is being handled'),
			);
			openFile();
			await resumed(execution);
			await sandbox().flushDeliveries();
			expect(execution.resumes).toBe(1);
			expect(execution.after).toHaveLength(1);
			expect(execution.items[0].binary?.data?.mimeType).toBe('application/pdf');
		} finally {
			openFile();
			await proxy.close();
		}
	});

	it('a failure to read the document or to download the signed PDF is answered 503; the wait goes on', async () => {
		const { apiKey } = account();
		let failing: RegExp | undefined;
		const proxy = await startRewritingProxy(sandbox().origin, (request) =>
			failing?.test(request.path)
				? { status: 400, body: '{"error":{"code":"invalid_request","message":"No"}}' }
				: undefined,
		);
		try {
			const host = await newHost(apiKey, { baseUrl: proxy.baseUrl });
			const parameters = sendAndWait({ waitOptions: { attachSignedFile: true } });
			const { execution, documentId, url, secret, webhook } = await kit.missedCompletion(
				apiKey,
				host,
				parameters,
			);
			const call = async () => {
				const delivery = signed(secret, finalEvent(documentId, { webhook_id: webhook.id }));
				return await post(url, delivery.body, delivery.headers);
			};
			const unavailable = (reason: string) => ({
				status: 503,
				body: { error: { code: 'unavailable', message: `Could not ${reason}; try again later` } },
			});
			failing = /\/documents\/[^/?]+(\?|$)/;
			expect(await call()).toEqual(unavailable('read the document'));
			failing = /\/documents\/[^/]+\/file/;
			expect(await call()).toEqual(unavailable('download the signed file'));
			expect(execution.status).toBe('waiting');
			failing = undefined;
			expect(await call()).toMatchObject({ status: 200, body: { resumed: true } });
			await resumed(execution);
			expect(execution.resumes).toBe(1);
			expect(execution.items[0].binary?.data?.mimeType).toBe('application/pdf');
		} finally {
			await proxy.close();
		}
	});

	it('a wait another n8n process has already ended (its webhook gone from the service) is not ended again', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const { execution, documentId, url, secret, webhook } = await kit.missedCompletion(
			apiKey,
			host,
			sendAndWait(),
		);
		// The other process's call got there first: it removed the wait's webhook.
		expect((await api(sandbox(), apiKey).delete(`/webhooks/${webhook.id}`)).status).toBe(204);

		const late = signed(secret, finalEvent(documentId, { webhook_id: webhook.id }));
		expect(await post(url, late.body, late.headers)).toEqual(
			ignoredWith('another call has ended this wait'),
		);
		expect(execution.resumes).toBe(0);
	});
});

describe('signature layouts', () => {
	afterEach(() => {
		sandbox().configure({ dialect: 'default' });
	});

	// A forged delivery in each layout: refused by the verifier (test/nodes/shared/deliveryLayouts.test.ts),
	// ignored by the wait (the table in "each call is bound to its own wait" above), and in real n8n per
	// layout (e2e/sendAndWait.e2e.test.ts, "signature layout of dialect …").

	it('Automatic: once a delivery verified in one layout, a weaker layout is refused for that wait', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: sendAndWait() });
		const documentId = documentIdOf(execution);
		const { url, secret, webhook } = kit.registration(apiKey, host, execution);
		// A completion the service does not confirm yet, validly signed with a signed time: it
		// verifies and fixes the layout, and ends nothing.
		const early = signed(secret, finalEvent(documentId, { webhook_id: webhook.id }));
		expect(await post(url, early.body, early.headers)).toEqual(
			ignoredWith('the service reports the document pending'),
		);
		host.unavailable = true;
		kit.signAll(apiKey, documentId);
		await sandbox().flushDeliveries();
		host.unavailable = false;

		const bodyOnly = signed(
			secret,
			finalEvent(documentId, { webhook_id: webhook.id }),
			Math.floor(Date.now() / 1000),
			'hub-sha256',
		);
		expect(await post(url, bodyOnly.body, bodyOnly.headers)).toEqual(
			ignoredWith('signature not valid (body-hmac: layout_not_accepted)'),
		);
		expect(execution.resumes).toBe(0);
	});

	it('a chosen Signature Layout holds: another layout is refused even when its signature is right', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const { execution, documentId, url, secret, webhook } = await kit.missedCompletion(
			apiKey,
			host,
			sendAndWait({ waitOptions: { signatureLayout: 'standard-webhooks' } }),
		);
		const v1 = signed(secret, finalEvent(documentId, { webhook_id: webhook.id }));
		expect(await post(url, v1.body, v1.headers)).toEqual(
			ignoredWith('signature not valid (timestamped-header: layout_not_accepted)'),
		);
		const standard = signed(
			secret,
			finalEvent(documentId, { webhook_id: webhook.id }),
			Math.floor(Date.now() / 1000),
			'standard-webhooks',
		);
		expect((await post(url, standard.body, standard.headers)).body).toMatchObject({
			resumed: true,
		});
		await resumed(execution);
	});
});

describe('Resume On', () => {
	it('Any Final State: a decline ends the wait with the declined document, not approved', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({
			parameters: sendAndWait({ waitOptions: { resumeOn: 'anyFinal', attachSignedFile: true } }),
		});
		const documentId = documentIdOf(execution);
		kit.decline(apiKey, documentId);
		await resumed(execution);
		expect(execution.items.map((item) => item.json)).toEqual([
			expect.objectContaining({ id: documentId, status: 'declined', approved: false }),
		]);
		// A declined document has no signed file.
		expect(execution.items[0].binary).toBeUndefined();
		expect(webhooksOf(apiKey)).toHaveLength(0);
	});

	describe('Completed: a decline ends the wait as the node’s error, naming the status', () => {
		const message = 'The document was declined, not signed';

		it('On Error › Stop Workflow (the default): nothing goes on, the next node never runs', async () => {
			const { apiKey } = account();
			const host = await newHost(apiKey);
			const execution = await host.run({ parameters: sendAndWait() });
			kit.decline(apiKey, documentIdOf(execution));
			await resumed(execution);
			expect(execution.items).toEqual([]);
			expect(execution.after).toEqual([]);
			expect(webhooksOf(apiKey)).toHaveLength(0);
		});

		it('On Error › Continue: the declined document goes on, not approved, with the error', async () => {
			const { apiKey } = account();
			const host = await newHost(apiKey);
			const execution = await host.run({
				parameters: sendAndWait(),
				onError: 'continueRegularOutput',
			});
			const documentId = documentIdOf(execution);
			kit.decline(apiKey, documentId);
			await resumed(execution);
			expect(execution.items.map((item) => item.json)).toEqual([
				expect.objectContaining({
					id: documentId,
					status: 'declined',
					approved: false,
					error: message,
				}),
			]);
		});

		it('On Error › Continue (using error output): n8n routes it to the error output', async () => {
			const { apiKey } = account();
			const host = await newHost(apiKey);
			const execution = await host.run({
				parameters: sendAndWait(),
				onError: 'continueErrorOutput',
			});
			kit.decline(apiKey, documentIdOf(execution));
			await resumed(execution);
			expect(execution.items).toEqual([]);
			expect(execution.errorItems.map((item) => item.json)).toEqual([{ error: message }]);
		});
	});
});

describe('respondedAt: when n8n learned the outcome, as n8n’s own approval nodes (2.30+) give it', () => {
	/** An ISO 8601 UTC time, as `new Date().toISOString()` writes it (n8n's utils/sendAndWait). */
	const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
	const within = (text: unknown, from: number, to: number) =>
		typeof text === 'string' && Date.parse(text) >= from && Date.parse(text) <= to;

	it('a signed document resumes with respondedAt beside approved, at the time of the resume', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: sendAndWait() });
		const before = Date.now();
		kit.signAll(apiKey, documentIdOf(execution));
		await resumed(execution);
		const after = Date.now();
		const [output] = execution.items.map((item) => item.json);
		expect(output).toMatchObject({ status: 'completed', approved: true });
		expect(output.respondedAt).toMatch(ISO_UTC);
		expect(within(output.respondedAt, before, after)).toBe(true);
		// The next node gets it as it is.
		expect(execution.after.flat()[0].json.respondedAt).toBe(output.respondedAt);
	});

	it('a decline carries it too: Any Final State, and Completed Only with On Error › Continue', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		for (const [parameters, onError] of [
			[sendAndWait({ waitOptions: { resumeOn: 'anyFinal' } }), undefined],
			[sendAndWait(), 'continueRegularOutput'],
		] as const) {
			const execution = await host.run({ parameters, ...(onError ? { onError } : {}) });
			const before = Date.now();
			kit.decline(apiKey, documentIdOf(execution));
			await resumed(execution);
			const [output] = execution.items.map((item) => item.json);
			expect(output).toMatchObject({ status: 'declined', approved: false });
			expect(output.respondedAt).toMatch(ISO_UTC);
			expect(within(output.respondedAt, before, Date.now())).toBe(true);
		}
	});

	it('is set after the document’s fields: a service field of that name cannot replace it', async () => {
		const before = Date.now();
		const context = { getNode: () => ({ name: 'Send and Wait' }) } as never;
		const document = {
			id: 'doc_1',
			status: 'completed',
			respondedAt: 'from the service',
			completed_at: '2026-01-15T10:00:00Z',
		};
		const [[item]] = await waitOutput(context, [document], { resumeOn: 'anyFinal' });
		expect(item.json).toEqual({
			id: 'doc_1',
			status: 'completed',
			completed_at: '2026-01-15T10:00:00Z',
			approved: true,
			respondedAt: expect.stringMatching(ISO_UTC),
		});
		expect(within(item.json.respondedAt, before, Date.now())).toBe(true);
	});
});

describe('services', () => {
	afterEach(() => {
		sandbox().configure({ dialect: 'default' });
	});

	it.each([
		['numeric-ids+items-links', {}],
		// The service ignores the secret the node sends and issues its own: kept sealed in custom data.
		['server-secret', {}],
		// Unsigned deliveries, no delivery endpoints, other error bodies, DELETE answers 200.
		['minimal', { verifySignature: false }],
		// A service that keeps a webhook's url and events only.
		['webhook-url-events', {}],
	])('%s: signing ends the wait once and removes its webhook', async (dialect, waitOptions) => {
		sandbox().configure({ dialect });
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: sendAndWait({ waitOptions }) });
		expect(execution.status).toBe('waiting');
		const stored = JSON.parse(execution.customData.documentSigningWait) as {
			w: string;
			s?: string;
		};
		expect(String(stored.w)).toBe(String(webhooksOf(apiKey)[0].id));
		if (dialect === 'server-secret') expect(stored.s).toMatch(/^(?!.*whsec_).+$/);
		else expect(stored.s).toBeUndefined();
		const documentId = documentIdOf(execution);
		kit.signAll(apiKey, documentId);
		await resumed(execution);
		expect(execution.resumes).toBe(1);
		expect(execution.items[0].json).toMatchObject({ status: 'completed' });
		expect(String(execution.items[0].json.id)).toBe(documentId);
		expect(webhooksOf(apiKey)).toHaveLength(0);
	});

	it('unsigned deliveries do not end a wait that verifies signatures', async () => {
		sandbox().configure({ dialect: 'unsigned' });
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: sendAndWait() });
		kit.signAll(apiKey, documentIdOf(execution));
		await sandbox().flushDeliveries();
		expect(execution.calls.length).toBe(1);
		expect(execution.calls.filter((call) => call.resumed || call.status !== 200)).toEqual([]);
		expect(execution.status).toBe('waiting');
	});
});

describe('version 2: a batch ends once, when every document is final', () => {
	const pdf = {
		data: Buffer.from('%PDF-1.7 test').toString('base64'),
		mimeType: 'application/pdf',
	};
	const items = (count: number) =>
		Array.from({ length: count }, (_, index) => ({
			json: { name: `nda-${index}.pdf` },
			binary: { data: { ...pdf, fileName: 'nda.pdf' } },
		}));
	const batch = (extra = {}) => sendAndWait({ name: '={{ $json.name }}', ...extra });
	const idsOf = (execution: WaitingExecution) =>
		execution.items.map((item) => String(item.json.id));

	it('forged, another document’s, non-final and early deliveries end nothing; two identical final deliveries resume once', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: batch(), items: items(2), typeVersion: 2 });
		const ids = idsOf(execution);
		const { url, secret, webhook } = kit.registration(apiKey, host, execution);
		const delivery = (documentId: string, extra = {}) =>
			signed(secret, finalEvent(documentId, { webhook_id: webhook.id, ...extra }));
		const send = async ({ body, headers }: { body: object; headers: Record<string, string> }) =>
			await post(url, body, headers);

		expect(await post(url, finalEvent(ids[0]))).toEqual(
			ignoredWith('signature not valid (no layout: missing_header)'),
		);
		expect(await send(delivery('doc_of_someone_else'))).toEqual(
			ignoredWith('the event is about another document'),
		);
		expect(await send(delivery(ids[0], { event: 'document.viewed' }))).toEqual(
			ignoredWith('event document.viewed does not end a wait'),
		);
		// A final event of one document while the other is pending: the wait goes on.
		expect(await send(delivery(ids[0]))).toEqual(
			ignoredWith('the service reports the document pending, pending'),
		);
		host.unavailable = true;
		kit.signAll(apiKey, ids[0]);
		kit.decline(apiKey, ids[1]);
		await sandbox().flushDeliveries();
		host.unavailable = false;
		expect(execution.status).toBe('waiting');

		const last = delivery(ids[1], { event: 'document.declined' });
		const answers = await Promise.all([send(last), send(last)]);
		await resumed(execution);
		expect(answers.filter((answer) => (answer.body as IDataObject).resumed)).toHaveLength(1);
		expect(execution.resumes).toBe(1);
		expect(execution.items.map((item) => [item.json.id, item.json.approved])).toEqual([
			[ids[0], true],
			[ids[1], false],
		]);
		expect(webhooksOf(apiKey)).toHaveLength(0);
	});

	it('a final delivery that arrives while another call of the batch reads is answered 503, and the service’s retry ends the wait', async () => {
		const { apiKey } = account();
		let release: (() => void) | undefined;
		let held = false;
		// Holds the answer of the first batch read that starts once `release` is set.
		const proxy = await startRewritingProxy(sandbox().origin, async (request) => {
			if (!release || held || request.method !== 'GET' || !request.path.includes('/documents?'))
				return undefined;
			held = true;
			await new Promise<void>((resolve) => (release = resolve));
			return undefined;
		});
		sandbox().configure({ webhookRetry: { baseDelayMs: 300, maxAttempts: 4, timeoutMs: 5000 } });
		try {
			const host = await newHost(apiKey, { baseUrl: proxy.baseUrl });
			const execution = await host.run({ parameters: batch(), items: items(2), typeVersion: 2 });
			const ids = idsOf(execution);
			const { webhook } = kit.registration(apiKey, host, execution);
			const answers = () =>
				sandbox()
					.deliveries()
					.filter((attempt) => attempt.webhookId === webhook.id)
					.map((attempt) => attempt.status);
			release = () => undefined;
			// The first call reads while the other document is still pending; its answer is held.
			kit.signAll(apiKey, ids[0]);
			await waitFor(() => held, 'the first call’s read');
			kit.signAll(apiKey, ids[1]);
			await waitFor(() => answers().includes(503), 'the second call answered 503');
			release();
			await resumed(execution);
			await sandbox().flushDeliveries();
			expect(execution.resumes).toBe(1);
			expect(execution.items.map((item) => item.json.approved)).toEqual([true, true]);
			expect(webhooksOf(apiKey)).toHaveLength(0);
		} finally {
			release?.();
			sandbox().configure({ webhookRetry: { baseDelayMs: 5, maxAttempts: 3, timeoutMs: 5000 } });
			await proxy.close();
		}
	});

	it.each([
		['continueRegularOutput', 2, 0],
		['continueErrorOutput', 1, 1],
		['stopWorkflow', 0, 0],
	] as const)(
		'Completed Only, On Error %s: the completed document continues, the declined one is an error item',
		async (onError, main, errors) => {
			const { apiKey } = account();
			const host = await newHost(apiKey);
			const execution = await host.run({
				parameters: batch({ waitOptions: { resumeOn: 'completed' } }),
				items: items(2),
				typeVersion: 2,
				onError,
			});
			const ids = idsOf(execution);
			kit.decline(apiKey, ids[1]);
			kit.signAll(apiKey, ids[0]);
			await resumed(execution);
			expect(execution.items).toHaveLength(main);
			expect(execution.errorItems).toHaveLength(errors);
			const message = 'The document was declined, not signed';
			// n8n's error output keeps the error only, as it does for a single item.
			if (onError === 'continueErrorOutput')
				expect(execution.errorItems.map((item) => item.json)).toEqual([{ error: message }]);
			if (onError === 'continueRegularOutput')
				expect(execution.items[1].json).toMatchObject({
					id: ids[1],
					approved: false,
					error: message,
				});
			if (main > 0) expect(execution.items[0].json).toMatchObject({ id: ids[0], approved: true });
		},
	);
});
