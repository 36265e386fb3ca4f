import { fetchDocumentFile, fileLinkOf } from '../../../nodes/shared/documentFiles';

test.each([
	[{ files: { signed: { url: 'https://a/s.pdf' } } }, 'signed', 'https://a/s.pdf'],
	[{ signed_file_url: 'https://a/s2.pdf' }, 'signed', 'https://a/s2.pdf'],
	[{ status: 'completed', download_url: 'https://a/d.pdf' }, 'signed', 'https://a/d.pdf'],
	[{ status: 'pending', download_url: 'https://a/d.pdf' }, 'signed', undefined],
	[{ download_url: 'https://a/o.pdf' }, 'original', 'https://a/o.pdf'],
	[{ files: { original: 'https://a/o2.pdf' } }, 'original', 'https://a/o2.pdf'],
	[{ audit_trail_url: '/v1/trail.pdf' }, 'auditTrail', '/v1/trail.pdf'],
	[{ signing_url: 'https://a/sign/1' }, 'signed', undefined],
] as const)('links in %j for %s', (record, version, link) => {
	expect(fileLinkOf(record as never, version)).toBe(link);
});

test('a signed file exists only for a completed document; the error names the state', async () => {
	const record = { id: 'doc_1', name: 'a.pdf', status: 'declined' };
	await expect(fetchDocumentFile({} as never, record, 'signed')).rejects.toThrow(
		'The document "a.pdf" is declined: the signed file exists once every signer has signed',
	);
});
