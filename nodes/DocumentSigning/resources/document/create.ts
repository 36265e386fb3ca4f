import type { IDataObject, IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';

import { ACCEPTED_FILE_TYPES, LIMITS } from '../../../shared/vocabulary';
import { extraBodyFieldsOption, showFor, signersField } from '../../shared/fields';
import {
	compact,
	invalid,
	optionalDate,
	readMetadata,
	readSigners,
	requireText,
	withExtraBodyFields,
} from '../../shared/validation';

/** Create's fields, also shown by Send and Wait for Signature when it sends a new document. */
export const CREATE_FIELD_OPERATIONS = ['create', 'sendAndWait'];
const onlyForNewDocuments = { documentSource: ['draft'] };
const show = { ...showFor('document', CREATE_FIELD_OPERATIONS), hide: onlyForNewDocuments };

export const documentCreateFields: INodeProperties[] = [
	{
		displayName: 'Document Name',
		name: 'name',
		type: 'string',
		default: '',
		placeholder: 'contract.pdf',
		description:
			"File name shown to signers, with its extension, e.g. contract.pdf. May be left empty when a template gives the document's name.",
		displayOptions: show,
	},
	{
		...signersField('document', CREATE_FIELD_OPERATIONS, {
			required: true,
			description: 'Who signs the document. Not needed when saving a draft or when the template names the signers.',
		}),
		displayOptions: show,
	},
	{
		displayName: 'Attach File',
		name: 'attachFile',
		type: 'boolean',
		default: false,
		description: 'Whether to upload the document content from a binary property of the input item (e.g. from Read File or Google Drive)',
		displayOptions: show,
	},
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the input field containing the file (PDF, DOCX, PNG or JPEG; at most 10 MB)',
		displayOptions: { ...showFor('document', CREATE_FIELD_OPERATIONS, { attachFile: [true] }), hide: onlyForNewDocuments },
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: show,
		options: [
			{
				displayName: 'Expires At',
				name: 'expires_at',
				type: 'dateTime',
				default: '',
				description: 'When the document can no longer be signed',
			},
			extraBodyFieldsOption,
			{
				displayName: 'Message',
				name: 'message',
				type: 'string',
				typeOptions: { rows: 3 },
				default: '',
				description: 'Note shown to signers in the invitation',
			},
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
				description: 'Whether to keep the document as a draft instead of sending it now. Send it later with Signing Request → Create.',
			},
			{
				displayName: 'Template ID',
				name: 'template_id',
				type: 'string',
				default: '',
				description: 'Create the document from this template; its signer roles are filled with the signers in order',
			},
		],
	},
];

const MIB = 1024 * 1024;

function isAcceptedType(mimeType: string): mimeType is keyof typeof ACCEPTED_FILE_TYPES {
	return Object.prototype.hasOwnProperty.call(ACCEPTED_FILE_TYPES, mimeType);
}

function extensionOf(name: string): string | undefined {
	const match = /\.([A-Za-z0-9]{1,8})$/.exec(name);
	return match ? match[1].toLowerCase() : undefined;
}

async function readFile(context: IExecuteSingleFunctions): Promise<IDataObject> {
	const property = requireText(context, 'Input Binary Field', context.getNodeParameter('binaryPropertyName', 'data'));
	const item = context.getInputData();
	if (!item.binary?.[property]) {
		throw invalid(
			context,
			'Input Binary Field',
			`the input item has no binary field "${property}"`,
			'Use the name of the field holding the file, or switch off Attach File.',
		);
	}
	const binary = context.helpers.assertBinaryData(property);
	const mimeType = (binary.mimeType ?? '').split(';')[0].trim().toLowerCase();
	if (!isAcceptedType(mimeType)) {
		throw invalid(context, 'Input Binary Field', `files of type "${mimeType || 'unknown'}" are not accepted`, 'Use a PDF, DOCX, PNG or JPEG file.');
	}
	const buffer = await context.helpers.getBinaryDataBuffer(property);
	if (buffer.length === 0) throw invalid(context, 'Input Binary Field', 'the file is empty');
	if (buffer.length > LIMITS.maxFileBytes) {
		throw invalid(context, 'Input Binary Field', `the file is ${(buffer.length / MIB).toFixed(1)} MB; the limit is ${LIMITS.maxFileBytes / MIB} MB`);
	}
	return compact({ name: binary.fileName, content_type: mimeType, data: buffer.toString('base64') });
}

export const buildDocumentBody = async function (this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
	const additional = this.getNodeParameter('additionalFields', {}) as IDataObject;
	const draft = additional.draft === true;
	const templateId = typeof additional.template_id === 'string' ? additional.template_id.trim() : '';

	// With a template the service names the document after the template's document_name.
	const rawName = this.getNodeParameter('name', '') as string;
	const name = templateId && !String(rawName ?? '').trim() ? undefined : requireText(this, 'Document Name', rawName);
	const extension = name === undefined ? undefined : extensionOf(name);
	if (name !== undefined && !extension) {
		throw invalid(this, 'Document Name', `"${name}" has no file extension`, 'Use the file name with its extension, e.g. contract.pdf.');
	}
	const signers = readSigners(this, { required: !draft && !templateId });

	const body: IDataObject = compact({
		name,
		signers,
		message: additional.message,
		template_id: templateId,
		expires_at: optionalDate(this, 'Additional Fields › Expires At', additional.expires_at),
		draft: draft || undefined,
	});
	if (body.expires_at && Date.parse(body.expires_at as string) <= Date.now()) {
		throw invalid(this, 'Additional Fields › Expires At', 'must be in the future');
	}
	const metadata = readMetadata(this, 'Additional Fields › Metadata (JSON)', additional.metadata);
	if (metadata) body.metadata = metadata;

	if (this.getNodeParameter('attachFile', false) as boolean) {
		const file = await readFile(this);
		const accepted: readonly string[] = ACCEPTED_FILE_TYPES[file.content_type as keyof typeof ACCEPTED_FILE_TYPES];
		if (extension && !accepted.includes(extension)) {
			throw invalid(this, 'Document Name', `the extension ".${extension}" does not match the attached ${accepted[0].toUpperCase()} file`);
		}
		body.file = file;
	}

	options.body = withExtraBodyFields(this, body, additional.extraBodyFields);
	return options;
};
