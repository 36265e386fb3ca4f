/** nodes/DocumentSigning/shared/postReceive.ts: the output steps operations share (the flows through n8n are in operations.sandbox.test.ts). */
import type {
	IBinaryData,
	IExecuteSingleFunctions,
	IN8nHttpFullResponse,
	INodeExecutionData,
	PostReceiveAction,
} from 'n8n-workflow';

import {
	binaryFromResponse,
	deletedResult,
	simplifyTo,
} from '../../../../nodes/DocumentSigning/shared/postReceive';

function contextWith(parameters: Record<string, unknown>): IExecuteSingleFunctions {
	return {
		getNodeParameter: (name: string, fallback?: unknown) =>
			name in parameters ? parameters[name] : fallback,
		helpers: {
			prepareBinaryData: async (
				data: Buffer,
				fileName?: string,
				mimeType?: string,
			): Promise<IBinaryData> => ({
				data: data.toString('base64'),
				fileName,
				mimeType: mimeType ?? '',
			}),
		},
	} as unknown as IExecuteSingleFunctions;
}

type OutputStep = (
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
) => Promise<INodeExecutionData[]>;
/** Runs an output step as n8n's routing engine does (the steps here are functions). */
const run = async (
	step: PostReceiveAction,
	context: IExecuteSingleFunctions,
	items: INodeExecutionData[],
	answer: IN8nHttpFullResponse,
) => await (step as OutputStep).call(context, items, answer);

const response = (body: unknown, headers: Record<string, string> = {}): IN8nHttpFullResponse => ({
	body: body as IN8nHttpFullResponse['body'],
	headers,
	statusCode: 200,
	statusMessage: 'OK',
});
const record = { id: 'doc_1', name: 'nda.pdf', status: 'pending', custom_field: 'x', signers: [] };

describe('simplifyTo', () => {
	const step = simplifyTo(['id', 'name', 'status', 'completed_at']);
	const items: INodeExecutionData[] = [{ json: record, pairedItem: { item: 3 } }];

	it('keeps the listed fields the record has (and the item pairing) when Simplify is on', async () => {
		expect(await run(step, contextWith({ simplify: true }), items, response(record))).toEqual([
			{ json: { id: 'doc_1', name: 'nda.pdf', status: 'pending' }, pairedItem: { item: 3 } },
		]);
	});

	it('passes every field through, unknown ones included, when Simplify is off', async () => {
		expect(await run(step, contextWith({ simplify: false }), items, response(record))).toBe(items);
	});
});

describe('deletedResult', () => {
	it('says what was deleted (a delete answers no body)', async () => {
		expect(
			await run(
				deletedResult('documentId'),
				contextWith({ documentId: 'doc_9' }),
				[],
				response(''),
			),
		).toEqual([{ json: { id: 'doc_9', deleted: true } }]);
	});
});

describe('binaryFromResponse', () => {
	const step = binaryFromResponse('export.csv');

	it("names and types the file as the service's headers say, under the chosen binary field", async () => {
		const [item] = await run(
			step,
			contextWith({ binaryPropertyName: 'report' }),
			[],
			response(Buffer.from('a,b\n1,2\n'), {
				'Content-Type': 'text/csv; charset=utf-8',
				'Content-Disposition': 'attachment; filename="usage.csv"',
			}),
		);
		expect(item.json).toEqual({ fileName: 'usage.csv', mimeType: 'text/csv', fileSize: 8 });
		expect(Buffer.from(item.binary!.report.data, 'base64').toString()).toBe('a,b\n1,2\n');
	});

	it('falls back to the given name, a generic type and the "data" field; a JSON body is kept as its text', async () => {
		const [item] = await run(step, contextWith({}), [], response({ rows: [] }));
		expect(item.json).toEqual({
			fileName: 'export.csv',
			mimeType: 'application/octet-stream',
			fileSize: 11,
		});
		expect(Buffer.from(item.binary!.data.data, 'base64').toString()).toBe('{"rows":[]}');
	});
});
