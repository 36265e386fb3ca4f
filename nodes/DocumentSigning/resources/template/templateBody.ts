import type { IDataObject, IExecuteSingleFunctions } from 'n8n-workflow';

import { shownInput } from '../../../shared/transport';
import { TEMPLATE_FIELD_KEY_PATTERN, TEMPLATE_FIELD_TYPES } from '../../../shared/vocabulary';
import {
	compact,
	invalid,
	isEmpty,
	readMetadata,
	requestBody,
	requireEmail,
	requireText,
} from '../../shared/validation';
import { extensionOf } from '../document/create';
import { coerceFieldValue } from '../document/templateFields';

/** The body Create and Update send from the fields of templateOptions (create.ts), checked as the service would. */
export function templateBody(
	context: IExecuteSingleFunctions,
	fields: IDataObject,
	prefix: string,
): IDataObject {
	const documentName = fields.document_name;
	if (typeof documentName === 'string' && documentName && !extensionOf(documentName))
		throw invalid(
			context,
			`${prefix} › Document Name`,
			`${shownInput(documentName)} has no file extension`,
		);
	const roles =
		((fields.signer_roles as IDataObject | undefined)?.role as IDataObject[] | undefined) ?? [];
	const signerRoles = roles.map((entry, index) => {
		const label = `${prefix} › Signer Roles › Role ${index + 1}`;
		const role: IDataObject = {
			role: requireText(context, `${label} › Role Name`, entry.role),
			order: index + 1,
		};
		const email = typeof entry.email === 'string' ? entry.email.trim() : '';
		const name = typeof entry.name === 'string' ? entry.name.trim() : '';
		if (email || name) {
			role.email = requireEmail(context, `${label} › Fixed Signer Email`, email);
			role.name = requireText(context, `${label} › Fixed Signer Name`, name);
		}
		return role;
	});
	const roleNames = signerRoles.length ? signerRoles.map((role) => String(role.role)) : undefined;
	const keys = new Set<string>();
	const definitions = (
		((fields.fields as IDataObject | undefined)?.field as IDataObject[] | undefined) ?? []
	).map((entry, index) =>
		templateField(context, `${prefix} › Fields › Field ${index + 1}`, entry, roleNames, keys),
	);
	const body = {
		description: fields.description,
		document_name: fields.document_name,
		message: fields.message,
		signer_roles: signerRoles.length ? signerRoles : undefined,
		fields: definitions.length ? definitions : undefined,
		metadata: readMetadata(context, `${prefix} › Metadata (JSON)`, fields.metadata),
	};
	return requestBody(context, body, fields.extraBodyFields);
}

/** One entry of Fields as the API's field definition, checked as the service would (`keys`: those before it). */
function templateField(
	context: IExecuteSingleFunctions,
	label: string,
	entry: IDataObject,
	roleNames: string[] | undefined,
	keys: Set<string>,
): IDataObject {
	const key = requireText(context, `${label} › Key`, entry.key);
	if (!TEMPLATE_FIELD_KEY_PATTERN.test(key))
		throw invalid(
			context,
			`${label} › Key`,
			`${shownInput(key)} is not a key: start with a letter, then use letters, digits and _ (64 at most)`,
		);
	const type = String(entry.type ?? 'text') as (typeof TEMPLATE_FIELD_TYPES)[number];
	if (!TEMPLATE_FIELD_TYPES.includes(type))
		throw invalid(context, `${label} › Type`, `${shownInput(type)} is not a field type`);
	const field: IDataObject = compact({
		key,
		label: typeof entry.label === 'string' ? entry.label.trim() : undefined,
		type,
		required: entry.required === true || undefined,
	});
	let options: string[] = [];
	if (type === 'choice') {
		options = String(entry.options ?? '')
			.split(',')
			.map((option) => option.trim())
			.filter(Boolean);
		if (options.length === 0)
			throw invalid(context, `${label} › Choices`, 'give the choices, separated by commas');
		const twice = options.find((option, index) => options.indexOf(option) !== index);
		if (twice !== undefined)
			throw invalid(context, `${label} › Choices`, `${shownInput(twice)} is listed twice`);
		field.options = options;
	}
	if (!isEmpty(entry.default)) {
		const result = coerceFieldValue(type, options, entry.default);
		if ('problem' in result) throw invalid(context, `${label} › Default Value`, result.problem);
		field.default = result.value;
	}
	const role = typeof entry.role === 'string' ? entry.role.trim() : '';
	if (role) {
		if (roleNames && !roleNames.some((name) => name.toLowerCase() === role.toLowerCase()))
			throw invalid(
				context,
				`${label} › Filled By Role`,
				`${shownInput(role)} is not one of the Signer Roles (${roleNames.join(', ')})`,
			);
		field.role = role;
	}
	if (keys.has(key.toLowerCase()))
		throw invalid(context, `${label} › Key`, `${shownInput(key)} is listed twice`);
	keys.add(key.toLowerCase());
	return field;
}
