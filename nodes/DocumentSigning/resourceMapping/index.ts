import {
	NodeOperationError,
	type FieldType,
	type IDataObject,
	type ILoadOptionsFunctions,
	type ResourceMapperField,
	type ResourceMapperFields,
} from 'n8n-workflow';

import { idText } from '../../shared/ids';
import { apiFindRecord, shownInput } from '../../shared/transport';
import { templateLabel, templatePath, usesDocumentFrom } from '../resources/document/documentFrom';
import { locatorValue, roleFieldId } from '../resources/document/templateFields';

/**
 * The chosen template's fields and roles for the mappers, from the template list (the API has no
 * other read), read by principle (`name` for the key, `select` for a choice), or a notice.
 */

/** The words services use for each field type, by the editor's input for it: text, number, date picker, toggle, dropdown. */
const TYPE_WORDS: Record<string, FieldType> = Object.fromEntries(
	(
		[
			['string', 'text string textarea email'],
			['number', 'number numeric integer currency'],
			['dateTime', 'date datetime'],
			['boolean', 'checkbox boolean'],
			['options', 'choice select dropdown radio options'],
		] as const
	).flatMap(([type, words]) => words.split(' ').map((word) => [word, type])),
);

const text = (value: unknown): string | undefined => idText(value)?.trim() || undefined;

const objects = (listed: unknown[]) =>
	listed.filter((entry): entry is IDataObject => entry !== null && typeof entry === 'object');

/** The template chosen in the editor now; undefined while none is or it is an unresolved expression. */
async function chosenTemplate(context: ILoadOptionsFunctions): Promise<IDataObject | undefined> {
	const node = context.getNode();
	const id = text(locatorValue(context.getCurrentNodeParameter(templatePath(node))));
	if (id === undefined || id.startsWith('=')) return undefined;
	const template = await apiFindRecord(context, '/templates', (record) => idText(record.id) === id);
	if (template) return template;
	throw new NodeOperationError(node, `The service has no template ${shownInput(id)}`, {
		description: `Choose the template from the list under ${templateLabel(node)}.`,
	});
}

function rowsOrNotice(
	listed: unknown,
	rows: (listed: unknown[]) => ResourceMapperField[],
	unlisted: string,
	none: string,
): ResourceMapperFields {
	if (!Array.isArray(listed)) return { fields: [], emptyFieldsNotice: unlisted };
	const fields = rows(listed);
	return fields.length > 0 ? { fields } : { fields, emptyFieldsNotice: none };
}

const ROW = { defaultMatch: false, canBeUsedToMatch: false, display: true };

function mapperField(definition: IDataObject): ResourceMapperField | undefined {
	const key = text(definition.key ?? definition.name ?? definition.id);
	if (key === undefined) return undefined;
	const word = String(definition.type ?? 'text').toLowerCase();
	const type = Object.hasOwn(TYPE_WORDS, word) ? TYPE_WORDS[word] : 'string';
	const listed = definition.options ?? definition.choices;
	const options = (Array.isArray(listed) ? listed : [])
		.map((option) =>
			text(option !== null && typeof option === 'object' ? (option.value ?? option.label) : option),
		)
		.filter((option): option is string => option !== undefined);
	const role = text(definition.role);
	const hasDefault = definition.default !== undefined && definition.default !== null;
	return {
		id: key,
		displayName: text(definition.label ?? definition.title) ?? key,
		// Required of the creator only: a default stands in, and a role fills its fields when signing.
		required: definition.required === true && !hasDefault && role === undefined,
		...ROW,
		type: type === 'options' && options.length === 0 ? 'string' : type,
		...(type === 'options' && options.length > 0
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
	// Before a template is chosen: one notice, under Template Fields; Signers by Role shows nothing.
	if (!template)
		return {
			fields: [],
			emptyFieldsNotice: `Choose ${usesDocumentFrom(this.getNode()) ? 'the Template above' : 'a template under Additional Fields › Template'} to list its fields and roles here.`,
		};
	return rowsOrNotice(
		template.fields,
		(listed) => objects(listed).flatMap((definition) => mapperField(definition) ?? []),
		"The service does not list this template's fields: give their values under Additional Fields › Template Field Values (key and value).",
		'This template has no fields.',
	);
}

/** A template's roles as Signers by Role rows (email and name, in signing order; pre-filled hidden). */
function mapperRoleFields(listed: unknown[]): ResourceMapperField[] {
	return objects(listed)
		.flatMap((entry, index) => {
			const role = text(entry.role ?? entry.name);
			const order = typeof entry.order === 'number' ? entry.order : index + 1;
			const prefilled = text(entry.email) !== undefined && text(entry.name) !== undefined;
			return role ? [{ role, order, prefilled }] : [];
		})
		.sort((a, b) => a.order - b.order)
		.flatMap(({ role, prefilled }) =>
			(['email', 'name'] as const).map((part) => ({
				id: roleFieldId(role, part),
				displayName: `${role} ${part === 'email' ? 'Email' : 'Name'}`,
				// Not required: Signers may fill open roles in order; a fixed person stays unless replaced.
				required: false,
				...ROW,
				type: 'string' as const,
				...(prefilled ? { removed: true } : {}),
			})),
		);
}

export async function getTemplateRoles(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const template = await chosenTemplate(this);
	if (!template) return { fields: [] };
	return rowsOrNotice(
		template.signer_roles ?? template.roles,
		mapperRoleFields,
		"The service does not list this template's roles: add the signers under Signers, in the roles' order.",
		'This template has no signer roles: use Signers.',
	);
}
