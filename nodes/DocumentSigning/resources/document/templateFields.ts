import type { IDisplayOptions, INodeProperties, NodeParameterValueType } from 'n8n-workflow';

/**
 * Template Fields and Signers by Role (resource mappers of Document › Create, also shown by Send
 * and Wait) and Additional Fields › Template Field Values, for a service whose templates list no
 * fields. templateValues.ts reads what they hold.
 */

export const TEMPLATE_FIELDS_PARAMETER = 'templateFields';
export const TEMPLATE_SIGNERS_PARAMETER = 'templateSigners';

export const FIELDS_LABEL = 'Template Fields';
export const SIGNERS_LABEL = 'Signers by Role';
export const PAIRS_LABEL = 'Additional Fields › Template Field Values';

/** A role's two entries in Signers by Role: `Client|email` and `Client|name`. */
export function roleFieldId(role: string, part: 'email' | 'name'): string {
	return `${role}|${part}`;
}

export function parseRoleFieldId(id: string): { role: string; part: 'email' | 'name' } | undefined {
	const cut = id.lastIndexOf('|');
	const part = id.slice(cut + 1);
	return cut > 0 && (part === 'email' || part === 'name')
		? { role: id.slice(0, cut), part }
		: undefined;
}

export function templateMapperFields(displayOptions: IDisplayOptions): INodeProperties[] {
	const dependsOn = ['additionalFields.template_id.value'];
	// n8n stores a mapper's value as { mappingMode, value, schema, … }; it starts with no values.
	const empty = { mappingMode: 'defineBelow', value: null } as unknown as NodeParameterValueType;
	return [
		{
			displayName: FIELDS_LABEL,
			name: TEMPLATE_FIELDS_PARAMETER,
			type: 'resourceMapper',
			noDataExpression: true,
			default: empty,
			description:
				"The template's fields: fill each by expression or drag and drop, or let Map Automatically take input fields of the same key or label",
			typeOptions: {
				loadOptionsDependsOn: dependsOn,
				resourceMapper: {
					resourceMapperMethod: 'getTemplateFields',
					mode: 'add',
					fieldWords: { singular: 'field', plural: 'fields' },
					addAllFields: true,
					multiKeyMatch: false,
					supportAutoMap: true,
					valuesLabel: FIELDS_LABEL,
					// The notice (resourceMapping/index.ts) says why there are none.
					hideNoDataError: true,
				},
			},
			displayOptions,
		},
		{
			displayName: SIGNERS_LABEL,
			name: TEMPLATE_SIGNERS_PARAMETER,
			type: 'resourceMapper',
			noDataExpression: true,
			default: empty,
			description:
				"Who signs for each of the template's roles. Roles the template fills with a fixed person are left out; add one to give it someone else.",
			typeOptions: {
				loadOptionsDependsOn: dependsOn,
				resourceMapper: {
					resourceMapperMethod: 'getTemplateRoles',
					mode: 'add',
					fieldWords: { singular: 'role detail', plural: 'role details' },
					addAllFields: true,
					multiKeyMatch: false,
					supportAutoMap: false,
					valuesLabel: SIGNERS_LABEL,
					hideNoDataError: true,
				},
			},
			displayOptions,
		},
	];
}

/** Additional Fields › Template Field Values: the tolerant path for templates that list no fields. */
export const templateFieldValuesOption: INodeProperties = {
	displayName: 'Template Field Values',
	name: 'fieldValues',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true },
	placeholder: 'Add Field Value',
	default: {},
	description:
		"Values of the template's fields by key, for a service that does not list its templates' fields (Template Fields then stays empty). A key Template Fields lists is converted to its type; others are sent as given: use {{ 12000 }} for a number, {{ true }} for a checkbox.",
	options: [
		{
			displayName: 'Field',
			name: 'field',
			values: [
				{
					displayName: 'Key',
					name: 'key',
					type: 'string',
					default: '',
					placeholder: 'customer_name',
					description: "The field's key in the template",
				},
				{
					displayName: 'Value',
					name: 'value',
					type: 'string',
					default: '',
				},
			],
		},
	],
};
