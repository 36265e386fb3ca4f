/**
 * nodes/DocumentSigningTrigger/registration.ts: the trigger's webhook lifecycle (checkExists /
 * create / delete) against the real sandbox, run through n8n-core's HookContext the way n8n
 * activates and deactivates a workflow.
 */
import nock from 'nock';

import { readRegistration } from '../../../nodes/DocumentSigningTrigger/registration';
import { withInstantWaits } from '../../helpers/instantWaits';
import { useSandbox, webhookSecret } from '../../helpers/sandbox';
import { TriggerHost } from '../../helpers/triggerHost';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../../helpers/instantWaits').n8nWorkflowWithInstantWaits(),
);

/** Attempts the retry policy makes for a 5xx to a DELETE (the first try included). */
const MAX_ATTEMPTS = 7;

const sandbox = useSandbox({ port: 0, host: '127.0.0.1' });

afterEach(() => {
	sandbox().configure({ failureRate: 0 });
	nock.cleanAll();
});

/** A trigger on a fresh account, so every test sees only its own webhooks. */
function newHost(
	events: string[],
	webhookBaseUrl = 'http://127.0.0.1:5678/webhook',
): { host: TriggerHost; apiKey: string } {
	const { apiKey } = sandbox().createAccount();
	const host = new TriggerHost({ baseUrl: sandbox().baseUrl, apiKey, webhookBaseUrl, events });
	return { host, apiKey };
}

function webhooksOnService(apiKey: string) {
	return sandbox().store.webhooksOf(apiKey);
}

async function deleteByHand(apiKey: string, id: string): Promise<void> {
	const response = await fetch(`${sandbox().baseUrl}/webhooks/${id}`, {
		method: 'DELETE',
		headers: { Authorization: `Bearer ${apiKey}` },
	});
	expect(response.status).toBe(204);
}

async function createByHand(apiKey: string, url: string, events: string[]): Promise<string> {
	const response = await fetch(`${sandbox().baseUrl}/webhooks`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({ url, events }),
	});
	expect(response.status).toBe(201);
	return ((await response.json()) as { id: string }).id;
}

describe('activation', () => {
	it('registers exactly one webhook with the production URL, the chosen events and a generated secret', async () => {
		const { host, apiKey } = newHost([
			'document.signed',
			'document.completed',
			'document.completed',
		]);
		await host.activate();

		const webhooks = webhooksOnService(apiKey);
		expect(webhooks).toHaveLength(1);
		expect(webhooks[0].url).toBe(host.webhookUrl);
		expect(webhooks[0].url).toMatch(new RegExp(`/webhook/${host.nodeWebhookId}/webhook$`));
		expect([...webhooks[0].events].sort()).toEqual(['document.completed', 'document.signed']);

		const stored = host.nodeStaticData;
		expect(stored.webhookId).toBe(webhooks[0].id);
		expect(stored.webhookUrl).toBe(host.webhookUrl);
		expect(stored.webhookEvents).toEqual(['document.completed', 'document.signed']);
		// No secret in static data (n8n's public API shows it): a nonce, from which the credential's key derives it.
		expect(stored.webhookSecret).toBeUndefined();
		expect(String(stored.secretNonce)).toMatch(/^[0-9a-f]{32}$/);
		expect(JSON.stringify(stored)).not.toContain(
			String(webhookSecret(sandbox(), apiKey, webhooks[0].id)),
		);
	});

	it('subscribes to "*" when Any Event is chosen (other choices are then redundant)', async () => {
		const { host, apiKey } = newHost(['document.sent', '*']);
		await host.activate();
		expect(webhooksOnService(apiKey).map((webhook) => webhook.events)).toEqual([['*']]);
	});

	it('checkExists is true for the registered webhook and activating again (or restarting n8n) changes nothing', async () => {
		const { host, apiKey } = newHost(['document.completed']);
		await host.activate();
		const first = webhooksOnService(apiKey)[0].id;

		expect(await host.runHook('checkExists')).toBe(true);
		await host.activate();
		await host.activate({ activation: 'init' });

		const webhooks = webhooksOnService(apiKey);
		expect(webhooks).toHaveLength(1);
		expect(webhooks[0].id).toBe(first);
		expect(host.nodeStaticData.webhookId).toBe(first);
	});

	it('replaces the webhook when the chosen events change: one left, with the new events', async () => {
		const { host, apiKey } = newHost(['document.completed']);
		await host.activate();
		const old = webhooksOnService(apiKey)[0].id;

		host.parameters.events = ['document.declined', 'document.expired'];
		expect(await host.runHook('checkExists', { save: false })).toBe(false);
		await host.activate();

		const webhooks = webhooksOnService(apiKey);
		expect(webhooks).toHaveLength(1);
		expect(webhooks[0].id).not.toBe(old);
		expect([...webhooks[0].events].sort()).toEqual(['document.declined', 'document.expired']);
		expect(host.nodeStaticData.webhookId).toBe(webhooks[0].id);
		expect(host.nodeStaticData.webhookEvents).toEqual(['document.declined', 'document.expired']);
	});

	it('re-creates a webhook that was deleted by hand on the service', async () => {
		const { host, apiKey } = newHost(['document.completed']);
		await host.activate();
		const old = webhooksOnService(apiKey)[0].id;
		await deleteByHand(apiKey, old);

		await host.activate({ activation: 'init' });

		const webhooks = webhooksOnService(apiKey);
		expect(webhooks).toHaveLength(1);
		expect(webhooks[0].id).not.toBe(old);
		expect(webhooks[0].url).toBe(host.webhookUrl);
		expect(host.nodeStaticData.webhookId).toBe(webhooks[0].id);
	});

	it('leaves exactly one webhook when one for the same URL is left over and the static data was lost', async () => {
		const { host, apiKey } = newHost(['document.completed']);
		await host.activate();
		const leftover = webhooksOnService(apiKey)[0].id;
		host.savedStaticData = {};

		await host.activate({ activation: 'init' });

		const webhooks = webhooksOnService(apiKey);
		expect(webhooks).toHaveLength(1);
		expect(webhooks[0].id).not.toBe(leftover);
		expect(host.nodeStaticData.webhookId).toBe(webhooks[0].id);
	});

	it('leaves exactly one webhook when n8n stopped after create but before saving the static data', async () => {
		const { host, apiKey } = newHost(['document.completed']);
		await host.activate({ save: false });
		expect(webhooksOnService(apiKey)).toHaveLength(1);
		expect(host.nodeStaticData.webhookId).toBeUndefined();

		await host.activate({ activation: 'init' });

		const webhooks = webhooksOnService(apiKey);
		expect(webhooks).toHaveLength(1);
		expect(host.nodeStaticData.webhookId).toBe(webhooks[0].id);
	});

	it('removes several leftovers for its URL but never touches webhooks with other URLs', async () => {
		const { host, apiKey } = newHost(['document.completed']);
		await createByHand(apiKey, host.webhookUrl, ['*']);
		await createByHand(apiKey, host.webhookUrl, ['document.sent']);
		const foreign = await createByHand(apiKey, 'https://example.com/other-receiver', ['*']);
		const sibling = await createByHand(apiKey, `${host.webhookUrl}-other`, ['*']);

		await host.activate();

		const webhooks = webhooksOnService(apiKey);
		expect(webhooks.map((webhook) => webhook.id).sort()).toEqual(
			[foreign, sibling, host.nodeStaticData.webhookId].sort(),
		);
		expect(webhooks.filter((webhook) => webhook.url === host.webhookUrl)).toHaveLength(1);
	});

	it("when n8n's public address changed, the old registration is forgotten, never deleted (it may be another n8n's)", async () => {
		const { host, apiKey } = newHost(['document.completed']);
		await host.activate();
		const old = webhooksOnService(apiKey)[0];

		host.webhookBaseUrl = 'https://n8n.example.com/webhook';
		await host.activate({ activation: 'init' });

		const webhooks = webhooksOnService(apiKey);
		expect(webhooks.map((webhook) => webhook.url).sort()).toEqual(
			[old.url, 'https://n8n.example.com/webhook/' + host.nodeWebhookId + '/webhook'].sort(),
		);
		expect(host.nodeStaticData.webhookUrl).toBe(
			'https://n8n.example.com/webhook/' + host.nodeWebhookId + '/webhook',
		);
		// Deactivating here removes this address's webhook only.
		await host.deactivate();
		expect(webhooksOnService(apiKey).map((webhook) => webhook.id)).toEqual([old.id]);
	});

	it('refuses to activate without any event and registers nothing', async () => {
		const { host, apiKey } = newHost([]);
		await expect(host.activate()).rejects.toThrow(/at least one event/);
		expect(webhooksOnService(apiKey)).toHaveLength(0);
	});
});

describe('deactivation', () => {
	it('deletes the webhook and forgets the static data', async () => {
		const { host, apiKey } = newHost(['document.completed']);
		await host.activate();
		expect(webhooksOnService(apiKey)).toHaveLength(1);

		await host.deactivate();

		expect(webhooksOnService(apiKey)).toHaveLength(0);
		expect(host.nodeStaticData.webhookId).toBeUndefined();
		expect(host.nodeStaticData.secretNonce).toBeUndefined();
	});

	it('treats a 404 from the service as already removed', async () => {
		const { host, apiKey } = newHost(['document.completed']);
		await host.activate();
		await deleteByHand(apiKey, String(host.nodeStaticData.webhookId));

		await expect(host.deactivate()).resolves.toBeUndefined();
		expect(webhooksOnService(apiKey)).toHaveLength(0);
		expect(host.nodeStaticData.webhookId).toBeUndefined();
	});

	it('reports a 500 answer to DELETE (not swallowed), keeps what it knows, and succeeds once the service recovers', async () => {
		const { host, apiKey } = newHost(['document.completed']);
		await host.activate();
		const id = String(host.nodeStaticData.webhookId);

		// Only DELETE fails; every other request reaches the real sandbox.
		const scope = nock(sandbox().origin, { allowUnmocked: true })
			.delete(`/v1/webhooks/${id}`)
			.times(MAX_ATTEMPTS)
			.reply(500, { error: { code: 'internal_error', message: 'Boom' } });
		await withInstantWaits(async () => {
			await expect(host.deactivate()).rejects.toMatchObject({ httpCode: '500', message: 'Boom' });
		});
		expect(scope.isDone()).toBe(true);
		nock.cleanAll();

		expect(webhooksOnService(apiKey).map((webhook) => webhook.id)).toEqual([id]);
		expect(host.nodeStaticData.webhookId).toBe(id);

		await host.deactivate();
		expect(webhooksOnService(apiKey)).toHaveLength(0);
		expect(host.nodeStaticData.webhookId).toBeUndefined();
	});

	it('reports a failure when the service is down altogether (sandbox() failure injection)', async () => {
		const { host, apiKey } = newHost(['document.completed']);
		await host.activate();
		sandbox().configure({ failureRate: 1, failureStatuses: [503] });
		await withInstantWaits(async () => {
			await expect(host.deactivate()).rejects.toMatchObject({ httpCode: '503' });
		});
		sandbox().configure({ failureRate: 0 });
		expect(webhooksOnService(apiKey)).toHaveLength(1);
	});

	it('also removes a webhook for its URL that the static data never knew about', async () => {
		const { host, apiKey } = newHost(['document.completed']);
		await host.activate({ save: false });
		expect(webhooksOnService(apiKey)).toHaveLength(1);

		await host.deactivate();
		expect(webhooksOnService(apiKey)).toHaveLength(0);
	});

	it('after activate → deactivate → activate there is exactly one webhook', async () => {
		const { host, apiKey } = newHost(['document.completed']);
		await host.activate();
		await host.deactivate();
		await host.activate();
		expect(webhooksOnService(apiKey)).toHaveLength(1);
		expect(host.nodeStaticData.webhookId).toBe(webhooksOnService(apiKey)[0].id);
	});
});

describe('the registration in static data', () => {
	const stored = {
		webhookId: 'wh_1',
		webhookUrl: 'https://n8n.example.com/webhook/abc/webhook',
		webhookEvents: ['document.completed'],
		secretNonce: 'a'.repeat(32),
	};

	it('reads a registration back, with a sealed (service-chosen) secret when there is one', () => {
		expect(readRegistration(stored)).toEqual({
			id: 'wh_1',
			url: stored.webhookUrl,
			events: ['document.completed'],
			nonce: stored.secretNonce,
		});
		expect(readRegistration({ ...stored, sealedSecret: 'sealed' })?.sealedSecret).toBe('sealed');
	});

	it.each([
		['webhookId', ''],
		['webhookUrl', undefined],
		['webhookEvents', []],
		['secretNonce', 42],
	])('reads nothing when %s is missing or unusable (%p)', (key, value) => {
		expect(readRegistration({ ...stored, [key]: value })).toBeUndefined();
	});
});
