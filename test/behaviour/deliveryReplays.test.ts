/**
 * A signed delivery is accepted once, within its time window: Signature Tolerance is capped, a
 * repeat is recognised from signed data only, and the repeat memory is bounded, in bytes, id
 * length and each workflow node's share. Servers listen on 127.0.0.1 only. Each test's first
 * comment says what the code before the fix did (the test fails on it).
 */

import { useSandbox, webhookSecret } from '../helpers/sandbox';
import { TriggerHost } from '../helpers/triggerHost';
import {
	deliveryBody,
	deliveryIn,
	signedDelivery,
	useDeliveryFixtures,
} from '../helpers/deliveryFixtures';
import { markProcessed, memoryOf, wasProcessed } from '../../nodes/shared/nodeMemory';
import { nowSeconds, signed, useSecuritySuite } from '../helpers/securityKit';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../helpers/instantWaits').n8nWorkflowWithInstantWaits(),
);

const sandbox = useSandbox({
	port: 0,
	host: '127.0.0.1',
	webhookRetry: { baseDelayMs: 5, maxAttempts: 2, timeoutMs: 5000 },
});

useSecuritySuite();

describe('Signature Tolerance is capped (finding 8)', () => {
	// Old: the tolerance was used as given, so 1e12 s turned replay protection off.
	test('with 1e12 s, a correctly signed 2-hour-old delivery is refused 401; a 30-minute-old one is accepted', async () => {
		const { apiKey } = sandbox().createAccount();
		const host = new TriggerHost({
			baseUrl: sandbox().baseUrl,
			apiKey,
			webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
			events: ['document.completed'],
			options: { signatureToleranceSeconds: 1e12 },
		});
		await host.activate();
		const webhookId = String(host.nodeStaticData.webhookId);
		const secret = webhookSecret(sandbox(), apiKey, webhookId)!;

		const old = await host.receive(signed(secret, webhookId, nowSeconds() - 2 * 3600));
		expect(old.status).toBe(401);
		expect(old.started).toBe(false);
		expect(old.body).toMatchObject({ error: { code: 'invalid_signature' } });

		const recent = await host.receive(signed(secret, webhookId, nowSeconds() - 30 * 60));
		expect(recent.status).toBe(200);
		expect(recent.started).toBe(true);
		await host.idle();
		expect(host.executions).toHaveLength(1);
	});
});

describe('a repeat is recognised from signed data only, never from the unsigned X-Delivery-Id (finding 22.6)', () => {
	const { activeTrigger } = useDeliveryFixtures();

	function withoutId(): Record<string, unknown> {
		const body: Record<string, unknown> = deliveryBody();
		delete body.id;
		return body;
	}

	it('the same signed body without an id, under 3 different X-Delivery-Id values, starts 1 execution', async () => {
		const { host, secret } = await activeTrigger(['document.completed']);
		const body = withoutId();
		const outcomes = [];
		for (const deliveryId of ['dlv_header1', 'dlv_header2', 'dlv_header3']) {
			const delivery = signedDelivery(secret, body);
			delivery.headers['x-delivery-id'] = deliveryId;
			outcomes.push(await host.receive(delivery));
		}
		await host.idle();
		expect(outcomes.map((outcome) => outcome.started)).toEqual([true, false, false]);
		expect(outcomes[1].body).toMatchObject({ ignored: true, reason: 'already processed' });
		expect(host.executions).toHaveLength(1);
		expect((await outcomes[0].execution!).received[0].json.deliveryId).toBeNull();
	});

	it('Standard Webhooks: the signed webhook-id is the repeat key of a body without an id', async () => {
		const { host, secret } = await activeTrigger(['document.completed']);
		const first = await host.receive(
			deliveryIn('standard-webhooks', secret, withoutId(), nowSeconds(), 'msg_one'),
		);
		expect((await first.execution!).received[0].json.deliveryId).toBe('msg_one');
		// A retry after the first ran (the service has no record of msg_one, so this process remembers
		// it): same signed id, fresh timestamp and signature, a body that differs in a field.
		const retry = await host.receive(
			deliveryIn('standard-webhooks', secret, withoutId(), nowSeconds(), 'msg_one'),
		);
		await host.idle();
		expect(retry.started).toBe(false);
		expect(host.executions).toHaveLength(1);
	});
});

describe('repeat suppression is bounded in bytes and id length (finding 22.7)', () => {
	/** The node memory module as a new n8n process has it: nothing remembered yet. */
	const freshMemory = () => {
		let memory: typeof import('../../nodes/shared/nodeMemory') | undefined;
		jest.isolateModules(() => {
			// eslint-disable-next-line @typescript-eslint/no-require-imports -- a new process's copy
			memory = require('../../nodes/shared/nodeMemory') as typeof memory;
		});
		return memory as typeof import('../../nodes/shared/nodeMemory');
	};

	// Old: each id was kept as given: 200 one-MB ids kept 200 MB of strings.
	test('200 one-MB ids keep a few KB; a repeat of a long id is still recognised', () => {
		const { memoryOf, markProcessed, wasProcessed } = freshMemory();
		const memory = memoryOf('wf-bytes', 'node');
		const ids = Array.from({ length: 200 }, (_, index) => `${index}-${'x'.repeat(1024 * 1024)}`);
		for (const id of ids) expect(markProcessed(memory, id)).toBe(true);
		const kept = [...memory.processed.keys()].join('');
		expect(kept.length).toBeLessThan(200 * 80);
		expect(markProcessed(memory, ids[7])).toBe(false);
		expect(wasProcessed(memory, ids[199])).toBe(true);
	});

	test('ids in all, across workflow nodes, stay within the 50,000 documented', () => {
		const { memoryOf, markProcessed } = freshMemory();
		const nodes = Array.from({ length: 12 }, (_, node) => memoryOf('wf-many', `node-${node}`));
		for (const memory of nodes)
			for (let index = 0; index < 5_000; index++) markProcessed(memory, `dlv_${index}`);
		expect(nodes.reduce((sum, memory) => sum + memory.processed.size, 0)).toBe(50_000);
	});
});

describe('each workflow keeps its share of the repeat memory (finding 37.6)', () => {
	// Old: eviction took the least recently used workflows' ids first, so a flood from other
	// trigger nodes wiped a quiet workflow's memory (then its repeats ran again).
	test('a flood from other workflow nodes evicts only their own ids', () => {
		const quiet = memoryOf(`wf-quiet-${Date.now()}`, 'node');
		for (let i = 0; i < 100; i++) expect(markProcessed(quiet, `dlv_quiet_${i}`)).toBe(true);
		// The documented bounds: 10,000 ids per workflow node, 50,000 in all.
		const flooders = Math.ceil(50_000 / 10_000) + 1;
		for (let f = 0; f < flooders; f++) {
			const flood = memoryOf(`wf-flood-${f}-${Date.now()}`, 'node');
			for (let i = 0; i < 10_000; i++) markProcessed(flood, `dlv_${f}_${i}`);
		}
		for (let i = 0; i < 100; i++) expect(wasProcessed(quiet, `dlv_quiet_${i}`)).toBe(true);
	});
});
