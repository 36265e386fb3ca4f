import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { idText } from '../../../../shared/ids';
import { memoryOf } from '../../../../shared/nodeMemory';
import type { ServiceClient } from '../../../../shared/transport';
import { isFinal } from '../../../../shared/vocabulary';
import * as webhooks from '../../../../shared/webhooks';
import { readDocuments } from './webhook';

/** Past the limit n8n needs a moment to end the wait; its webhook stays that long. */
export const LIMIT_GRACE_MS = 5 * 60 * 1000;
/**
 * How long a wait's webhook outlives its document's end: the service may still be retrying the
 * final event's delivery to a wait that is open, and that retry needs the webhook.
 */
const ENDED_DOCUMENT_GRACE_MS = 24 * 60 * 60 * 1000;
/** Waits without a passed limit whose documents a run reads, at most (a batch's: one sweep). */
const MAX_WAITS_READ_PER_RUN = 10;

/** Longest webhook URL read: a batch's resume URL, 100 ids, stays under 8 KB (docs/api-contract.md). */
const MAX_URL_LENGTH = 8192;

function queryOf(url: unknown): URLSearchParams | undefined {
	return typeof url === 'string' && url.length <= MAX_URL_LENGTH && URL.canParse(url)
		? new URL(url).searchParams
		: undefined;
}

/**
 * A wait of this owner: its description's note or its URL's `owner` carries the owner tag. Nothing
 * else is: no released version registered a wait without it.
 */
function ownWait(webhook: IDataObject, owner: string) {
	const query = queryOf(webhook.url);
	const tagged =
		webhooks.registrationNote(webhook.description)?.owner === owner ||
		query?.get('owner') === owner;
	if (!tagged) return undefined;
	const until = Number(query?.get('until') || NaN);
	// A batch's ids (empty for a failed item), a single wait's, or the registration's filter.
	const ids = query?.get('documents') || query?.get('document') || idText(webhook.document_id);
	return {
		until: Number.isFinite(until) ? until : undefined,
		documentIds: ids ? ids.split(',').map((id) => id || undefined) : [],
		since: query?.get('since') || undefined,
	};
}

/** Gone at the service, or final for longer than the grace; a date it cannot read keeps the wait. */
function documentEnded(document: IDataObject | undefined, now: number): boolean {
	if (!document || document.status === 'deleted') return true;
	if (!isFinal(document.status)) return false;
	const endedAt = document.completed_at || document.updated_at;
	const endedMs = typeof endedAt === 'string' && endedAt.length <= 64 ? Date.parse(endedAt) : NaN;
	return Number.isFinite(endedMs) && endedMs + ENDED_DOCUMENT_GRACE_MS < now;
}

/**
 * n8n tells no node of a time-out, cancel or delete: so a run removes this workflow node's wait
 * webhooks past their limit, or whose documents are gone or ended over a day ago. Never throws: a
 * new wait must start.
 */
export async function removeStaleWaitWebhooks(
	context: IExecuteFunctions,
	scope: Pick<webhooks.SecretScope, 'workflowId' | 'nodeId'>,
	client: ServiceClient,
): Promise<void> {
	const now = Date.now();
	// The trigger's owner tag (registrationDescription), also in the URL for services that drop the description.
	const owner = webhooks.ownerTag(scope.workflowId, scope.nodeId);
	// On an account with more webhooks than one sweep reads, the runs take turns through the list.
	const memory = memoryOf(scope.workflowId, scope.nodeId);
	const start = memory.sweepPlace;
	memory.sweepPlace = undefined;
	try {
		const { records, next } = await webhooks.sweepWebhooks(context, { start });
		memory.sweepPlace = next;
		const stale: string[] = [];
		const withinLimit: Array<{ id: string } & NonNullable<ReturnType<typeof ownWait>>> = [];
		for (const webhook of records) {
			const id = idText(webhook.id);
			const wait = ownWait(webhook, owner);
			if (id === undefined || !wait) continue;
			if (wait.until !== undefined && wait.until + LIMIT_GRACE_MS < now) stale.push(id);
			else if (wait.documentIds.some(Boolean)) withinLimit.push({ id, ...wait });
		}
		// From a random place in the list: every leftover is read within a few runs.
		const first = Math.floor(Math.random() * withinLimit.length);
		const rotated = [...withinLimit.slice(first), ...withinLimit.slice(0, first)];
		// A batch's webhook goes once all its documents have ended, as a single wait's with its one.
		for (const { id, documentIds, since } of rotated.slice(0, MAX_WAITS_READ_PER_RUN)) {
			try {
				const documents = await readDocuments(context, client, documentIds, since);
				if (documents.every((document) => documentEnded(document, now))) stale.push(id);
			} catch {
				// Not readable now: the wait keeps its webhook; a later run reads it again.
			}
		}
		for (const id of stale) await webhooks.removeWebhook(context, id, client);
	} catch (error) {
		context.logger.warn(
			'Document Signing: could not remove the webhooks of earlier waits of this workflow; the next Send and Wait tries again',
			{ error: (error as Error).message },
		);
	}
}
