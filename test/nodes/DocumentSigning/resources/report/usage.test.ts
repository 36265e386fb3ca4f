/**
 * Report › Usage (nodes/DocumentSigning/resources/report/usage.ts) through n8n's routing engine.
 */
import nock from 'nock';

import { runDocumentSigning } from '../../../../helpers/n8nWorkflow';

const ORIGIN = 'http://signing.test';
const credentials = { baseUrl: `${ORIGIN}/v1`, apiKey: 'sk_test_export' };

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
afterEach(() => nock.cleanAll());

test('Usage sends the period and returns the report as one item', async () => {
	nock(ORIGIN).get('/v1/reports/usage').query({ from: '2026-11-01T00:00:00.000Z' }).reply(200, {
		from: '2026-11-01T00:00:00.000Z',
		to: '2026-11-22T00:00:00.000Z',
		documents_created: 4,
	});
	const result = await runDocumentSigning({
		parameters: { resource: 'report', operation: 'usage', from: '2026-11-01T00:00:00Z' },
		credentials,
	});
	expect(result.items.map((item) => item.json.documents_created)).toEqual([4]);
});
