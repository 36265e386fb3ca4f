import type { INodeProperties } from 'n8n-workflow';

import { byName, showFor } from './fields';

/** The Filters of a list operation: each sent as a query parameter, only when set. */

/** The Filters collection of a list operation, without its options: `{ ...filtersCollection(…), options: [...] }`. */
export function filtersCollection(resource: string, operation: string): INodeProperties {
	return {
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: showFor(resource, [operation]),
	};
}

/** `pending` → `Pending`: the label of a vocabulary value. */
export function capitalise(value: string): string {
	return value[0].toUpperCase() + value.slice(1);
}

/** A filter sent as the query parameter of the same name. */
export function queryFilter(
	displayName: string,
	name: string,
	type: 'string' | 'dateTime' = 'string',
): INodeProperties {
	return {
		displayName,
		name,
		type,
		default: '',
		routing: { send: { type: 'query', property: name } },
	};
}

/** A filter choosing one of `values` (listed by `label`, alphabetically), sent as the query parameter `name`. */
export function queryChoiceFilter(
	displayName: string,
	name: string,
	values: readonly string[],
	label: (value: string) => string,
	defaultValue: string,
): INodeProperties {
	return {
		displayName,
		name,
		type: 'options',
		default: defaultValue,
		options: byName(values.map((value) => ({ name: label(value), value }))),
		routing: { send: { type: 'query', property: name } },
	};
}
