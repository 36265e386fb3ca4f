import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ServiceBehaviourError } from './errors';
import { PAGING_LABELS, type ListPaging } from '../listPaging';
import { shownInput } from './text';

// Where a list response's records are, and the List Paging setting (docs/dialects.md); pure.

export type { ListPaging } from '../listPaging';

export interface PageResponse {
	body: unknown;
	headers?: Record<string, unknown>;
	bytes?: number;
}

/** The first page (nothing set), a cursor under a parameter, a page number, an offset with its parameters, or a link. */
export interface PageRequest {
	cursor?: string;
	cursorParam?: string;
	page?: number;
	offset?: number;
	params?: Record<string, number>;
	url?: string;
	/** Other names to try for the cursor if its page repeats (a list search's token carries them). */
	alternatives?: string[];
}

const PATH = /^[^.\s]+(\.[^.\s]+)*$/;
export const PARAMETER = /^[A-Za-z0-9_\-.[\]]{1,100}$/;

/** List Paging as the node's fields (or the credential's, `where`) hold it, checked before any request. */
export function readListPaging(
	mode: unknown,
	raw: unknown,
	node: INode,
	itemIndex?: number,
	where = 'List Paging',
): ListPaging {
	if (mode !== 'custom' || !isObject(raw)) return {};
	const refuse = (setting: string, problem: string) =>
		new NodeOperationError(node, `${where} > ${setting}: ${problem}`, { itemIndex });
	const paging: ListPaging = {};
	for (const [name, label] of Object.entries(PAGING_LABELS) as Array<[keyof ListPaging, string]>) {
		const isPath = name.endsWith('Path');
		const text = typeof raw[name] === 'string' ? (raw[name] as string).trim() : '';
		const value = isPath ? text.replace(/^\$\./, '') : text;
		if (!value) continue;
		if (!(isPath ? PATH : PARAMETER).test(value))
			throw refuse(
				label,
				isPath
					? `${shownInput(value)} is not a path; write keys joined by dots, like result.documents`
					: `${shownInput(value)} is not a query parameter name`,
			);
		paging[name] = value;
	}
	if (paging.nextTokenParameter && !paging.nextTokenPath)
		throw refuse(
			'Next Token Path',
			'must be set when Next Token Parameter is (where the response holds the token)',
		);
	return paging;
}

/** The paging a list is read by: the node's own List Paging (node version 1) when set, else the credential's. */
export function listPagingFor(
	own: ListPaging | undefined,
	credential: IDataObject,
	node: INode,
	itemIndex?: number,
): ListPaging {
	if (own && Object.keys(own).length > 0) return own;
	const where = "The credential's List Paging";
	return readListPaging(credential.listPaging, credential, node, itemIndex, where);
}

export const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

export function pick(source: unknown, path: string): unknown {
	let current: unknown = source;
	for (const key of path.split('.')) current = isObject(current) ? current[key] : undefined;
	return current;
}

function describeKeys(body: unknown): string {
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

const EVIDENCE_DEPTH = 3;
/** Keys read from a body in all levels, so a huge envelope costs no more than a normal one. */
export const MAX_ENTRIES = 2_000;
const RECORD_KEYS = ['data', 'items', 'results', 'records', 'entries', 'value'];

/** A body's objects level by level to EVIDENCE_DEPTH, with their keys' [key, value, parent key]. */
export function* levelsOf(body: unknown) {
	let holders: Array<[IDataObject, string]> = isObject(body) ? [[body, '']] : [];
	let budget = MAX_ENTRIES;
	for (let depth = 0; depth <= EVIDENCE_DEPTH && holders.length > 0; depth++) {
		const keys: Array<[string, unknown, string]> = [];
		read: for (const [holder, parent] of holders)
			for (const key of Object.keys(holder)) {
				if (budget-- <= 0) break read;
				keys.push([key, holder[key], parent]);
			}
		yield { holders: holders.map(([holder]) => holder), keys };
		holders = keys.flatMap(([key, value]) => (isObject(value) ? [[value, key] as const] : []));
	}
}

/** A bare array; else, level by level, the array under a RECORD_KEY or the one array of objects. */
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
	for (const { holders, keys } of levelsOf(body)) {
		for (const holder of holders)
			for (const key of RECORD_KEYS)
				if (Object.hasOwn(holder, key) && Array.isArray(holder[key]))
					return holder[key] as IDataObject[];
		const arrays = keys.flatMap(([, value]) =>
			Array.isArray(value) && value.every(isObject) ? [value as IDataObject[]] : [],
		);
		if (arrays.length === 1 || (arrays.length > 1 && arrays.every((a) => a.length === 0)))
			return arrays[0];
		if (arrays.length > 1) break;
	}
	throw new ServiceBehaviourError(
		`The service's response is not a list the node can read: it holds no single array of records (top-level keys: ${describeKeys(body)})`,
		'Set List Paging to Custom in the credential and give the Records Path: where the records are in the response (for example result.documents).',
	);
}
