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

export function queryFilter(
	displayName: string,
	name: string,
	type: 'string' | 'dateTime' = 'string',
): INodeProperties {
	const routing = { send: { type: 'query' as const, property: name } };
	return { displayName, name, type, default: '', routing };
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
	return { ...queryFilter(displayName, name), type: 'options', default: defaultValue, options };
}
