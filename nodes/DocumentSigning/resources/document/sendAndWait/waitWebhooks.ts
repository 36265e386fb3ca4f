import type { IDataObject, IExecuteFunctions, IN8nHttpFullResponse } from 'n8n-workflow';

import { apiPath, idText } from '../../../../shared/ids';
import {
	apiRequest,
	apiRequestAllRecords,
	toNodeError,
	type ApiContext,
	type ServiceClient,
} from '../../../../shared/transport';

/**
 * The service webhook of each wait: one per waiting execution, pointing at that execution's signed
 * resume URL. Removed by the wait itself when it resumes; after the time limit (n8n does not call
 * the node then) by the service when it honours `expires_at`, otherwise by the next Send and Wait
 * run of the same workflow on the same n8n instance, which also removes the webhooks of waiting
 * executions that were cancelled or deleted (n8n tells no node about those).
 *
 * Ownership: a webhook is this workflow's when its description carries the marker with this
 * workflow's id and this n8n instance's id, and its URL is under this instance's waiting-webhook
 * address. Nothing else on the account is ever touched.
 */

const MARKER = 'n8n Send and Wait';
/** `n8n Send and Wait · workflow <id> · instance <id> · until <ISO>|none` */
const DESCRIPTION = /^n8n Send and Wait · workflow (\S+) · instance (\S+) · until (\S+)$/;

/** Past the limit n8n needs a moment to end the wait; its webhook stays that long. */
export const LIMIT_GRACE_MS = 5 * 60 * 1000;
/** Resume URLs a run asks n8n about, at most (each is one request to n8n). */
export const MAX_PROBES_PER_RUN = 10;
const PROBE_TIMEOUT_MS = 5000;

export interface WaitOwner {
	workflowId: string;
	instanceId: string;
	/** This instance's waiting-webhook address, e.g. https://n8n.example.com/webhook-waiting */
	waitingBaseUrl: string;
}

export function waitDescription(owner: WaitOwner, waitTill: Date | undefined): string {
	return `${MARKER} · workflow ${owner.workflowId} · instance ${owner.instanceId} · until ${waitTill ? waitTill.toISOString() : 'none'}`;
}

/** The wait a webhook belongs to, when it is one of this owner's. */
export function ownWait(webhook: IDataObject, owner: WaitOwner): { until?: number } | undefined {
	const match =
		typeof webhook.description === 'string' ? DESCRIPTION.exec(webhook.description) : null;
	if (!match || match[1] !== owner.workflowId || match[2] !== owner.instanceId) return undefined;
	if (typeof webhook.url !== 'string' || !webhook.url.startsWith(`${owner.waitingBaseUrl}/`))
		return undefined;
	const until = match[3] === 'none' ? undefined : Date.parse(match[3]);
	return { until: Number.isNaN(until) ? undefined : until };
}

function isNotFound(error: unknown): boolean {
	return String((error as { httpCode?: unknown })?.httpCode ?? '') === '404';
}

/** Removes one webhook; one already gone (404) counts as removed. Throws any other failure. */
export async function removeWaitWebhook(
	context: ApiContext,
	id: string,
	client?: ServiceClient,
): Promise<void> {
	try {
		await apiRequest(context, 'DELETE', apiPath`/webhooks/${id}`, { client });
	} catch (error) {
		if (isNotFound(error)) return;
		throw toNodeError(context.getNode(), error);
	}
}

/**
 * Whether the execution behind a resume URL may still wait. A waiting execution's webhook()
 * answers the probe with its own JSON and ignores it (no signature, no event). n8n itself answers
 * 404 for a deleted execution, 409 for one that has finished with an error (a cancel records one),
 * and a page for a send-and-wait execution that finished well (resumed, or timed out). A 409 for a
 * run that is still going ("running already") is alive: a wait started at the same moment is saved
 * as waiting only after its webhook exists. Anything else (n8n unreachable from itself, a proxy's
 * error) counts as waiting: nothing is removed on a guess.
 */
async function stillWaiting(context: IExecuteFunctions, url: string): Promise<boolean> {
	try {
		const response = (await context.helpers.httpRequest({
			method: 'POST',
			url,
			body: { probe: 'n8n-nodes-document-signing' },
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			timeout: PROBE_TIMEOUT_MS,
		})) as IN8nHttpFullResponse;
		const text =
			typeof response.body === 'string' ? response.body : JSON.stringify(response.body ?? '');
		if (response.statusCode === 404) return false;
		if (response.statusCode === 409) return /\brunning\b/i.test(text);
		// A 2xx is the wait's own webhook() only when it is its answer; n8n answers a finished
		// send-and-wait execution (resumed, or timed out) with a "no action required" page.
		if (response.statusCode >= 200 && response.statusCode < 300) return isOwnAnswer(response.body);
		return true;
	} catch {
		return true;
	}
}

function isOwnAnswer(body: unknown): boolean {
	let parsed = body;
	if (typeof body === 'string') {
		try {
			parsed = JSON.parse(body);
		} catch {
			return false;
		}
	}
	return typeof parsed === 'object' && parsed !== null && (parsed as IDataObject).received === true;
}

function shuffled<T>(list: T[]): T[] {
	const copy = [...list];
	for (let index = copy.length - 1; index > 0; index--) {
		const other = Math.floor(Math.random() * (index + 1));
		[copy[index], copy[other]] = [copy[other], copy[index]];
	}
	return copy;
}

/**
 * Removes this workflow's wait webhooks that no execution waits on any more: past their limit
 * (plus LIMIT_GRACE_MS), or whose execution n8n reports gone (at most MAX_PROBES_PER_RUN probes,
 * in random order, so every leftover is reached over a few runs). Never throws: cleanup must not
 * keep a new wait from starting. Returns the ids it removed.
 */
export async function removeStaleWaitWebhooks(
	context: IExecuteFunctions,
	owner: WaitOwner,
	client: ServiceClient,
	now = Date.now(),
): Promise<string[]> {
	const removed: string[] = [];
	try {
		const ours = (await apiRequestAllRecords(context, '/webhooks'))
			.map((webhook) => ({ webhook, id: idText(webhook.id), wait: ownWait(webhook, owner) }))
			.filter(
				(entry): entry is { webhook: IDataObject; id: string; wait: { until?: number } } =>
					entry.id !== undefined && entry.wait !== undefined,
			);
		const expired = ours.filter(
			({ wait }) => wait.until !== undefined && wait.until + LIMIT_GRACE_MS < now,
		);
		const toProbe = shuffled(ours.filter((entry) => !expired.includes(entry))).slice(
			0,
			MAX_PROBES_PER_RUN,
		);
		const gone = [];
		for (const entry of toProbe)
			if (!(await stillWaiting(context, String(entry.webhook.url)))) gone.push(entry);
		for (const { id } of [...expired, ...gone]) {
			await removeWaitWebhook(context, id, client);
			removed.push(id);
		}
	} catch (error) {
		context.logger.warn(
			'Document Signing: could not remove the webhooks of earlier waits of this workflow; the next Send and Wait tries again',
			{
				error: (error as Error).message,
			},
		);
	}
	return removed;
}
