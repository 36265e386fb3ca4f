/**
 * The service webhooks of Send and Wait's waits: which ones a run recognises as its workflow's
 * (from the URL alone), and that none outlives its wait once a later run of the workflow has
 * looked: after a resume, a time limit, a cancel or a deletion, also on a service that keeps
 * nothing of a webhook but its url and events.
 */
import {
	ownWait,
	type WaitOwner,
} from '../../../../../../nodes/DocumentSigning/resources/document/sendAndWait/waitWebhooks';
import { WEBHOOK_SWEEP_BUDGET } from '../../../../../../nodes/shared/vocabulary';
import { startRewritingProxy } from '../../../../../helpers/rewritingProxy';
import { api } from '../../../../../helpers/sandbox';
import { sendAndWait, useSendAndWait } from '../../../../../helpers/sendAndWaitKit';
import type { WaitingExecution, WaitingHost } from '../../../../../helpers/waitingExecutions';

describe('ownWait: a wait link of this workflow, node and n8n instance, read from the URL alone', () => {
	const owner: WaitOwner = {
		workflowId: 'wf1',
		instanceId: 'inst1',
		nodeId: 'node-1',
		waitingBase: new URL('https://n8n.example.com/webhook-waiting'),
	};
	const signature = 'a'.repeat(64);
	const link = (
		path = '/webhook-waiting/42/node-1',
		query = `nonce=n1&workflow=wf1&instance=inst1&until=&signature=${signature}`,
		origin = 'https://n8n.example.com',
	) => `${origin}${path}?${query}`;

	it('recognises its own link, with its limit', () => {
		expect(ownWait({ url: link() }, owner)).toEqual({ url: link(), until: undefined });
		const limited = link(
			undefined,
			`nonce=n1&workflow=wf1&instance=inst1&until=1700000000000&signature=${signature}`,
		);
		expect(ownWait({ url: limited }, owner)).toEqual({ url: limited, until: 1700000000000 });
	});

	it.each([
		['another origin', link(undefined, undefined, 'https://evil.example.com')],
		['another port', link(undefined, undefined, 'https://n8n.example.com:8443')],
		['a dot-dot path to another of n8n’s paths', link('/webhook-waiting/../../webhook/steal')],
		['a dot-dot path that lands on a wait link', link('/webhook-waiting/x/../42/node-1')],
		['an encoded dot-dot', link('/webhook-waiting/%2e%2e/webhook/node-1')],
		['an encoded slash', link('/webhook-waiting/42%2Fnode-1/node-1')],
		['a backslash', link('/webhook-waiting/42\\/node-1')],
		['a ;-parameter', link('/webhook-waiting/42;x/node-1')],
		['another node', link('/webhook-waiting/42/node-2')],
		['an extra path segment', link('/webhook-waiting/42/node-1/more')],
		['no execution', link('/webhook-waiting//node-1')],
		['another waiting path', link('/form-waiting/42/node-1')],
		[
			'another workflow',
			link(undefined, `nonce=n1&workflow=wf2&instance=inst1&signature=${signature}`),
		],
		[
			'another n8n instance',
			link(undefined, `nonce=n1&workflow=wf1&instance=inst2&signature=${signature}`),
		],
		['no n8n signature', link(undefined, 'nonce=n1&workflow=wf1&instance=inst1')],
		[
			'no nonce (not this package’s link)',
			link(undefined, `workflow=wf1&instance=inst1&signature=${signature}`),
		],
		['credentials in the URL', link(undefined, undefined, 'https://user:pass@n8n.example.com')],
		['no URL', undefined],
		['not a URL', 'n8n.example.com/webhook-waiting/42/node-1'],
	])('ignores %s', (_name, url) => {
		expect(ownWait({ url }, owner)).toBeUndefined();
	});
});

const { sandbox, kit } = useSendAndWait();
const { newHost, webhooksOf, documentIdOf, resumed } = kit;
const account = () => sandbox().createAccount();

function has(apiKey: string, on: WaitingHost, execution: WaitingExecution): boolean {
	return webhooksOf(apiKey).some((webhook) =>
		webhook.url.startsWith(`${on.origin}/webhook-waiting/${execution.id}/`),
	);
}

const limited = (minutes: number) =>
	sendAndWait({
		waitOptions: {
			limitWaitTime: {
				values: { limitType: 'afterTimeInterval', resumeAmount: minutes, resumeUnit: 'minutes' },
			},
		},
	});

/** Runs the next Send and Wait of the workflow `minutes` from now. */
async function nextRunIn(host: WaitingHost, minutes: number): Promise<WaitingExecution> {
	const realNow = Date.now.bind(Date);
	const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + minutes * 60_000);
	try {
		return await host.run({ parameters: sendAndWait() });
	} finally {
		clock.mockRestore();
	}
}

describe('on a service that keeps only a webhook’s url and events (no description, filters or expiry)', () => {
	beforeAll(() => {
		sandbox().configure({ dialect: 'webhook-url-events' });
	});
	afterAll(() => {
		sandbox().configure({ dialect: 'default' });
	});

	it('the service kept nothing else: the URL is all a run can go by', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		await host.run({ parameters: limited(60) });
		const [webhook] = webhooksOf(apiKey);
		expect(webhook.description).toBeNull();
		expect(webhook.document_id).toBeUndefined();
		expect(webhook.expires_at).toBeUndefined();
	});

	it('resume: 0 webhooks left', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: sendAndWait() });
		kit.signAll(apiKey, documentIdOf(execution));
		await resumed(execution);
		expect(webhooksOf(apiKey)).toEqual([]);
	});

	it('a time limit, then the next run (resumed by its signer): 0 webhooks left, even when n8n cannot be asked', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: limited(1) });
		await host.timeOut(execution);
		host.unavailable = true;
		const next = await nextRunIn(host, 10);
		host.unavailable = false;
		expect(has(apiKey, host, execution)).toBe(false);
		kit.signAll(apiKey, documentIdOf(next));
		await resumed(next);
		expect(webhooksOf(apiKey)).toEqual([]);
	});

	it('a cancel, then the next run (resumed by its signer): 0 webhooks left', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const cancelled = await host.run({ parameters: sendAndWait() });
		host.cancel(cancelled);
		const next = await host.run({ parameters: sendAndWait() });
		expect(has(apiKey, host, cancelled)).toBe(false);
		kit.signAll(apiKey, documentIdOf(next));
		await resumed(next);
		expect(webhooksOf(apiKey)).toEqual([]);
	});

	it('an earlier wait of a loop whose removal failed is found ended by the next run (its link answers "ended")', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const execution = await host.run({ parameters: sendAndWait(), loops: 2 });
		const first = kit.registration(apiKey, host, execution);
		// The first wait's removal was lost: its webhook is put back as it was.
		kit.signAll(apiKey, documentIdOf(execution));
		await resumed(execution);
		const putBack = await api(sandbox(), apiKey).post('/webhooks', {
			url: first.url,
			events: first.webhook.events,
		});
		expect(putBack.status).toBe(201);

		await host.run({ parameters: sendAndWait() });
		const ids = webhooksOf(apiKey).map((webhook) => webhook.id);
		expect(ids).not.toContain(putBack.data.id);
		// The loop's second wait is still open and keeps its webhook.
		expect(execution.status).toBe('waiting');
		expect(has(apiKey, host, execution)).toBe(true);
	});
});

describe('waits past their time limit', () => {
	it('lose their webhook on the next run even when n8n cannot be asked about them', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const limitedWait = await host.run({ parameters: limited(1) });
		const unlimited = await host.run({ parameters: sendAndWait() });
		// n8n unreachable from itself: every probe fails, so only the limit can decide.
		host.unavailable = true;
		let next: WaitingExecution;
		try {
			next = await nextRunIn(host, 10);
		} finally {
			host.unavailable = false;
		}
		expect(next.status).toBe('waiting');
		expect(has(apiKey, host, limitedWait)).toBe(false);
		expect(has(apiKey, host, unlimited)).toBe(true);
		expect(has(apiKey, host, next)).toBe(true);
	});
});

describe('waits whose execution was cancelled or deleted', () => {
	it('lose their webhook on the next run of the workflow; other workflows’, other instances’ and other webhooks stay', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const otherWorkflow = await newHost(apiKey);
		const cancelled = await host.run({ parameters: sendAndWait() });
		const deleted = await host.run({ parameters: sendAndWait() });
		const stillWaiting = await host.run({ parameters: sendAndWait() });
		const otherWait = await otherWorkflow.run({ parameters: sendAndWait() });
		otherWorkflow.cancel(otherWait);
		// The same workflow's link as another n8n instance would make it (same address, other instance id).
		const ownLink = new URL(kit.registration(apiKey, host, stillWaiting).url);
		ownLink.searchParams.set('instance', 'another-instance');
		const lookAlikes = [
			`${host.origin}/webhook-waiting/123/x`,
			ownLink.toString(),
			`${host.origin}/webhook-waiting/../webhook/steal?${ownLink.searchParams.toString()}`,
		];
		for (const url of lookAlikes) {
			const created = await api(sandbox(), apiKey).post('/webhooks', {
				url,
				events: ['document.completed'],
			});
			expect(created.status).toBe(201);
		}
		host.cancel(cancelled);
		host.delete(deleted);

		const next = await host.run({ parameters: sendAndWait() });
		expect(next.status).toBe('waiting');
		expect(has(apiKey, host, cancelled)).toBe(false);
		expect(has(apiKey, host, deleted)).toBe(false);
		expect(has(apiKey, host, stillWaiting)).toBe(true);
		expect(has(apiKey, host, next)).toBe(true);
		expect(has(apiKey, otherWorkflow, otherWait)).toBe(true);
		const urls = webhooksOf(apiKey).map((webhook) => webhook.url);
		for (const url of lookAlikes) expect(urls).toContain(url);
		// The probes did not disturb the wait that still runs; no look-alike was asked anything.
		expect(stillWaiting.status).toBe('waiting');
		expect(stillWaiting.resumes).toBe(0);
	});
});

describe('waits started at the same moment', () => {
	it('keep each other’s webhooks: a run still inside execute() is answered 409 "running already" and is not taken for gone', async () => {
		const { apiKey } = account();
		const host = await newHost(apiKey);
		const starting = await host.run({ parameters: sendAndWait() });
		host.markRunning(starting);

		await host.run({ parameters: sendAndWait() });
		expect(has(apiKey, host, starting)).toBe(true);
	});
});

describe('a service whose webhook list never ends', () => {
	it('the clean-up stops at the webhook sweeps’ budget and the wait still starts', async () => {
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
