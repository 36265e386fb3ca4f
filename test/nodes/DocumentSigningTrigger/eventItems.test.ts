/**
 * Polled events as items (nodes/DocumentSigningTrigger/eventItems.ts): a record an entry names
 * that cannot be read, however it fails, makes that event `unreadable` and never holds back the
 * events after it. Polls run in n8n-core's REAL TriggerContext (test/helpers/pollingHost.ts)
 * against a small service whose documents answer what the test says (test/helpers/auditLogService.ts).
 */
jest.mock('n8n-workflow', () =>
	jest.requireActual('../../helpers/instantWaits').n8nWorkflowWithInstantWaits(),
);

import type http from 'http';

import type { IDataObject } from 'n8n-workflow';

import { TIME_LIMITS } from '../../../nodes/shared/transport/retry';
import { AuditLogService, contractEntry } from '../../helpers/auditLogService';
import { useInstantWaits } from '../../helpers/instantWaits';
import { PollingHost } from '../../helpers/pollingHost';

const KEY = 'sk_test_event_items_000000000';
/** Polls a test makes at most while waiting for a state (each poll reads what is there). */
const MAX_POLLS = 20;
/** An attempt's time limit while a document never answers: long beside a local read of the log. */
const ATTEMPT_MS = 500;

type Answer = (response: http.ServerResponse) => { status: number; body: IDataObject } | undefined;

const SIGN_IN_PAGE =
	'<!doctype html><html><head><title>Sign in</title></head><body><h1>Sign in to continue</h1></body></html>';

describe('a record an entry names that cannot be read', () => {
	useInstantWaits();
	let service: AuditLogService;
	const saved = { ...TIME_LIMITS };
	beforeEach(async () => {
		service = await new AuditLogService().start();
		Object.assign(TIME_LIMITS, { attemptMs: ATTEMPT_MS });
	});
	afterEach(async () => {
		Object.assign(TIME_LIMITS, saved);
		await service.stop();
	});

	const pollUntilQuiet = async (host: PollingHost) => {
		for (let polls = 1; polls <= MAX_POLLS; polls++) if ((await host.poll()) === 0) return;
		throw new Error(`still passing events on after ${MAX_POLLS} polls`);
	};

	const webPage: Answer = (response) =>
		void response.writeHead(200, { 'Content-Type': 'text/html' }).end(SIGN_IN_PAGE);
	const unreached = { message: /^Could not reach the Document Signing service$/ };
	it.each<[string, Answer, { httpCode?: number; message: RegExp }]>([
		[
			'a 200 with a web page (a gateway’s sign-in page)',
			webPage,
			{ httpCode: 200, message: /web page/ },
		],
		[
			'a redirect (302)',
			(response) => void response.writeHead(302, { Location: 'https://sso.example.com/' }).end(),
			{ httpCode: 302, message: /redirect \(HTTP 302\)/ },
		],
		[
			'401 for this document while the log reads',
			() => ({ status: 401, body: {} }),
			{ httpCode: 401, message: /401/ },
		],
		[
			'429 after the retries',
			(response) => void response.writeHead(429, { 'Retry-After': '100' }).end('{}'),
			{ httpCode: 429, message: /429/ },
		],
		[
			'a dropped connection, every attempt',
			(response) => void response.socket?.destroy(),
			unreached,
		],
		['no answer within an attempt’s time limit', () => undefined, unreached],
	])(
		'%s: the event is passed on, unreadable, and the events after it come',
		async (_, answer, why) => {
			const host = new PollingHost(service, KEY);
			await host.activate();
			service.options.document = (id, response) =>
				id === 'doc_blocked' ? answer(response) : { status: 200, body: { id, signers: [] } };
			const at = Date.now();
			const entries = [
				contractEntry(at, 'document.completed', { document_id: 'doc_blocked' }),
				contractEntry(at + 1),
				contractEntry(at + 2),
			];
			service.entries.push(...entries);
			await pollUntilQuiet(host);

			expect(host.events.map((json) => json.eventId)).toEqual(entries.map((entry) => entry.id));
			const [blocked, ...later] = host.events;
			expect(blocked.data).toEqual({ document: { id: 'doc_blocked' } });
			expect(blocked.unreadable).toEqual([
				{
					record: 'document',
					id: 'doc_blocked',
					...why,
					message: expect.stringMatching(why.message),
				},
			]);
			// The records that answer are read as ever, unmarked.
			expect(later.map((json) => [json.data, json.unreadable])).toEqual(
				entries
					.slice(1)
					.map((entry) => [{ document: { id: entry.document_id, signers: [] } }, undefined]),
			);
			expect(host.errors).toEqual([]);
		},
	);

	it("a document refused in words that repeat the credential's key: the unreadable mark, the items and static data never hold it (#54, finding 3)", async () => {
		const revoked = 'sk_live_revoked_echo_0123456789';
		const host = new PollingHost(service, revoked);
		await host.activate();
		const body = {
			error: {
				message: `API key ${revoked} has been revoked`,
				description: `Sent with Authorization: Bearer ${revoked}`,
				details: {
					headers: { authorization: `Bearer ${revoked}` },
					echo: JSON.stringify({ key: revoked }),
				},
			},
		};
		service.options.document = (_id, response) =>
			void response
				.writeHead(401, { 'Content-Type': 'application/json' })
				.end(JSON.stringify(body));
		service.entries.push(contractEntry(Date.now(), 'document.completed', { document_id: 'doc_1' }));
		await pollUntilQuiet(host);

		expect(host.events.map((json) => json.unreadable)).toEqual([
			[
				{
					record: 'document',
					id: 'doc_1',
					httpCode: 401,
					message: 'API key [redacted] has been revoked',
				},
			],
		]);
		const shown = JSON.stringify([host.emitted, host.saved(), host.errors]);
		expect(shown).not.toContain(revoked);
	});

	it('a later poll reads the document again: one that answers now is read', async () => {
		const host = new PollingHost(service, KEY);
		await host.activate();
		let page = true;
		service.options.document = (id, response) =>
			page ? webPage(response) : { status: 200, body: { id, signers: [] } };
		service.entries.push(contractEntry(Date.now(), 'document.completed', { document_id: 'doc_1' }));
		await pollUntilQuiet(host);
		page = false;
		service.entries.push(
			contractEntry(Date.now() + 1, 'document.signed', { document_id: 'doc_1' }),
		);
		await pollUntilQuiet(host);
		expect(host.events.map((json) => json.unreadable === undefined)).toEqual([false, true]);
		expect(host.events[1].data).toEqual({ document: { id: 'doc_1', signers: [] } });
	});
});
