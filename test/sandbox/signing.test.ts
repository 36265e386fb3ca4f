/**
 * The document state machine, driven through the signing pages the way a person (or a headless
 * browser) would: open the link, fill the form, press the button.
 */
import type { AxiosInstance } from 'axios';

import { DocumentSchema, SigningRequestSchema, type DocumentRecord } from '../../contract';
import { api, documentBody, expectSchema, useSandbox } from '../helpers/sandbox';
import { getPage, submit, textOf, type Page } from '../helpers/signingPage';

const sandbox = useSandbox();

function fresh(): { client: AxiosInstance; apiKey: string } {
	const { apiKey } = sandbox().createAccount();
	return { client: api(sandbox(), apiKey), apiKey };
}

async function create(
	client: AxiosInstance,
	overrides: Record<string, unknown> = {},
): Promise<DocumentRecord> {
	const response = await client.post('/documents', documentBody(overrides));
	expect(response.status).toBe(201);
	return expectSchema(DocumentSchema, response.data);
}

async function fetchDocument(client: AxiosInstance, id: string): Promise<DocumentRecord> {
	return expectSchema(DocumentSchema, (await client.get(`/documents/${id}`)).data);
}

async function signAs(url: string): Promise<Page> {
	const page = await getPage(url);
	expect(page.status).toBe(200);
	const after = await submit(page, 'sign-document');
	expect(after.status).toBe(200);
	return after;
}

describe('signing flow', () => {
	it('opening marks viewed; every signer signing completes the document and its request', async () => {
		const { client, apiKey } = fresh();
		const document = await create(client);
		const [ann, bob] = document.signers;

		const page = await getPage(ann.signing_url);
		expect(page.status).toBe(200);
		expect(page.html).toContain('<button type="submit" id="sign-document">Sign document</button>');
		expect(page.html).toContain('id="decline-document">Decline</button>');
		const viewed = await fetchDocument(client, document.id);
		expect(viewed.signers[0]).toMatchObject({ status: 'viewed' });
		expect(viewed.signers[0].viewed_at).not.toBeNull();
		expect(viewed.status).toBe('pending');

		const afterAnn = await submit(page, 'sign-document');
		expect(afterAnn.status).toBe(200);
		expect(textOf(afterAnn.html, 'signer-status')).toBe('Your status: signed');
		expect(afterAnn.html).not.toContain('id="sign-document"');
		const half = await fetchDocument(client, document.id);
		expect(half.status).toBe('pending');
		expect(half.signers.map((signer) => signer.status)).toEqual(['signed', 'pending']);

		await signAs(bob.signing_url);
		const done = await fetchDocument(client, document.id);
		expect(done.status).toBe('completed');
		expect(done.completed_at).not.toBeNull();
		expect(done.signers.every((signer) => signer.signed_at !== null)).toBe(true);
		const request = expectSchema(
			SigningRequestSchema,
			(await client.get(`/signatures/${document.signature_request_id}`)).data,
		);
		expect(request.status).toBe('completed');
		expect(request.signers.map((signer) => signer.status)).toEqual(['signed', 'signed']);

		const events = sandbox()
			.store.auditLogOf(apiKey)
			.map((entry) => entry.event)
			.reverse();
		expect(events).toEqual([
			'document.created',
			'signature.requested',
			'document.sent',
			'document.viewed',
			'document.signed',
			'document.viewed',
			'document.signed',
			'document.completed',
		]);
		const signed = sandbox()
			.store.auditLogOf(apiKey)
			.find((entry) => entry.event === 'document.signed');
		expect(signed?.actor).toEqual({ type: 'signer', email: 'bob@example.com' });
	});

	it('signing twice is refused and changes nothing', async () => {
		const { client } = fresh();
		const document = await create(client, {
			signers: [{ email: 'solo@example.com', name: 'Solo' }],
		});
		const page = await getPage(document.signers[0].signing_url);
		await submit(page, 'sign-document');
		// Re-posting the old form (e.g. the back button) is answered 409 with a message.
		const again = await submit(page, 'sign-document');
		expect(again.status).toBe(409);
		expect(textOf(again.html, 'error')).toMatch(/already signed/);
		expect((await fetchDocument(client, document.id)).status).toBe('completed');
	});

	it('declining needs a reason and declines the document and its request', async () => {
		const { client } = fresh();
		const document = await create(client);
		const annBefore = await getPage(document.signers[0].signing_url);
		const page = await getPage(document.signers[1].signing_url);

		const noReason = await submit(page, 'decline-document', { reason: '   ' });
		expect(noReason.status).toBe(400);
		expect(textOf(noReason.html, 'error')).toBe('Please give a reason for declining.');
		expect((await fetchDocument(client, document.id)).status).toBe('pending');

		const declined = await submit(page, 'decline-document', { reason: 'Wrong amount' });
		expect(declined.status).toBe(200);
		expect(textOf(declined.html, 'notice')).toBe('You declined this document.');
		const after = await fetchDocument(client, document.id);
		expect(after.status).toBe('declined');
		expect(after.signers[1]).toMatchObject({ status: 'declined', decline_reason: 'Wrong amount' });
		expect(after.signers[1].declined_at).not.toBeNull();
		const request = expectSchema(
			SigningRequestSchema,
			(await client.get(`/signatures/${document.signature_request_id}`)).data,
		);
		expect(request.status).toBe('declined');

		// The other signer can no longer sign.
		const other = await getPage(document.signers[0].signing_url);
		expect(other.html).not.toContain('id="sign-document"');
		expect(textOf(other.html, 'notice')).toMatch(/declined/);
		const late = await submit(annBefore, 'sign-document');
		expect(late.status).toBe(409);
		expect(textOf(late.html, 'error')).toBe('The document is declined.');
		expect((await fetchDocument(client, document.id)).signers[0].status).toBe('viewed');
	});

	it('enforces the signing order', async () => {
		const { client } = fresh();
		const document = await create(client, {
			signers: [
				{ email: 'second@example.com', name: 'Second', order: 2 },
				{ email: 'first@example.com', name: 'First', order: 1 },
				{ email: 'any@example.com', name: 'Anytime' },
			],
		});
		const [second, first, anytime] = document.signers;

		const early = await getPage(second.signing_url);
		expect(early.html).not.toContain('id="sign-document"');
		expect(textOf(early.html, 'waiting')).toMatch(/Waiting for First/);

		// Posting the sign form anyway (taken from the first signer's page) is refused.
		const firstPage = await getPage(first.signing_url);
		const forged = await submit(
			{
				...firstPage,
				html: firstPage.html
					.replace(new RegExp(first.id, 'g'), second.id)
					.replace(
						/value="[^"]+"/,
						`value="${new URL(second.signing_url).searchParams.get('token')}"`,
					),
			},
			'sign-document',
		);
		expect(forged.status).toBe(409);
		expect(textOf(forged.html, 'error')).toMatch(/signing order/);
		expect((await fetchDocument(client, document.id)).signers[0].status).toBe('viewed');

		// A signer without an order is never blocked.
		await signAs(anytime.signing_url);
		await submit(firstPage, 'sign-document');
		await signAs(second.signing_url);
		expect((await fetchDocument(client, document.id)).status).toBe('completed');
	});

	it('a national e-ID signer identifies (11-digit personal code, then confirm) before signing', async () => {
		const { client } = fresh();
		const document = await create(client, {
			signers: [{ email: 'eid@example.com', name: 'E Id', authentication: 'national_eid' }],
		});
		const signer = document.signers[0];

		const page = await getPage(signer.signing_url);
		expect(page.html).not.toContain('id="sign-document"');
		expect(page.html).toContain('<label for="personal-code">Personal code (11 digits)</label>');
		expect(page.html).toContain('id="eid-continue">Continue with national e-ID</button>');

		const badCode = await submit(page, 'eid-continue', { personal_code: '1234' });
		expect(badCode.status).toBe(400);
		expect(textOf(badCode.html, 'error')).toBe('Enter your 11-digit personal code.');

		// Skipping the step and posting the sign form directly is refused.
		const direct = await fetch(`${sandbox().origin}/sign/${document.id}/${signer.id}/sign`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
			body: new URLSearchParams({
				token: new URL(signer.signing_url).searchParams.get('token') as string,
			}).toString(),
		});
		expect(direct.status).toBe(409);
		expect((await fetchDocument(client, document.id)).signers[0].status).toBe('viewed');

		const confirm = await submit(page, 'eid-continue', { personal_code: '38001085718' });
		expect(confirm.status).toBe(200);
		expect(confirm.html).toContain('38001085718');
		expect(textOf(confirm.html, 'eid-control-code')).toMatch(/^\d{4}$/);
		expect(confirm.html).not.toContain('id="sign-document"');

		const identified = await submit(confirm, 'eid-confirm');
		expect(identified.status).toBe(200);
		expect(identified.html).toContain('id="sign-document"');
		await submit(identified, 'sign-document');
		expect((await fetchDocument(client, document.id)).status).toBe('completed');
	});

	it.each([
		['email_otp', {}],
		['sms_otp', { phone: '+3725550123' }],
	])(
		'a %s signer enters the simulated one-time code shown on the page',
		async (authentication, extra) => {
			const { client } = fresh();
			const document = await create(client, {
				signers: [{ email: 'otp@example.com', name: 'O Tp', authentication, ...extra }],
			});
			const page = await getPage(document.signers[0].signing_url);
			expect(page.html).not.toContain('id="sign-document"');
			const code = textOf(page.html, 'otp-value') as string;
			expect(code).toMatch(/^\d{6}$/);

			const wrong = await submit(page, 'verify-code', {
				code: code === '000000' ? '111111' : '000000',
			});
			expect(wrong.status).toBe(400);
			expect(textOf(wrong.html, 'error')).toMatch(/not correct/);

			const verified = await submit(page, 'verify-code', { code });
			expect(verified.html).toContain('id="sign-document"');
			await submit(verified, 'sign-document');
			expect((await fetchDocument(client, document.id)).status).toBe('completed');
		},
	);

	it('pending documents expire when the clock passes expires_at', async () => {
		const { client, apiKey } = fresh();
		const expiresAt = new Date(Date.now() + 3600_000).toISOString();
		const document = await create(client, { expires_at: expiresAt });
		const untouched = await create(client);
		sandbox().advanceClock(3601);

		const expired = await fetchDocument(client, document.id);
		expect(expired.status).toBe('expired');
		expect((await fetchDocument(client, untouched.id)).status).toBe('pending');
		const request = expectSchema(
			SigningRequestSchema,
			(await client.get(`/signatures/${document.signature_request_id}`)).data,
		);
		expect(request.status).toBe('expired');
		const entry = sandbox()
			.store.auditLogOf(apiKey)
			.find((item) => item.event === 'document.expired');
		expect(entry).toMatchObject({
			document_id: document.id,
			actor: { type: 'system', email: null },
		});

		const page = await getPage(document.signers[0].signing_url);
		expect(page.html).not.toContain('id="sign-document"');
		expect(textOf(page.html, 'notice')).toMatch(/expired/);
	});

	it('deleting a pending document cancels it first, then deletes it', async () => {
		const { client, apiKey } = fresh();
		const document = await create(client);
		expect((await client.delete(`/documents/${document.id}`)).status).toBe(204);
		const events = sandbox()
			.store.auditLogOf(apiKey)
			.filter((entry) => entry.document_id === document.id)
			.map((entry) => entry.event);
		expect(events.slice(0, 2)).toEqual(['document.deleted', 'document.cancelled']);
		expect((await getPage(document.signers[0].signing_url)).status).toBe(404);

		// Deleting a completed document only deletes.
		const solo = await create(client, { signers: [{ email: 'solo@example.com', name: 'Solo' }] });
		await signAs(solo.signers[0].signing_url);
		await client.delete(`/documents/${solo.id}`);
		const soloEvents = sandbox()
			.store.auditLogOf(apiKey)
			.filter((entry) => entry.document_id === solo.id)
			.map((entry) => entry.event);
		expect(soloEvents[0]).toBe('document.deleted');
		expect(soloEvents).not.toContain('document.cancelled');
	});
});

describe('signing pages', () => {
	it('the document page lists each signer with a link to their own page', async () => {
		const { client } = fresh();
		const document = await create(client);
		const page = await getPage(document.signing_url);
		expect(page.status).toBe(200);
		for (const signer of document.signers) {
			expect(page.html).toContain(
				`href="${new URL(signer.signing_url).pathname}${new URL(signer.signing_url).search}"`,
			);
		}
		expect(textOf(page.html, 'document-status')).toBe('Status: pending');
	});

	it('a draft has no links to sign yet', async () => {
		const { client } = fresh();
		const draft = expectSchema(
			DocumentSchema,
			(await client.post('/documents', documentBody({ draft: true }))).data,
		);
		const page = await getPage(draft.signing_url);
		expect(textOf(page.html, 'notice')).toMatch(/not been sent/);
		expect(page.html).not.toContain('?token=');
		const signerPage = await getPage(draft.signers[0].signing_url);
		expect(signerPage.html).not.toContain('id="sign-document"');
		expect((await fetchDocument(client, draft.id)).signers[0].status).toBe('pending');
	});

	it('refuses a wrong or missing token (403) and unknown ids (404)', async () => {
		const { client } = fresh();
		const document = await create(client);
		const signer = document.signers[0];
		const base = `${sandbox().origin}/sign/${document.id}/${signer.id}`;
		expect((await getPage(`${base}?token=wrong`)).status).toBe(403);
		expect((await getPage(base)).status).toBe(403);
		expect(
			(await getPage(`${sandbox().origin}/sign/${document.id}/sgn_nobody?token=x`)).status,
		).toBe(404);
		expect((await getPage(`${sandbox().origin}/sign/doc_nothing`)).status).toBe(404);
		const post = await fetch(`${base}/sign`, {
			method: 'POST',
			body: 'token=wrong',
			headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
		});
		expect(post.status).toBe(403);
		// None of this counts as viewing.
		expect((await fetchDocument(client, document.id)).signers[0].status).toBe('pending');
	});

	it('escapes user content in the pages', async () => {
		const { client } = fresh();
		const document = await create(client, {
			name: '<svg onload=alert(1)>.pdf',
			message: '"><img src=x onerror=alert(1)>',
			signers: [{ email: 'x@example.com', name: '<b>Mallory</b>' }],
		});
		for (const url of [document.signing_url, document.signers[0].signing_url]) {
			const page = await getPage(url);
			expect(page.html).not.toContain('<svg');
			expect(page.html).not.toContain('<img src=x');
			expect(page.html).not.toContain('<b>Mallory');
			expect(page.html).toContain('&lt;svg onload=alert(1)&gt;.pdf');
		}
	});

	it('is accessible: every input has a label and the page declares its language', async () => {
		const { client } = fresh();
		const document = await create(client, {
			signers: [{ email: 'a@example.com', name: 'A', authentication: 'national_eid' }],
		});
		const eidPage = await getPage(document.signers[0].signing_url);
		const plain = await getPage((await create(client)).signers[0].signing_url);
		for (const page of [eidPage, plain]) {
			expect(page.html).toContain('<html lang="en">');
			for (const match of page.html.matchAll(/<(input|textarea)\b[^>]*>/g)) {
				if (match[0].includes('type="hidden"')) continue;
				const id = /id="([^"]+)"/.exec(match[0])?.[1];
				expect(id).toMatch(/^[\w-]+$/);
				expect(page.html).toContain(`<label for="${id}">`);
			}
		}
	});
});

describe('acting as a signer without a browser', () => {
	it('Sandbox.actAsSigner and POST /__sandbox/documents/…/signers/…/sign keep order and state rules', async () => {
		const { client } = fresh();
		const document = await create(client, {
			signers: [
				{ email: 'one@example.com', name: 'One', order: 1, authentication: 'national_eid' },
				{ email: 'two@example.com', name: 'Two', order: 2 },
			],
		});
		const [one, two] = document.signers;
		expect(() => sandbox().actAsSigner(document.id, two.id, 'sign')).toThrow(/signing order/);
		expect(sandbox().actAsSigner(document.id, one.id, 'sign').signers[0].status).toBe('signed');

		const response = await fetch(
			`${sandbox().origin}/__sandbox/documents/${document.id}/signers/${two.id}/sign`,
			{ method: 'POST' },
		);
		expect(response.status).toBe(200);
		expect(((await response.json()) as DocumentRecord).status).toBe('completed');

		const again = await fetch(
			`${sandbox().origin}/__sandbox/documents/${document.id}/signers/${two.id}/decline`,
			{
				method: 'POST',
				body: JSON.stringify({ reason: 'late' }),
			},
		);
		expect(again.status).toBe(409);
	});
});
