/**
 * The signing pages under /sign (no API key: a signer is identified by the token in their link).
 *
 *   GET  /sign/{doc}?token=…               overview: signers and their links (the document's token)
 *   GET  /sign/{doc}/{signer}?token=…      the signer's page (opening it marks them `viewed`)
 *   POST /sign/{doc}/{signer}/eid          national e-ID, step 1: personal code
 *   POST /sign/{doc}/{signer}/eid/confirm  national e-ID, step 2: confirm
 *   POST /sign/{doc}/{signer}/otp          email_otp / sms_otp: the one-time code
 *   POST /sign/{doc}/{signer}/sign         sign
 *   POST /sign/{doc}/{signer}/decline      decline (reason required)
 *
 * Successful POSTs answer 303 back to the signer's page (post/redirect/get), so reloading never
 * repeats an action. Failures re-render the page with a message and a 4xx status.
 */
import { timingSafeEqual } from 'crypto';
import type { IncomingMessage, ServerResponse } from 'http';

import { LIMITS } from '../../contract';
import type { Services } from '../context';
import { ApiError, clientIp, readBody, type RequestTarget } from '../http';
import { randomDigits } from '../ids';
import { needsAuthentication } from '../lifecycle';
import { Router } from '../router';
import { messagePage, overviewPage, signerPage, signerPath } from '../signingPage';
import type { DocumentRow } from '../store';

const FORM_BODY_LIMIT = 64 * 1024;

interface PageRequest {
	req: IncomingMessage;
	services: Services;
	row: DocumentRow;
	signerId: string;
	form: URLSearchParams;
	ip: string | null;
}

interface PageReply {
	status: number;
	html?: string;
	location?: string;
}

type PageAction = (request: PageRequest) => PageReply;

const SECURITY_HEADERS = {
	'Content-Security-Policy':
		"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
	'X-Content-Type-Options': 'nosniff',
	'Referrer-Policy': 'no-referrer',
	'Cache-Control': 'no-store',
};

function send(res: ServerResponse, reply: PageReply): void {
	if (res.headersSent || res.destroyed) return;
	if (reply.location) {
		res.writeHead(reply.status, {
			...SECURITY_HEADERS,
			Location: reply.location,
			'Content-Length': '0',
		});
		res.end();
		return;
	}
	const html = reply.html ?? '';
	res.writeHead(reply.status, {
		...SECURITY_HEADERS,
		'Content-Type': 'text/html; charset=utf-8',
		'Content-Length': String(Buffer.byteLength(html)),
	});
	res.end(html);
}

function tokenMatches(expected: string, given: string | null): boolean {
	if (!given) return false;
	const a = Buffer.from(expected);
	const b = Buffer.from(given);
	return a.length === b.length && timingSafeEqual(a, b);
}

function renderSigner(
	request: Pick<PageRequest, 'services' | 'row' | 'signerId'>,
	status: number,
	error?: string,
): PageReply {
	const { services, row, signerId } = request;
	const signer = services.lifecycle.signer(row, signerId);
	const secrets = row.signerSecrets[signerId];
	return {
		status,
		html: signerPage({
			document: row.record,
			signer,
			secrets,
			signBlocker: services.lifecycle.signBlocker(row, signerId),
			declineBlocker: services.lifecycle.declineBlocker(row, signerId),
			needsAuthentication: needsAuthentication(signer, secrets),
			error,
		}),
	};
}

function backToSigner(request: PageRequest): PageReply {
	const token = request.row.signerSecrets[request.signerId].token;
	return { status: 303, location: signerPath(request.row.record.id, request.signerId, token) };
}

/** Runs a state change; a refusal from the state machine is shown on the page as a 409. */
function attempt(request: PageRequest, change: () => void): PageReply {
	try {
		change();
	} catch (error) {
		if (error instanceof ApiError) return renderSigner(request, error.status, error.message);
		throw error;
	}
	return backToSigner(request);
}

function authenticationStep(request: PageRequest, method: 'national_eid' | 'otp'): string | null {
	const { row, signerId, services } = request;
	const signer = services.lifecycle.signer(row, signerId);
	if (row.record.status !== 'pending') return `The document is ${row.record.status}.`;
	const expected =
		method === 'otp'
			? signer.authentication === 'email_otp' || signer.authentication === 'sms_otp'
			: signer.authentication === 'national_eid';
	if (!expected || !needsAuthentication(signer, row.signerSecrets[signerId]))
		return 'No identity verification is pending.';
	return null;
}

const startEid: PageAction = (request) => {
	const problem = authenticationStep(request, 'national_eid');
	if (problem) return renderSigner(request, 409, problem);
	const personalCode = (request.form.get('personal_code') ?? '').trim();
	if (!/^\d{11}$/.test(personalCode))
		return renderSigner(request, 400, 'Enter your 11-digit personal code.');
	request.row.signerSecrets[request.signerId].eidPending = {
		personalCode,
		controlCode: randomDigits(4),
	};
	request.services.store.changed();
	return backToSigner(request);
};

const confirmEid: PageAction = (request) => {
	const problem = authenticationStep(request, 'national_eid');
	if (problem) return renderSigner(request, 409, problem);
	const secrets = request.row.signerSecrets[request.signerId];
	if (!secrets.eidPending)
		return renderSigner(request, 409, 'Start the national e-ID identification first.');
	secrets.eidPending = null;
	secrets.authenticatedAt = request.services.clock.iso();
	request.services.store.changed();
	return backToSigner(request);
};

const verifyOtp: PageAction = (request) => {
	const problem = authenticationStep(request, 'otp');
	if (problem) return renderSigner(request, 409, problem);
	const secrets = request.row.signerSecrets[request.signerId];
	const code = (request.form.get('code') ?? '').trim();
	if (!secrets.otpCode || !tokenMatches(secrets.otpCode, code))
		return renderSigner(request, 400, 'That code is not correct. Try again.');
	secrets.authenticatedAt = request.services.clock.iso();
	request.services.store.changed();
	return backToSigner(request);
};

const sign: PageAction = (request) =>
	attempt(request, () =>
		request.services.lifecycle.sign(request.row, request.signerId, request.ip),
	);

const decline: PageAction = (request) => {
	const reason = (request.form.get('reason') ?? '').trim();
	if (reason === '') return renderSigner(request, 400, 'Please give a reason for declining.');
	if (reason.length > LIMITS.maxDeclineReasonLength) {
		return renderSigner(
			request,
			400,
			`The reason must be at most ${LIMITS.maxDeclineReasonLength} characters.`,
		);
	}
	return attempt(request, () =>
		request.services.lifecycle.decline(request.row, request.signerId, reason, request.ip),
	);
};

type PageRoute = { kind: 'overview' } | { kind: 'signer' } | { kind: 'action'; action: PageAction };

const router = new Router<PageRoute>()
	.add('GET', '/sign/:doc', { kind: 'overview' })
	.add('GET', '/sign/:doc/:signer', { kind: 'signer' })
	.add('POST', '/sign/:doc/:signer/eid', { kind: 'action', action: startEid })
	.add('POST', '/sign/:doc/:signer/eid/confirm', { kind: 'action', action: confirmEid })
	.add('POST', '/sign/:doc/:signer/otp', { kind: 'action', action: verifyOtp })
	.add('POST', '/sign/:doc/:signer/sign', { kind: 'action', action: sign })
	.add('POST', '/sign/:doc/:signer/decline', { kind: 'action', action: decline });

export async function handleSigning(
	req: IncomingMessage,
	res: ServerResponse,
	target: RequestTarget,
	services: Services,
): Promise<string> {
	const method = req.method ?? 'GET';
	const resolution = router.resolve(method, target.segments);
	if (resolution.kind !== 'found') {
		req.resume();
		if (resolution.kind === 'method_not_allowed') {
			send(res, {
				status: 405,
				html: messagePage('Not allowed', `${method} is not allowed here.`),
			});
		} else {
			send(res, { status: 404, html: messagePage('Not found', 'There is no such page.') });
		}
		return 'unmatched';
	}
	const routeKey = `${method} ${resolution.route.pattern}`;
	const { doc, signer: signerId } = resolution.params;

	let form = new URLSearchParams();
	if (method === 'POST') {
		const body = await readBody(req, FORM_BODY_LIMIT);
		if (body.kind === 'aborted') return routeKey;
		if (body.kind === 'too_large') {
			send(res, { status: 413, html: messagePage('Too large', 'The form data is too large.') });
			return routeKey;
		}
		form = new URLSearchParams(body.raw.toString('utf8'));
	} else {
		req.resume();
	}

	services.lifecycle.expireDue();
	const row = services.store.findDocument(doc);
	if (!row) {
		send(res, {
			status: 404,
			html: messagePage('Document not found', 'This document does not exist or was deleted.'),
		});
		return routeKey;
	}
	if (resolution.route.handler.kind === 'overview') {
		// The overview links to every signer's own page, so it needs the document's token.
		if (!row.pageToken || !tokenMatches(row.pageToken, firstValue(target.query.token))) {
			send(res, {
				status: 403,
				html: messagePage(
					'Link not valid',
					'This signing link is not valid. Use the link you received.',
				),
			});
			return routeKey;
		}
		send(res, { status: 200, html: overviewPage(row.record, row.signerSecrets) });
		return routeKey;
	}

	const secrets = row.signerSecrets[signerId];
	if (!secrets || !row.record.signers.some((candidate) => candidate.id === signerId)) {
		send(res, {
			status: 404,
			html: messagePage(
				'Signer not found',
				'This signing link does not match a signer of the document.',
			),
		});
		return routeKey;
	}
	const token = method === 'POST' ? form.get('token') : firstValue(target.query.token);
	if (!tokenMatches(secrets.token, token)) {
		send(res, {
			status: 403,
			html: messagePage(
				'Link not valid',
				'This signing link is not valid. Use the link you received.',
			),
		});
		return routeKey;
	}

	const ip = clientIp(req);
	const route = resolution.route.handler;
	if (route.kind === 'signer') {
		// Opening the page is what "viewed" means.
		services.lifecycle.view(row, signerId, ip);
		send(res, renderSigner({ services, row, signerId }, 200));
		return routeKey;
	}
	if (route.kind === 'action') send(res, route.action({ req, services, row, signerId, form, ip }));
	return routeKey;
}

function firstValue(value: string | string[] | undefined): string | null {
	if (value === undefined) return null;
	return Array.isArray(value) ? (value[0] ?? null) : value;
}
