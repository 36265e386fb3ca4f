import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { optionalFields, resourceLocator, showFor } from '../../shared/fields';
import { operation } from '../../shared/operation';
import { signersField } from '../../shared/signers';
import { idText } from '../../../shared/ids';
import { ACCEPTED_FILE_TYPES, LIMITS } from '../../../shared/vocabulary';
import {
	compact,
	expiresAt,
	invalid,
	readMetadata,
	requestBody,
	requireId,
	requireText,
} from '../../shared/validation';
import {
	createDocumentFrom,
	type DocumentInput,
	EARLIER_VERSIONS,
	inputFileField,
	readDocumentFrom,
	sourceFields,
	templateFieldsFrom,
	templateLabel,
	usesDocumentFrom,
} from './documentFrom';
import { templateFieldValuesOption, templateMapperFields } from './templateFields';
import { readDocumentSigners, readTemplateFieldValues } from './templateValues';
import { shownInput } from '../../../shared/transport';
import { sendingOptions } from '../commonFields';

/** Create's fields, also shown by Send and Wait for Signature when it sends a new document. */
const CREATE_FIELD_OPERATIONS = ['create', 'sendAndWait'];
const forNewDocuments = { documentSource: ['draft'], documentFrom: ['draft'] };
const show = { ...showFor('document', CREATE_FIELD_OPERATIONS), hide: forNewDocuments };
const showEarlier = (extra: IDataObject = {}) => ({
	...showFor('document', CREATE_FIELD_OPERATIONS, { ...EARLIER_VERSIONS, ...extra }),
	hide: forNewDocuments,
});

export const documentCreateFields: INodeProperties[] = [
	createDocumentFrom,
	...sourceFields,
	{
		displayName: 'Document Name',
		name: 'name',
		type: 'string',
		default: '',
		placeholder: 'contract.pdf',
		description:
			"File name shown to signers, e.g. contract.pdf. May be left empty when a template gives the document's name.",
		hint: "Without an extension (e.g. .pdf) the attached file's extension is added; with no file attached, give one",
		displayOptions: show,
	},
	...templateFieldsFrom,
	{
		...signersField('document', CREATE_FIELD_OPERATIONS, {
			description:
				'Who signs the document. With a template, only people for roles Signers by Role does not list (usually none). Not needed when saving a draft.',
		}),
		displayOptions: show,
	},
	{
		displayName: 'Attach File',
		name: 'attachFile',
		type: 'boolean',
		default: false,
		description:
			'Whether to upload the document content from a binary property of the input item (e.g. from Read File or Google Drive)',
		displayOptions: showEarlier(),
	},
	inputFileField(showEarlier({ attachFile: [true] })),
	optionalFields('Additional Fields', 'additionalFields', show, [
		...sendingOptions('When the document can no longer be signed'),
		{
			displayName: 'Metadata (JSON)',
			name: 'metadata',
			type: 'json',
			default: '{}',
			description: 'Your own key/value pairs kept with the document, e.g. {"dealId": "123"}',
		},
		{
			displayName: 'Save as Draft',
			name: 'draft',
			type: 'boolean',
			default: false,
			description:
				'Whether to keep the document as a draft instead of sending it now. Send it later with Signing Request → Create.',
		},
		{
			...resourceLocator({
				name: 'template_id',
				displayName: 'Template',
				description:
					'Create the document from this template: Template Fields and Signers by Role then list its fields and roles (Signers fill the remaining roles in order)',
				searchListMethod: 'searchTemplates',
				idPlaceholder: 'tpl_2b7x0d',
				required: false,
			}),
			// Version 2 chooses it at the top (Document From: Template).
			displayOptions: { show: EARLIER_VERSIONS },
		},
		{ ...templateFieldValuesOption, displayOptions: { hide: { '/documentFrom': ['file'] } } },
	]),
	// Version 1: shown with or without a template: n8n decides what is shown from top-level values.
	...templateMapperFields({ show: showEarlier().show, hide: forNewDocuments }),
];

const MIB = 1024 * 1024;

export function extensionOf(name: string): string | undefined {
	const match = /\.([A-Za-z0-9]{1,8})$/.exec(name);
	return match ? match[1].toLowerCase() : undefined;
}

/** Create's Attach File: the input item's file, checked, and the extensions its type accepts. */
async function readFile(
	input: DocumentInput,
): Promise<{ file: IDataObject; extensions: readonly string[] }> {
	const refuse = (problem: string, hint?: string) =>
		invalid(input, 'Input Binary Field', problem, hint);
	const property = requireText(
		input,
		'Input Binary Field',
		input.parameter('binaryPropertyName', 'data'),
	);
	const binary = input.item.binary?.[property];
	if (!binary)
		throw refuse(
			`the input item has no binary field ${shownInput(property)}`,
			'Use the name of the field holding the file, or switch off Attach File.',
		);
	const mimeType = (binary.mimeType ?? '').split(';')[0].trim().toLowerCase();
	if (!Object.hasOwn(ACCEPTED_FILE_TYPES, mimeType))
		throw refuse(
			`files of type ${shownInput(mimeType || 'unknown')} are not accepted`,
			'Use a PDF, DOCX, PNG or JPEG file.',
		);
	const buffer = await input.fileBytes(property);
	if (buffer.length === 0) throw refuse('the file is empty');
	if (buffer.length > LIMITS.maxFileBytes)
		throw refuse(
			`the file is ${(buffer.length / MIB).toFixed(1)} MB; the limit is ${LIMITS.maxFileBytes / MIB} MB`,
		);
	return {
		file: compact({
			name: binary.fileName,
			content_type: mimeType,
			data: buffer.toString('base64'),
		}),
		extensions: ACCEPTED_FILE_TYPES[mimeType as keyof typeof ACCEPTED_FILE_TYPES],
	};
}

/** The body of POST /documents, every parameter checked before anything is sent. */
export async function buildDocumentBody(input: DocumentInput): Promise<IDataObject> {
	const { node } = input;
	const additional = input.parameter('additionalFields', {}) as IDataObject;
	const draft = additional.draft === true;
	const source = readDocumentFrom(node, input.parameter, additional);
	if (source.from !== 'file' && source.from !== 'template')
		throw invalid(
			input,
			'Document From',
			`${shownInput(source.from)} is not a choice`,
			'Choose File or Template.',
		);
	const templateId = idText(source.template)?.trim() || undefined;
	if (source.from === 'template' && !templateId && usesDocumentFrom(node))
		throw invalid(input, 'Template', 'choose the template the document is made from');
	if (templateId) requireId(input, templateLabel(node), templateId);

	// With a template the service names the document after the template's document_name.
	const rawName = input.parameter('name', '') as string;
	let name =
		templateId && !String(rawName ?? '').trim()
			? undefined
			: requireText(input, 'Document Name', rawName);
	const attached = source.attachFile ? await readFile(input) : undefined;
	const extension = name === undefined ? undefined : extensionOf(name);
	if (name !== undefined && !extension) {
		if (!attached)
			throw invalid(
				input,
				'Document Name',
				`${shownInput(name)} has no file extension: add one, e.g. ${name.length <= 80 ? `"${name}.pdf"` : '"contract.pdf"'}, or switch on Attach File to take the attached file's`,
			);
		const own = extensionOf(String(attached.file.name ?? ''));
		name = `${name}.${own && attached.extensions.includes(own) ? own : attached.extensions[0]}`;
	}
	const fields = readTemplateFieldValues(input, additional, templateId);
	const signers = readDocumentSigners(input, templateId, draft);
	const expires = expiresAt(input, additional.expires_at);
	const metadata = readMetadata(input, 'Additional Fields › Metadata (JSON)', additional.metadata);
	// An extension added above is one the attached file's type accepts.
	if (attached && extension && !attached.extensions.includes(extension))
		throw invalid(
			input,
			'Document Name',
			`the extension ".${extension}" does not match the attached ${attached.extensions[0].toUpperCase()} file`,
		);
	const body = {
		name,
		signers,
		message: additional.message,
		template_id: templateId,
		fields,
		expires_at: expires,
		draft: draft || undefined,
		metadata,
		file: attached?.file,
	};
	return requestBody(input, body, additional.extraBodyFields);
}

export const documentCreateOperation = operation({
	name: 'Create',
	value: 'create',
	action: 'Create a document and send it for signing',
	description:
		'Create a document from a file or a template and send it to its signers, unless saved as a draft. Returns the document: ID, status, signers, signing link, signature_request_id.',
	method: 'POST',
	path: '/documents',
	async body() {
		return await buildDocumentBody({
			node: this.getNode(),
			itemIndex: this.getItemIndex(),
			item: this.getInputData(),
			parameter: (name, fallback) => this.getNodeParameter(name, fallback),
			fileBytes: async (property) => await this.helpers.getBinaryDataBuffer(property),
		});
	},
});
