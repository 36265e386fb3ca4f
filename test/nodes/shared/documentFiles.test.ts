import { fetchDocumentFile } from '../../../nodes/shared/documentFiles';
import { startCountingServer } from '../../helpers/countingServer';
import { runDocumentSigning } from '../../helpers/n8nWorkflow';

/**
 * Which link of a document record Document › Download follows for each version: the record comes
 * from GET /documents/doc_1, `{base}` in a link stands for the server's Base URL, and the file is
 * read from the path the node requested second (the server's body is no PDF, so a signed copy or
 * audit trail then fails: the request is what counts here).
 */
test.each([
	[{ files: { signed: { url: '{base}/s.pdf' } } }, 'signed', '/v1/s.pdf'],
	[{ signed_file_url: '{base}/s2.pdf' }, 'signed', '/v1/s2.pdf'],
	[{ status: 'completed', download_url: '{base}/d.pdf' }, 'signed', '/v1/d.pdf'],
	[{ download_url: '{base}/o.pdf' }, 'original', '/v1/o.pdf'],
	[{ files: { original: '{base}/o2.pdf' } }, 'original', '/v1/o2.pdf'],
	[{ audit_trail_url: '/v1/trail.pdf' }, 'auditTrail', '/v1/trail.pdf'],
	[{ signing_url: '{base}/sign/1' }, 'signed', '/v1/documents/doc_1/file?version=signed'],
	[{ download_url: '{base}/d.pdf' }, 'auditTrail', '/v1/documents/doc_1/audit-trail?format=pdf'],
] as const)('links in %j for %s: %s', async (links, version, path) => {
	const server = await startCountingServer((request) =>
		request.url === '/v1/documents/doc_1'
			? {
					status: 200,
					body: JSON.parse(
						JSON.stringify({ id: 'doc_1', name: 'a.pdf', ...links }).replaceAll(
							'{base}',
							server.baseUrl,
						),
					),
				}
			: { status: 200, body: 'file' },
	);
	try {
		await runDocumentSigning({
			parameters: {
				resource: 'document',
				operation: 'download',
				documentId: { __rl: true, mode: 'id', value: 'doc_1' },
				version,
				binaryPropertyName: 'data',
			},
			credentials: { baseUrl: server.baseUrl, apiKey: 'sk_test_links' },
		});
		expect(server.requests.map((request) => request.url)).toEqual(['/v1/documents/doc_1', path]);
	} finally {
		await server.close();
	}
});

test('a signed file exists only for a completed document; the error names the state', async () => {
	const record = { id: 'doc_1', name: 'a.pdf', status: 'declined' };
	await expect(fetchDocumentFile({} as never, record, 'signed')).rejects.toThrow(
		'The document "a.pdf" is declined: the signed file exists once every signer has signed',
	);
});
