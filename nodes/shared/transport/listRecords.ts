import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ServiceBehaviourError } from './errors';
import { shownInput } from './text';

/** A list's records in a response, the user's List Paging override, and what a page request is. */

/**
 * The user's "List Paging" override (every field optional; a field left empty is found
 * automatically). Paths are dot-separated keys in the response's body (`result.documents`).
 */
export interface ListPaging {
	recordsPath?: string;
	nextTokenPath?: string;
	nextTokenParameter?: string;
	offsetParameter?: string;
	limitParameter?: string;
	totalPath?: string;
}

const PATH = /^[^.\s]+(\.[^.\s]+)*$/;
const PARAMETER = /^[A-Za-z0-9_\-.[\]]{1,100}$/;

/**
 * The override as the node's fields hold it (List Paging: Automatic is none), checked before any
 * request: paths are keys joined by dots (a leading `$.` is allowed), parameters are query-parameter
 * names. A setting that cannot be used is the user's error, naming it.
 */
export function readListPaging(
	mode: unknown,
	raw: unknown,
	node: INode,
	itemIndex?: number,
): ListPaging {
	if (mode !== 'custom' || typeof raw !== 'object' || raw === null) return {};
	const refuse = (setting: string, problem: string) =>
		new NodeOperationError(node, `List Paging > ${setting}: ${problem}`, { itemIndex });
	const settings = raw as Record<string, unknown>;
	const paging: ListPaging = {};
	const text = (name: keyof ListPaging) =>
		typeof settings[name] === 'string' ? (settings[name] as string).trim() : '';
	const fields: Array<[keyof ListPaging, string, boolean]> = [
		['recordsPath', 'Records Path', true],
		['nextTokenPath', 'Next Token Path', true],
		['totalPath', 'Total Path', true],
		['nextTokenParameter', 'Next Token Parameter', false],
		['offsetParameter', 'Offset Parameter', false],
		['limitParameter', 'Limit Parameter', false],
	];
	for (const [name, label, isPath] of fields) {
		const value = isPath ? text(name).replace(/^\$\./, '') : text(name);
		if (!value) continue;
		if (isPath && !PATH.test(value))
			throw refuse(
				label,
				`${shownInput(value)} is not a path; write keys joined by dots, like result.documents`,
			);
		if (!isPath && !PARAMETER.test(value))
			throw refuse(label, `${shownInput(value)} is not a query parameter name`);
		paging[name] = value;
	}
	if (paging.nextTokenParameter && !paging.nextTokenPath)
		throw refuse(
			'Next Token Path',
			'must be set when Next Token Parameter is (where the response holds the token)',
		);
	return paging;
}

export function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function pick(source: unknown, path: string): unknown {
	let current: unknown = source;
	for (const key of path.split('.')) current = isObject(current) ? current[key] : undefined;
	return current;
}

const isArrayOfObjects = (value: unknown): value is IDataObject[] =>
	Array.isArray(value) && value.every(isObject);

/** The top-level keys of a response, for error messages (a few, each cut short). */
export function describeKeys(body: unknown): string {
	if (Array.isArray(body)) return 'none (an array of non-records)';
	if (!isObject(body))
		return body === undefined || body === null || body === ''
			? 'none (an empty response)'
			: `none (${typeof body})`;
	const keys = Object.keys(body);
	if (keys.length === 0) return 'none (an empty object)';
	const shown = keys.slice(0, 20).map((key) => (key.length > 40 ? `${key.slice(0, 40)}…` : key));
	return `${shown.join(', ')}${keys.length > 20 ? `, and ${keys.length - 20} more` : ''}`;
}

/** How many levels below the top the reader looks for records and evidence. */
export const EVIDENCE_DEPTH = 3;
/** Keys read from a response's body at most, across every level, so a huge envelope costs no more than a normal one. */
export const MAX_ENTRIES = 2_000;

const RECORD_KEYS = ['data', 'items', 'results', 'records', 'entries', 'value'];

/**
 * The records of a list response: a bare array; else, level by level from the top, the array under
 * data/items/results/… or the one array of objects whatever its key. Several arrays of objects on
 * one level are ambiguous (unless all are empty: then the page is). Anything else is not a list
 * and fails with its top-level keys (never one item holding it all).
 */
export function extractRecords(body: unknown, paging: ListPaging = {}): IDataObject[] {
	if (paging.recordsPath) {
		const records = pick(body, paging.recordsPath);
		if (Array.isArray(records)) return records as IDataObject[];
		throw new ServiceBehaviourError(
			`The list response has no array at the Records Path "${paging.recordsPath}" (top-level keys: ${describeKeys(body)})`,
			'Check List Paging > Records Path against a response of the service.',
		);
	}
	if (Array.isArray(body)) return body as IDataObject[];
	let level = isObject(body) ? [body] : [];
	// Keys looked at in all, across every level: a huge or deep envelope costs no more than a normal one.
	let budget = MAX_ENTRIES;
	for (let depth = 0; depth <= EVIDENCE_DEPTH && level.length > 0; depth++) {
		for (const holder of level)
			for (const key of RECORD_KEYS)
				if (Object.hasOwn(holder, key) && Array.isArray(holder[key]))
					return holder[key] as IDataObject[];
		const values: unknown[] = [];
		for (const holder of level) {
			for (const key of Object.keys(holder)) {
				if (budget-- <= 0) break;
				values.push(holder[key]);
			}
		}
		const arrays = values.filter(isArrayOfObjects);
		if (arrays.length === 1 || (arrays.length > 1 && arrays.every((a) => a.length === 0)))
			return arrays[0];
		if (arrays.length > 1) break;
		level = values.filter(isObject);
	}
	throw new ServiceBehaviourError(
		`The service's response is not a list the node can read: it holds no single array of records (top-level keys: ${describeKeys(body)})`,
		'Set List Paging to Custom and give the Records Path: where the records are in the response (for example result.documents).',
	);
}

export interface PageResponse {
	body: unknown;
	headers?: Record<string, unknown>;
	/** The response's size as read from the network (readResponse): list walks count it against their budget. */
	bytes?: number;
}

/**
 * A request for a page: the first (nothing set), a cursor under a query parameter, a page number,
 * an offset with the query parameters that carry it and the page size, or a link the service gave.
 */
export interface PageRequest {
	cursor?: string;
	/** The query parameter the cursor goes under (default `cursor`). */
	cursorParam?: string;
	page?: number;
	offset?: number;
	params?: Record<string, number>;
	url?: string;
	/** List searches: other names to try for the cursor when the service answers it with the same page. */
	alternatives?: string[];
}
