/**
 * Report › Export (nodes/DocumentSigning/resources/report/export.ts) through n8n's routing engine:
 * the file as binary data, and an error body read although it arrives as bytes.
 */
import nock from 'nock';

import { runDocumentSigning } from '../../../../helpers/n8nWorkflow';

const ORIGIN = 'http://signing.test';
const credentials = { baseUrl: `${ORIGIN}/v1`, apiKey: 'sk_test_export' };

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
afterEach(() => nock.cleanAll());

test('Export returns the file as binary data, named and typed as the service says', async () => {
	const csv = 'id,name,status\ndoc_1,nda.pdf,completed\n';
	nock(ORIGIN)
		.get('/v1/reports/export')
		.query({ format: 'csv', from: '2026-11-01T00:00:00.000Z', to: '2026-11-30T00:00:00.000Z' })
		.reply(200, csv, {
			'Content-Type': 'text/csv; charset=utf-8',
			'Content-Disposition': 'attachment; filename="documents-2026-11-01-2026-11-30.csv"',
		});
	const result = await runDocumentSigning({
		parameters: {
			resource: 'report',
			operation: 'export',
			format: 'csv',
			from: '2026-11-01T00:00:00Z',
			to: '2026-11-30T00:00:00Z',
			binaryPropertyName: 'report',
		},
		credentials,
	});
	expect(result.error).toBeUndefined();
	const [item] = result.items;
	expect(item.json).toEqual({
		fileName: 'documents-2026-11-01-2026-11-30.csv',
		mimeType: 'text/csv',
		fileSize: csv.length,
	});
	expect(item.binary?.report).toMatchObject({
		fileName: 'documents-2026-11-01-2026-11-30.csv',
		mimeType: 'text/csv',
	});
	expect(Buffer.from(item.binary!.report.data, 'base64').toString()).toBe(csv);
	expect(item.pairedItem).toEqual({ item: 0 });
});

test('an export error body arrives as bytes and is still read', async () => {
	nock(ORIGIN)
		.get('/v1/reports/export')
		.query(true)
		.reply(400, {
			error: { code: 'validation_error', message: 'format must be csv or json', field: 'format' },
		});
	const result = await runDocumentSigning({
		parameters: {
			resource: 'report',
			operation: 'export',
			format: 'csv',
			binaryPropertyName: 'data',
		},
		credentials,
	});
	expect(result.error?.message).toBe('format must be csv or json');
	expect(result.error?.httpCode).toBe('400');
});
