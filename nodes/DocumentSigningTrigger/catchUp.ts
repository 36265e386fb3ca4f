import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';

import { apiPath, idText } from '../shared/ids';
import {
	apiRequest,
	apiSweepRecords,
	deriveIdempotencyKey,
	isNotFound,
	isObject,
	ServiceBehaviourError,
	toNodeError,
} from '../shared/transport';
import { EVENT_POLL_BUDGET, NOT_CLAIMABLE } from '../shared/vocabulary';
import { markProcessed, type NodeMemory } from '../shared/nodeMemory';
import { findWebhook } from '../shared/webhooks';
import { isoOf, timeMs, type AuditEvent } from './auditEntries';
import { readRegistration } from './registration';

/** Webhook mode's catch-up (docs/trigger.md): Polling's reader, each event decided against the
 * webhook's deliveries by the rule of docs/api-contract.md, "One event, two records". */
export type Decision = 'pass' | 'skip' | 'hold';

/** Records of one event are at most 10 minutes apart; an unlisted delivery is waited for 2. */
export const [WINDOW_MS, UNLISTED_HOLD_MS] = [10 * 60 * 1000, 2 * 60 * 1000];
/** Events the catch-up passed on, kept in static data for webhook(): the newest, for a day. */
const [PASSED_KEPT, PASSED_MS] = [1_000, 24 * 60 * 60 * 1000];
/** Answers that mean the catch-up cannot work with this service or key until the next activation. */
const LASTING = ['401', '403', '404', '405', '501'];

/** One event as the rule compares it; `key` an entry's, `delivery` a delivery's id. */
type Ids = Record<'document' | 'signer' | 'request' | 'key' | 'delivery', string>;
export type Identity = Partial<Ids & { record: IDataObject }> & { event: string; ms: number };

const partOf = (data: IDataObject, name: string) =>
	(isObject(data[name]) ? data[name] : {}) as IDataObject;

export function entryIdentity(event: AuditEvent): Identity {
	const { signer_id, signature_request_id } = partOf(event.entry, 'details');
	const [signer, request] = [signer_id, signature_request_id].map(idText);
	const { ms, key, documentId: document } = event;
	return { event: event.event, document, signer, request, ms, key };
}

/** A delivery's body (its record's `payload`), with the record; undefined without event or time. */
export function deliveryIdentity(body: IDataObject, record?: IDataObject): Identity | undefined {
	const data = partOf(body, 'data');
	const request = partOf(data, 'signature_request');
	const event = body.event ?? record?.event;
	const ms = timeMs(body.created_at ?? record?.created_at);
	if (typeof event !== 'string' || ms === undefined) return undefined;
	const document = idText(partOf(data, 'document').id ?? request.document_id);
	const [signer, delivery] = [idText(partOf(data, 'signer').id), idText(body.id ?? record?.id)];
	return { event, document, signer, request: idText(request.id), ms, delivery, record };
}

const agree = (a?: string, b?: string) => a === undefined || b === undefined || a === b;
/** The rule: same event and document, the same signer and request where both name one, 10 minutes. */
export const sameEvent = (a: Identity, b: Identity) =>
	a.event === b.event &&
	a.document === b.document &&
	agree(a.signer, b.signer) &&
	agree(a.request, b.request) &&
	Math.abs(a.ms - b.ms) <= WINDOW_MS;

/** Entries (by key) paired one to one with deliveries: oldest entry first, the nearest in time. */
export function pairs(entries: Identity[], deliveries: Identity[]) {
	const bySubject = new Map<string, Set<Identity>>();
	const subject = (one: Identity) => `${one.event}\u0000${one.document}`;
	for (const one of deliveries)
		bySubject.set(subject(one), (bySubject.get(subject(one)) ?? new Set()).add(one));
	const paired = new Map<string | undefined, Identity>();
	for (const entry of [...entries].sort((a, b) => a.ms - b.ms)) {
		const free = bySubject.get(subject(entry)) ?? new Set();
		const distance = (one: Identity) => Math.abs(one.ms - entry.ms);
		const near = [...free].filter((one) => sameEvent(entry, one));
		const best = near.sort((a, b) => distance(a) - distance(b))[0];
		if (best && free.delete(best)) paired.set(entry.key, best);
	}
	return paired;
}

/** What the catch-up passed on (static data `catchUp.passed`), within its bounds. */
export function passedOf(data: IDataObject): Identity[] {
	const passed = (data.catchUp as IDataObject | undefined)?.passed;
	const recent = (one: unknown) => isObject(one) && Date.now() - Number(one.ms) <= PASSED_MS;
	return Array.isArray(passed) ? (passed.filter(recent) as unknown as Identity[]) : [];
}

/** webhook(): whether the catch-up passed this delivery's event on (each one delivery per process). */
export function caughtUp(data: IDataObject, body: IDataObject, memory: NodeMemory) {
	const delivery = deliveryIdentity(body);
	const once = (one: Identity) => markProcessed(memory, `catch-up:${one.key}`);
	const matches = (one: Identity) => sameEvent(one, delivery as Identity) && once(one);
	return delivery !== undefined && passedOf(data).some(matches);
}

/** Webhook mode's catch-up for one activation: `decide` for pollOnce, `failed` for its failures. */
export function catchUpOf(context: ITriggerFunctions) {
	const where = { workflowId: context.getWorkflow().id, node: context.getNode().name };
	const warn = (text: string) => context.logger.warn(`Document Signing Trigger: ${text}`, where);
	const data = context.getWorkflowStaticData('node');
	const webhookId = readRegistration(data)?.id ?? '';
	let [claimable, off] = [true, false];
	let listed: { read: AuditEvent[]; paired: Map<string | undefined, Identity> } | undefined;
	/** The webhook's deliveries over the read's span and the rule's window either side. */
	const deliveriesOver = async (read: AuditEvent[]): Promise<Identity[]> => {
		const times = read.map((event) => event.ms);
		const [from, to] = [Math.min(...times) - WINDOW_MS, Math.max(...times) + WINDOW_MS];
		const path = apiPath`/webhooks/${webhookId}/deliveries`;
		const qs = { from: isoOf(from), to: isoOf(to) };
		try {
			const { records } = await apiSweepRecords(context, path, { budget: EVENT_POLL_BUDGET, qs });
			const identity = (one: IDataObject) => deliveryIdentity(partOf(one, 'payload'), one);
			return records.map(identity).filter((one): one is Identity => one !== undefined);
		} catch (error) {
			// The webhook removed at the service: nothing was delivered to it since.
			const gone =
				isNotFound(error) && !(await findWebhook(context, (w) => idText(w.id) === webhookId));
			if (gone) return [];
			throw toNodeError(context.getNode(), error);
		}
	};

	/** A listed delivery of the event: the claim decides between the paths (claim.ts claims too). */
	const judge = async ({ record = {}, delivery = '' }: Identity): Promise<Decision> => {
		if (record.status === 'acknowledged' || record.acknowledged_at) return 'skip';
		const received = record.status === 'received';
		const sinceReceived = Date.now() - (timeMs(record.received_at) ?? 0);
		if (record.status === 'pending' || (received && sinceReceived < WINDOW_MS)) return 'hold';
		if (claimable) {
			const key = deriveIdempotencyKey('acknowledge', 'catch-up', where.workflowId, delivery);
			const path = apiPath`/webhooks/${webhookId}/deliveries/${delivery}/acknowledge`;
			const options = { idempotencyKey: key, acceptStatuses: [409, ...NOT_CLAIMABLE] };
			const { statusCode } = await apiRequest(context, 'POST', path, options);
			if (!NOT_CLAIMABLE.includes(statusCode)) return statusCode === 409 ? 'skip' : 'pass';
			// 404: older than a claim is allowed; 405/501: no acknowledge endpoint.
			claimable = statusCode === 404;
			if (!claimable) warn('the service cannot confirm deliveries: a received one counts as run');
		}
		return received ? 'skip' : 'pass';
	};

	const decide = async (event: AuditEvent, read: AuditEvent[]): Promise<Decision> => {
		if (listed?.read !== read)
			listed = { read, paired: pairs(read.map(entryIdentity), await deliveriesOver(read)) };
		const delivery = listed.paired.get(event.key);
		let verdict: Decision = Date.now() - event.ms < UNLISTED_HOLD_MS ? 'hold' : 'pass';
		if (delivery) verdict = await judge(delivery);
		// Saved with the emit that follows, as the cursor is; webhook() reads it.
		const kept = { ...entryIdentity(event), delivery: delivery?.delivery };
		if (verdict === 'pass')
			data.catchUp = { passed: [...passedOf(data), kept].slice(-PASSED_KEPT) };
		return verdict;
	};

	/** A failure the service or key will keep answering turns the catch-up off, said once. */
	const failed = (error: unknown): undefined => {
		const nodeError = toNodeError(context.getNode(), error) as { httpCode?: unknown } & Error;
		off = error instanceof ServiceBehaviourError || LASTING.includes(String(nodeError.httpCode));
		const then = off ? 'off until the workflow is published again' : 'trying again at the next one';
		return void warn(`the catch-up of missed events failed, ${then}: ${nodeError.message}`);
	};
	return { decide, failed, isOff: () => off };
}
