import type { INodeProperties } from 'n8n-workflow';

import { byName, optionalFields, showFor } from './fields';

/** The Filters of a list operation: each sent as the query parameter of its name, only when set. */
export function filtersCollection(
	resource: string,
	operation: string,
	options: INodeProperties[],
): INodeProperties {
	return optionalFields(
		'Filters',
		'filters',
		showFor(resource, [operation]),
		options,
		'Add Filter',
	);
}

export function capitalise(value: string): string {
	return value[0].toUpperCase() + value.slice(1);
}

/** n8n's routing engine sends the filter as the query parameter `property`. */
const sentAsQuery = (property: string) => ({ send: { type: 'query' as const, property } });

export function queryFilter(
	displayName: string,
	name: string,
	type: 'string' | 'dateTime' = 'string',
): INodeProperties {
	return { displayName, name, type, default: '', routing: sentAsQuery(name) };
}

/** A filter choosing one of `values` (listed by `label`, alphabetically). */
export function queryChoiceFilter(
	displayName: string,
	name: string,
	values: readonly string[],
	label: (value: string) => string,
	defaultValue: string,
): INodeProperties {
	const options = byName(values.map((value) => ({ name: label(value), value })));
	const routing = sentAsQuery(name);
	return { displayName, name, type: 'options', default: defaultValue, options, routing };
}
