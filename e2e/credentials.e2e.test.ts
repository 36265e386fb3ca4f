/**
 * The credential's Test button, as the editor calls it: n8n 2.41's `POST /rest/credentials/test`
 * (packages/cli credentials.controller.ts → TestCredentialRequestDto:
 * `{ credentials: { id, name, type, data } }`), with the owner's session. The editor sends the
 * data of the open dialog: for a saved credential that is what `GET /rest/credentials/:id
 * ?includeData=true` returns (the API key redacted; n8n puts the stored one back before testing).
 *
 * The test request is `GET <Base URL>/users?limit=1` with the Bearer key, answered by the sandbox
 * in this jest process.
 */
import { startSandbox, type Sandbox } from '../sandbox';
import { CREDENTIAL_TYPE, createN8n, freePort, newId, type N8nInstance } from './harness/n8n';

let sandbox: Sandbox;
let n8n: N8nInstance;
let closedPortUrl: string;
let goodKey: string;
// Distinctive, so a leak anywhere in n8n's log would be found.
const wrongKey = `sk_e2e_credtest_WRONG_${newId()}`;
const ids = { good: newId(), wrong: newId(), unreachable: newId() };

interface TestResult {
	status: 'OK' | 'Error';
	message: string;
}

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
	goodKey = sandbox.createAccount().apiKey;
	closedPortUrl = `http://127.0.0.1:${await freePort()}/v1`;
	n8n = await createN8n({ sandboxBaseUrl: sandbox.baseUrl });
	await n8n.importCredentials([
		n8n.documentSigningCredential({ id: ids.good, name: 'Good key', apiKey: goodKey }),
		n8n.documentSigningCredential({ id: ids.wrong, name: 'Wrong key', apiKey: wrongKey }),
		n8n.documentSigningCredential({
			id: ids.unreachable,
			name: 'Nobody listening',
			apiKey: goodKey,
			baseUrl: closedPortUrl,
		}),
	]);
	await n8n.start();
});

afterAll(async () => {
	await n8n?.dispose();
	await sandbox?.close();
});

/** What the editor does when Test is pressed in the dialog of a saved credential. */
async function testSaved(id: string, edit: Record<string, unknown> = {}): Promise<TestResult> {
	return await n8n.testCredential(id, edit);
}

function usersRequests(): number {
	return sandbox.stats().routes['GET /v1/users'] ?? 0;
}

describe('credential test (POST /rest/credentials/test)', () => {
	it('the editor receives the saved credential with the key redacted', async () => {
		const stored = await n8n.rest('GET', `/rest/credentials/${ids.good}?includeData=true`);
		expect(stored).toMatchObject({
			id: ids.good,
			type: CREDENTIAL_TYPE,
			data: { baseUrl: sandbox.baseUrl },
		});
		expect(JSON.stringify(stored)).not.toContain(goodKey);
	});

	it('passes with a good key, after one authenticated request to the service', async () => {
		const before = { users: usersRequests(), ok: sandbox.stats().statuses['200'] ?? 0 };
		const result = await testSaved(ids.good);
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(usersRequests() - before.users).toBe(1);
		expect((sandbox.stats().statuses['200'] ?? 0) - before.ok).toBe(1);
	});

	it('fails with a wrong key, with the service refusing it (401)', async () => {
		const before = { users: usersRequests(), unauthorized: sandbox.stats().statuses['401'] ?? 0 };
		const result = await testSaved(ids.wrong);
		// n8n 2.41's tester reports the HTTP status text of a refused test request, not the body.
		expect(result).toEqual({
			status: 'Error',
			message: 'The service refused the API key (401). Check the key in your account settings.',
		});
		// n8n retries a 401 once itself (httpRequestWithAuthentication); each one reached the
		// service and was refused.
		const requests = usersRequests() - before.users;
		expect(requests).toBeGreaterThanOrEqual(1);
		expect((sandbox.stats().statuses['401'] ?? 0) - before.unauthorized).toBe(requests);
	});

	it('fails when a good credential is edited to a wrong key before saving', async () => {
		const refusedBefore = sandbox.stats().statuses['401'] ?? 0;
		const result = await testSaved(ids.good, { apiKey: wrongKey });
		expect(result).toEqual({
			status: 'Error',
			message: 'The service refused the API key (401). Check the key in your account settings.',
		});
		// The key typed in the dialog was the one sent (and refused), not the saved one.
		expect((sandbox.stats().statuses['401'] ?? 0) - refusedBefore).toBeGreaterThanOrEqual(1);
	});

	it('fails when nothing listens at the Base URL', async () => {
		const before = sandbox.stats().requests;
		const result = await testSaved(ids.unreachable);
		expect(result).toEqual({ status: 'Error', message: 'ECONNREFUSED' });
		expect(sandbox.stats().requests).toBe(before);
	});

	it('accepts a Base URL with a trailing slash', async () => {
		const result = await testSaved(ids.good, { baseUrl: `${sandbox.baseUrl}/` });
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
	});

	it('leaves neither key in n8n’s log', () => {
		const log = n8n.logText();
		expect(log.length).toBeGreaterThan(0);
		expect(log).not.toContain(goodKey);
		expect(log).not.toContain(wrongKey);
	});
});
