import type { IDataObject } from 'n8n-workflow';

import { MAX_PAGE_SIZE } from '../vocabulary';
import { TIME_LIMITS } from './bounds';
import type { ListPaging, PageRequest } from './listRecords';
import {
	pageQuery,
	walkPages,
	walkPagesWithin,
	type WalkBudget,
	type WalkResult,
} from './pageWalk';
import { searchPage } from './searchPages';
import { apiRequest, serviceClient, type ApiContext, type ServiceClient } from './request';
import type { ServiceOrigin } from './service';

/**
 * Lists the package reads itself, outside n8n's routing engine: the list searches of the editor,
 * a template looked up by id, and the webhook sweeps. Each page is one apiRequest; the walk is
 * pageWalk.ts's.
 */

async function fetchListPage(
	context: ApiContext,
	client: ServiceClient,
	path: string,
	qs: IDataObject,
	request: PageRequest,
	pageSize: number,
	paging?: ListPaging,
	maxTotalWaitMs?: number,
) {
	if (request.url) {
		return {
			response: await apiRequest(context, 'GET', request.url, { client, maxTotalWaitMs }),
			requestUrl: request.url,
		};
	}
	const response = await apiRequest(context, 'GET', path, {
		client,
		qs: { ...qs, ...pageQuery(request, pageSize, paging) },
		maxTotalWaitMs,
	});
	return { response, requestUrl: client.origin.urlOf(path) };
}

/**
 * One page of a list and the token of the next one (for the list searches). n8n gives a list
 * search no cancel signal, so it is bounded by TIME_LIMITS.listSearchMs instead.
 */
export async function apiRequestPage(
	context: ApiContext,
	path: string,
	qs: IDataObject,
	token?: string,
	paging: ListPaging = {},
): Promise<{ records: IDataObject[]; nextToken?: string; origin: ServiceOrigin }> {
	const client = await serviceClient(context);
	const { limit, ...filters } = qs;
	const pageSize = Number(limit ?? MAX_PAGE_SIZE);
	const page = await searchPage({
		origin: client.origin,
		token,
		pageSize,
		paging,
		fetchPage: async (request) =>
			await fetchListPage(
				context,
				client,
				path,
				filters,
				request,
				pageSize,
				paging,
				TIME_LIMITS.listSearchMs,
			),
	});
	return { ...page, origin: client.origin };
}

/** The first record of a list `wanted` accepts, read page by page up to it (LIST_WALK_BUDGET). */
export async function apiFindRecord(
	context: ApiContext,
	path: string,
	wanted: (record: IDataObject) => boolean,
): Promise<IDataObject | undefined> {
	const client = await serviceClient(context);
	const records = await walkPages({
		origin: client.origin,
		pageSize: MAX_PAGE_SIZE,
		stopAt: wanted,
		fetchPage: async (request) =>
			await fetchListPage(context, client, path, {}, request, MAX_PAGE_SIZE),
	});
	const last = records[records.length - 1];
	return last !== undefined && wanted(last) ? last : undefined;
}

/**
 * The package's own sweeps of a list (the webhooks, the polled audit log): with the filters `qs`,
 * from `start`, within `budget`, up to the first record `stopAt` accepts. A spent budget is no
 * failure: the result says where to go on (`next`).
 */
export async function apiSweepRecords(
	context: ApiContext,
	path: string,
	{
		budget,
		qs = {},
		start,
		stopAt,
	}: {
		budget: WalkBudget;
		qs?: IDataObject;
		start?: PageRequest;
		stopAt?: (record: IDataObject) => boolean;
	},
): Promise<WalkResult<IDataObject>> {
	const client = await serviceClient(context);
	return await walkPagesWithin({
		origin: client.origin,
		pageSize: MAX_PAGE_SIZE,
		budget,
		start,
		stopAt,
		fetchPage: async (request) =>
			await fetchListPage(context, client, path, qs, request, MAX_PAGE_SIZE),
	});
}
