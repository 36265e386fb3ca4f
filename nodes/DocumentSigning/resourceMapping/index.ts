import {
	NodeOperationError,
	type IDataObject,
	type ILoadOptionsFunctions,
	type ResourceMapperField,
	type ResourceMapperFields,
} from 'n8n-workflow';

import { idText } from '../../shared/ids';
import { apiFindRecord } from '../../shared/transport';
import { shownInput } from '../../shared/transport/text';
import type { TemplateFieldType } from '../../shared/vocabulary';
import { roleFieldId } from '../resources/document/templateFields';
import { MAPPER_TYPES } from '../resources/document/templateFieldTypes';

/**
 * The fields and roles of the template chosen under Additional Fields › Template, for the Template
 * Fields and Signers by Role mappers, read from the template list (the API has no other read).
 * Read by principle: `name` for the key or `select` for a choice is still understood, and a
 * template that lists no fields or roles gets a notice pointing to the tolerant path.
 */

/** The words services use for each field type. */
const TYPE_WORDS: Record<string, TemplateFieldType> = Object.fromEntries(
	(
		[
			['text', 'text string textarea email'],
			['number', 'number numeric integer currency'],
			['date', 'date datetime'],
			['checkbox', 'checkbox boolean'],
			['choice', 'choice select dropdown radio options'],
		] as const
	).flatMap(([type, words]) => words.split(' ').map((word) => [word, type])),
);

const text = (value: unknown): string | undefined => idText(value)?.trim() || undefined;

/** The template chosen in the editor now; undefined while none is or it is an unresolved expression. */
function chosenTemplateId(context: ILoadOptionsFunctions): string | undefined {
	const raw = context.getCurrentNodeParameter('additionalFields.template_id') as unknown;
	const value = raw !== null && typeof raw === 'object' ? (raw as IDataObject).value : raw;
	const id = text(value);
	return id && !id.startsWith('=') ? id : undefined;
}

async function chosenTemplate(context: ILoadOptionsFunctions): Promise<IDataObject | undefined> {
	const id = chosenTemplateId(context);
	if (id === undefined) return undefined;
	const template = await apiFindRecord(context, '/templates', (record) => idText(record.id) === id);
	if (!template) {
		throw new NodeOperationError(
			context.getNode(),
			`The service has no template ${shownInput(id)}`,
			{
				description: 'Choose the template from the list under Additional Fields › Template.',
			},
		);
	}
	return template;
}

/** Before a template is chosen: one notice, under Template Fields; Signers by Role shows nothing. */
const CHOOSE_TEMPLATE = {
	fields: [],
	emptyFieldsNotice:
		'Choose a template under Additional Fields › Template to list its fields and roles here.',
};

function optionsOf(raw: unknown): string[] {
	if (!Array.isArray(raw)) return [];
	return raw
		.map((option) =>
			option !== null && typeof option === 'object'
				? text((option as IDataObject).value ?? (option as IDataObject).label)
				: text(option),
		)
		.filter((option): option is string => option !== undefined);
}

/** A field definition as a row of the Template Fields mapper, or undefined when it has no key. */
export function mapperField(definition: IDataObject): ResourceMapperField | undefined {
	const key = text(definition.key ?? definition.name ?? definition.id);
	if (key === undefined) return undefined;
	const word = String(definition.type ?? 'text').toLowerCase();
	const type = Object.hasOwn(TYPE_WORDS, word) ? TYPE_WORDS[word] : 'text';
	const options = optionsOf(definition.options ?? definition.choices);
	const role = text(definition.role);
	const hasDefault = definition.default !== undefined && definition.default !== null;
	return {
		id: key,
		displayName: text(definition.label ?? definition.title) ?? key,
		// Required of the creator only: a default stands in, and a role fills its fields when signing.
		required: definition.required === true && !hasDefault && role === undefined,
		defaultMatch: false,
		canBeUsedToMatch: false,
		display: true,
		type: type === 'choice' && options.length === 0 ? 'string' : MAPPER_TYPES[type],
		...(type === 'choice' && options.length > 0
			? { options: options.map((option) => ({ name: option, value: option })) }
			: {}),
		// Listed under "Add field" only: the role's signer fills it, unless given here.
		...(role !== undefined ? { removed: true } : {}),
		// The editor fills a new field with it (a checkbox gets false otherwise, never nothing).
		...(hasDefault && ['string', 'number', 'boolean'].includes(typeof definition.default)
			? { defaultValue: definition.default as string | number | boolean }
			: {}),
	};
}

export async function getTemplateFields(
	this: ILoadOptionsFunctions,
): Promise<ResourceMapperFields> {
	const template = await chosenTemplate(this);
	if (!template) return CHOOSE_TEMPLATE;
	if (!Array.isArray(template.fields)) {
		return {
			fields: [],
			emptyFieldsNotice:
				"The service does not list this template's fields: give their values under Additional Fields › Template Field Values (key and value).",
		};
	}
	const fields = (template.fields as unknown[])
		.filter((entry): entry is IDataObject => entry !== null && typeof entry === 'object')
		.map(mapperField)
		.filter((field): field is ResourceMapperField => field !== undefined);
	return fields.length > 0
		? { fields }
		: { fields, emptyFieldsNotice: 'This template has no fields.' };
}

/**
 * A template's roles as rows of the Signers by Role mapper: an email and a name each, in signing
 * order; a pre-filled role's are listed under "Add field" only.
 */
export function mapperRoleFields(listed: unknown[]): ResourceMapperField[] {
	return listed
		.filter((entry): entry is IDataObject => entry !== null && typeof entry === 'object')
		.map((entry, index) => ({
			role: text(entry.role ?? entry.name),
			order: typeof entry.order === 'number' ? entry.order : index + 1,
			prefilled: text(entry.email) !== undefined && text(entry.name) !== undefined,
		}))
		.filter((entry): entry is { role: string; order: number; prefilled: boolean } =>
			Boolean(entry.role),
		)
		.sort((a, b) => a.order - b.order)
		.flatMap(({ role, prefilled }) =>
			(['email', 'name'] as const).map((part) => ({
				id: roleFieldId(role, part),
				displayName: `${role} ${part === 'email' ? 'Email' : 'Name'}`,
				// Not required: Signers may fill the open roles in order instead. A role the template
				// fills with a fixed person keeps it unless one is added here.
				required: false,
				defaultMatch: false,
				canBeUsedToMatch: false,
				display: true,
				type: 'string' as const,
				...(prefilled ? { removed: true } : {}),
			})),
		);
}

export async function getTemplateRoles(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const template = await chosenTemplate(this);
	if (!template) return { fields: [] };
	const listed = template.signer_roles ?? template.roles;
	if (!Array.isArray(listed)) {
		return {
			fields: [],
			emptyFieldsNotice:
				"The service does not list this template's roles: add the signers under Signers, in the roles' order.",
		};
	}
	const fields = mapperRoleFields(listed);
	return fields.length > 0
		? { fields }
		: { fields, emptyFieldsNotice: 'This template has no signer roles: use Signers.' };
}
