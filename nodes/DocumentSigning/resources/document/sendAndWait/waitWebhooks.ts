import type { IDataObject, IExecuteFunctions, IN8nHttpFullResponse } from 'n8n-workflow';

import { apiPath, idText } from '../../../../shared/ids';
import {
	apiRequest,
	apiRequestAllRecords,
	toNodeError,
	type ApiContext,
	type ServiceClient,
} from '../../../../shared/transport';
import { WEBHOOK_SWEEP_BUDGET } from '../../../../shared/vocabulary';
import { WAIT_LINK_MARKERS } from './waitSettings';

/**
 * The service webhook of each wait: one per waiting execution, pointing at that execution's signed
 * resume URL. Removed by the wait itself when it resumes; after the time limit (n8n does not call
 * the node then) by the service when it honours `expires_at`, otherwise by the next Send and Wait
 * run of the same workflow on the same n8n instance, which also removes the webhooks of waiting
 * executions that were cancelled or deleted (n8n tells no node about those).
 *
 * Ownership is read from the webhook's URL alone, the one field every service keeps: a URL of
 * this n8n instance's waiting-webhook address, for this node, signed by n8n, whose query names
 * this workflow and this instance (waitSettings.ts). Nothing else on the account is ever touched,
 * and n8n is only ever asked about URLs of its own waiting-webhook address.
 */

/** Past the limit n8n needs a moment to end the wait; its webhook stays that long. */
export const LIMIT_GRACE_MS = 5 * 60 * 1000;
/** Resume URLs a run asks n8n about, at most (each is one request to n8n). */
export const MAX_PROBES_PER_RUN = 10;
const PROBE_TIMEOUT_MS = 5000;
/** n8n's URL signature: an HMAC-SHA256 in hex, in the `signature` query parameter. */
const N8N_SIGNATURE = /^[0-9a-f]{64}$/;
/** An execution id as n8n writes it in a resume URL. */
const EXECUTION_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Path text that a server may read as another path than the URL parser did. */
const AMBIGUOUS_PATH = /\.\.|%2e|%2f|%5c|\\|;/i;

export interface WaitOwner {
	workflowId: string;
	instanceId: string;
	/** This node's id: n8n's resume URLs end with it. */
	nodeId: string;
	/** This instance's waiting-webhook address (origin and path), e.g. https://n8n.example.com/webhook-waiting */
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

export interface OwnWait {
	/** The URL as parsed, the only address the cleanup ever asks. */
	url: string;
	/** When n8n ends the wait at the latest (epoch ms), if ever. */
	until?: number;
}

/** The wait a webhook belongs to, when its URL is one of this owner's wait links. */
export function ownWait(webhook: IDataObject, owner: WaitOwner): OwnWait | undefined {
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
		!query.get(WAIT_LINK_MARKERS.nonce) ||
		query.get(WAIT_LINK_MARKERS.workflowId) !== owner.workflowId ||
		query.get(WAIT_LINK_MARKERS.instanceId) !== owner.instanceId
	)
		return undefined;
	const until = Number(query.get(WAIT_LINK_MARKERS.until) || NaN);
	return { url: url.href, until: Number.isFinite(until) ? until : undefined };
}

function isNotFound(error: unknown): boolean {
	return String((error as { httpCode?: unknown })?.httpCode ?? '') === '404';
}

/**
 * Removes one webhook. Resolves `false` when the service no longer had it (404): for a resume,
 * that is another call that ended the same wait first. Throws any other failure.
 */
export async function removeWaitWebhook(
	context: ApiContext,
	id: string,
	client?: ServiceClient,
): Promise<boolean> {
	try {
		await apiRequest(context, 'DELETE', apiPath`/webhooks/${id}`, { client });
		return true;
	} catch (error) {
		if (isNotFound(error)) return false;
		throw toNodeError(context.getNode(), error);
	}
}

/**
 * Whether the wait behind a resume URL is still open. The wait's own webhook() answers a probe
 * with its JSON (`wait: 'open'` for the execution's current wait, `'ended'` for an earlier one of
 * the same execution). n8n itself answers 404 for a deleted execution, 409 for one that has
 * finished with an error (a cancel records one), and a page for a send-and-wait execution that
 * finished well (resumed, or timed out). A 409 for a run that is still going ("running already")
 * is open: a wait started at the same moment is saved as waiting only after its webhook exists.
 * Anything else (n8n unreachable from itself, a proxy's error) counts as open: nothing is removed
 * on a guess.
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
		if (response.statusCode === 404) return false;
		if (response.statusCode === 409) return /\brunning\b/i.test(textOf(response.body));
		if (response.statusCode >= 200 && response.statusCode < 300)
			return ownAnswer(response.body)?.wait === 'open';
		return true;
	} catch {
		return true;
	}
}

function textOf(body: unknown): string {
	return typeof body === 'string' ? body : JSON.stringify(body ?? '');
}

/** webhook()'s own answer, when the body is one (n8n's pages are not). */
function ownAnswer(body: unknown): IDataObject | undefined {
	let parsed = body;
	if (typeof body === 'string') {
		try {
			parsed = JSON.parse(body);
		} catch {
			return undefined;
		}
	}
	return typeof parsed === 'object' && parsed !== null && (parsed as IDataObject).received === true
		? (parsed as IDataObject)
		: undefined;
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
 * (plus LIMIT_GRACE_MS), or whose wait n8n reports ended (at most MAX_PROBES_PER_RUN probes, in
 * random order, so every leftover is reached over a few runs). The list is read within the
 * webhook sweeps' own budget. Never throws: cleanup must not keep a new wait from starting.
 * Returns the ids it removed.
 */
export async function removeStaleWaitWebhooks(
	context: IExecuteFunctions,
	owner: WaitOwner,
	client: ServiceClient,
	now = Date.now(),
): Promise<string[]> {
	const removed: string[] = [];
	try {
		const ours = (await apiRequestAllRecords(context, '/webhooks', {}, WEBHOOK_SWEEP_BUDGET))
			.map((webhook) => ({ id: idText(webhook.id), wait: ownWait(webhook, owner) }))
			.filter(
				(entry): entry is { id: string; wait: OwnWait } =>
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
			if (!(await stillWaiting(context, entry.wait.url))) gone.push(entry);
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
