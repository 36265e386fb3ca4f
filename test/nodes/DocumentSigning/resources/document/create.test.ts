/**
 * Document › Create (nodes/DocumentSigning/resources/document/create.ts), through n8n's routing
 * engine against a server that records requests: Template chosen from the template list (a
 * resource locator in Additional Fields), and a Document Name without an extension taking the
 * attached file's.
 */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { DocumentSigning } from '../../../../../nodes/DocumentSigning/DocumentSigning.node';
import { createDocument } from '../../../../helpers/badInputCases';
import { startCountingServer } from '../../../../helpers/countingServer';
import { runDocumentSigning } from '../../../../helpers/n8nWorkflow';

let server: Awaited<ReturnType<typeof startCountingServer>>;
beforeAll(async () => {
	server = await startCountingServer(() => ({ status: 201, body: { id: 'doc_1' } }));
});
afterAll(async () => await server.close());
beforeEach(() => server.requests.splice(0));

const file = (mimeType: string, fileName?: string): INodeExecutionData => ({
	json: {},
	binary: {
		data: {
			data: Buffer.from('%PDF-1.7 test').toString('base64'),
			mimeType,
			...(fileName ? { fileName } : {}),
		},
	},
});

/** The body the node sent for `parameters` (one request expected). */
async function sentBody(
	parameters: INodeParameters,
	items?: INodeExecutionData[],
): Promise<Record<string, any>> {
	const result = await runDocumentSigning({
		parameters,
		items,
		credentials: { baseUrl: server.baseUrl, apiKey: 'sk_test_create' },
	});
	expect(result.error?.message).toBeUndefined();
	expect(server.requests).toHaveLength(1);
	return JSON.parse(server.requests[0].body);
}

async function refusal(
	parameters: INodeParameters,
	items?: INodeExecutionData[],
): Promise<string | undefined> {
	const result = await runDocumentSigning({
		parameters,
		items,
		credentials: { baseUrl: server.baseUrl, apiKey: 'sk_test_create' },
	});
	expect(server.requests).toHaveLength(0);
	return result.error?.message;
}

const properties = new DocumentSigning().description.properties;
const createProperty = (name: string) =>
	properties.find(
		(property) =>
			property.name === name &&
			property.displayOptions?.show?.operation?.includes('create') &&
			property.displayOptions?.show?.resource?.includes('document'),
	);

describe('Document Name', () => {
	test.each([
		['a PDF', file('application/pdf', 'scan.pdf'), 'Master Services Agreement.pdf'],
		['a JPEG named .jpeg', file('image/jpeg', 'photo.jpeg'), 'Master Services Agreement.jpeg'],
		['a JPEG with no file name', file('image/jpeg'), 'Master Services Agreement.jpg'],
		[
			'a DOCX whose file name has another extension',
			file('application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'draft.bin'),
			'Master Services Agreement.docx',
		],
	])("without an extension takes the attached file's: %s", async (_title, item, expected) => {
		const body = await sentBody(
			createDocument({
				name: 'Master Services Agreement',
				attachFile: true,
				binaryPropertyName: 'data',
			}),
			[item],
		);
		expect(body.name).toBe(expected);
		expect(body.file.name).toBe(item.binary!.data.fileName);
	});

	test('with an extension is sent as given', async () => {
		const body = await sentBody(
			createDocument({ name: 'nda.pdf', attachFile: true, binaryPropertyName: 'data' }),
			[file('application/pdf', 'scan.pdf')],
		);
		expect(body.name).toBe('nda.pdf');
	});

	test('without an extension and no file attached: the error says what to add, nothing is sent', async () => {
		expect(await refusal(createDocument({ name: 'Master Services Agreement' }))).toBe(
			'Document Name: "Master Services Agreement" has no file extension: add one, e.g. "Master Services Agreement.pdf", or switch on Attach File to take the attached file\'s',
		);
	});

	test("the field's hint says a name without an extension takes the attached file's", () => {
		expect(createProperty('name')?.hint).toMatch(
			/Without an extension .* attached file's extension is added; with no file attached, give one/,
		);
	});
});

describe('Additional Fields › Template', () => {
	test('is a resource locator listing templates (the search Template › Update uses), or an ID', () => {
		const template = (
			createProperty('additionalFields')?.options as Array<Record<string, any>>
		).find((option) => option.name === 'template_id');
		expect(template).toMatchObject({
			displayName: 'Template',
			type: 'resourceLocator',
			default: { mode: 'list', value: '' },
		});
		expect(template?.required).toBeUndefined();
		expect(template?.modes.map((mode: { name: string }) => mode.name)).toEqual(['list', 'id']);
		expect(template?.modes[0].typeOptions.searchListMethod).toBe('searchTemplates');
		const update = properties.find((property) => property.name === 'templateId');
		expect(update?.modes?.[0].typeOptions?.searchListMethod).toBe('searchTemplates');
	});

	test.each([
		[
			'chosen from the list',
			{ __rl: true, mode: 'list', value: 'tpl_7', cachedResultName: 'Mutual NDA' },
		],
		['typed as an ID', { __rl: true, mode: 'id', value: 'tpl_7' }],
		['a plain ID (a workflow saved before it was a list)', 'tpl_7'],
	])('%s is sent as template_id', async (_title, value) => {
		const body = await sentBody(
			createDocument({ name: '', signers: {}, additionalFields: { template_id: value } }),
		);
		expect(body.template_id).toBe('tpl_7');
		expect(body.name).toBeUndefined();
	});

	test('left empty sends no template', async () => {
		const body = await sentBody(
			createDocument({
				additionalFields: { template_id: { __rl: true, mode: 'list', value: '' } },
			}),
		);
		expect(body).not.toHaveProperty('template_id');
	});

	test('an ID that is not one is refused, naming the field, before any request', async () => {
		expect(
			await refusal(
				createDocument({
					additionalFields: { template_id: { __rl: true, mode: 'id', value: 'tpl/7' } },
				}),
			),
		).toBe('Additional Fields › Template: "tpl/7" is not a valid ID');
	});
});
