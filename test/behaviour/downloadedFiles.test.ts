/**
 * Downloaded files: names are plain base names, and a signed PDF or audit trail is a PDF. Servers
 * listen on 127.0.0.1 only. Each test's first comment says what the code before the fix did (the
 * test fails on it).
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { useSandbox } from '../helpers/sandbox';
import { TriggerHost } from '../helpers/triggerHost';
import { Receiver, useSecuritySuite, ORIGIN, downloadDocument } from '../helpers/securityKit';

jest.mock('n8n-workflow', () =>
	jest.requireActual('../helpers/instantWaits').n8nWorkflowWithInstantWaits(),
);

const sandbox = useSandbox({
	port: 0,
	host: '127.0.0.1',
	webhookRetry: { baseDelayMs: 5, maxAttempts: 2, timeoutMs: 5000 },
});

useSecuritySuite({ offline: true });

async function createDocumentIn(apiKey: string, name = 'someone-elses.pdf'): Promise<string> {
	const response = await fetch(`${sandbox().baseUrl}/documents`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({
			name,
			signers: [{ email: 'ada@example.com', name: 'Ada Lovelace' }],
		}),
	});
	expect(response.status).toBe(201);
	return String(((await response.json()) as IDataObject).id);
}

describe('file names are plain base names, and a signed PDF or audit trail is a PDF (finding 30.5)', () => {
	const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n', 'latin1');
	const download = (version: string) => downloadDocument(`${ORIGIN}/v1`, version);
	const serve = (
		version: string,
		name: string,
		body: Buffer | string,
		headers: Record<string, string>,
	) => {
		const scope = nock(ORIGIN)
			.get('/v1/documents/doc_1')
			.reply(200, { id: 'doc_1', name, status: 'completed' });
		if (version === 'auditTrail')
			scope.get('/v1/documents/doc_1/audit-trail').query(true).reply(200, body, headers);
		else scope.get('/v1/documents/doc_1/file').query({ version }).reply(200, body, headers);
		return scope;
	};

	// Old: the record's name (or the header's, after its last "/") went into json.fileName as it
	// was, so n8n kept "../../../home/node/.n8n/nodes" as the binary's directory.
	test.each([
		{
			title: 'a name with folders',
			name: '../../../home/node/.n8n/nodes/evil.pdf',
			version: 'signed',
			expected: 'evil-signed.pdf',
		},
		{
			title: 'the original of it',
			name: '../../../home/node/.n8n/nodes/evil.pdf',
			version: 'original',
			expected: 'evil.pdf',
		},
		{
			title: 'Windows folders',
			name: '..\\..\\Windows\\evil.pdf',
			version: 'original',
			expected: 'evil.pdf',
		},
		{
			title: 'control and invisible characters',
			name: 'a\u0000b\u202e\u200b\r\n.pdf',
			version: 'original',
			expected: 'ab.pdf',
		},
		{
			title: 'a name that is only ".."',
			name: '..',
			version: 'original',
			expected: 'document-doc_1.pdf',
		},
		{
			title: 'a header name with encoded folders and a NUL',
			name: 'x.pdf',
			version: 'signed',
			disposition: "attachment; filename*=UTF-8''..%2F..%2F.n8n%2Fconfig%00",
			expected: 'config.pdf',
		},
		{
			title: 'a header name that hides its extension behind a right-to-left override',
			name: 'x.pdf',
			version: 'signed',
			disposition: "attachment; filename*=UTF-8''report%E2%80%AEfdp.exe",
			expected: 'reportfdp.exe.pdf',
		},
	])('$title: the file is named $expected', async ({ name, version, disposition, expected }) => {
		serve(version, name, PDF, {
			'Content-Type': 'application/pdf',
			...(disposition ? { 'Content-Disposition': disposition } : {}),
		});
		const result = await download(version);
		expect(result.error).toBeUndefined();
		const [item] = result.items;
		expect(item.json.fileName).toBe(expected);
		expect(item.binary?.data.fileName).toBe(expected);
		expect(item.binary?.data.directory).toBeUndefined();
	});

	// Old: a "signed PDF" served as a web page was passed on as text/html.
	test.each([
		[
			'a signed PDF that is a web page',
			'signed',
			'<!DOCTYPE html><html><body>Sign in</body></html>',
			'text/html; charset=utf-8',
			'The service\'s signed PDF is not a PDF: it came as text/html; charset=utf-8, starting "‹!DOCTYPE html›‹…"',
		],
		[
			'an audit trail that is an error text, labelled as a PDF',
			'auditTrail',
			'{"error":"storage unavailable"}',
			'application/pdf',
			'The service\'s audit trail is not a PDF: it came as application/pdf, starting "{"error":"storag…"',
		],
		[
			'an empty signed PDF',
			'signed',
			'',
			'application/pdf',
			"The service's signed PDF is not a PDF: it came as application/pdf, empty",
		],
	])('%s is refused, naming what came instead', async (_title, version, body, type, message) => {
		const scope = serve(version, 'contract.pdf', body, { 'Content-Type': type });
		const result = await download(version);
		expect(scope.isDone()).toBe(true);
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(message);
		expect(result.error?.description).toMatch(/A PDF starts with "%PDF-"/);
	});

	test('a real PDF under a vague Content-Type is passed on as application/pdf', async () => {
		serve('signed', 'contract.pdf', PDF, { 'Content-Type': 'application/octet-stream' });
		const [item] = (await download('signed')).items;
		expect(item.json).toMatchObject({
			fileName: 'contract-signed.pdf',
			mimeType: 'application/pdf',
		});
	});

	describe('Attach Signed File', () => {
		const receiver = new Receiver();
		beforeAll(async () => await receiver.start());
		afterAll(async () => await receiver.close());

		// Old: the header's name kept its control and bidi characters.
		test('the signed PDF of a document named with control and invisible characters gets a plain name', async () => {
			const { apiKey } = sandbox().createAccount();
			const host = new TriggerHost({
				baseUrl: sandbox().baseUrl,
				apiKey,
				webhookBaseUrl: receiver.webhookBaseUrl,
				events: ['document.completed'],
				options: { attachSignedFile: true },
			});
			receiver.hosts.set(host.nodeWebhookId, host);
			await host.activate();
			const id = await createDocumentIn(apiKey, 'lease\u0007\u202e.pdf');
			const row = sandbox()
				.store.documentsOf(apiKey)
				.find((document) => document.id === id)!;
			for (const signer of row.signers) sandbox().actAsSigner(id, signer.id, 'sign');
			await sandbox().flushDeliveries();
			await host.idle();
			const [execution] = host.processed;
			const file = execution.items[0].binary?.data;
			expect([file?.fileName, file?.directory, file?.mimeType]).toEqual([
				'lease-signed.pdf',
				undefined,
				'application/pdf',
			]);
		});
	});
});
