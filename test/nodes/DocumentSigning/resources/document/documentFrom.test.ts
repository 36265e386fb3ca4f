/**
 * Node version 2's Document From (nodes/DocumentSigning/resources/document/documentFrom.ts) in
 * Document › Create and Send and Wait for Signature, through n8n-core's real engine against the
 * sandbox: the template chosen at the top has its fields and roles listed the way the editor lists
 * them, and the document made from it is the one version 1 makes from Additional Fields ›
 * Template. A file comes from the input item; a draft is sent as it was saved. Bad input stops the
 * item before any request (a counting server proves none is sent), naming the field.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import {
	getTemplateFields,
	getTemplateRoles,
} from '../../../../../nodes/DocumentSigning/resourceMapping';
import { startCountingServer } from '../../../../helpers/countingServer';
import { loadOptionsContext, runDocumentSigning } from '../../../../helpers/n8nWorkflow';
import { api, useSandbox } from '../../../../helpers/sandbox';
import { SALES_CONTRACT } from '../../../../helpers/templates';
import { WaitingHost } from '../../../../helpers/waitingExecutions';

const sandbox = useSandbox({ port: 0, host: '127.0.0.1' });
let counting: Awaited<ReturnType<typeof startCountingServer>>;
beforeAll(async () => {
	counting = await startCountingServer(() => ({ status: 201, body: { id: 'doc_1' } }));
});
afterAll(async () => await counting.close());
beforeEach(() => counting.requests.splice(0));

const DEAL = {
	company: 'Acme Corp',
	amount: '12000',
	starts: '2026-01-15',
	contact: { email: 'jane@acme.example', name: 'Jane Doe' },
};
const MAPPED = {
	customer_name: '={{ $json.company }}',
	price: '={{ $json.amount }}',
	start_date: '={{ $json.starts }}',
};
const CLIENT = {
	'Client|email': '={{ $json.contact.email }}',
	'Client|name': '={{ $json.contact.name }}',
};
const mapper = (schema: unknown[], value: IDataObject) => ({
	mappingMode: 'defineBelow',
	value,
	matchingColumns: [],
	schema,
	attemptToConvertTypes: false,
	convertFieldsToString: false,
});
const locator = (value: string) => ({ __rl: true, mode: 'list', value, cachedResultName: 'Sales' });

let credentials: { baseUrl: string; apiKey: string };
let templateId: string;
beforeAll(async () => {
	const { apiKey } = sandbox().createAccount();
	credentials = { baseUrl: sandbox().baseUrl, apiKey };
	templateId = String((await api(sandbox(), apiKey).post('/templates', SALES_CONTRACT)).data.id);
});

/** Version 2's parameters with the template's fields and roles listed as the editor lists them. */
async function fromTemplate(operation = 'create'): Promise<INodeParameters> {
	const chosen = {
		resource: 'document',
		operation,
		documentFrom: 'template',
		documentTemplate: locator(templateId),
	};
	const editor = loadOptionsContext(credentials, chosen, 2);
	const fields = (await getTemplateFields.call(editor)).fields;
	const roles = (await getTemplateRoles.call(editor)).fields;
	return {
		...chosen,
		templateFields: mapper(fields, MAPPED),
		templateSigners: mapper(roles, CLIENT),
	} as unknown as INodeParameters;
}

async function sentBody(
	parameters: INodeParameters,
	typeVersion: number,
	items?: INodeExecutionData[],
) {
	counting.requests.splice(0);
	const result = await runDocumentSigning({
		parameters,
		items: items ?? [{ json: DEAL }],
		credentials: { baseUrl: counting.baseUrl, apiKey: 'sk_test_from' },
		typeVersion,
	});
	expect(result.error?.message).toBeUndefined();
	expect(counting.requests).toHaveLength(1);
	return JSON.parse(counting.requests[0].body) as IDataObject;
}

async function refusal(parameters: INodeParameters, items?: INodeExecutionData[]) {
	const result = await runDocumentSigning({
		parameters,
		items: items ?? [{ json: DEAL }],
		credentials: { baseUrl: counting.baseUrl, apiKey: 'sk_test_from' },
		typeVersion: 2,
	});
	expect(counting.requests).toHaveLength(0);
	return result.error?.message;
}

describe('Document › Create, Document From: Template', () => {
	it("lists the template's fields and roles once it is chosen at the top, and sends their values converted", async () => {
		const result = await runDocumentSigning({
			parameters: await fromTemplate(),
			items: [{ json: DEAL }],
			credentials,
			typeVersion: 2,
		});
		expect(result.error?.message).toBeUndefined();
		const [document] = result.items.map((item) => item.json);
		expect(document.template_id).toBe(templateId);
		expect(
			(document.fields as IDataObject[]).slice(0, 3).map(({ key, value }) => [key, value]),
		).toEqual([
			['customer_name', 'Acme Corp'],
			['price', 12000],
			['start_date', '2026-01-15'],
		]);
		expect((document.signers as IDataObject[]).map(({ email, role }) => [email, role])).toEqual([
			['jane@acme.example', 'Client'],
			['sam@ourco.example', 'Company'],
		]);
	});

	it('sends the same request version 1 sends for the template under Additional Fields', async () => {
		const after = await fromTemplate();
		const { documentFrom, documentTemplate, ...rest } = after;
		expect(documentFrom).toBe('template');
		const before = { ...rest, additionalFields: { template_id: documentTemplate } };
		expect(await sentBody(after, 2)).toEqual(await sentBody(before, 1));
	});

	it('without a template chosen, stops before any request naming Template (n8n, then the node for an empty expression)', async () => {
		const parameters = await fromTemplate();
		expect(await refusal({ ...parameters, documentTemplate: locator('') })).toMatch(
			/Parameter "Template" is required/,
		);
		const empty = { __rl: true, mode: 'id', value: '={{ $json.nothing }}' };
		expect(await refusal({ ...parameters, documentTemplate: empty })).toBe(
			'Template: choose the template the document is made from',
		);
	});

	it('an ID that is not one is refused, naming Template', async () => {
		const parameters = { ...(await fromTemplate()), documentTemplate: locator('tpl/7') };
		expect(await refusal(parameters)).toBe('Template: "tpl/7" is not a valid ID');
	});
});

describe('Document › Create, Document From: File (the default)', () => {
	const pdf: INodeExecutionData = {
		json: {},
		binary: {
			data: {
				data: Buffer.from('%PDF-1.7 test').toString('base64'),
				mimeType: 'application/pdf',
				fileName: 'scan.pdf',
			},
		},
	};
	const parameters = {
		resource: 'document',
		operation: 'create',
		name: 'Master Services Agreement',
		signers: { signer: [{ email: 'jane@acme.example', name: 'Jane Doe' }] },
	};

	it("uploads the input item's file with no Attach File to switch on, as version 1 does with it", async () => {
		const after = await sentBody(parameters, 2, [pdf]);
		expect(after.name).toBe('Master Services Agreement.pdf');
		expect(after.file).toMatchObject({ name: 'scan.pdf', content_type: 'application/pdf' });
		expect(await sentBody({ ...parameters, attachFile: true }, 1, [pdf])).toEqual(after);
	});

	it('an item without the file stops before any request, naming Input Binary Field', async () => {
		expect(await refusal(parameters, [{ json: {} }])).toBe(
			'Input Binary Field: the input item has no binary field "data"',
		);
	});

	it('no signer stops it, naming Signers', async () => {
		expect(await refusal({ ...parameters, signers: {} }, [pdf])).toMatch(/^Signers/);
	});
});

describe('Send and Wait for Signature, version 2', () => {
	it('from a template: creates the document with the values and the signers by role, then waits', async () => {
		const host = new WaitingHost(credentials);
		await host.start();
		try {
			const execution = await host.run({
				parameters: await fromTemplate('sendAndWait'),
				items: [{ json: DEAL }],
				typeVersion: 2,
			});
			expect(execution.error).toBeUndefined();
			expect(execution.status).toBe('waiting');
			const document = sandbox()
				.store.documentsOf(credentials.apiKey)
				.find((entry) => entry.id === execution.items[0].json.id);
			expect(document?.status).toBe('pending');
			expect(document?.signers.map(({ email, role }) => [email, role])).toEqual([
				['jane@acme.example', 'Client'],
				['sam@ourco.example', 'Company'],
			]);
		} finally {
			await host.close();
		}
	});

	it('Existing Draft: sends the draft with its saved signers', async () => {
		const draft = await api(sandbox(), credentials.apiKey).post('/documents', {
			name: 'draft.pdf',
			signers: [{ email: 'jane@acme.example', name: 'Jane Doe' }],
			draft: true,
		});
		const draftId = String(draft.data.id);
		const host = new WaitingHost(credentials);
		await host.start();
		try {
			const execution = await host.run({
				parameters: {
					resource: 'document',
					operation: 'sendAndWait',
					documentFrom: 'draft',
					waitDocumentId: { __rl: true, mode: 'id', value: draftId },
				},
				typeVersion: 2,
			});
			expect(execution.error).toBeUndefined();
			expect(execution.status).toBe('waiting');
			expect(
				sandbox()
					.store.documentsOf(credentials.apiKey)
					.find((d) => d.id === draftId)?.status,
			).toBe('pending');
		} finally {
			await host.close();
		}
	});
});
