import type { IDataObject } from 'n8n-workflow';

import { apiPath, idText } from './ids';
import {
	apiRequest,
	serviceClient,
	type ApiContext,
	ServiceBehaviourError,
	shownText,
	fileNameFromDisposition,
	headerValue,
} from './transport';
import { pick } from './transport/listRecords';
import { firstBytesShown, mediaTypeOf, plainFileName, withExtension } from './fileNames';

// A document's files (docs/api-contract.md, "Files"): the record's link, else the contract's endpoints.

/** The contract's file versions (`?version=`), and the audit trail. */
export type DocumentFileVersion = 'original' | 'signed' | 'auditTrail';

/** Where records put their links (dotted paths), most specific first. */
const LINK_PATHS: Record<DocumentFileVersion, string> = {
	original: 'files.original.url files.original original_file_url file_url file.url download_url',
	signed:
		'files.signed.url files.signed signed_file_url signed_document_url signed_pdf_url completed_file_url',
	auditTrail:
		'files.audit_trail.url files.audit_trail audit_trail_url certificate_url audit_log_url',
};

function fileLinkOf(record: IDataObject, version: DocumentFileVersion): string | undefined {
	for (const path of LINK_PATHS[version].split(' ')) {
		const value = pick(record, path);
		if (typeof value === 'string' && value.trim() !== '') return value.trim();
	}
	// `download_url` on a completed document is, for most services, the signed copy.
	if (
		version === 'signed' &&
		record.status === 'completed' &&
		typeof record.download_url === 'string'
	)
		return record.download_url;
	return undefined;
}

interface DocumentFile {
	data: Buffer;
	/** A plain base name (fileNames.ts); `.pdf` for the signed copy and the audit trail. */
	fileName: string;
	/** `application/pdf` for the signed copy and the audit trail, which must be PDFs. */
	mimeType: string;
}

/** The name a version gets when the service sends none: from the document's own name or id. */
function defaultName(record: IDataObject, version: DocumentFileVersion): string {
	const id = plainFileName(idText(record.id));
	const name = plainFileName(record.name);
	const stem = (name ?? `document-${id ?? ''}`).replace(/\.[A-Za-z0-9]{1,10}$/, '');
	if (version === 'signed') return `${stem}-signed.pdf`;
	if (version === 'auditTrail') return `audit-trail-${id ?? stem}.pdf`;
	return name ?? `${stem}.pdf`;
}

/** What each version is called in errors; the signed copy and the audit trail are PDFs. */
const PDF_VERSIONS: Partial<Record<DocumentFileVersion, string>> = {
	signed: 'signed PDF',
	auditTrail: 'audit trail',
};
const PDF_SIGNATURE = '%PDF-';

/** The bytes of a file response (an ArrayBuffer is wrapped, not copied). */
export function bytesOf(body: unknown): Buffer {
	if (Buffer.isBuffer(body)) return body;
	if (body instanceof ArrayBuffer) return Buffer.from(body);
	if (typeof body === 'string') return Buffer.from(body, 'binary');
	return Buffer.from(JSON.stringify(body ?? ''));
}

/** One version of a document's file; `record` (status, links) as the service last answered it. */
export async function fetchDocumentFile(
	context: ApiContext,
	record: IDataObject,
	version: DocumentFileVersion,
	abortSignal?: AbortSignal,
): Promise<DocumentFile> {
	const id = idText(record.id);
	if (id === undefined)
		throw new ServiceBehaviourError(
			'The service answered a document without an ID',
			'The file cannot be looked up without it.',
		);
	// Only a completed document has a signed file; the error names the document's state.
	if (version === 'signed' && typeof record.status === 'string' && record.status !== 'completed') {
		const name = typeof record.name === 'string' ? `"${shownText(record.name, 100)}" ` : '';
		throw new ServiceBehaviourError(
			`The document ${name}is ${record.status}: the signed file exists once every signer has signed`,
			'Download the Original instead, or wait for the Document Completed event (Document Signing Trigger › Attach Signed File).',
			'409',
		);
	}
	const client = await serviceClient(context);
	const link = fileLinkOf(record, version);
	// Only on the credential's origin: a link anywhere else is refused before anything is sent.
	const [path, qs] = link
		? [client.origin.followable(link, `${client.origin.baseUrl}/`, 'a file link')]
		: version === 'auditTrail'
			? [apiPath`/documents/${id}/audit-trail`, { format: 'pdf' }]
			: [apiPath`/documents/${id}/file`, { version }];
	const request = { client, binary: true, abortSignal, qs };
	const response = await apiRequest(context, 'GET', path, request);
	const data = bytesOf(response.body);
	const declaredType = headerValue(response.headers, 'content-type');
	const fileName =
		fileNameFromDisposition(headerValue(response.headers, 'content-disposition')) ??
		defaultName(record, version);
	const pdf = PDF_VERSIONS[version];
	if (pdf === undefined) return { data, fileName, mimeType: mediaTypeOf(declaredType) };
	// Whatever the headers say: a "signed PDF" that is a web page or an error text is not passed on.
	if (data.subarray(0, PDF_SIGNATURE.length).toString('latin1') !== PDF_SIGNATURE)
		throw new ServiceBehaviourError(
			`The service's ${pdf} is not a PDF: it came as ${declaredType ? shownText(declaredType, 100) : 'a response without a Content-Type'}, ${data.length === 0 ? 'empty' : `starting "${firstBytesShown(data)}"`}`,
			`A PDF starts with "${PDF_SIGNATURE}"; this response (${data.length} bytes) does not, so it was not passed on. It may be a proxy's or login page, or an error the service sent with a success status. Check the Base URL in the credentials, and try again later.`,
			String(response.statusCode),
		);
	return { data, fileName: withExtension(fileName, '.pdf'), mimeType: 'application/pdf' };
}
