import type { INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';

import { DocumentSigning } from '../../nodes/DocumentSigning/DocumentSigning.node';
import { DocumentSigningTrigger } from '../../nodes/DocumentSigningTrigger/DocumentSigningTrigger.node';

/**
 * n8n asks for every options list in alphabetical order (its lint checks literal lists only; many
 * of ours are built by helpers, so this walks the built descriptions of both nodes).
 */

type Entry = INodeProperties | INodePropertyOptions | INodePropertyCollection;

function optionLists(
	properties: Entry[],
	path: string[] = [],
): Array<{ where: string; names: string[] }> {
	const lists: Array<{ where: string; names: string[] }> = [];
	for (const property of properties) {
		const label = 'displayName' in property ? property.displayName : property.name;
		const here = [...path, label];
		const options = (property as INodeProperties).options as Entry[] | undefined;
		if (!options?.length) continue;
		const type = (property as INodeProperties).type;
		if (type === 'options' || type === 'multiOptions') {
			lists.push({
				where: here.join(' › '),
				names: (options as INodePropertyOptions[]).map((option) => option.name),
			});
		} else {
			// collection / fixedCollection: their fields are listed in the editor sorted by name too.
			const fields =
				type === 'fixedCollection'
					? (options as INodePropertyCollection[]).flatMap((group) => group.values)
					: (options as INodeProperties[]);
			if (type === 'collection')
				lists.push({
					where: `${here.join(' › ')} (fields)`,
					names: (options as INodeProperties[]).map((field) => field.displayName),
				});
			lists.push(...optionLists(fields, here));
		}
	}
	return lists;
}

const sorted = (names: string[]) => [...names].sort((a, b) => a.localeCompare(b));

describe.each([
	['Document Signing', new DocumentSigning().description.properties],
	['Document Signing Trigger', new DocumentSigningTrigger().description.properties],
])('%s', (_node, properties) => {
	const lists = optionLists(properties);

	test('has options lists to check, the Resource or Events one among them', () => {
		expect(lists.map(({ where }) => where)).toContainEqual(
			expect.stringMatching(/^(Resource|Events?)$/),
		);
	});

	test.each(lists.map((list) => [list.where, list.names] as const))(
		'%s is in alphabetical order',
		(_where, names) => {
			expect(names).toEqual(sorted(names));
		},
	);
});
