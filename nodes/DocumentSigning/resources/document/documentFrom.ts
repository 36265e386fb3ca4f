import type {
	IDataObject,
	IDisplayOptions,
	INode,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { resourceLocator, showFor } from '../../shared/fields';
import { locatorValue, templateMapperFields } from './templateFields';

/**
 * Node version 2: Document From comes first and the template is top-level, so choosing it shows its
 * fields and roles at once. Version 1 keeps Attach File and Additional Fields › Template.
 */

type DocumentFrom = 'file' | 'template' | 'draft';

export const FROM_VERSIONS = { '@version': [2] };
export const EARLIER_VERSIONS = { '@version': [1] };

export const usesDocumentFrom = (node: INode) => node.typeVersion >= 2;

/** Where each version keeps the template, as errors name it. */
export const templateLabel = (node: INode) =>
	usesDocumentFrom(node) ? 'Template' : 'Additional Fields › Template';

export const templatePath = (node: INode) =>
	usesDocumentFrom(node) ? 'documentTemplate' : 'additionalFields.template_id';

/** The raw template choice (a locator, an id or an expression) from a node's saved parameters. */
export function savedTemplate(node: INode): unknown {
	const { parameters } = node;
	if (!usesDocumentFrom(node))
		return locatorValue((parameters.additionalFields as IDataObject | undefined)?.template_id);
	return parameters.documentFrom === 'template' ? locatorValue(parameters.documentTemplate) : '';
}

/** The item's value of a parameter, expressions resolved, or `fallback`. */
type Read = (name: string, fallback: unknown) => unknown;

/** What a new document's body is built from: one item's parameters and file (Create, Send and Wait). */
export interface DocumentInput {
	node: INode;
	itemIndex: number;
	/** The input item: its JSON for Map Automatically, its binary fields for the file. */
	item: INodeExecutionData;
	parameter: Read;
	/** The bytes of the item's binary field (n8n may keep them outside the item). */
	fileBytes: (property: string) => Promise<Buffer>;
}

/** Send and Wait's choice: an existing draft, or a new document from a file or a template. */
export function documentSourceOf(node: INode, read: Read): string {
	if (usesDocumentFrom(node)) return String(read('documentFrom', 'file'));
	const source = String(read('documentSource', 'new'));
	return source === 'new' ? 'file' : source;
}

/** A new document's source as the item's parameters say (`additional`: its Additional Fields). */
export function readDocumentFrom(
	node: INode,
	read: Read,
	additional: IDataObject,
): { from: string; template: unknown; attachFile: boolean } {
	if (!usesDocumentFrom(node))
		return {
			from: additional.template_id ? 'template' : 'file',
			template: locatorValue(additional.template_id),
			attachFile: read('attachFile', false) === true,
		};
	const from = String(read('documentFrom', 'file'));
	return {
		from,
		template: from === 'template' ? locatorValue(read('documentTemplate', '')) : undefined,
		attachFile: from === 'file',
	};
}

const OPERATIONS = ['create', SEND_AND_WAIT_OPERATION];
const shownFrom = (from: DocumentFrom) =>
	showFor('document', OPERATIONS, { ...FROM_VERSIONS, documentFrom: [from] });

const choice = (name: string, value: DocumentFrom, description: string) => ({
	name,
	value,
	description,
});
const FILE = choice(
	'File',
	'file',
	'Upload a file of the input item (e.g. from Google Drive, an email attachment or Read File)',
);
const TEMPLATE = choice(
	'Template',
	'template',
	"One of your templates, with its fields and signers' roles filled from the input",
);

function documentFromField(operation: string, options: Array<ReturnType<typeof choice>>) {
	return {
		displayName: 'Document From',
		name: 'documentFrom',
		type: 'options',
		noDataExpression: true,
		default: 'file',
		description: 'Where the document comes from',
		options,
		displayOptions: showFor('document', [operation], FROM_VERSIONS),
	} satisfies INodeProperties;
}

export const createDocumentFrom: INodeProperties = documentFromField('create', [FILE, TEMPLATE]);

export const sendAndWaitDocumentFrom: INodeProperties = documentFromField(SEND_AND_WAIT_OPERATION, [
	choice(
		'Existing Draft',
		'draft',
		'A document saved as a draft (Document › Create with Save as Draft), sent with its signers',
	),
	FILE,
	TEMPLATE,
]);

export function inputFileField(displayOptions: IDisplayOptions): INodeProperties {
	return {
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the input field containing the file (PDF, DOCX, PNG or JPEG; at most 10 MB)',
		displayOptions,
	};
}

export const sourceFields: INodeProperties[] = [
	resourceLocator({
		name: 'documentTemplate',
		displayName: 'Template',
		description:
			'The template the document is made from: its fields and roles are listed below once it is chosen',
		searchListMethod: 'searchTemplates',
		idPlaceholder: 'tpl_2b7x0d',
		displayOptions: shownFrom('template'),
	}),
	inputFileField(shownFrom('file')),
];

export const templateFieldsFrom: INodeProperties[] = templateMapperFields(
	shownFrom('template'),
	'documentTemplate.value',
);
