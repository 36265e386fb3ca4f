import nock from 'nock';

import { useSandbox } from '../../../../helpers/sandbox';
import { runDocumentSigning } from '../../../../helpers/n8nWorkflow';

/**
 * Document › Download (nodes/DocumentSigning/resources/document/download.ts) through n8n's routing
 * engine: the original, the signed PDF and the audit trail as binary data, named and typed as the
 * service says; a link in the record is used (on the credential's origin only), the contract's
 * endpoint otherwise; a document not yet complete is a clear error naming its status.
 */

const PDF = Buffer.from(
	'%PDF-1.4\n1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n2 0 obj <</Type /Pages /Kids [] /Count 0>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n',
);
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

describe.each(['default', 'numeric-ids+items-links'])(
	'against the sandbox() (%s dialect)',
	(dialect) => {
		const sandbox = useSandbox({ port: 0, dialect });
		let credentials: { baseUrl: string; apiKey: string };
		beforeEach(() => {
			credentials = { baseUrl: sandbox().baseUrl, apiKey: sandbox().createAccount().apiKey };
		});

		async function createDocument(): Promise<{ id: string; wireId: string | number }> {
			const response = await fetch(`${sandbox().baseUrl}/documents`, {
				method: 'POST',
				headers: {
					Authorization: `Bearer ${credentials.apiKey}`,
					'Content-Type': 'application/json',
				},
				body: JSON.stringify({
					name: 'nda.pdf',
					signers: [{ email: 'ada@example.com', name: 'Ada Lovelace' }],
					file: { content_type: 'application/pdf', data: PDF.toString('base64') },
				}),
			});
			const body = (await response.json()) as { id: string | number };
			return { id: String(body.id), wireId: body.id };
		}
		const complete = (id: string) => {
			const row = sandbox()
				.store.documentsOf(credentials.apiKey)
				.find((document) => document.id === id)!;
			for (const signer of row.signers) sandbox().actAsSigner(id, signer.id, 'sign');
		};
		const download = (documentId: unknown, version: string, extra: Record<string, unknown> = {}) =>
			runDocumentSigning({
				parameters: {
					resource: 'document',
					operation: 'download',
					documentId: documentId as never,
					version,
					binaryPropertyName: 'file',
					...extra,
				},
				credentials,
			});

		test('Original: the uploaded bytes, with the service file name and type; the JSON keeps id, name and status', async () => {
			const { id, wireId } = await createDocument();
			const result = await download(byId(id), 'original');
			expect(result.error).toBeUndefined();
			const [item] = result.items;
			expect(item.json).toMatchObject({
				id: wireId,
				name: 'nda.pdf',
				status: 'pending',
				version: 'original',
				fileName: 'nda.pdf',
				mimeType: 'application/pdf',
				fileSize: PDF.length,
			});
			expect(Buffer.from(item.binary!.file.data, 'base64').equals(PDF)).toBe(true);
			expect(item.binary!.file.fileName).toBe('nda.pdf');
		});

		test("Signed, once complete: byte for byte the service's signed copy; by URL mode too", async () => {
			const { id } = await createDocument();
			complete(id);
			const signed = await sandbox().documentFile(id, 'signed');
			const signingUrl = sandbox().store.documentsOf(credentials.apiKey)[0].signing_url;
			for (const locator of [byId(id), { __rl: true, mode: 'url', value: signingUrl }]) {
				const result = await download(locator, 'signed');
				expect(result.error).toBeUndefined();
				const [item] = result.items;
				expect(item.json).toMatchObject({
					status: 'completed',
					fileName: signed.fileName,
					mimeType: 'application/pdf',
				});
				expect(Buffer.from(item.binary!.file.data, 'base64').equals(signed.data)).toBe(true);
			}
		});

		test('Signed before completion: an error naming the status, and Continue On Fail keeps the item', async () => {
			const { id } = await createDocument();
			const before = sandbox().stats().routes['GET /v1/documents/:id/file'] ?? 0;
			const result = await download(byId(id), 'signed');
			expect(result.error?.message).toBe(
				'The document "nda.pdf" is pending: the signed file exists once every signer has signed',
			);
			expect(result.error?.httpCode).toBe('409');
			expect(sandbox().stats().routes['GET /v1/documents/:id/file'] ?? 0).toBe(before);
			const tolerant = await runDocumentSigning({
				parameters: {
					resource: 'document',
					operation: 'download',
					documentId: byId(id),
					version: 'signed',
				},
				credentials,
				continueOnFail: true,
			});
			expect(String(tolerant.items[0].json.error)).toContain('is pending');
		});

		test('Audit Trail: a PDF at any time', async () => {
			const { id } = await createDocument();
			const result = await download(byId(id), 'auditTrail');
			expect(result.error).toBeUndefined();
			const [item] = result.items;
			expect(item.json.mimeType).toBe('application/pdf');
			expect(Buffer.from(item.binary!.file.data, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
		});

		test('with file links in the record (sandbox() option fileLinks), the links are used', async () => {
			sandbox().configure({ fileLinks: true });
			try {
				const { id } = await createDocument();
				complete(id);
				const before = sandbox().stats().routes['GET /v1/files/:token'] ?? 0;
				const result = await download(byId(id), 'signed');
				expect(result.error).toBeUndefined();
				expect(
					Buffer.from(result.items[0].binary!.file.data, 'base64').equals(
						(await sandbox().documentFile(id, 'signed')).data,
					),
				).toBe(true);
				expect(sandbox().stats().routes['GET /v1/files/:token']).toBe(before + 1);
			} finally {
				sandbox().configure({ fileLinks: false });
			}
		});
	},
);

describe('shapes the sandbox() does not produce', () => {
	const ORIGIN = 'http://signing.test';
	const credentials = { baseUrl: `${ORIGIN}/v1`, apiKey: 'sk_download_test' };
	const record = (extra: Record<string, unknown> = {}) => ({
		id: 'doc_1',
		name: 'Lease.pdf',
		status: 'completed',
		...extra,
	});
	const download = (version = 'signed') =>
		runDocumentSigning({
			parameters: {
				resource: 'document',
				operation: 'download',
				documentId: byId('doc_1'),
				version,
				binaryPropertyName: 'data',
			},
			credentials,
		});

	beforeAll(() => nock.disableNetConnect());
	afterAll(() => nock.enableNetConnect());
	afterEach(() => nock.cleanAll());

	test('file name from Content-Disposition filename* (UTF-8), MIME type from Content-Type', async () => {
		nock(ORIGIN)
			.get('/v1/documents/doc_1')
			.reply(200, record())
			.get('/v1/documents/doc_1/file')
			.query({ version: 'signed' })
			.reply(200, PDF, {
				'Content-Type': 'application/pdf; charset=binary',
				'Content-Disposition':
					'attachment; filename="x.pdf"; filename*=UTF-8\'\'Mietvertrag%20%C3%BC.pdf',
			});
		const result = await download();
		expect(result.items[0].json).toMatchObject({
			fileName: 'Mietvertrag ü.pdf',
			mimeType: 'application/pdf',
		});
	});

	test('without Content-Disposition the name comes from the document', async () => {
		nock(ORIGIN)
			.get('/v1/documents/doc_1')
			.reply(200, record())
			.get('/v1/documents/doc_1/file')
			.query(true)
			.reply(200, PDF, { 'Content-Type': 'application/pdf' });
		expect((await download()).items[0].json.fileName).toBe('Lease-signed.pdf');
	});

	test('an original of any type passes with its own media type; only the signed copy and audit trail must be PDFs', async () => {
		const docx = Buffer.from('PK\u0003\u0004word/document.xml');
		nock(ORIGIN)
			.get('/v1/documents/doc_1')
			.reply(200, record({ name: 'Lease.docx' }))
			.get('/v1/documents/doc_1/file')
			.query({ version: 'original' })
			.reply(200, docx, {
				'Content-Type': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
			});
		expect((await download('original')).items[0].json).toMatchObject({
			fileName: 'Lease.docx',
			mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
			fileSize: docx.length,
		});
	});

	test('a record with a link (files.signed.url) is downloaded from the link; without one, from the contract endpoint', async () => {
		nock(ORIGIN)
			.get('/v1/documents/doc_1')
			.reply(200, record({ files: { signed: { url: `${ORIGIN}/v1/storage/abc?sig=1` } } }))
			.get('/v1/storage/abc')
			.query({ sig: '1' })
			.reply(200, PDF, { 'Content-Type': 'application/pdf' });
		expect((await download()).error).toBeUndefined();
		nock(ORIGIN)
			.get('/v1/documents/doc_1')
			.reply(200, { data: record({ audit_trail_url: '/v1/trail/doc_1.pdf' }) })
			.get('/v1/trail/doc_1.pdf')
			.reply(200, PDF, { 'Content-Type': 'application/pdf' });
		expect((await download('auditTrail')).error).toBeUndefined();
	});

	test('a link on another origin is refused and nothing is sent there', async () => {
		const elsewhere = nock('https://files.elsewhere.test').get(/.*/).reply(200, PDF);
		nock(ORIGIN)
			.get('/v1/documents/doc_1')
			.reply(200, record({ signed_file_url: 'https://files.elsewhere.test/doc_1.pdf' }));
		const result = await download();
		expect(result.error?.message).toBe(
			'The service gave a file link on another origin (https://files.elsewhere.test); it was not followed',
		);
		expect(elsewhere.isDone()).toBe(false);
	});

	test("the service's own 409 comes through with its message", async () => {
		nock(ORIGIN)
			.get('/v1/documents/doc_1')
			.reply(200, record({ status: undefined }))
			.get('/v1/documents/doc_1/file')
			.query(true)
			.reply(409, {
				error: {
					code: 'document_not_completed',
					message: 'The document is pending: the signed file exists once every signer has signed',
				},
			});
		const result = await download();
		expect([result.error?.message, result.error?.httpCode]).toEqual([
			'The document is pending: the signed file exists once every signer has signed',
			'409',
		]);
	});
});
