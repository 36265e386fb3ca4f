/**
 * The service webhooks of Send and Wait's waits: which ones a run recognises as its workflow
 * node's (the trigger's owner tag, in the description's note or in the URL's `owner` parameter),
 * and when a later run removes them: past the wait's limit, or once its document is gone or has
 * been final for 24 hours. Decided from the service's records alone: n8n is never asked.
 */
import type { IDataObject } from 'n8n-workflow';

import { ownerTag } from '../../../../../../nodes/shared/webhooks';
import { WEBHOOK_SWEEP_BUDGET } from '../../../../../../nodes/shared/vocabulary';
import { startRewritingProxy } from '../../../../../helpers/rewritingProxy';
import { api } from '../../../../../helpers/sandbox';
import { sendAndWait, useSendAndWait } from '../../../../../helpers/sendAndWaitKit';
import {
	instanceId,
	WAIT_NODE_ID,
	type WaitingExecution,
	type WaitingHost,
} from '../../../../../helpers/waitingExecutions';

const { sandbox, kit } = useSendAndWait();
const { newHost, webhooksOf, documentIdOf, resumed } = kit;
const account = () => sandbox().createAccount();

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

function has(apiKey: string, on: WaitingHost, execution: WaitingExecution): boolean {
	return webhooksOf(apiKey).some((webhook) =>
		webhook.url.startsWith(`${on.origin}/webhook-waiting/${execution.id}/`),
	);
}

const ownerOf = (host: WaitingHost) => ownerTag(host.workflowId, WAIT_NODE_ID);

const limited = (minutes: number) =>
	sendAndWait({
		waitOptions: {
			limitWaitTime: {
				values: { limitType: 'afterTimeInterval', resumeAmount: minutes, resumeUnit: 'minutes' },
			},
		},
	});

/** Runs the next Send and Wait of the workflow `laterMs` from now (Date.now, as the node reads it). */
async function nextRunIn(host: WaitingHost, laterMs: number): Promise<WaitingExecution> {
	const realNow = Date.now.bind(Date);
	const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + laterMs);
	try {
		return await host.run({ parameters: sendAndWait() });
	} finally {
		clock.mockRestore();
	}
}

/** Runs `run` and answers how many requests reached the stand-in n8n meanwhile. */
async function requestsToN8nDuring(host: WaitingHost, run: () => Promise<unknown>) {
	await sandbox().flushDeliveries();
	const before = host.requests;
	await run();
	await sandbox().flushDeliveries();
	return host.requests - before;
}

/** A webhook as anyone with the API key could register it. */
async function addWebhook(apiKey: string, fields: IDataObject): Promise<string> {
	const created = await api(sandbox(), apiKey).post('/webhooks', {
		events: ['document.completed'],
		...fields,
	});
	expect(created.status).toBe(201);
	return String(created.data.id);
}

const webhookIds = (apiKey: string) => webhooksOf(apiKey).map((webhook) => String(webhook.id));

describe('on a service that keeps only a webhook’s url and events (no description, filters or expiry)', () => {
	beforeAll(() => {
		sandbox().configure({ dialect: 'webhook-url-events' });
	});
	afterAll(() => {
		sandbox().configure({ dialect: 'default' });
	});

	it('the service kept nothing else: the URL’s owner tag is what a run goes by', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		await host.run({ parameters: limited(60) });
		const [webhook] = webhooksOf(apiKey);
		expect(webhook.description).toBeNull();
		expect(webhook.document_id).toBeUndefined();
		expect(webhook.expires_at).toBeUndefined();
		expect(new URL(webhook.url).searchParams.get('owner')).toBe(ownerOf(host));
	});

	it('resume: 0 webhooks left', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: sendAndWait() });
		kit.signAll(apiKey, documentIdOf(execution));
		await resumed(execution);
		expect(webhooksOf(apiKey)).toEqual([]);
	});

	it('a time limit, then the next run (resumed by its signer): 0 webhooks left, even when n8n cannot be reached', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: limited(1) });
		await host.timeOut(execution);
		host.unavailable = true;
		let next!: WaitingExecution;
		try {
			const asked = await requestsToN8nDuring(host, async () => {
				next = await nextRunIn(host, 10 * MINUTE_MS);
			});
			expect(asked).toBe(0);
		} finally {
			host.unavailable = false;
		}
		expect(has(apiKey, host, execution)).toBe(false);
		kit.signAll(apiKey, documentIdOf(next));
		await resumed(next);
		expect(webhooksOf(apiKey)).toEqual([]);
	});

	it('a cancel: the webhook stays while the document is open, and goes on the first run 24 h after it ended', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const cancelled = await host.run({ parameters: sendAndWait() });
		host.cancel(cancelled);
		await host.run({ parameters: sendAndWait() });
		expect(has(apiKey, host, cancelled)).toBe(true);

		kit.decline(apiKey, documentIdOf(cancelled));
		await sandbox().flushDeliveries();
		await nextRunIn(host, 23 * HOUR_MS);
		expect(has(apiKey, host, cancelled)).toBe(true);
		const later = await nextRunIn(host, 25 * HOUR_MS);
		expect(has(apiKey, host, cancelled)).toBe(false);
		expect(has(apiKey, host, later)).toBe(true);
	});

	it('an earlier wait of a loop whose removal was lost goes once its document has been final for 24 h', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: sendAndWait(), loops: 2 });
		const first = kit.registration(apiKey, host, execution);
		kit.signAll(apiKey, documentIdOf(execution));
		await resumed(execution);
		// The first wait's removal was lost: its webhook is put back as it was.
		const putBack = await addWebhook(apiKey, { url: first.url, events: first.webhook.events });

		// Within the day the service may still be retrying a final event to a wait: it stays.
		await host.run({ parameters: sendAndWait() });
		expect(webhookIds(apiKey)).toContain(putBack);
		await nextRunIn(host, 25 * HOUR_MS);
		expect(webhookIds(apiKey)).not.toContain(putBack);
		// The loop's second wait is still open and keeps its webhook.
		expect(execution.status).toBe('waiting');
		expect(has(apiKey, host, execution)).toBe(true);
	});
});

describe('which webhooks are this workflow node’s waits', () => {
	it('those with its owner tag in the description’s note or in the URL; look-alikes and other workflows’ and nodes’ waits are never touched', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const otherWorkflow = await newHost(apiKey);
		const otherWait = await otherWorkflow.run({ parameters: sendAndWait() });
		otherWorkflow.cancel(otherWait);
		const gone = await api(sandbox(), apiKey).delete(`/documents/${documentIdOf(otherWait)}`);
		expect(gone.status).toBe(204);

		// Every one names a document the service does not have, and a limit long passed.
		const waitUrl = (query: string) =>
			`${host.origin}/webhook-waiting/123/${WAIT_NODE_ID}?document=doc_missing&nonce=n1&until=1&${query}`;
		const note = (owner: string) =>
			`n8n Send and Wait for Signature [n8n ${owner} ${'0'.repeat(16)}]`;
		const byNote = await addWebhook(apiKey, { url: waitUrl(''), description: note(ownerOf(host)) });
		const byUrl = await addWebhook(apiKey, { url: waitUrl(`owner=${ownerOf(host)}`) });
		const lookAlikes = [
			await addWebhook(apiKey, {
				url: waitUrl(''),
				description: `n8n Send and Wait for Signature (workflow ${host.workflowId})`,
			}),
			await addWebhook(apiKey, { url: waitUrl(`owner=${ownerOf(otherWorkflow)}`) }),
			await addWebhook(apiKey, { url: waitUrl(''), description: note(ownerOf(otherWorkflow)) }),
			await addWebhook(apiKey, {
				url: waitUrl(`owner=${ownerTag(host.workflowId, 'another-node')}`),
			}),
		];

		const next = await host.run({ parameters: sendAndWait() });
		expect(next.status).toBe('waiting');
		const ids = webhookIds(apiKey);
		expect(ids).not.toContain(byNote);
		expect(ids).not.toContain(byUrl);
		for (const id of lookAlikes) expect(ids).toContain(id);
		expect(has(apiKey, otherWorkflow, otherWait)).toBe(true);
		expect(has(apiKey, host, next)).toBe(true);
	});
});

describe('webhooks without the owner tag', () => {
	it("are never taken for this node's waits, whatever markers their URL carries", async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		// Every other rule would remove these: a limit long passed, a document the service does not have.
		const untagged = (url: string) => addWebhook(apiKey, { url });
		const markers = `workflow=${host.workflowId}&instance=${instanceId()}`;
		const kept = [
			// Shaped as this node's resume URL, with the workflow and instance markers.
			await untagged(
				`${host.origin}/webhook-waiting/77/${WAIT_NODE_ID}?document=doc_missing&nonce=n1&${markers}&until=1`,
			),
			// Another node's wait in the same workflow.
			await untagged(
				`${host.origin}/webhook-waiting/78/another-wait-node?document=doc_missing&nonce=n1&${markers}&until=1`,
			),
			// Another integration's webhook whose query happens to hold both markers.
			await untagged(`https://example.com/hook?${markers}&until=1`),
		];

		await host.run({ parameters: sendAndWait() });
		const ids = webhookIds(apiKey);
		for (const id of kept) expect(ids).toContain(id);
	});
});

describe('waits past their time limit', () => {
	it('lose their webhook on the next run even when n8n cannot be reached; n8n is not asked', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const limitedWait = await host.run({ parameters: limited(1) });
		const unlimited = await host.run({ parameters: sendAndWait() });
		host.unavailable = true;
		let next!: WaitingExecution;
		try {
			const asked = await requestsToN8nDuring(host, async () => {
				next = await nextRunIn(host, 10 * MINUTE_MS);
			});
			expect(asked).toBe(0);
		} finally {
			host.unavailable = false;
		}
		expect(next.status).toBe('waiting');
		expect(has(apiKey, host, limitedWait)).toBe(false);
		expect(has(apiKey, host, unlimited)).toBe(true);
		expect(has(apiKey, host, next)).toBe(true);
	});
});

describe('waits without a time limit whose execution was cancelled or deleted', () => {
	it('keep their webhook while the document is open and lose it on the first run 24 h after it ended', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const cancelled = await host.run({ parameters: sendAndWait() });
		const deleted = await host.run({ parameters: sendAndWait() });
		host.cancel(cancelled);
		host.delete(deleted);

		const asked = await requestsToN8nDuring(host, async () => {
			await host.run({ parameters: sendAndWait() });
		});
		expect(asked).toBe(0);
		expect(has(apiKey, host, cancelled)).toBe(true);
		expect(has(apiKey, host, deleted)).toBe(true);

		kit.decline(apiKey, documentIdOf(cancelled));
		kit.signAll(apiKey, documentIdOf(deleted));
		await sandbox().flushDeliveries();
		await host.run({ parameters: sendAndWait() });
		await nextRunIn(host, 23 * HOUR_MS);
		expect(has(apiKey, host, cancelled)).toBe(true);
		expect(has(apiKey, host, deleted)).toBe(true);

		const later = await nextRunIn(host, 25 * HOUR_MS);
		expect(has(apiKey, host, cancelled)).toBe(false);
		expect(has(apiKey, host, deleted)).toBe(false);
		expect(has(apiKey, host, later)).toBe(true);
	});

	it('lose it at once when the service no longer has the document', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const cancelled = await host.run({ parameters: sendAndWait() });
		const open = await host.run({ parameters: sendAndWait() });
		host.cancel(cancelled);
		const gone = await api(sandbox(), apiKey).delete(`/documents/${documentIdOf(cancelled)}`);
		expect(gone.status).toBe(204);

		await host.run({ parameters: sendAndWait() });
		expect(has(apiKey, host, cancelled)).toBe(false);
		expect(has(apiKey, host, open)).toBe(true);
		expect(open.status).toBe('waiting');
	});
});

describe('a batch’s wait (version 2, several items) without a time limit whose execution was cancelled', () => {
	const pdf = {
		data: Buffer.from('%PDF-1.7 test').toString('base64'),
		mimeType: 'application/pdf',
	};
	const threeItems = ['a.pdf', 'b.pdf', 'c.pdf'].map((name) => ({
		json: { name },
		binary: { data: { ...pdf, fileName: name } },
	}));
	const batch = (host: WaitingHost) =>
		host.run({
			parameters: sendAndWait({ name: '={{ $json.name }}' }),
			items: threeItems,
			typeVersion: 2,
		});
	const idsOf = (execution: WaitingExecution) =>
		execution.items.map((item) => String(item.json.id));

	it('keeps its one webhook while any of its documents is open, and loses it on the first run 24 h after the last ended; another workflow’s batch keeps its own', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const otherWorkflow = await newHost(apiKey, { workflowId: 'wf-other' });
		const cancelled = await batch(host);
		const other = await batch(otherWorkflow);
		host.cancel(cancelled);
		otherWorkflow.cancel(other);
		const [first, second, third] = idsOf(cancelled);
		expect(
			new URL(kit.registration(apiKey, host, cancelled).url).searchParams.get('documents'),
		).toBe([first, second, third].join(','));

		kit.signAll(apiKey, first);
		kit.decline(apiKey, second);
		for (const id of idsOf(other)) kit.signAll(apiKey, id);
		await sandbox().flushDeliveries();
		await nextRunIn(host, 25 * HOUR_MS);
		expect(has(apiKey, host, cancelled)).toBe(true);

		// The last one ends: its webhook stays the grace of a final event's retries, then goes.
		kit.signAll(apiKey, third);
		await sandbox().flushDeliveries();
		await nextRunIn(host, 23 * HOUR_MS);
		expect(has(apiKey, host, cancelled)).toBe(true);
		const later = await nextRunIn(host, 25 * HOUR_MS);
		expect(has(apiKey, host, cancelled)).toBe(false);
		expect(has(apiKey, host, later)).toBe(true);
		expect(has(apiKey, otherWorkflow, other)).toBe(true);
	});

	it('loses it at once when the service no longer has any of its documents', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const cancelled = await batch(host);
		host.cancel(cancelled);
		const [first, ...rest] = idsOf(cancelled);
		for (const id of rest)
			expect((await api(sandbox(), apiKey).delete(`/documents/${id}`)).status).toBe(204);
		await host.run({ parameters: sendAndWait() });
		expect(has(apiKey, host, cancelled)).toBe(true);

		expect((await api(sandbox(), apiKey).delete(`/documents/${first}`)).status).toBe(204);
		await host.run({ parameters: sendAndWait() });
		expect(has(apiKey, host, cancelled)).toBe(false);
	});
});

describe('waits started at the same moment', () => {
	it('keep each other’s webhooks: one still inside execute(), one whose document is still a draft', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const starting = await host.run({ parameters: sendAndWait() });
		host.markRunning(starting);
		// Another run has registered its webhook and not yet sent its draft.
		const draft = await api(sandbox(), apiKey).post('/documents', {
			name: 'nda.pdf',
			draft: true,
		});
		expect(draft.status).toBe(201);
		const registered = await addWebhook(apiKey, {
			url: `${host.origin}/webhook-waiting/456/${WAIT_NODE_ID}?document=${draft.data.id}&nonce=n2&until=&owner=${ownerOf(host)}`,
		});

		await host.run({ parameters: sendAndWait() });
		expect(has(apiKey, host, starting)).toBe(true);
		expect(webhookIds(apiKey)).toContain(registered);
	});
});

describe('bounds of one run’s clean-up', () => {
	it('reads at most 10 documents: of 15 waits whose documents are gone, 10 go now and the rest on the next run', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const stale: string[] = [];
		for (let index = 0; index < 15; index++)
			stale.push(
				await addWebhook(apiKey, {
					url: `${host.origin}/webhook-waiting/${index}/${WAIT_NODE_ID}?document=doc_missing_${index}&until=&owner=${ownerOf(host)}`,
				}),
			);
		const left = () => webhookIds(apiKey).filter((id) => stale.includes(id));

		await host.run({ parameters: sendAndWait() });
		expect(left()).toHaveLength(5);
		await host.run({ parameters: sendAndWait() });
		expect(left()).toHaveLength(0);
	});

	it('on a service whose webhook list never ends, stops at the sweeps’ budget and the wait still starts', async () => {
		const { apiKey } = account();
		let listRequests = 0;
		// Every page of GET /webhooks says there is one more.
		const proxy = await startRewritingProxy(sandbox().origin, (request) => {
			if (request.method !== 'GET' || !/\/v1\/webhooks(\?|$)/.test(request.path)) return undefined;
			listRequests++;
			return {
				status: 200,
				body: JSON.stringify({
					data: [{ id: `wh_${listRequests}`, url: 'https://example.com/hook', events: [] }],
					has_more: true,
					next_cursor: `c${listRequests}`,
				}),
			};
		});
		try {
			const host = await newHost(apiKey, { baseUrl: proxy.baseUrl });
			const execution = await host.run({ parameters: sendAndWait() });
			expect(execution.status).toBe('waiting');
			expect(listRequests).toBe(WEBHOOK_SWEEP_BUDGET.pages);
		} finally {
			await proxy.close();
		}
	});
});
