/**
 * Reads PDFs back for assertions: page count and the text drawn on each page. The text reader
 * inflates every content stream of a page and collects the strings shown by `Tj`, `'`, `"` and
 * `TJ` (hex or literal), decoded as WinAnsi: enough for PDFs drawn with standard fonts, which is
 * what the sandbox makes. It finds nothing in an image or in text drawn as paths, so a name
 * that is not really there as text fails the test.
 */
import {
	decodePDFRawStream,
	PDFArray,
	PDFDocument,
	PDFRawStream,
	PDFRef,
	type PDFObject,
} from 'pdf-lib';

const winAnsi = new TextDecoder('windows-1252');

function literal(body: string): Buffer {
	const bytes: number[] = [];
	for (let i = 0; i < body.length; i++) {
		const char = body[i];
		if (char !== '\\') {
			bytes.push(char.charCodeAt(0) & 0xff);
			continue;
		}
		const next = body[++i];
		const escapes: Record<string, number> = {
			n: 10,
			r: 13,
			t: 9,
			b: 8,
			f: 12,
			'(': 40,
			')': 41,
			'\\': 92,
		};
		if (next in escapes) bytes.push(escapes[next]);
		else if (/[0-7]/.test(next)) {
			let octal = next;
			while (octal.length < 3 && /[0-7]/.test(body[i + 1] ?? '')) octal += body[++i];
			bytes.push(parseInt(octal, 8) & 0xff);
		}
	}
	return Buffer.from(bytes);
}

/** The text shown by one content stream, one string per show operation. */
export function textOfContentStream(content: string): string[] {
	const out: string[] = [];
	const string = /<([0-9A-Fa-f\s]*)>|\(((?:\\.|[^\\()])*)\)/g;
	const decode = (match: RegExpExecArray) =>
		winAnsi.decode(
			match[1] !== undefined ? Buffer.from(match[1].replace(/\s/g, ''), 'hex') : literal(match[2]),
		);
	for (const show of content.matchAll(
		/(\[(?:[^\]]*)\]\s*TJ)|((?:<[0-9A-Fa-f\s]*>|\((?:\\.|[^\\()])*\))\s*(?:Tj|'|"))/g,
	)) {
		let text = '';
		for (const match of show[0].matchAll(string)) text += decode(match);
		out.push(text);
	}
	return out;
}

function streamsOf(doc: PDFDocument, contents: PDFObject | undefined): PDFRawStream[] {
	const resolved = contents instanceof PDFRef ? doc.context.lookup(contents) : contents;
	if (resolved instanceof PDFRawStream) return [resolved];
	if (resolved instanceof PDFArray)
		return resolved.asArray().flatMap((item) => streamsOf(doc, item));
	return [];
}

export interface PdfInfo {
	pageCount: number;
	/** The text of each page, its shown strings joined by newlines. */
	pages: string[];
	text: string;
}

export async function readPdf(bytes: Buffer | Uint8Array): Promise<PdfInfo> {
	const doc = await PDFDocument.load(bytes, { updateMetadata: false });
	const pages = doc.getPages().map((page) =>
		streamsOf(doc, page.node.Contents())
			.map((stream) =>
				textOfContentStream(
					Buffer.from(decodePDFRawStream(stream).decode()).toString('latin1'),
				).join('\n'),
			)
			.join('\n'),
	);
	return { pageCount: doc.getPageCount(), pages, text: pages.join('\n') };
}
