/**
 * HTML of the signing pages. Plain server-rendered forms, no script: a person can use them in a
 * browser and a headless browser can drive them in e2e tests. Buttons have stable ids and text
 * ("Sign document", "Decline", …), every input has a label, and messages use role="alert" /
 * role="status" so assistive technology announces them.
 */
import type { DocumentRecord, SignerRecord } from '../contract';
import type { SignerSecrets } from './store';

export function escapeHtml(value: unknown): string {
	return String(value)
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&#39;');
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
label{display:block;font-weight:600;margin-top:1rem}input,textarea{font:inherit;width:100%;padding:.4rem;box-sizing:border-box}
button{font:inherit;margin-top:.75rem;padding:.5rem 1rem;cursor:pointer}.alert{color:#9b1c1c;font-weight:600}
.muted{color:#555}section{border-top:1px solid #ddd;margin-top:1.5rem;padding-top:.5rem}`;

export function page(title: string, body: string): string {
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export function messagePage(title: string, message: string): string {
	return page(
		title,
		`<h1>${escapeHtml(title)}</h1>\n<p id="message" role="alert">${escapeHtml(message)}</p>`,
	);
}

export function signerPath(documentId: string, signerId: string, token?: string): string {
	const path = `/sign/${encodeURIComponent(documentId)}/${encodeURIComponent(signerId)}`;
	return token === undefined ? path : `${path}?token=${encodeURIComponent(token)}`;
}

function signerList(document: DocumentRecord, linkTokens?: Record<string, SignerSecrets>): string {
	const items = document.signers.map((signer) => {
		const label = `${escapeHtml(signer.name)} &lt;${escapeHtml(signer.email)}&gt;`;
		const order =
			signer.order === null ? '' : ` <span class="muted">(order ${signer.order})</span>`;
		const link = linkTokens
			? ` — <a id="open-${escapeHtml(signer.id)}" href="${escapeHtml(signerPath(document.id, signer.id, linkTokens[signer.id]?.token))}">Open signing page for ${escapeHtml(signer.name)}</a>`
			: '';
		return `<li data-signer-id="${escapeHtml(signer.id)}">${label}${order}: <strong>${escapeHtml(signer.status)}</strong>${link}</li>`;
	});
	return `<ul id="signers">\n${items.join('\n')}\n</ul>`;
}

/** GET /sign/{documentId}: who signs this document, with each signer's own link. */
export function overviewPage(
	document: DocumentRecord,
	secrets: Record<string, SignerSecrets>,
): string {
	const notice =
		document.status === 'draft'
			? '<p id="notice" role="status">This document has not been sent for signing yet.</p>'
			: '';
	return page(
		`${document.name} — signing`,
		`<h1>${escapeHtml(document.name)}</h1>
<p id="document-status">Status: ${escapeHtml(document.status)}</p>
${document.message ? `<p id="document-message">${escapeHtml(document.message)}</p>` : ''}
${notice}
<h2>Signers</h2>
${signerList(document, document.status === 'draft' ? undefined : secrets)}`,
	);
}

export interface SignerPageModel {
	document: DocumentRecord;
	signer: SignerRecord;
	secrets: SignerSecrets;
	/** Why signing is not possible now (order, state, authentication), or null. */
	signBlocker: string | null;
	declineBlocker: string | null;
	needsAuthentication: boolean;
	error?: string;
}

function hiddenToken(token: string): string {
	return `<input type="hidden" name="token" value="${escapeHtml(token)}">`;
}

function maskedContact(signer: SignerRecord): string {
	if (signer.authentication === 'sms_otp' && signer.phone)
		return `${signer.phone.slice(0, 4)}…${signer.phone.slice(-2)}`;
	const [local, domain] = signer.email.split('@');
	return `${local.slice(0, 1)}…@${domain ?? ''}`;
}

function authenticationSection(model: SignerPageModel, action: (name: string) => string): string {
	const { signer, secrets } = model;
	const token = hiddenToken(secrets.token);
	if (signer.authentication === 'national_eid') {
		if (secrets.eidPending) {
			return `<section aria-labelledby="eid-heading">
<h2 id="eid-heading">Confirm with national e-ID</h2>
<p role="status">Identification started for personal code ${escapeHtml(secrets.eidPending.personalCode)}.</p>
<p>Control code: <strong id="eid-control-code">${escapeHtml(secrets.eidPending.controlCode)}</strong>. Check that your e-ID app shows the same code, then confirm.</p>
<form method="post" action="${action('eid/confirm')}">
${token}
<button type="submit" id="eid-confirm">Confirm identity</button>
</form>
</section>`;
		}
		return `<section aria-labelledby="eid-heading">
<h2 id="eid-heading">Identify with national e-ID</h2>
<p>This document requires identification with the national e-ID (simulated).</p>
<form method="post" action="${action('eid')}">
${token}
<label for="personal-code">Personal code (11 digits)</label>
<input id="personal-code" name="personal_code" inputmode="numeric" pattern="[0-9]{11}" maxlength="11" autocomplete="off" required>
<button type="submit" id="eid-continue">Continue with national e-ID</button>
</form>
</section>`;
	}
	const channel = signer.authentication === 'sms_otp' ? 'text message' : 'e-mail';
	return `<section aria-labelledby="otp-heading">
<h2 id="otp-heading">Enter your one-time code</h2>
<p id="otp-hint" role="status">Simulated ${channel} to ${escapeHtml(maskedContact(signer))}: your code is <strong id="otp-value">${escapeHtml(secrets.otpCode ?? '')}</strong></p>
<form method="post" action="${action('otp')}">
${token}
<label for="otp-code">One-time code</label>
<input id="otp-code" name="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required>
<button type="submit" id="verify-code">Verify code</button>
</form>
</section>`;
}

/** GET /sign/{documentId}/{signerId}?token=…: the signer's own page. */
export function signerPage(model: SignerPageModel): string {
	const { document, signer, secrets } = model;
	const action = (name: string) => escapeHtml(`${signerPath(document.id, signer.id)}/${name}`);
	const token = hiddenToken(secrets.token);
	const parts: string[] = [
		`<h1>${escapeHtml(document.name)}</h1>`,
		`<p>Signing as ${escapeHtml(signer.name)} (${escapeHtml(signer.email)})</p>`,
		`<p id="document-status">Status: ${escapeHtml(document.status)}</p>`,
		`<p id="signer-status">Your status: ${escapeHtml(signer.status)}</p>`,
	];
	if (document.message) parts.push(`<p id="document-message">${escapeHtml(document.message)}</p>`);
	if (model.error)
		parts.push(`<p id="error" class="alert" role="alert">${escapeHtml(model.error)}</p>`);

	if (signer.status === 'signed') {
		parts.push('<p id="notice" role="status">You signed this document. Thank you.</p>');
	} else if (signer.status === 'declined') {
		parts.push('<p id="notice" role="status">You declined this document.</p>');
	} else if (document.status === 'draft') {
		parts.push('<p id="notice" role="status">This document has not been sent for signing yet.</p>');
	} else if (document.status !== 'pending') {
		parts.push(
			`<p id="notice" role="status">This document is ${escapeHtml(document.status)}; it can no longer be signed.</p>`,
		);
	} else if (model.needsAuthentication) {
		parts.push(authenticationSection(model, action));
	} else {
		if (model.signBlocker) {
			parts.push(`<p id="waiting" role="status">${escapeHtml(model.signBlocker)}</p>`);
		} else {
			parts.push(`<section aria-labelledby="sign-heading">
<h2 id="sign-heading">Sign</h2>
<p>By selecting "Sign document" you sign ${escapeHtml(document.name)} electronically.</p>
<form method="post" action="${action('sign')}">
${token}
<button type="submit" id="sign-document">Sign document</button>
</form>
</section>`);
		}
		if (!model.declineBlocker) {
			parts.push(`<section aria-labelledby="decline-heading">
<h2 id="decline-heading">Decline</h2>
<form method="post" action="${action('decline')}">
${token}
<label for="decline-reason">Reason for declining</label>
<textarea id="decline-reason" name="reason" rows="3" maxlength="2000" required></textarea>
<button type="submit" id="decline-document">Decline</button>
</form>
</section>`);
		}
	}

	parts.push(
		`<section aria-labelledby="signers-heading">\n<h2 id="signers-heading">Signers</h2>\n${signerList(document)}\n</section>`,
	);
	return page(`${document.name} — sign`, parts.join('\n'));
}
