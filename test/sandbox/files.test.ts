/**
 * Downloads (docs/api-contract.md, "Files"): GET /documents/{id}/file (original, signed),
 * GET /documents/{id}/audit-trail (pdf, json), the `fileLinks` option and its /files/{token}
 * links, sandbox.documentFile() and its admin route. Real HTTP with axios; PDFs are parsed back
 * with pdf-lib and their text read from the content streams.
 */
import type { AxiosInstance, AxiosResponse } from 'axios';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { crc32, deflateSync } from 'zlib';

import {
	AuditTrailSchema,
	DocumentListSchema,
	DocumentSchema,
	type DocumentRecord,
	type ErrorBody,
} from '../../contract';
import { startSandbox } from '../../sandbox';
import { signedCopy } from '../../sandbox/pdf';
import {
	admin,
	api,
	documentBody,
	expectError,
	expectSchema,
	useSandbox,
} from '../helpers/sandbox';
import { readPdf } from '../helpers/pdfText';

const getSandbox = useSandbox();

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

async function pdfWithPages(...texts: string[]): Promise<Buffer> {
	const doc = await PDFDocument.create();
	const font = await doc.embedFont(StandardFonts.Helvetica);
	for (const text of texts)
		doc.addPage([300, 400]).drawText(text, { x: 20, y: 200, size: 12, font });
	return Buffer.from(await doc.save());
}

/** A real PNG: width x height, 8-bit RGB, a red/blue gradient. */
function png(width: number, height: number): Buffer {
	const chunk = (type: string, data: Buffer) => {
		const length = Buffer.alloc(4);
		length.writeUInt32BE(data.length);
		const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
		const crc = Buffer.alloc(4);
		crc.writeUInt32BE(crc32(body));
		return Buffer.concat([length, body, crc]);
	};
	const header = Buffer.alloc(13);
	header.writeUInt32BE(width, 0);
	header.writeUInt32BE(height, 4);
	header.set([8, 2, 0, 0, 0], 8);
	const rows: number[] = [];
	for (let y = 0; y < height; y++) {
		rows.push(0);
		for (let x = 0; x < width; x++) rows.push((x * 255) / width, 0, (y * 255) / height);
	}
	return Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		chunk('IHDR', header),
		chunk('IDAT', deflateSync(Buffer.from(rows))),
		chunk('IEND', Buffer.alloc(0)),
	]);
}

const fileBody = (data: Buffer, content_type: string, name?: string) => ({
	content_type,
	data: data.toString('base64'),
	...(name ? { name } : {}),
});

async function createDocument(
	client: AxiosInstance,
	overrides: Record<string, unknown> = {},
): Promise<DocumentRecord> {
	const response = await client.post('/documents', documentBody(overrides));
	expect(response.status).toBe(201);
	return expectSchema(DocumentSchema, response.data);
}

function completeDocument(document: DocumentRecord): DocumentRecord {
	let last = document;
	for (const signer of document.signers)
		last = getSandbox().actAsSigner(document.id, signer.id, 'sign');
	expect(last.status).toBe('completed');
	return last;
}

async function download(client: AxiosInstance, path: string): Promise<AxiosResponse<Buffer>> {
	const response = await client.get<Buffer>(path, { responseType: 'arraybuffer' });
	const data = Buffer.from(response.data);
	// Error bodies are JSON: parse them so expectError can read them.
	if (response.status >= 400) return { ...response, data: JSON.parse(data.toString('utf8')) };
	return { ...response, data };
}

const messageOf = (response: AxiosResponse) => (response.data as ErrorBody).error.message;

/** The file name a client reads from Content-Disposition: `filename*` first, then `filename`. */
function fileNameOf(response: AxiosResponse): string | undefined {
	const header = String(response.headers['content-disposition'] ?? '');
	const extended = /filename\*=UTF-8''([^;]+)/i.exec(header);
	if (extended) return decodeURIComponent(extended[1]);
	return /filename="([^"]*)"/.exec(header)?.[1];
}

function expectDownload(
	response: AxiosResponse<Buffer>,
	contentType: string,
	fileName: string,
): Buffer {
	expect(response.status).toBe(200);
	expect(response.headers['content-type']).toBe(contentType);
	expect(response.headers['content-disposition']).toMatch(/^attachment; filename="[^"]+"/);
	expect(fileNameOf(response)).toBe(fileName);
	expect(Number(response.headers['content-length'])).toBe(response.data.length);
	return response.data;
}

const isPdf = (data: Buffer) => data.subarray(0, 5).toString('latin1') === '%PDF-';

// ---------------------------------------------------------------------------------------------
// Original
// ---------------------------------------------------------------------------------------------

describe('GET /documents/{id}/file (original)', () => {
	it('answers an uploaded PDF byte for byte, with its content type and name; version defaults to original', async () => {
		const client = api(getSandbox());
		const original = await pdfWithPages('Page one', 'Page two');
		const document = await createDocument(client, { file: fileBody(original, 'application/pdf') });

		const implicit = expectDownload(
			await download(client, `/documents/${document.id}/file`),
			'application/pdf',
			'contract.pdf',
		);
		expect(implicit.equals(original)).toBe(true);
		const explicit = expectDownload(
			await download(client, `/documents/${document.id}/file?version=original`),
			'application/pdf',
			'contract.pdf',
		);
		expect(explicit.equals(original)).toBe(true);
	});

	it('answers an uploaded PNG byte for byte under the file name it was uploaded with', async () => {
		const client = api(getSandbox());
		const image = png(40, 30);
		const document = await createDocument(client, {
			name: 'scan.png',
			file: fileBody(image, 'image/png', 'Scan 2026.png'),
		});
		const data = expectDownload(
			await download(client, `/documents/${document.id}/file`),
			'image/png',
			'Scan 2026.png',
		);
		expect(data.equals(image)).toBe(true);
		expect((await getSandbox().documentFile(document.id, 'original')).data.equals(image)).toBe(
			true,
		);
	});

	it('generates a PDF of the document when it was created without a file, the same on every download', async () => {
		const client = api(getSandbox());
		const document = await createDocument(client, {
			name: 'offer.docx',
			message: 'Please review the offer.',
		});
		expect(document.file).toBeNull();

		const first = expectDownload(
			await download(client, `/documents/${document.id}/file`),
			'application/pdf',
			'offer.pdf',
		);
		expect(isPdf(first)).toBe(true);
		const pdf = await readPdf(first);
		expect(pdf.pageCount).toBe(1);
		for (const text of [
			'offer.docx',
			document.id,
			'Please review the offer.',
			'Ann Signer <ann@example.com>',
			'Bob Signer <bob@example.com>',
		]) {
			expect(pdf.text).toContain(text);
		}
		const second = (await download(client, `/documents/${document.id}/file`)).data;
		expect(second.equals(first)).toBe(true);
	});

	it('refuses an unknown version with a 400 on version', async () => {
		const client = api(getSandbox());
		const document = await createDocument(client);
		expectError(
			await download(client, `/documents/${document.id}/file?version=final`),
			400,
			'validation_error',
			'version',
		);
	});
});

// ---------------------------------------------------------------------------------------------
// Signed
// ---------------------------------------------------------------------------------------------

describe('GET /documents/{id}/file?version=signed', () => {
	it('is a 409 document_not_completed naming the status until every signer has signed', async () => {
		const sandbox = getSandbox();
		const client = api(sandbox);
		const document = await createDocument(client);

		const pending = await download(client, `/documents/${document.id}/file?version=signed`);
		expectError(pending, 409, 'document_not_completed', 'version');
		expect(messageOf(pending)).toBe(
			'The document is pending: the signed file exists once every signer has signed',
		);

		sandbox.actAsSigner(document.id, document.signers[0].id, 'sign');
		expectError(
			await download(client, `/documents/${document.id}/file?version=signed`),
			409,
			'document_not_completed',
		);

		const draft = await createDocument(client, { draft: true });
		const draftAnswer = await download(client, `/documents/${draft.id}/file?version=signed`);
		expectError(draftAnswer, 409, 'document_not_completed');
		expect(messageOf(draftAnswer)).toMatch(/^The document is draft:/);

		const declined = await createDocument(client);
		sandbox.actAsSigner(declined.id, declined.signers[1].id, 'decline', 'Wrong amount');
		const declinedAnswer = await download(client, `/documents/${declined.id}/file?version=signed`);
		expectError(declinedAnswer, 409, 'document_not_completed');
		expect(messageOf(declinedAnswer)).toBe(
			'The document is declined: only a completed document has a signed file',
		);

		await expect(sandbox.documentFile(document.id, 'signed')).rejects.toMatchObject({
			status: 409,
			code: 'document_not_completed',
		});
	});

	it('for a PDF original: its pages plus a certificate page naming each signer, stable bytes', async () => {
		const sandbox = getSandbox();
		const client = api(sandbox);
		const original = await pdfWithPages('Original page one', 'Original page two');
		const document = await createDocument(client, { file: fileBody(original, 'application/pdf') });
		const completed = completeDocument(document);

		const first = expectDownload(
			await download(client, `/documents/${document.id}/file?version=signed`),
			'application/pdf',
			'contract-signed.pdf',
		);
		expect(isPdf(first)).toBe(true);
		const pdf = await readPdf(first);
		expect(pdf.pageCount).toBe(3);
		expect(pdf.pages[0]).toContain('Original page one');
		expect(pdf.pages[1]).toContain('Original page two');
		const certificate = pdf.pages[2];
		expect(certificate).toContain('Signature certificate');
		expect(certificate).toContain(`Document ID: ${document.id}`);
		expect(certificate).toContain(`Completed: ${completed.completed_at}`);
		for (const signer of completed.signers) {
			expect(certificate).toContain(signer.name);
			expect(certificate).toContain(`Email: ${signer.email}`);
			expect(certificate).toContain(`Signed at: ${signer.signed_at}`);
		}

		const again = (await download(client, `/documents/${document.id}/file?version=signed`)).data;
		expect(again.equals(first)).toBe(true);
		const helper = await sandbox.documentFile(document.id, 'signed');
		expect(helper).toMatchObject({
			contentType: 'application/pdf',
			fileName: 'contract-signed.pdf',
		});
		expect(helper.data.equals(first)).toBe(true);
		const viaAdmin = await admin(sandbox).get(`/documents/${document.id}/file`, {
			params: { version: 'signed' },
			responseType: 'arraybuffer',
		});
		expect(viaAdmin.status).toBe(200);
		expect(Buffer.from(viaAdmin.data).equals(first)).toBe(true);
		// The original is still the upload.
		expect((await download(client, `/documents/${document.id}/file`)).data.equals(original)).toBe(
			true,
		);
	});

	it('for a PNG original: the image on a page plus the certificate', async () => {
		const client = api(getSandbox());
		const document = await createDocument(client, {
			name: 'scan.png',
			file: fileBody(png(60, 80), 'image/png'),
		});
		completeDocument(document);
		const data = expectDownload(
			await download(client, `/documents/${document.id}/file?version=signed`),
			'application/pdf',
			'scan-signed.pdf',
		);
		const pdf = await readPdf(data);
		expect(pdf.pageCount).toBe(2);
		expect(pdf.pages[0]).toBe('');
		expect(data.toString('latin1')).toMatch(/\/Subtype\s*\/Image/);
		expect(pdf.pages[1]).toContain('Ann Signer');
		expect(pdf.pages[1]).toContain('Bob Signer');
	});

	it('for a DOCX, no file, or an unreadable upload: a summary page plus the certificate', async () => {
		const client = api(getSandbox());
		const cases = [
			{
				name: 'terms.docx',
				file: fileBody(
					Buffer.from('PK\u0003\u0004 not really a docx'),
					'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
				),
			},
			{ name: 'terms.pdf' },
			{ name: 'broken.pdf', file: fileBody(Buffer.from('not a pdf at all'), 'application/pdf') },
			{ name: 'broken.png', file: fileBody(Buffer.from('not a png'), 'image/png') },
		];
		for (const overrides of cases) {
			const document = await createDocument(client, overrides);
			completeDocument(document);
			const response = await download(client, `/documents/${document.id}/file?version=signed`);
			expect(response.status).toBe(200);
			const pdf = await readPdf(response.data);
			expect(pdf.pageCount).toBe(2);
			expect(pdf.pages[0]).toContain(overrides.name);
			expect(pdf.pages[1]).toContain('Signature certificate');
			expect(pdf.pages[1]).toContain('Ann Signer');
		}
	});

	it('draws non-ASCII signer names as text, and survives names outside the standard font', async () => {
		const client = api(getSandbox());
		const document = await createDocument(client, {
			signers: [
				{ email: 'jorg@example.com', name: 'Jörg Åström' },
				{ email: 'taro@example.com', name: '山田 太郎' },
			],
		});
		completeDocument(document);
		const pdf = await readPdf(
			(await download(client, `/documents/${document.id}/file?version=signed`)).data,
		);
		expect(pdf.text).toContain('Jörg Åström');
		expect(pdf.text).toContain('taro@example.com');
	});

	it('is generated the same way every time (no clock in the bytes)', async () => {
		const client = api(getSandbox());
		const document = completeDocument(
			await createDocument(client, { file: fileBody(await pdfWithPages('x'), 'application/pdf') }),
		);
		const original = await getSandbox().documentFile(document.id, 'original');
		const info = {
			name: 'contract.pdf',
			content_type: 'application/pdf' as const,
			size: original.data.length,
			sha256: document.file!.sha256,
		};
		const first = await signedCopy(document, { info, data: original.data }, { ipBySigner: {} });
		await new Promise((resolve) => setTimeout(resolve, 1100));
		const second = await signedCopy(document, { info, data: original.data }, { ipBySigner: {} });
		expect(second.equals(first)).toBe(true);
	});
});

// ---------------------------------------------------------------------------------------------
// Audit trail
// ---------------------------------------------------------------------------------------------

describe('GET /documents/{id}/audit-trail', () => {
	it('answers the events in order as JSON, in any state', async () => {
		const sandbox = getSandbox();
		const client = api(sandbox);
		const document = await createDocument(client);

		const pending = await download(client, `/documents/${document.id}/audit-trail?format=json`);
		expectDownload(pending, 'application/json; charset=utf-8', `audit-trail-${document.id}.json`);
		const early = expectSchema(AuditTrailSchema, JSON.parse(pending.data.toString('utf8')));
		expect(early.events.map((entry) => entry.event)).toEqual([
			'document.created',
			'signature.requested',
			'document.sent',
		]);

		sandbox.actAsSigner(document.id, document.signers[0].id, 'view');
		sandbox.actAsSigner(document.id, document.signers[0].id, 'sign');
		sandbox.actAsSigner(document.id, document.signers[1].id, 'sign');
		const trail = expectSchema(
			AuditTrailSchema,
			JSON.parse(
				(await download(client, `/documents/${document.id}/audit-trail?format=json`)).data.toString(
					'utf8',
				),
			),
		);
		expect(trail).toMatchObject({
			document_id: document.id,
			document_name: 'contract.pdf',
			status: 'completed',
		});
		expect(trail.events.map((entry) => entry.event)).toEqual([
			'document.created',
			'signature.requested',
			'document.sent',
			'document.viewed',
			'document.signed',
			'document.viewed',
			'document.signed',
			'document.completed',
		]);
		expect(trail.events.every((entry) => entry.document_id === document.id)).toBe(true);
		expect(trail.events[4].actor).toEqual({ type: 'signer', email: 'ann@example.com' });
		expect(trail.events[4].ip).toBe('127.0.0.1');
		expect(trail.events[0].actor.type).toBe('api_key');
	});

	it('answers a PDF by default: title, document, one line per event, signer names as text', async () => {
		const sandbox = getSandbox();
		const client = api(sandbox);
		const document = await createDocument(client);
		sandbox.actAsSigner(document.id, document.signers[1].id, 'decline', 'Wrong amount');

		const data = expectDownload(
			await download(client, `/documents/${document.id}/audit-trail`),
			'application/pdf',
			`audit-trail-${document.id}.pdf`,
		);
		expect(isPdf(data)).toBe(true);
		const pdf = await readPdf(data);
		expect(pdf.text).toContain('Audit trail');
		expect(pdf.text).toContain(`Document ID: ${document.id}`);
		expect(pdf.text).toContain('Ann Signer <ann@example.com>');
		expect(pdf.text).toContain('Bob Signer <bob@example.com>');
		const lines = pdf.text.split('\n').filter((line) => /^\d{4}-\d{2}-\d{2}T/.test(line));
		expect(lines.map((line) => line.split(/\s+/)[1])).toEqual([
			'document.created',
			'signature.requested',
			'document.sent',
			'document.viewed',
			'document.declined',
		]);
		expect(lines[4]).toContain('by Bob Signer <bob@example.com>');
		// Long lines wrap: the reason may continue on the next line.
		expect(pdf.text.replace(/\n/g, ' ')).toContain('(ip 127.0.0.1, reason: Wrong amount)');

		expectError(
			await download(client, `/documents/${document.id}/audit-trail?format=xml`),
			400,
			'validation_error',
			'format',
		);
	});
});

// ---------------------------------------------------------------------------------------------
// Access
// ---------------------------------------------------------------------------------------------

describe('access', () => {
	it('another account gets 404 for every download; a viewer may read', async () => {
		const sandbox = getSandbox();
		const client = api(sandbox);
		const document = completeDocument(await createDocument(client));
		const stranger = api(sandbox, sandbox.createAccount().apiKey);
		for (const path of ['file', 'file?version=signed', 'audit-trail', 'audit-trail?format=json']) {
			expectError(await download(stranger, `/documents/${document.id}/${path}`), 404, 'not_found');
		}
		expectError(await download(client, '/documents/doc_0000/file'), 404, 'not_found');
		expectError(
			await download(api(sandbox, null), `/documents/${document.id}/file`),
			401,
			'unauthorized',
		);

		const accountId = sandbox.store.accountIdOf(sandbox.apiKey)!;
		const viewer = api(sandbox, sandbox.createApiKey(accountId, 'viewer').apiKey);
		expect((await download(viewer, `/documents/${document.id}/file?version=signed`)).status).toBe(
			200,
		);
		expect((await download(viewer, `/documents/${document.id}/audit-trail`)).status).toBe(200);
	});

	it('the admin route answers without a key, with the API errors', async () => {
		const sandbox = getSandbox();
		const document = await createDocument(api(sandbox));
		const control = admin(sandbox);
		const original = await control.get(`/documents/${document.id}/file`, {
			responseType: 'arraybuffer',
		});
		expect(original.status).toBe(200);
		expect(fileNameOf(original)).toBe('contract.pdf');
		expect((await control.get(`/documents/${document.id}/file?version=signed`)).status).toBe(409);
		expect((await control.get('/documents/doc_0000/file')).status).toBe(404);
		expect((await control.get('')).data.endpoints).toContain(
			'GET /__sandbox/documents/:documentId/file?version=original|signed',
		);
	});

	it('puts an RFC 8187 filename* next to an ASCII fallback when the name is not ASCII', async () => {
		const client = api(getSandbox());
		const document = completeDocument(
			await createDocument(client, { name: 'Vertrag über Müller "final".pdf' }),
		);
		const original = await download(client, `/documents/${document.id}/file`);
		expect(original.headers['content-disposition']).toBe(
			`attachment; filename="Vertrag uber Muller _final_.pdf"; filename*=UTF-8''Vertrag%20%C3%BCber%20M%C3%BCller%20%22final%22.pdf`,
		);
		expect(fileNameOf(original)).toBe('Vertrag über Müller "final".pdf');
		expect(
			fileNameOf(await download(client, `/documents/${document.id}/file?version=signed`)),
		).toBe('Vertrag über Müller "final"-signed.pdf');
		const pdf = await readPdf(
			(await download(client, `/documents/${document.id}/file?version=signed`)).data,
		);
		expect(pdf.text).toContain('Document: Vertrag über Müller "final".pdf');
	});
});

// ---------------------------------------------------------------------------------------------
// fileLinks
// ---------------------------------------------------------------------------------------------

describe('fileLinks option', () => {
	afterEach(() => {
		getSandbox().configure({ fileLinks: false, publicOrigin: null });
	});

	it('is off by default: records carry no links', async () => {
		const sandbox = getSandbox();
		expect(sandbox.config().fileLinks).toBe(false);
		const document = await createDocument(api(sandbox));
		expect(document).not.toHaveProperty('files');
		expect(document).not.toHaveProperty('audit_trail_url');
	});

	it('when on, every record carries links that download the files with the API key', async () => {
		const sandbox = getSandbox();
		const client = api(sandbox);
		const put = await admin(sandbox).put('/config', { fileLinks: true });
		expect(put.status).toBe(200);
		expect(put.data.fileLinks).toBe(true);

		const original = await pdfWithPages('Linked');
		const created = await createDocument(client, { file: fileBody(original, 'application/pdf') });
		expect(created.files?.original.url).toMatch(
			new RegExp(`^${sandbox.origin}/v1/files/[A-Za-z0-9_.-]+$`),
		);
		expect(created.files?.signed).toBeNull();
		expect(created.audit_trail_url).toMatch(new RegExp(`^${sandbox.origin}/v1/files/`));

		const list = expectSchema(DocumentListSchema, (await client.get('/documents')).data);
		expect(
			list.data.every(
				(document) => document.files !== undefined && document.audit_trail_url !== undefined,
			),
		).toBe(true);

		const viaLink = await download(client, created.files!.original.url);
		expect(fileNameOf(viaLink)).toBe('contract.pdf');
		expect(viaLink.data.equals(original)).toBe(true);
		expect((await download(api(sandbox, null), created.files!.original.url)).status).toBe(401);
		const stranger = api(sandbox, sandbox.createAccount().apiKey);
		expectError(await download(stranger, created.files!.original.url), 404, 'not_found');
		const tampered = created.files!.original.url.replace(
			/(.)(.{4})$/,
			(_, char: string, rest: string) => `${char === 'A' ? 'B' : 'A'}${rest}`,
		);
		expectError(await download(client, tampered), 404, 'not_found');
		// A last character that differs only in the bits base64 decoding drops is another token too.
		const base64url = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
		const sameBytes = created.files!.original.url.replace(
			/.$/,
			(char) => base64url[base64url.indexOf(char) ^ 1],
		);
		expect(Buffer.from(sameBytes.split('.').at(-1)!, 'base64url')).toEqual(
			Buffer.from(created.files!.original.url.split('.').at(-1)!, 'base64url'),
		);
		expectError(await download(client, sameBytes), 404, 'not_found');
		expectError(await download(client, `${sandbox.baseUrl}/files/not-a-token`), 404, 'not_found');

		completeDocument(created);
		const fetched = expectSchema(
			DocumentSchema,
			(await client.get(`/documents/${created.id}`)).data,
		);
		expect(fetched.files?.original.url).toBe(created.files?.original.url);
		const signed = await download(client, fetched.files!.signed!.url);
		expect(fileNameOf(signed)).toBe('contract-signed.pdf');
		expect(signed.data.equals((await sandbox.documentFile(created.id, 'signed')).data)).toBe(true);

		const trail = await download(client, fetched.audit_trail_url!);
		expect(fileNameOf(trail)).toBe(`audit-trail-${created.id}.pdf`);
		const json = await download(client, `${fetched.audit_trail_url}?format=json`);
		expect(
			expectSchema(AuditTrailSchema, JSON.parse(json.data.toString('utf8'))).events.at(-1)?.event,
		).toBe('document.completed');
	});

	it('links use publicOrigin, and turning the option off removes them', async () => {
		const sandbox = getSandbox();
		const client = api(sandbox);
		sandbox.configure({ fileLinks: true, publicOrigin: 'http://sandbox.example:4010' });
		const document = await createDocument(client);
		expect(document.files?.original.url).toMatch(/^http:\/\/sandbox\.example:4010\/v1\/files\//);
		sandbox.configure({ fileLinks: false });
		const fetched = (await client.get(`/documents/${document.id}`)).data;
		expect(fetched).not.toHaveProperty('files');
		expect(fetched).not.toHaveProperty('audit_trail_url');
	});
});

describe('with --data-file', () => {
	it('keeps the upload across a restart, and the signed copy comes out the same', async () => {
		const directory = mkdtempSync(join(tmpdir(), 'sandbox-files-'));
		const dataFile = join(directory, 'data.json');
		try {
			const first = await startSandbox({ dataFile });
			const original = png(20, 20);
			const document = await createDocument(api(first), {
				name: 'photo.png',
				file: fileBody(original, 'image/png'),
			});
			for (const signer of document.signers) first.actAsSigner(document.id, signer.id, 'sign');
			const signed = (await first.documentFile(document.id, 'signed')).data;
			await first.close();

			const second = await startSandbox({ dataFile });
			try {
				const client = api(second);
				expect(
					(await download(client, `/documents/${document.id}/file`)).data.equals(original),
				).toBe(true);
				expect(
					(await download(client, `/documents/${document.id}/file?version=signed`)).data.equals(
						signed,
					),
				).toBe(true);
			} finally {
				await second.close();
			}
		} finally {
			rmSync(directory, { recursive: true, force: true });
		}
	});
});
