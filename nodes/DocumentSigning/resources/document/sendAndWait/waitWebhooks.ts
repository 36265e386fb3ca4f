import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { idText } from '../../../../shared/ids';
import { askOwnN8n, type ServiceClient } from '../../../../shared/transport';
import { memoryOf } from '../../../../shared/nodeMemory';
import { removeWebhook, sweepWebhooks } from '../../../../shared/webhooks';
import { QUERY } from './waitSettings';

/**
 * n8n tells no node of a time-out, cancel or delete: the next run of the workflow removes such waits'
 * webhooks, known from the URL alone (the one field every service keeps).
 */

/** Past the limit n8n needs a moment to end the wait; its webhook stays that long. */
export const LIMIT_GRACE_MS = 5 * 60 * 1000;
/** Resume URLs a run asks n8n about, at most (each is one request to n8n). */
const MAX_PROBES_PER_RUN = 10;
const PROBE_TIMEOUT_MS = 5000;
/** n8n's URL signature: an HMAC-SHA256 in hex. */
const N8N_SIGNATURE = /^[0-9a-f]{64}$/;
const EXECUTION_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Path text that a server may read as another path than the URL parser did. */
const AMBIGUOUS_PATH = /\.\.|%2e|%2f|%5c|\\|;/i;
/** n8n's own words for an execution that is gone or over (waiting-webhooks.js, n8n 1.110 to 2.41). */
const N8N_GONE = /^The execution "[\w-]{1,64}" does not exist\.$/;
const N8N_FINISHED = /^The execution "[\w-]{1,64}"? has finished (with error|already)\.$/;
const N8N_NO_ACTION_PAGE = '<title>No action required</title>';

export interface WaitOwner {
	workflowId: string;
	instanceId: string;
	/** This node's id: n8n's resume URLs end with it. */
	nodeId: string;
	/** This instance's waiting-webhook address, e.g. https://n8n.example.com/webhook-waiting */
	waitingBase: URL;
}

/** The owner of this run's waits, from the resume URL n8n makes for this execution and node. */
export function waitOwner(context: IExecuteFunctions): WaitOwner {
	const node = context.getNode();
	const resumeUrl = new URL(context.getSignedResumeUrl({}));
	const suffix = `/${context.getExecutionId()}/${encodeURIComponent(node.id)}`;
	const waitingBase = new URL(resumeUrl.origin);
	waitingBase.pathname = resumeUrl.pathname.endsWith(suffix)
		? resumeUrl.pathname.slice(0, -suffix.length)
		: resumeUrl.pathname;
	return {
		workflowId: String(context.getWorkflow().id ?? ''),
		instanceId: context.getInstanceId(),
		nodeId: node.id,
		waitingBase,
	};
}

/**
 * The wait a webhook belongs to, when its URL is one of this owner's wait links: the URL as parsed
 * (the only address the cleanup ever asks) and the wait's limit (epoch ms), if any.
 */
export function ownWait(
	webhook: IDataObject,
	owner: WaitOwner,
): { url: string; until?: number } | undefined {
	const raw = webhook.url;
	if (typeof raw !== 'string' || raw.length > 4096) return undefined;
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		return undefined;
	}
	const rawPath = raw.slice(url.origin.length).split(/[?#]/)[0];
	if (AMBIGUOUS_PATH.test(rawPath) || url.username || url.password || url.hash) return undefined;
	if (url.origin !== owner.waitingBase.origin) return undefined;
	const prefix = `${owner.waitingBase.pathname.replace(/\/$/, '')}/`;
	if (!url.pathname.startsWith(prefix)) return undefined;
	const [executionId, nodeId, ...rest] = url.pathname.slice(prefix.length).split('/');
	if (rest.length > 0 || !EXECUTION_ID.test(executionId ?? '')) return undefined;
	if (nodeId !== encodeURIComponent(owner.nodeId)) return undefined;
	const query = url.searchParams;
	if (!N8N_SIGNATURE.test(query.get('signature') ?? '')) return undefined;
	if (
		!query.get(QUERY.nonce) ||
		query.get(QUERY.workflowId) !== owner.workflowId ||
		query.get(QUERY.instanceId) !== owner.instanceId
	)
		return undefined;
	const until = Number(query.get(QUERY.until) || NaN);
	return { url: url.href, until: Number.isFinite(until) ? until : undefined };
}

/** A response's JSON object, parsed (at most 64 KB) when it came as text. */
function jsonOf(body: unknown): IDataObject | undefined {
	let parsed = body;
	if (typeof body === 'string') {
		try {
			parsed = JSON.parse(body.slice(0, 65536));
		} catch {
			return undefined;
		}
	}
	return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
		? (parsed as IDataObject)
		: undefined;
}

/**
 * Whether the wait behind a resume URL is still open. Ended only on n8n's own words or webhook()'s
 * `wait: 'ended'`; anything else is open: nothing is removed on a guess.
 */
async function stillWaiting(context: IExecuteFunctions, url: string): Promise<boolean> {
	try {
		const response = await askOwnN8n(
			context,
			url,
			{ probe: 'n8n-nodes-document-signing' },
			PROBE_TIMEOUT_MS,
		);
		const json = jsonOf(response.body);
		const message = String(json?.message ?? '').slice(0, 200);
		if (response.statusCode === 404) return !N8N_GONE.test(message);
		if (response.statusCode === 409) return !N8N_FINISHED.test(message);
		if (response.statusCode < 200 || response.statusCode >= 300) return true;
		// webhook()'s own answer says; n8n's pages are not JSON.
		if (json?.received === true) return json.wait !== 'ended';
		const text =
			typeof response.body === 'string' ? response.body : JSON.stringify(response.body ?? '');
		return !text.slice(0, 8192).includes(N8N_NO_ACTION_PAGE);
	} catch {
		return true;
	}
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
 * Removes this workflow's wait webhooks that no execution waits on: past their limit (plus
 * LIMIT_GRACE_MS), or ended by n8n's answer (random probes, so every leftover is reached over a few
 * runs). Never throws: cleanup must not keep a new wait from starting.
 */
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
		const ours = records.flatMap((webhook) => {
			const id = idText(webhook.id);
			const wait = ownWait(webhook, owner);
			return id !== undefined && wait ? [{ id, wait }] : [];
		});
		const expired = ours.filter(
			({ wait }) => wait.until !== undefined && wait.until + LIMIT_GRACE_MS < now,
		);
		const toProbe = shuffled(ours.filter((entry) => !expired.includes(entry)));
		const gone = [];
		for (const entry of toProbe.slice(0, MAX_PROBES_PER_RUN))
			if (!(await stillWaiting(context, entry.wait.url))) gone.push(entry);
		for (const { id } of [...expired, ...gone]) await removeWebhook(context, id, client);
	} catch (error) {
		context.logger.warn(
			'Document Signing: could not remove the webhooks of earlier waits of this workflow; the next Send and Wait tries again',
			{ error: (error as Error).message },
		);
	}
}
