import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { idText } from '../../../../shared/ids';
import { memoryOf } from '../../../../shared/nodeMemory';
import { askOwnN8n, type ServiceClient } from '../../../../shared/transport';
import { isObject } from '../../../../shared/transport/listRecords';
import { parseObject, removeWebhook, sweepWebhooks } from '../../../../shared/webhooks';

/** n8n tells no node of a time-out, cancel or delete: the workflow's next run removes their webhooks. */

/** Past the limit n8n needs a moment to end the wait; its webhook stays that long. */
export const LIMIT_GRACE_MS = 5 * 60 * 1000;
/** Resume URLs a run asks n8n about, at most (each is one request to n8n). */
const MAX_PROBES_PER_RUN = 10;
/** n8n's URL signature: an HMAC-SHA256 in hex. */
const N8N_SIGNATURE = /^[0-9a-f]{64}$/;
const EXECUTION_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Path text that a server may read as another path than the URL parser did. */
const AMBIGUOUS_PATH = /\.\.|%2e|%2f|%5c|\\|;/i;
/** n8n's own words for an execution that is gone or over (waiting-webhooks.js, n8n 1.110 to 2.41). */
const N8N_GONE = /^The execution "[\w-]{1,64}" does not exist\.$/;
const N8N_FINISHED = /^The execution "[\w-]{1,64}"? has finished (with error|already)\.$/;

export type WaitOwner = ReturnType<typeof waitOwner>;

/** The owner of this run's waits, from the resume URL n8n makes for this execution and node. */
export function waitOwner(context: IExecuteFunctions) {
	const node = context.getNode();
	const resumeUrl = new URL(context.getSignedResumeUrl({}));
	const suffix = `/${context.getExecutionId()}/${encodeURIComponent(node.id)}`;
	const waitingBase = new URL(resumeUrl.origin);
	waitingBase.pathname = resumeUrl.pathname.endsWith(suffix)
		? resumeUrl.pathname.slice(0, -suffix.length)
		: resumeUrl.pathname;
	const workflowId = String(context.getWorkflow().id ?? '');
	return { workflowId, instanceId: context.getInstanceId(), nodeId: node.id, waitingBase };
}

/** A wait link of this owner, known from the URL alone: the URL as parsed (the only one probed). */
export function ownWait(webhook: IDataObject, owner: WaitOwner) {
	const raw = webhook.url;
	if (typeof raw !== 'string' || raw.length > 4096 || !URL.canParse(raw)) return undefined;
	const url = new URL(raw);
	const rawPath = raw.slice(url.origin.length).split(/[?#]/)[0];
	if (AMBIGUOUS_PATH.test(rawPath) || url.username || url.password || url.hash) return undefined;
	const prefix = `${owner.waitingBase.pathname.replace(/\/$/, '')}/`;
	if (url.origin !== owner.waitingBase.origin || !url.pathname.startsWith(prefix)) return undefined;
	const [executionId, nodeId, ...rest] = url.pathname.slice(prefix.length).split('/');
	const query = url.searchParams;
	if (
		rest.length > 0 ||
		!EXECUTION_ID.test(executionId ?? '') ||
		nodeId !== encodeURIComponent(owner.nodeId) ||
		!N8N_SIGNATURE.test(query.get('signature') ?? '') ||
		!query.get('nonce') ||
		query.get('workflow') !== owner.workflowId ||
		query.get('instance') !== owner.instanceId
	)
		return undefined;
	const until = Number(query.get('until') || NaN);
	return { url: url.href, until: Number.isFinite(until) ? until : undefined };
}

/** Ended only on n8n's own words or webhook()'s `wait: 'ended'`: nothing is removed on a guess. */
async function stillWaiting(context: IExecuteFunctions, url: string): Promise<boolean> {
	try {
		const { statusCode, body } = await askOwnN8n(
			context,
			url,
			{ probe: 'n8n-nodes-document-signing' },
			5000,
		);
		const json = typeof body === 'string' ? parseObject(body.slice(0, 65536)) : body;
		const message = String(isObject(json) ? (json.message ?? '') : '').slice(0, 200);
		if (statusCode === 404) return !N8N_GONE.test(message);
		if (statusCode === 409) return !N8N_FINISHED.test(message);
		if (statusCode < 200 || statusCode >= 300) return true;
		// webhook()'s own response says; n8n's pages are not JSON.
		if (isObject(json) && json.received === true) return json.wait !== 'ended';
		const text = typeof body === 'string' ? body : JSON.stringify(body ?? '');
		return !text.slice(0, 8192).includes('<title>No action required</title>');
	} catch {
		return true;
	}
}

/** Removes wait webhooks past their limit or found ended. Never throws: a new wait must start. */
export async function removeStaleWaitWebhooks(
	context: IExecuteFunctions,
	owner: WaitOwner,
	client: ServiceClient,
): Promise<void> {
	const now = Date.now();
	// On an account with more webhooks than one sweep reads, the runs take turns through the list.
	const memory = memoryOf(owner.workflowId, owner.nodeId);
	const start = memory.sweepPlace;
	memory.sweepPlace = undefined;
	try {
		const { records, next } = await sweepWebhooks(context, { start });
		memory.sweepPlace = next;
		const stale: string[] = [];
		const open: Array<{ id: string; url: string }> = [];
		for (const webhook of records) {
			const id = idText(webhook.id);
			const wait = ownWait(webhook, owner);
			if (id === undefined || !wait) continue;
			if (wait.until !== undefined && wait.until + LIMIT_GRACE_MS < now) stale.push(id);
			else open.push({ id, url: wait.url });
		}
		// From a random place in the list: every leftover is probed within a few runs.
		const first = Math.floor(Math.random() * open.length);
		const probed = [...open.slice(first), ...open.slice(0, first)].slice(0, MAX_PROBES_PER_RUN);
		for (const { id, url } of probed) if (!(await stillWaiting(context, url))) stale.push(id);
		for (const id of stale) await removeWebhook(context, id, client);
	} catch (error) {
		context.logger.warn(
			'Document Signing: could not remove the webhooks of earlier waits of this workflow; the next Send and Wait tries again',
			{ error: (error as Error).message },
		);
	}
}
