/**
 * The PDFs the sandbox makes (pdf-lib, standard fonts): the stand-in original of a document
 * created without a file, the signed copy (the original's pages, or the image on a page, or a
 * summary page, plus a signature certificate) and the audit trail.
 *
 * Everything is deterministic: no "now", dates come from the records, and pdf-lib's default
 * metadata (producer, creation date) is switched off, so the same record gives the same bytes
 * (downloads stay byte for byte stable, even after a restart with --data-file).
 *
 * Text is drawn with Helvetica (WinAnsi): characters outside that set become `?`, so any name
 * can be drawn, and names in Latin scripts stay extractable as text.
 */
import { PDFDocument, rgb, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';

import type { AuditLogEntry, DocumentRecord, FileInfo } from '../contract';

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 56;
const PRODUCER = 'Document Signing Sandbox';

export interface UploadedFile {
	info: FileInfo;
	data: Buffer;
}

interface Fonts {
	regular: PDFFont;
	bold: PDFFont;
}

/** Writes lines top-down, wrapping them and starting new pages as needed. */
class Writer {
	private page: PDFPage | undefined;
	private y = 0;
	private readonly charsets = new Map<PDFFont, Set<number>>();

	constructor(
		private readonly doc: PDFDocument,
		private readonly fonts: Fonts,
	) {}

	newPage(): void {
		this.page = this.doc.addPage(A4);
		this.y = A4[1] - MARGIN;
	}

	heading(text: string): void {
		this.line(text, { size: 18, bold: true, gapAfter: 8 });
	}

	subheading(text: string): void {
		this.gap(6);
		this.line(text, { size: 12, bold: true, gapAfter: 2 });
	}

	field(label: string, value: string): void {
		this.line(`${label}: ${value}`);
	}

	gap(points: number): void {
		this.y -= points;
	}

	line(
		text: string,
		options: { size?: number; bold?: boolean; gapAfter?: number; indent?: number } = {},
	): void {
		const size = options.size ?? 10;
		const font = options.bold ? this.fonts.bold : this.fonts.regular;
		const indent = options.indent ?? 0;
		const width = A4[0] - 2 * MARGIN - indent;
		const leading = size * 1.35;
		for (const piece of wrap(this.safe(text, font), font, size, width)) {
			if (!this.page || this.y - leading < MARGIN) this.newPage();
			this.y -= leading;
			this.page!.drawText(piece, {
				x: MARGIN + indent,
				y: this.y,
				size,
				font,
				color: rgb(0.1, 0.1, 0.1),
			});
		}
		this.y -= options.gapAfter ?? 0;
	}

	/** Only characters the font can encode; control characters become spaces. */
	private safe(text: string, font: PDFFont): string {
		let charset = this.charsets.get(font);
		if (!charset) {
			charset = new Set(font.getCharacterSet());
			this.charsets.set(font, charset);
		}
		let out = '';
		for (const char of text.normalize('NFC')) {
			const code = char.codePointAt(0)!;
			if (code < 0x20 || (code >= 0x7f && code < 0xa0)) out += ' ';
			else out += charset.has(code) ? char : '?';
		}
		return out;
	}
}

function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
	const fits = (value: string) => font.widthOfTextAtSize(value, size) <= width;
	const lines: string[] = [];
	let current = '';
	for (const word of text.split(/ +/)) {
		const candidate = current === '' ? word : `${current} ${word}`;
		if (fits(candidate)) {
			current = candidate;
			continue;
		}
		if (current !== '') lines.push(current);
		current = word;
		// A single word wider than the line is cut wherever it has to be.
		while (!fits(current)) {
			let cut = current.length - 1;
			while (cut > 1 && !fits(current.slice(0, cut))) cut--;
			lines.push(current.slice(0, cut));
			current = current.slice(cut);
		}
	}
	if (current !== '' || lines.length === 0) lines.push(current);
	return lines;
}

async function newDocument(
	title: string,
	subject: string,
	date: string,
): Promise<{ doc: PDFDocument; writer: Writer }> {
	const doc = await PDFDocument.create({ updateMetadata: false });
	setMetadata(doc, title, subject, date);
	const fonts = {
		regular: await doc.embedFont(StandardFonts.Helvetica),
		bold: await doc.embedFont(StandardFonts.HelveticaBold),
	};
	return { doc, writer: new Writer(doc, fonts) };
}

function setMetadata(
	doc: PDFDocument,
	title: string,
	subject: string,
	date: string,
	created = true,
): void {
	doc.setTitle(title);
	doc.setSubject(subject);
	doc.setProducer(PRODUCER);
	doc.setCreator(PRODUCER);
	if (created) doc.setCreationDate(new Date(date));
	doc.setModificationDate(new Date(date));
}

async function writerFor(doc: PDFDocument): Promise<Writer> {
	return new Writer(doc, {
		regular: await doc.embedFont(StandardFonts.Helvetica),
		bold: await doc.embedFont(StandardFonts.HelveticaBold),
	});
}

const save = async (doc: PDFDocument) => Buffer.from(await doc.save({ useObjectStreams: false }));

/** `Client: Jane Doe <jane@…> (order 1)`: a signer, with the template role it fills. */
function signerLine(signer: DocumentRecord['signers'][number]): string {
	return `${signer.role ? `${signer.role}: ` : ''}${signer.name} <${signer.email}>${signer.order === null ? '' : ` (order ${signer.order})`}`;
}

/** `Price: 12000`: the template fields of a document and their values, one line each. */
function fieldLines(writer: Writer, document: DocumentRecord): void {
	if (document.fields.length === 0) return;
	writer.subheading('Fields');
	for (const field of document.fields) {
		const value =
			field.value === null
				? '-'
				: field.type === 'checkbox'
					? field.value
						? 'Yes'
						: 'No'
					: String(field.value);
		writer.field(field.label, value);
	}
}

/** The document described on a page: name, id, message, template fields and signers (no signing state). */
function summaryPage(writer: Writer, document: DocumentRecord, note?: string): void {
	writer.newPage();
	writer.heading(document.name);
	writer.field('Document ID', document.id);
	writer.field('Created', document.created_at);
	if (note) writer.line(note);
	if (document.message) {
		writer.subheading('Message');
		for (const paragraph of document.message.split(/\r?\n/)) writer.line(paragraph);
	}
	fieldLines(writer, document);
	writer.subheading('Signers');
	if (document.signers.length === 0) writer.line('(none yet)');
	for (const signer of document.signers) writer.line(signerLine(signer));
	writer.gap(12);
	writer.line(
		'Generated by the Document Signing Sandbox: this document was created without a file.',
		{ size: 8 },
	);
}

/** The original of a document created without a file. */
export async function generatedOriginal(document: DocumentRecord): Promise<Buffer> {
	const { doc, writer } = await newDocument(
		document.name,
		`Document ${document.id}`,
		document.created_at,
	);
	summaryPage(writer, document);
	return save(doc);
}

export interface SignatureEvidence {
	/** The ip of each signer's `document.signed` entry, by signer id. */
	ipBySigner: Record<string, string | null>;
}

function certificate(
	writer: Writer,
	document: DocumentRecord,
	file: FileInfo | null,
	evidence: SignatureEvidence,
): void {
	writer.newPage();
	writer.heading('Signature certificate');
	writer.field('Document', document.name);
	writer.field('Document ID', document.id);
	writer.field('Status', document.status);
	writer.field('Created', document.created_at);
	writer.field('Completed', document.completed_at ?? '-');
	if (file) {
		writer.field('Original file', `${file.name} (${file.content_type}, ${file.size} bytes)`);
		writer.field('Original SHA-256', file.sha256);
		// An uploaded original does not show the values; the certificate records them.
		fieldLines(writer, document);
	}
	writer.subheading(`Signers (${document.signers.length})`);
	for (const [index, signer] of document.signers.entries()) {
		writer.gap(4);
		writer.line(`${index + 1}. ${signer.name}${signer.role ? ` (${signer.role})` : ''}`, {
			bold: true,
		});
		writer.line(`Email: ${signer.email}`, { indent: 14 });
		writer.line(`Signed at: ${signer.signed_at ?? '-'}`, { indent: 14 });
		writer.line(`Authentication: ${signer.authentication}`, { indent: 14 });
		const ip = evidence.ipBySigner[signer.id];
		if (ip) writer.line(`IP address: ${ip}`, { indent: 14 });
	}
	writer.gap(12);
	writer.line(
		'Signed electronically through the Document Signing Sandbox (a test service: no legal effect).',
		{ size: 8 },
	);
}

/**
 * The signed copy of a completed document: the original's pages (PDF), the image on a page
 * (PNG/JPEG) or a summary page (DOCX, no file, or an original that cannot be read), then the
 * signature certificate.
 */
export async function signedCopy(
	document: DocumentRecord,
	original: UploadedFile | null,
	evidence: SignatureEvidence,
): Promise<Buffer> {
	const completedAt = document.completed_at ?? document.updated_at;
	const title = `${document.name} (signed)`;
	const subject = `Signed document ${document.id}`;

	if (original?.info.content_type === 'application/pdf') {
		try {
			const doc = await PDFDocument.load(original.data, { updateMetadata: false });
			setMetadata(doc, title, subject, completedAt, false);
			certificate(await writerFor(doc), document, original.info, evidence);
			return await save(doc);
		} catch {
			// Encrypted or unreadable: fall through to a summary page.
		}
	}

	const { doc, writer } = await newDocument(title, subject, completedAt);
	let embedded = false;
	if (
		original &&
		(original.info.content_type === 'image/png' || original.info.content_type === 'image/jpeg')
	) {
		try {
			const image =
				original.info.content_type === 'image/png'
					? await doc.embedPng(original.data)
					: await doc.embedJpg(original.data);
			const page = doc.addPage(A4);
			const scale = Math.min(
				(A4[0] - 2 * MARGIN) / image.width,
				(A4[1] - 2 * MARGIN) / image.height,
				1,
			);
			const width = image.width * scale;
			const height = image.height * scale;
			page.drawImage(image, { x: (A4[0] - width) / 2, y: A4[1] - MARGIN - height, width, height });
			embedded = true;
		} catch {
			// Not a readable image: a summary page instead.
		}
	}
	if (!embedded) {
		const note = original
			? `Original file: ${original.info.name} (${original.info.content_type}, ${original.info.size} bytes), not rendered by the sandbox.`
			: undefined;
		summaryPage(writer, document, note);
	}
	certificate(writer, document, original?.info ?? null, evidence);
	return save(doc);
}

/** Who did it, for a line of the audit trail: signers by name and e-mail. */
function actorLabel(entry: AuditLogEntry, document: DocumentRecord): string {
	const { type, email } = entry.actor;
	if (type === 'signer') {
		const signer = document.signers.find((candidate) => candidate.email === email);
		return signer ? `${signer.name} <${signer.email}>` : `signer ${email ?? ''}`;
	}
	if (type === 'system') return 'system';
	return `${type === 'api_key' ? 'API key' : 'user'}${email ? ` (${email})` : ''}`;
}

export async function auditTrailPdf(
	document: DocumentRecord,
	events: AuditLogEntry[],
): Promise<Buffer> {
	// The last entry's time; an entry appended as given (appendAuditEntry) may hold no time.
	const last =
		[...events].reverse().find((entry) => !Number.isNaN(Date.parse(entry.created_at)))
			?.created_at ?? document.updated_at;
	const { doc, writer } = await newDocument(
		`Audit trail: ${document.name}`,
		`Audit trail of ${document.id}`,
		last,
	);
	writer.newPage();
	writer.heading('Audit trail');
	writer.field('Document', document.name);
	writer.field('Document ID', document.id);
	writer.field('Status', document.status);
	writer.field('Created', document.created_at);
	if (document.completed_at) writer.field('Completed', document.completed_at);
	writer.subheading('Signers');
	for (const signer of document.signers)
		writer.line(`${signer.name} <${signer.email}>: ${signer.status}`);
	writer.subheading(`Events (${events.length})`);
	for (const entry of events) {
		const extras = [
			entry.ip ? `ip ${entry.ip}` : null,
			typeof entry.details.reason === 'string' ? `reason: ${entry.details.reason}` : null,
		]
			.filter(Boolean)
			.join(', ');
		writer.line(
			`${entry.created_at}  ${entry.event}  by ${actorLabel(entry, document)}${extras ? `  (${extras})` : ''}`,
			{ size: 9 },
		);
	}
	return save(doc);
}
