/**
 * The README's pictures of the nodes in the n8n editor, taken from a real n8n (the pinned 2.x,
 * with this package installed as a community package) in headless Chromium (harness/browser.ts).
 *
 * One workflow as a user would build it: "Document Signing Trigger" (document.completed) →
 * "Download Signed PDF" (Document › Download, version Signed), and "Send for Signature"
 * (Document › Create at node version 2: Document From › Template, the template chosen from the
 * list, its two roles in Signers by Role) after a manual trigger.
 * The test signs in through n8n's sign-in form, opens the workflow, checks the canvas (every node,
 * with the package's icon and its subtitle, and both connections), then opens the nodes' parameter
 * panels by double-clicking them and checks what they show (credential, Resource, Operation,
 * Version, Document From first, the template, the roles). The pictured Create setup is then run in n8n and must
 * create its document. A second workflow is a CRM flow: n8n's Pipedrive Trigger (a deal added) →
 * Pipedrive (the deal's contact person) → Document Signing (Create from a template).
 *
 * A third, a Webhook trigger ("CRM: Deal Won") → "Send Contract and Wait" (Document › Send and
 * Wait for Signature at node version 2: Document From › Template, the Sales contract template
 * mapped from the deal, and its options), gives the panel of that operation. A fourth sends a
 * contract from a template with fields: its Template Fields and Signers by Role are stored mapped
 * but without the template's field list, as right after the template is chosen, so opening the
 * node has the editor list them from the service; the picture shows them mapped.
 *
 * Last, the walk of issue 48 (harness/editorWalk.ts): from an empty canvas a person builds "deal
 * won → contract from a template → Send and Wait → If" (a Webhook "CRM: Deal Won", Send and Wait
 * with the Sales contract template chosen from the list and its fields and Client role mapped by
 * expression, an If on `approved`), once at node version 1 ("before") and once at version 2
 * ("after", when the node has it), counting the fields touched and the panels opened as it acts,
 * and the fields the panel shows above the Template.
 * The node gets its version from the node creator when that is its default version; otherwise
 * the person adds it the same way and the harness sets its typeVersion through n8n's public API
 * (PUT /api/v1/workflows/{id}, uncounted) before the node is opened again (walkTheWorkflow). Each
 * walk's saved workflow is read back through n8n's API and must be what was built, n8n must mark
 * no parameter issue, and the workflow is published and called: the contract is made from the
 * template, and once signed the If's true branch gets it. The counts go to docs/editor-walk.md
 * (with E2E_UPDATE_SCREENSHOTS=1; otherwise the test fails when that file differs from the walk).
 *
 * Pictures: `workflow.png` (the canvas), `node-parameters.png` (Download's parameter panel),
 * `create-parameters.png` (Create's), `crm-workflow.png` (the CRM flow's canvas),
 * `send-and-wait-parameters.png` (Send and Wait's), `template-fields.png` (the mapped Template
 * Fields and Signers by Role) and `bulk-send-workflow.png` (the example "one agreement per row"). They go to docs/images/ only with
 * E2E_UPDATE_SCREENSHOTS=1;
 * otherwise to E2E_ARTIFACTS_DIR (default <tmp>/n8n-nodes-document-signing-e2e/editor-screenshot,
 * replaced on each run), so a CI run leaves the clone clean.
 *
 *   npm run build && E2E_UPDATE_SCREENSHOTS=1 npx jest -c e2e/jest.config.js e2e/editorScreenshot.e2e.test.ts
 *
 * Stable pictures: a fixed viewport, animations off, the caret hidden, the pointer parked where
 * it hovers nothing, and transient UI (toasts, "what's new", surveys, the assistant) hidden.
 *
 * Needs the package built (`npm run build`) and /usr/bin/chromium (`bash scripts/e2e-prereqs.sh`).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { ResourceMapperField } from 'n8n-workflow';
import type { Locator, Page } from 'playwright-core';

import { startSandbox, type Sandbox } from '../sandbox';
import { launchBrowser, type E2eBrowser } from './harness/browser';
import { EditorWalk } from './harness/editorWalk';
import { waitForState } from './harness/waitForState';
import { DocumentSigning } from '../nodes/DocumentSigning/DocumentSigning.node';
import { loadOptionsContext } from '../test/helpers/n8nWorkflow';
import { SALES_CONTRACT } from '../test/helpers/templates';
import { NODE_TYPE, TRIGGER_NODE_TYPE, createN8n, newId, type N8nInstance } from './harness/n8n';
import {
	byId,
	connect,
	loadExample,
	manualTrigger,
	node,
	sandboxPost,
	signingNode,
	triggerNode,
	type WorkflowJson,
} from './harness/workflows';

const UPDATE = process.env.E2E_UPDATE_SCREENSHOTS === '1';
const IMAGES_DIR = path.resolve(__dirname, '..', 'docs', 'images');
const OUT_DIR = UPDATE
	? IMAGES_DIR
	: (process.env.E2E_ARTIFACTS_DIR ??
		path.join(os.tmpdir(), 'n8n-nodes-document-signing-e2e', 'editor-screenshot'));
const VIEWPORT = { width: 1440, height: 900 };
/** Taller for Create's panel, so every signer fits in it. */
const TALL_VIEWPORT = { width: 1440, height: 1500 };
/** Taller still for Send and Wait with both mappers open. */
const TEMPLATE_VIEWPORT = { width: 1440, height: 2200 };
const ZOOM_IN_STEPS = 1;

const TRIGGER = 'Document Signing Trigger';
const DOWNLOAD = 'Download Signed PDF';
const MANUAL = 'When clicking ‘Execute workflow’';
const CREATE = 'Send for Signature';
const CREDENTIAL = { id: newId(), name: 'Document Signing account' };
const PIPEDRIVE_CREDENTIAL = { id: newId(), name: 'Pipedrive account' };
const TEMPLATE_NAME = 'Master Services Agreement (2026)';
/** The Document Name of the pictured Create: one the node accepts (it has its extension). */
const DOCUMENT_NAME = 'Master Services Agreement.pdf';
const CRM_TRIGGER = 'New Deal in Pipedrive';
const CRM_CONTACT = 'Get Contact Person';
const CRM_SEND = 'Send Contract for Signature';
const SIGNERS = [
	{ authentication: 'national_eid', email: 'ada@example.com', name: 'Ada Lovelace', order: 1 },
	{ authentication: 'email_otp', email: 'alan@example.com', name: 'Alan Turing', order: 2 },
];

/** Transient or distracting UI hidden in every picture; animations and transitions off. */
const STABLE_CSS = `
	.el-notification, .el-message, [role="alert"].el-notification,
	[data-test-id="nps-survey-modal"], [data-test-id="version-updates-panel"],
	[data-test-id="ask-assistant-floating-button"], [data-test-id="ask-assistant-chat"],
	[data-test-id="ask-assistant-sidebar"], [data-test-id="banner-stack"] { display: none !important; }
	*, *::before, *::after { transition: none !important; animation: none !important; caret-color: transparent !important; }
`;

/** Additional Fields › Template as the editor stores a choice from the list. */
const templateFromList = (template: { id: string }) => ({
	__rl: true,
	mode: 'list',
	value: String(template.id),
	cachedResultName: TEMPLATE_NAME,
});

/** The node version of the pictured Create and Send and Wait: Document From first. */
const PICTURED_VERSION = 2;

/** The rows of a template's Template Fields and Signers by Role mappers. */
interface MapperRows {
	fields: ResourceMapperField[];
	roles: ResourceMapperField[];
}

/**
 * What the editor lists under Template Fields and Signers by Role once `template` is chosen: the
 * node's own resource-mapping methods, in n8n-core's load-options context, against the sandbox.
 */
async function editorRows(
	sandbox: Sandbox,
	apiKey: string,
	template: { id: string },
): Promise<MapperRows> {
	const { getTemplateFields, getTemplateRoles } = new DocumentSigning().methods.resourceMapping;
	const context = () =>
		loadOptionsContext(
			{ baseUrl: sandbox.baseUrl, apiKey },
			{
				resource: 'document',
				operation: 'create',
				documentFrom: 'template',
				documentTemplate: { __rl: true, mode: 'list', value: String(template.id) },
			},
			PICTURED_VERSION,
		);
	return {
		fields: (await getTemplateFields.call(context())).fields,
		roles: (await getTemplateRoles.call(context())).fields,
	};
}

/** The template's two roles, as Signers by Role stores them: Client and Provider, an email and a name each. */
const MSA_ROLES = [
	{ role: 'Client', ...SIGNERS[0] },
	{ role: 'Provider', ...SIGNERS[1] },
];

/**
 * The pictured Document › Create parameters (node version 2): Document From › Template, the
 * template from the list, a name with its extension, its two roles given in Signers by Role
 * (`roles`: the mapper's rows for the template).
 */
function createParameters(
	template: { id: string },
	roles: ResourceMapperField[],
): Record<string, unknown> {
	return {
		resource: 'document',
		operation: 'create',
		documentFrom: 'template',
		documentTemplate: templateFromList(template),
		name: DOCUMENT_NAME,
		templateSigners: {
			mappingMode: 'defineBelow',
			value: Object.fromEntries(
				MSA_ROLES.flatMap(({ role, email, name }) => [
					[`${role}|email`, email],
					[`${role}|name`, name],
				]),
			),
			matchingColumns: [],
			schema: roles.map((field) => ({ ...field, removed: false })),
			attemptToConvertTypes: false,
			convertFieldsToString: false,
		},
		additionalFields: { message: 'Please sign the agreement' },
	};
}

/**
 * A CRM flow: when a deal is added in Pipedrive (n8n's Pipedrive Trigger, Pipedrive webhooks v2:
 * the deal under `data`), get its contact person (n8n's Pipedrive node, API v2: `name`, `emails`),
 * and send them the contract made from a template.
 */
function buildCrmWorkflow(template: { id: string }): WorkflowJson {
	const pipedriveCredentials = { pipedriveApi: PIPEDRIVE_CREDENTIAL };
	const nodes = [
		{
			...node(
				CRM_TRIGGER,
				'n8n-nodes-base.pipedriveTrigger',
				1.1,
				{ action: 'create', entity: 'deal' },
				{ credentials: pipedriveCredentials, webhookId: randomUUID() },
			),
			position: [0, 0] as [number, number],
		},
		{
			...node(
				CRM_CONTACT,
				'n8n-nodes-base.pipedrive',
				2,
				{ resource: 'person', operation: 'get', personId: '={{ $json.data.person_id }}' },
				{ credentials: pipedriveCredentials },
			),
			position: [280, 0] as [number, number],
		},
		{
			...signingNode(
				CRM_SEND,
				{
					resource: 'document',
					operation: 'create',
					name: `={{ $('${CRM_TRIGGER}').item.json.data.title }} – Service Agreement.pdf`,
					signers: {
						signer: [{ email: '={{ $json.emails[0].value }}', name: '={{ $json.name }}' }],
					},
					additionalFields: {
						template_id: templateFromList(template),
						metadata: `={{ JSON.stringify({ pipedrive_deal_id: $('${CRM_TRIGGER}').item.json.data.id }) }}`,
					},
				},
				{ credential: CREDENTIAL },
			),
			position: [560, 0] as [number, number],
		},
	];
	const workflow: WorkflowJson = {
		name: 'Pipedrive deal → contract for signature',
		nodes,
		connections: {},
		settings: { executionOrder: 'v1' },
	};
	connect(workflow, CRM_TRIGGER, CRM_CONTACT);
	connect(workflow, CRM_CONTACT, CRM_SEND);
	return workflow;
}

const DEAL_WON = 'CRM: Deal Won';
const SEND_AND_WAIT = 'Send Contract and Wait';
const CHOOSE_TEMPLATE = 'Create Contract';
const FROM_TEMPLATE = 'Send Contract from Template';
/** Each field (and role entry) the editor must list: id, label, required, the expression mapped to it. */
const MAPPED_FIELDS: Array<[id: string, label: string, required: boolean, value: string]> = [
	['customer_name', 'Customer name', true, '={{ $json.body.deal.company }}'],
	['price', 'Price', true, '={{ $json.body.deal.amount }}'],
	['start_date', 'Start date', true, '={{ $json.body.deal.start_date }}'],
	['plan', 'Plan', false, '={{ $json.body.deal.plan }}'],
	['auto_renew', 'Renews automatically', false, '={{ $json.body.deal.auto_renew }}'],
	['deal_id', 'Deal ID', false, '={{ $json.body.deal.id }}'],
];
const MAPPED_ROLES: Array<[id: string, label: string, required: boolean, value: string]> = [
	['Client|email', 'Client Email', false, '={{ $json.body.contact.email }}'],
	['Client|name', 'Client Name', false, '={{ $json.body.contact.name }}'],
];

/** A mapper as the editor stores it once the template is chosen and each entry mapped. */
const mapped = (
	schema: ResourceMapperField[],
	entries: Array<[string, string, boolean, string]>,
) => ({
	mappingMode: 'defineBelow',
	value: Object.fromEntries(entries.map(([id, , , value]) => [id, value])),
	matchingColumns: [],
	schema: schema.map((field) => ({ ...field, removed: field.removed === true })),
	attemptToConvertTypes: false,
	convertFieldsToString: false,
});

const templateChoice = (template: { id: string } | undefined) =>
	template
		? {
				__rl: true,
				mode: 'list',
				value: String(template.id),
				cachedResultName: SALES_CONTRACT.name,
			}
		: { __rl: true, mode: 'list', value: '' };

/**
 * CRM: Deal Won → "Send Contract from Template" (Send and Wait, the template chosen and its fields
 * and roles mapped, as saved from the editor), and a manual trigger → "Create Contract" (Create,
 * Additional Fields › Template added but not chosen yet: the test chooses it).
 */
function buildTemplateWorkflow(template: { id: string }, rows: MapperRows): WorkflowJson {
	const nodes = [
		{
			...node(
				DEAL_WON,
				'n8n-nodes-base.webhook',
				2,
				{
					httpMethod: 'POST',
					path: 'crm-deal-won-template',
					responseMode: 'onReceived',
					options: {},
				},
				{ webhookId: newId() },
			),
			position: [0, 0] as [number, number],
		},
		{
			...signingNode(
				FROM_TEMPLATE,
				{
					resource: 'document',
					operation: 'sendAndWait',
					documentFrom: 'template',
					documentTemplate: templateChoice(template),
					name: '=Sales contract {{ $json.body.deal.id }}.pdf',
					templateFields: mapped(rows.fields, MAPPED_FIELDS),
					templateSigners: mapped(rows.roles, MAPPED_ROLES),
				},
				{ credential: CREDENTIAL, typeVersion: PICTURED_VERSION },
			),
			position: [280, 0] as [number, number],
		},
		{ ...manualTrigger(MANUAL), position: [0, 220] as [number, number] },
		{
			...signingNode(
				CHOOSE_TEMPLATE,
				{
					resource: 'document',
					operation: 'create',
					documentFrom: 'template',
					documentTemplate: templateChoice(undefined),
					name: 'sales-contract.pdf',
				},
				{ credential: CREDENTIAL, typeVersion: PICTURED_VERSION },
			),
			position: [280, 220] as [number, number],
		},
	];
	const workflow: WorkflowJson = {
		name: 'CRM deal won: contract from a template',
		nodes,
		connections: {},
		settings: { executionOrder: 'v1' },
	};
	connect(workflow, DEAL_WON, FROM_TEMPLATE);
	connect(workflow, MANUAL, CHOOSE_TEMPLATE);
	return workflow;
}

/**
 * CRM: Deal Won → "Send Contract and Wait" (node version 2): Document From › Template, the Sales
 * contract template with its fields and the Client role mapped from the deal, and its options.
 */
function buildSendAndWaitWorkflow(template: { id: string }, rows: MapperRows): WorkflowJson {
	const nodes = [
		{
			...node(
				DEAL_WON,
				'n8n-nodes-base.webhook',
				2,
				{ httpMethod: 'POST', path: 'crm-deal-won', responseMode: 'onReceived', options: {} },
				{ webhookId: newId() },
			),
			position: [0, 0] as [number, number],
		},
		{
			...signingNode(
				SEND_AND_WAIT,
				{
					resource: 'document',
					operation: 'sendAndWait',
					documentFrom: 'template',
					documentTemplate: templateChoice(template),
					name: '=Contract {{ $json.body.deal.id }}.pdf',
					templateFields: mapped(rows.fields, MAPPED_FIELDS),
					templateSigners: mapped(rows.roles, MAPPED_ROLES),
					waitOptions: {
						resumeOn: 'anyFinal',
						attachSignedFile: true,
						limitWaitTime: {
							values: { limitType: 'afterTimeInterval', resumeAmount: 14, resumeUnit: 'days' },
						},
					},
				},
				{ credential: CREDENTIAL, typeVersion: PICTURED_VERSION },
			),
			position: [280, 0] as [number, number],
		},
	];
	const workflow: WorkflowJson = {
		name: 'CRM deal won: send the contract and wait for its signature',
		nodes,
		connections: {},
		settings: { executionOrder: 'v1' },
	};
	connect(workflow, DEAL_WON, SEND_AND_WAIT);
	return workflow;
}

function buildWorkflow(template: { id: string }, roles: ResourceMapperField[]): WorkflowJson {
	const nodes = [
		{
			...triggerNode(TRIGGER, { events: ['document.completed'], credential: CREDENTIAL }),
			position: [0, 0] as [number, number],
		},
		{
			...signingNode(
				DOWNLOAD,
				{
					resource: 'document',
					operation: 'download',
					documentId: byId('={{ $json.data.document.id }}'),
					version: 'signed',
				},
				{ credential: CREDENTIAL },
			),
			position: [280, 0] as [number, number],
		},
		{ ...manualTrigger(MANUAL), position: [0, 220] as [number, number] },
		{
			...signingNode(CREATE, createParameters(template, roles), {
				credential: CREDENTIAL,
				typeVersion: PICTURED_VERSION,
			}),
			position: [280, 220] as [number, number],
		},
	];
	const workflow: WorkflowJson = {
		name: 'Send for signature, archive when signed',
		nodes,
		connections: {},
		settings: { executionOrder: 'v1' },
	};
	connect(workflow, TRIGGER, DOWNLOAD);
	connect(workflow, MANUAL, CREATE);
	return workflow;
}

// ---------------------------------------------------------------------------------------------
// The walk of issue 48

const NODE_DESCRIPTION = new DocumentSigning().description;
const NODE_VERSIONS = [NODE_DESCRIPTION.version].flat();
/** The version the node creator gives a new node. */
const DEFAULT_VERSION = NODE_DESCRIPTION.defaultVersion ?? Math.max(...NODE_VERSIONS);
const WALK_DOC = path.resolve(__dirname, '..', 'docs', 'editor-walk.md');
/** The node's name as n8n gives it when added by its action. */
const WALK_SEND = 'Send a document and wait for its signature';
const WALK_IF = 'If';
/** What the editor stores for Send and Wait untouched: its operation, and Options empty. */
const SEND_AND_WAIT_STORED = { operation: 'sendAndWait', waitOptions: {} };
/** What the person maps: each template field and role entry, by expression from the deal. */
const WALK_FIELDS: Array<[id: string, label: string, expression: string]> = [
	['customer_name', 'Template Fields › Customer name', '{{ $json.body.deal.company }}'],
	['price', 'Template Fields › Price', '{{ $json.body.deal.amount }}'],
	['start_date', 'Template Fields › Start date', '{{ $json.body.deal.start_date }}'],
];
const WALK_ROLES: Array<[id: string, label: string, expression: string]> = [
	['Client|email', 'Signers by Role › Client Email', '{{ $json.body.contact.email }}'],
	['Client|name', 'Signers by Role › Client Name', '{{ $json.body.contact.name }}'],
];

interface WalkContext {
	page: Page;
	n8n: N8nInstance;
	sandbox: Sandbox;
	apiKey: string;
	template: { id: string };
}

interface WalkResult {
	version: number;
	workflowId: string;
	webhookPath: string;
	fields: string[];
	panels: string[];
	/** The fields the panel shows above the Template locator once it is there (below Resource and Operation). */
	aboveTemplate: string[];
	log: string[];
	/** How the node got its version: added by the node creator, or set through n8n's API. */
	versionBy: 'node creator' | 'api';
}

interface StoredNode {
	name: string;
	type: string;
	typeVersion: number;
	parameters: Record<string, any>;
	credentials?: Record<string, { id: string; name: string }>;
}

interface StoredWorkflow {
	name: string;
	nodes: StoredNode[];
	connections: Record<string, { main: Array<Array<{ node: string }>> }>;
}

/** The workflow as n8n stored it; undefined until the editor first saves it (n8n answers 404). */
async function readWorkflow(n8n: N8nInstance, id: string): Promise<StoredWorkflow | undefined> {
	try {
		return await n8n.api<StoredWorkflow>('GET', `/workflows/${id}`);
	} catch (error) {
		if (/HTTP 404/.test((error as Error).message)) return undefined;
		throw error;
	}
}

/** Waits until n8n has saved (the editor saves on its own) a workflow for which `reached` holds. */
async function savedWorkflow(
	n8n: N8nInstance,
	id: string,
	reached: (workflow: StoredWorkflow) => boolean,
	what: string,
): Promise<StoredWorkflow> {
	return (await waitForState(
		() => readWorkflow(n8n, id),
		(workflow) => workflow !== undefined && reached(workflow),
		{
			timeoutMs: 30_000,
			describe: (last) => `the saved workflow never had ${what}: ${JSON.stringify(last?.nodes)}`,
		},
	))!;
}

/**
 * A person builds the workflow from an empty canvas, counting as they go (harness/editorWalk.ts):
 * a Webhook named "CRM: Deal Won" (POST), then Document › Send and Wait for Signature with the
 * Sales contract template chosen from the list and its fields and the Client role mapped from the
 * deal by expression, then an If on `approved`.
 *
 * The node gets `version` as follows: when it is the node's default version, the node creator
 * adds it so. Otherwise (the walk "before", once the default is newer) the person adds it the same
 * way, then the harness closes its panel, leaves the editor once the node is saved, sets the
 * node's typeVersion (parameters back to Send and Wait's defaults) through n8n's public API
 * (PUT /api/v1/workflows/{id}), and opens the workflow and the node again: these harness steps
 * are not counted, and the panel then shows that version.
 */
async function walkTheWorkflow(context: WalkContext, version: number): Promise<WalkResult> {
	const { page, n8n, template } = context;
	const walk = new EditorWalk(page, n8n.baseUrl);
	await walk.newWorkflow(STABLE_CSS);

	await walk.addFirstNode('Webhook', 'Webhook');
	await walk.renameNode(DEAL_WON);
	await walk.chooseOption('httpMethod', 'POST', 'HTTP Method');
	await walk.closeNode();

	await walk.addNodeAfter(
		DEAL_WON,
		'Document Signing',
		'Document Signing',
		'Send a document and wait for its signature',
	);
	const versionBy = version === DEFAULT_VERSION ? 'node creator' : 'api';
	if (versionBy === 'api') {
		await walk.closeNode();
		await page.waitForURL(
			(url) => walk.workflowId() !== undefined && url.pathname !== '/workflow/new',
		);
		const id = walk.workflowId()!;
		const stored = await savedWorkflow(
			n8n,
			id,
			(workflow) => workflow.nodes.some((node) => node.name === WALK_SEND && node.credentials),
			`${WALK_SEND} with its credential`,
		);
		walk.note(`leave the editor; set ${WALK_SEND} to version ${version} through n8n's API`);
		await page.goto('about:blank');
		await n8n.api('PUT', `/workflows/${id}`, {
			name: stored.name,
			nodes: stored.nodes.map((node) =>
				node.name === WALK_SEND
					? { ...node, typeVersion: version, parameters: { operation: 'sendAndWait' } }
					: node,
			),
			connections: stored.connections,
			settings: { executionOrder: 'v1' },
		});
		await page.goto(`${n8n.baseUrl}/workflow/${id}`);
		await page.addStyleTag({ content: STABLE_CSS });
		await walk.openNode(WALK_SEND, false);
	}
	expect(await walk.nodeVersionText()).toContain(`node version ${version}`);
	await walk.chooseCredential(CREDENTIAL.name);

	// The template, from the list.
	const templateLocator = version >= 2 ? 'documentTemplate' : 'template_id';
	if (version >= 2) await walk.chooseOption('documentFrom', 'Template', 'Document From');
	else await walk.addCollectionField('Additional Fields', 'Template');
	// What the panel shows above the Template once it is there.
	const aboveTemplate = await walk.fieldsAbove(`resource-locator-${templateLocator}`);
	await walk.chooseFromList(
		templateLocator,
		SALES_CONTRACT.name,
		version >= 2 ? 'Template' : 'Additional Fields › Template',
	);
	// Its fields and roles are listed; n8n marks the required fields still empty.
	const mappers = walk.ndv.locator('[data-test-id="resource-mapper-container"]');
	for (const [id] of [...WALK_FIELDS, ...WALK_ROLES])
		await mappers.locator(`[data-test-id="parameter-input-${id}"]`).waitFor();
	await mappers.locator('[data-test-id="parameter-issues"]').first().waitFor();
	for (const [id, label, expression] of [...WALK_FIELDS, ...WALK_ROLES])
		await walk.setMapperExpression(id, expression, label);
	// No parameter of the node has an issue left.
	await walk.ndv
		.locator('[data-test-id="parameter-issues"]')
		.first()
		.waitFor({ state: 'detached' });
	// The editor saves by itself, an expression a moment after it is typed: the person closes the
	// panel once n8n has saved the last one.
	const lastRole = WALK_ROLES.at(-1)!;
	await savedWorkflow(
		n8n,
		walk.workflowId()!,
		(workflow) =>
			workflow.nodes.find((node) => node.name === WALK_SEND)?.parameters.templateSigners?.value?.[
				lastRole[0]
			] === `=${lastRole[2]}`,
		`${WALK_SEND} with ${lastRole[1]}`,
	);
	await walk.closeNode();

	await walk.addNodeAfter(WALK_SEND, 'If', 'If');
	await walk.setCondition('{{ $json.approved }}', 'Boolean', 'is true');
	await savedWorkflow(
		n8n,
		walk.workflowId()!,
		(workflow) =>
			workflow.nodes.find((node) => node.name === WALK_IF)?.parameters.conditions?.conditions?.[0]
				?.leftValue === '={{ $json.approved }}',
		'the If condition',
	);
	await walk.closeNode();

	// The canvas: the three nodes, connected, none with an issue.
	await expect(page.locator('[data-test-id="canvas-node"]').count()).resolves.toBe(3);
	await expect(page.locator('[data-test-id="edge"]').count()).resolves.toBe(2);
	await expect(page.locator('[data-test-id="node-issues"]').count()).resolves.toBe(0);

	// Saved as built (n8n's public API).
	const workflowId = walk.workflowId();
	if (!workflowId) throw new Error(`the walked workflow was never saved (${page.url()})`);
	const choice = {
		__rl: true,
		mode: 'list',
		value: template.id,
		cachedResultName: SALES_CONTRACT.name,
	};
	const stored = await savedWorkflow(
		n8n,
		workflowId,
		(workflow) =>
			workflow.nodes.find((node) => node.name === WALK_IF)?.parameters.conditions?.conditions?.[0]
				?.operator?.operation === 'true',
		'the If condition',
	);
	const byName = (name: string) => stored.nodes.find((node) => node.name === name)!;
	expect(stored.nodes.map((node) => [node.name, node.type])).toEqual([
		[DEAL_WON, 'n8n-nodes-base.webhook'],
		[WALK_SEND, NODE_TYPE],
		[WALK_IF, 'n8n-nodes-base.if'],
	]);
	expect(stored.connections).toEqual({
		[DEAL_WON]: { main: [[{ node: WALK_SEND, type: 'main', index: 0 }]] },
		[WALK_SEND]: { main: [[{ node: WALK_IF, type: 'main', index: 0 }]] },
	});
	expect(byName(DEAL_WON).parameters.httpMethod).toBe('POST');
	const send = byName(WALK_SEND);
	expect(send.typeVersion).toBe(version);
	expect(send.credentials).toEqual({ documentSigningApi: CREDENTIAL });
	const { templateFields, templateSigners, ...rest } = send.parameters;
	expect(rest).toEqual(
		version >= 2
			? {
					...SEND_AND_WAIT_STORED,
					additionalFields: {},
					documentFrom: 'template',
					documentTemplate: choice,
				}
			: { ...SEND_AND_WAIT_STORED, additionalFields: { template_id: choice } },
	);
	// The fields mapped, and the defaults the editor fills in for the others (Plan, Renews automatically).
	expect(templateFields.value).toEqual({
		...Object.fromEntries(WALK_FIELDS.map(([id, , expression]) => [id, `=${expression}`])),
		plan: 'Basic',
		auto_renew: false,
	});
	expect(templateSigners.value).toEqual(
		Object.fromEntries(WALK_ROLES.map(([id, , expression]) => [id, `=${expression}`])),
	);
	expect(byName(WALK_IF).parameters.conditions.conditions).toEqual([
		expect.objectContaining({
			leftValue: '={{ $json.approved }}',
			operator: expect.objectContaining({ type: 'boolean', operation: 'true' }),
		}),
	]);
	return {
		version,
		workflowId,
		webhookPath: byName(DEAL_WON).parameters.path,
		fields: walk.fields,
		panels: walk.panels,
		aboveTemplate,
		log: walk.log,
		versionBy,
	};
}

/**
 * The walked workflow, published and called as the CRM would: the contract is made from the
 * template with the deal's values, and once every signer signed, the If's true branch gets it.
 */
async function runTheWalkedWorkflow(context: WalkContext, walked: WalkResult): Promise<void> {
	const { n8n, sandbox, apiKey, template } = context;
	await n8n.activate(walked.workflowId);
	const company = `Walk ${walked.version} Ltd`;
	const response = await fetch(n8n.productionWebhookUrl(walked.webhookPath), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({
			deal: { company, amount: 12000, start_date: '2026-12-01' },
			contact: { email: `client-${walked.version}@example.com`, name: 'Casey Client' },
		}),
		signal: AbortSignal.timeout(30_000),
	});
	expect(response.status).toBe(200);
	const fieldValue = (document: { fields: Array<{ key: string; value: unknown }> }, key: string) =>
		document.fields.find((field) => field.key === key)?.value;
	// Send and Wait creates the document as a draft, registers its webhook, then sends it: signing
	// waits for the sent (pending) document.
	const document = await waitForState(
		async () =>
			sandbox.store
				.documentsOf(apiKey)
				.find((candidate) => fieldValue(candidate, 'customer_name') === company),
		(found) => found?.status === 'pending',
		{
			timeoutMs: 30_000,
			describe: (found) => `no sent document for ${company} (${found?.status ?? 'none'})`,
		},
	);
	expect(document!.template_id).toBe(template.id);
	expect(fieldValue(document!, 'price')).toBe(12000);
	expect(fieldValue(document!, 'start_date')).toBe('2026-12-01');
	expect(document!.signers.map((signer) => signer.email)).toContain(
		`client-${walked.version}@example.com`,
	);
	for (const signer of document!.signers) sandbox.actAsSigner(document!.id, signer.id, 'sign');
	const [execution] = await n8n.waitForExecutions(walked.workflowId, { timeoutMs: 60_000 });
	expect(execution.status).toBe('success');
	const approved = execution.data?.resultData.runData[WALK_IF]?.[0]?.data?.main?.[0] ?? [];
	expect(approved.map((item) => [item.json.id, item.json.approved])).toEqual([
		[document!.id, true],
	]);
	await n8n.deactivate(walked.workflowId);
}

/** docs/editor-walk.md: the counts of each walk and what was touched and opened, in order. */
function walkTable(before: WalkResult, after: WalkResult | undefined): string {
	const walks = [before, ...(after ? [after] : [])];
	const heading = (walk: WalkResult) =>
		`${walk === before ? 'before' : 'after'}: node version ${walk.version}`;
	const lines = [
		'# The walk of issue 48, counted',
		'',
		'<!-- written by e2e/editorScreenshot.e2e.test.ts with E2E_UPDATE_SCREENSHOTS=1; the test fails when this file differs from its walk; do not edit -->',
		'',
		'A person builds "deal won → contract from a template → Send and Wait → If" from an empty',
		'canvas in real n8n 2.41.1, in Chromium: a Webhook named "CRM: Deal Won" (POST), Document ›',
		'Send and Wait for Signature with the Sales contract template chosen from the list, its three',
		'required fields and the Client role mapped from the deal by expression, then an If on',
		'`approved`. The walk counts as it acts (e2e/harness/editorWalk.ts): a **field touched** is a',
		'parameter input set or opened (an option chosen, an "Add Field" of a collection, a record',
		'chosen from a list, an expression typed); a **panel opened** is one a click opens (the node',
		'creator, a node\'s panel, a dropdown, a menu, a "From List" list). Node names and the',
		'credential n8n chooses by itself (the only one) are not counted. **Fields shown above the',
		'Template** are those the panel shows between Operation and the Template once it is there: what',
		"a person reads past to reach it. The saved workflow is checked through n8n's API, then",
		"published and called: the contract is made from the template, and once signed the If's true",
		'branch gets it.',
		'',
		`| | ${walks.map(heading).join(' | ')} |`,
		`| --- | ${walks.map(() => '---').join(' | ')} |`,
		`| fields touched | ${walks.map((walk) => walk.fields.length).join(' | ')} |`,
		`| panels opened | ${walks.map((walk) => walk.panels.length).join(' | ')} |`,
		`| fields shown above the Template | ${walks.map((walk) => walk.aboveTemplate.length).join(' | ')} |`,
		'',
	];
	for (const walk of walks) {
		lines.push(
			`## ${heading(walk)}`,
			'',
			walk.versionBy === 'api'
				? `Added by the node creator, then set to version ${walk.version} through n8n's API (not counted).`
				: `Added by the node creator at its default version, ${walk.version}.`,
			'',
			`Fields touched (${walk.fields.length}): ${walk.fields.join('; ')}.`,
			'',
			`Panels opened (${walk.panels.length}): ${walk.panels.join('; ')}.`,
			'',
			`Fields shown above the Template, below Resource and Operation (${walk.aboveTemplate.length}): ${walk.aboveTemplate.join('; ') || 'none'}.`,
			'',
		);
	}
	// Laid out as `npm run format:check` wants it (Prettier's CLI: its API needs ES modules, which jest here has not).
	return execFileSync(
		process.execPath,
		[require.resolve('prettier/bin/prettier.cjs'), '--stdin-filepath', WALK_DOC],
		{ input: lines.join('\n'), encoding: 'utf8', timeout: 60_000 },
	);
}

const canvasNode = (page: Page, name: string): Locator =>
	page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`);
const parameterValue = async (ndv: Locator, parameter: string): Promise<string> =>
	await ndv.locator(`[data-test-id="parameter-input-${parameter}"] input`).first().inputValue();

/** Parks the pointer over an empty, inert spot so nothing shows a hover state. */
async function parkPointer(page: Page): Promise<void> {
	await page.mouse.move(VIEWPORT.width - 5, VIEWPORT.height / 2);
}

async function screenshot(
	page: Page,
	name: string,
	clip?: { x: number; y: number; width: number; height: number },
): Promise<string> {
	const file = path.join(OUT_DIR, name);
	await page.screenshot({ path: file, clip, animations: 'disabled', caret: 'hide' });
	return file;
}

/** The box of the NDV's parameter panel (n8n gives it the class `node-settings`, no test id), cut below its last parameter (a resource mapper is none of n8n's parameter items). */
async function parameterPanelClip(
	ndv: Locator,
): Promise<{ x: number; y: number; width: number; height: number }> {
	const panel = await ndv.locator('.node-settings').boundingBox();
	if (!panel) throw new Error('the parameter panel has no box');
	const bottom = await ndv
		.locator(
			'.node-settings [data-test-id="parameter-item"], .node-settings [data-test-id="resource-mapper-container"]',
		)
		.evaluateAll((items) => Math.max(...items.map((item) => item.getBoundingClientRect().bottom)));
	return {
		x: panel.x,
		y: panel.y,
		width: panel.width,
		height: Math.min(panel.height, bottom - panel.y + 24),
	};
}

/** Opens a node's parameter panel by double-clicking it on the canvas; resolves with the panel. */
async function openNode(page: Page, name: string): Promise<Locator> {
	await canvasNode(page, name).dblclick();
	const ndv = page.locator('[data-test-id="ndv"]');
	await ndv.locator('[data-test-id="node-parameters"]').waitFor();
	await ndv.locator('[data-test-id="parameter-input-operation"]').waitFor();
	await parkPointer(page);
	return ndv;
}

async function closeNode(page: Page): Promise<void> {
	await page.locator('[data-test-id="ndv-close-button"]').click();
	await page.locator('[data-test-id="ndv"]').waitFor({ state: 'hidden' });
}

describe('the nodes in the n8n editor (README pictures)', () => {
	let sandbox: Sandbox;
	let n8n: N8nInstance;
	let browser: E2eBrowser;
	let page: Page;
	let apiKey: string;
	let template: { id: string };
	/** Signers by Role's rows for the pictured Create's template. */
	let templateRoles: ResourceMapperField[];
	let crmWorkflowId: string;
	let sendAndWaitWorkflowId: string;
	let templateWorkflowId: string;
	let bulkWorkflowId: string;
	let salesContract: { id: string };
	const walks: Partial<Record<'before' | 'after', WalkResult>> = {};

	beforeAll(async () => {
		fs.mkdirSync(OUT_DIR, { recursive: true });
		if (!UPDATE)
			for (const file of fs.readdirSync(OUT_DIR))
				if (file.endsWith('.png')) fs.rmSync(path.join(OUT_DIR, file));
		sandbox = await startSandbox({ port: 0 });
		({ apiKey } = sandbox.createAccount());
		template = await sandboxPost(sandbox, apiKey, '/templates', {
			name: TEMPLATE_NAME,
			document_name: 'msa.pdf',
			signer_roles: [{ role: 'Client' }, { role: 'Provider' }],
		});
		({ roles: templateRoles } = await editorRows(sandbox, apiKey, template));
		n8n = await createN8n({ sandboxBaseUrl: sandbox.baseUrl, logLevel: 'info' });
		await n8n.importCredentials([
			n8n.documentSigningCredential({ ...CREDENTIAL, apiKey }),
			// Never used: the CRM workflow is only shown, not run.
			{ ...PIPEDRIVE_CREDENTIAL, type: 'pipedriveApi', data: { apiToken: 'pipedrive-api-token' } },
		]);
		const workflowId = await n8n.importWorkflow(
			buildWorkflow(template, templateRoles) as unknown as Record<string, unknown>,
		);
		crmWorkflowId = await n8n.importWorkflow(
			buildCrmWorkflow(template) as unknown as Record<string, unknown>,
		);
		salesContract = await sandboxPost(sandbox, apiKey, '/templates', SALES_CONTRACT);
		const rows = await editorRows(sandbox, apiKey, salesContract);
		sendAndWaitWorkflowId = await n8n.importWorkflow(
			buildSendAndWaitWorkflow(salesContract, rows) as unknown as Record<string, unknown>,
		);
		templateWorkflowId = await n8n.importWorkflow(
			buildTemplateWorkflow(salesContract, rows) as unknown as Record<string, unknown>,
		);
		// The example as shipped, with this suite's credential and the sandbox's Sales contract.
		bulkWorkflowId = await n8n.importWorkflow(
			JSON.parse(
				JSON.stringify(loadExample('bulk-send-from-list.json'))
					.split('tpl_salescontract')
					.join(salesContract.id)
					.split('"documentSigningSandbox"')
					.join(JSON.stringify(CREDENTIAL.id))
					.split('"Document Signing (sandbox)"')
					.join(JSON.stringify(CREDENTIAL.name)),
			) as Record<string, unknown>,
		);
		await n8n.start();

		browser = await launchBrowser({ timeoutMs: 30_000 });
		page = await browser.newPage();
		await page.setViewportSize(VIEWPORT);
		// The sign-in form, as a person signs in.
		await page.goto(`${n8n.baseUrl}/signin`);
		await page.locator('[data-test-id="emailOrLdapLoginId"] input').fill(n8n.owner.email);
		await page.locator('[data-test-id="password"] input').fill(n8n.owner.password);
		await page.locator('[data-test-id="form-submit-button"]').click();
		await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
		await page.goto(`${n8n.baseUrl}/workflow/${workflowId}`);
		await page.addStyleTag({ content: STABLE_CSS });
		await page.locator('[data-test-id="canvas-node"]').nth(3).waitFor();
	});

	afterAll(async () => {
		await browser?.close();
		await n8n?.dispose();
		await sandbox?.close();
	});

	it('shows the workflow on the canvas with the package’s nodes, icons and subtitles', async () => {
		await expectVisible(canvasNode(page, TRIGGER));
		for (const [name, type] of [
			[TRIGGER, TRIGGER_NODE_TYPE],
			[DOWNLOAD, NODE_TYPE],
			[CREATE, NODE_TYPE],
		] as const) {
			const node = canvasNode(page, name);
			expect(await node.getAttribute('data-node-type')).toBe(type);
			// The package's own icon, served by n8n and loaded (an unknown node type gets a placeholder).
			const icon = node.locator('img').first();
			expect(await icon.getAttribute('src')).toBe(
				'/icons/n8n-nodes-document-signing/dist/icons/documentSigning.svg',
			);
			// Fails (times out) unless the browser loaded the SVG.
			await page.waitForFunction(
				(img) => {
					const image = img as unknown as { complete: boolean; naturalWidth: number };
					return image.complete && image.naturalWidth > 0;
				},
				await icon.elementHandle(),
			);
		}
		const text = await page.locator('[data-test-id="canvas"]').innerText();
		for (const shown of [
			TRIGGER,
			DOWNLOAD,
			MANUAL,
			CREATE,
			'document.completed',
			'download: document',
			'create: document',
		]) {
			expect(text).toContain(shown);
		}
		await expect(page.locator('[data-test-id="edge"]').count()).resolves.toBe(2);

		// Closer than "fit view" (which stops at 100 %), so the nodes read well in the README.
		for (let step = 0; step < ZOOM_IN_STEPS; step++)
			await page.locator('[data-test-id="zoom-in-button"]').click();
		await parkPointer(page);
		const file = await screenshot(page, 'workflow.png');
		expect(fs.statSync(file).size).toBeGreaterThan(10_000);
	});

	it('opens Document › Download in the parameter panel with the credential, Resource, Operation and Version', async () => {
		const ndv = await openNode(page, DOWNLOAD);
		expect(await ndv.locator('[data-test-id="node-title-container"]').innerText()).toContain(
			DOWNLOAD,
		);
		expect(await parameterValue(ndv, 'resource')).toBe('Document');
		expect(await parameterValue(ndv, 'operation')).toBe('Download');
		expect(await parameterValue(ndv, 'version')).toBe('Signed');
		expect(
			await ndv.locator('[data-test-id="node-credentials-select"] input').first().inputValue(),
		).toBe(CREDENTIAL.name);
		expect(await ndv.locator('[data-test-id="parameter-input-documentId"]').innerText()).toContain(
			'$json.data.document.id',
		);

		const file = await screenshot(page, 'node-parameters.png', await parameterPanelClip(ndv));
		expect(fs.statSync(file).size).toBeGreaterThan(5_000);
		await closeNode(page);
	});

	it('opens Document › Create (node version 2) with Document From › Template first, the template chosen from the list and its two roles', async () => {
		await page.setViewportSize(TALL_VIEWPORT);
		const ndv = await openNode(page, CREATE);
		expect(await parameterValue(ndv, 'resource')).toBe('Document');
		expect(await parameterValue(ndv, 'operation')).toBe('Create');
		expect(await ndv.locator('[data-test-id="node-version"]').innerText()).toContain(
			`node version ${PICTURED_VERSION}`,
		);
		// Document From is the first field, the Template right below it.
		await expect(
			new EditorWalk(page, n8n.baseUrl).fieldsAbove('resource-locator-documentTemplate'),
		).resolves.toEqual(['Document From']);
		const panel = ndv.locator('.node-settings');
		const shown = [
			...MSA_ROLES.flatMap((signer) => [signer.name, signer.email]),
			'Template',
			DOCUMENT_NAME,
			TEMPLATE_NAME,
		];
		// The collections and the template's name render after the panel opens: wait for them.
		await page
			.waitForFunction(
				(expected) => {
					const page = globalThis as unknown as {
						document: { querySelectorAll(selector: string): ArrayLike<{ value: string }> };
					};
					const inputs = Array.from(
						page.document.querySelectorAll('[data-test-id="ndv"] .node-settings input'),
					);
					const values = new Set(inputs.map((input) => input.value));
					return expected.every((value) => values.has(value));
				},
				shown,
				{ timeout: 30_000 },
			)
			.catch(() => undefined);
		const values = await panel
			.locator('input')
			.evaluateAll((inputs) =>
				inputs.map((input) => (input as unknown as { value: string }).value),
			);
		// Signers by Role: an email and a name for each of the template's roles.
		for (const signer of MSA_ROLES) {
			expect(values).toContain(signer.name);
			expect(values).toContain(signer.email);
		}
		expect(await parameterValue(ndv, 'documentFrom')).toBe('Template');
		expect(values).toContain(DOCUMENT_NAME);
		// Template, a resource locator in "From List" mode, shows the template's name.
		expect(values).toContain(TEMPLATE_NAME);

		const file = await screenshot(page, 'create-parameters.png', await parameterPanelClip(ndv));
		expect(fs.statSync(file).size).toBeGreaterThan(5_000);
		await closeNode(page);
		await page.setViewportSize(VIEWPORT);
	});

	it('runs the pictured Create setup in n8n: the document is made from the template', async () => {
		const workflow: WorkflowJson = {
			name: 'The pictured Create',
			nodes: [
				manualTrigger(MANUAL),
				signingNode(CREATE, createParameters(template, templateRoles), {
					credential: CREDENTIAL,
					typeVersion: PICTURED_VERSION,
				}),
			],
			connections: {},
			settings: { executionOrder: 'v1' },
		};
		connect(workflow, MANUAL, CREATE);
		const result = await n8n.execute(
			await n8n.importWorkflow(workflow as unknown as Record<string, unknown>),
		);
		expect(result.error?.message).toBeUndefined();
		expect(result.status).toBe('success');
		const documents = sandbox.store.documentsOf(apiKey).filter((doc) => doc.name === DOCUMENT_NAME);
		expect(
			documents.map((doc) => ({
				template: doc.template_id,
				signers: doc.signers.map((signer: { email: string }) => signer.email),
			})),
		).toEqual([{ template: template.id, signers: SIGNERS.map((signer) => signer.email) }]);
	});

	it('shows a CRM flow: Pipedrive Trigger → Pipedrive → Document Signing', async () => {
		await page.goto(`${n8n.baseUrl}/workflow/${crmWorkflowId}`);
		await page.addStyleTag({ content: STABLE_CSS });
		await page.locator('[data-test-id="canvas-node"]').nth(2).waitFor();
		expect(await canvasNode(page, CRM_TRIGGER).getAttribute('data-node-type')).toBe(
			'n8n-nodes-base.pipedriveTrigger',
		);
		expect(await canvasNode(page, CRM_CONTACT).getAttribute('data-node-type')).toBe(
			'n8n-nodes-base.pipedrive',
		);
		expect(await canvasNode(page, CRM_SEND).getAttribute('data-node-type')).toBe(NODE_TYPE);
		// Every node's icon loaded (an unknown node type would get a placeholder).
		for (const name of [CRM_TRIGGER, CRM_CONTACT, CRM_SEND]) {
			await page.waitForFunction(
				(img) => {
					const image = img as unknown as { complete: boolean; naturalWidth: number } | null;
					return image !== null && image.complete && image.naturalWidth > 0;
				},
				await canvasNode(page, name).locator('img').first().elementHandle(),
			);
		}
		const text = await page.locator('[data-test-id="canvas"]').innerText();
		for (const shown of [CRM_TRIGGER, CRM_CONTACT, CRM_SEND, 'create: document'])
			expect(text).toContain(shown);
		await expect(page.locator('[data-test-id="edge"]').count()).resolves.toBe(2);

		for (let step = 0; step < ZOOM_IN_STEPS; step++)
			await page.locator('[data-test-id="zoom-in-button"]').click();
		await parkPointer(page);
		const file = await screenshot(page, 'crm-workflow.png');
		expect(fs.statSync(file).size).toBeGreaterThan(10_000);
	});

	it('shows the example "one agreement per row, continue when all are signed": rows → Send and Wait → Signed?, no Loop Over Items', async () => {
		await page.goto(`${n8n.baseUrl}/workflow/${bulkWorkflowId}`);
		await page.addStyleTag({ content: STABLE_CSS });
		await canvasNode(page, 'Send Agreement per Row and Wait').waitFor();
		expect(
			await canvasNode(page, 'Send Agreement per Row and Wait').getAttribute('data-node-type'),
		).toBe(NODE_TYPE);
		await page.waitForFunction(
			(img) => {
				const image = img as unknown as { complete: boolean; naturalWidth: number } | null;
				return image !== null && image.complete && image.naturalWidth > 0;
			},
			await canvasNode(page, 'Send Agreement per Row and Wait')
				.locator('img')
				.first()
				.elementHandle(),
		);
		const text = await page.locator('[data-test-id="canvas"]').innerText();
		for (const shown of ['Rows', 'Send Agreement per Row and Wait', 'Signed?', 'Not Signed'])
			expect(text).toContain(shown);
		await expect(
			page
				.locator('[data-test-id="canvas-node"][data-node-type="n8n-nodes-base.splitInBatches"]')
				.count(),
		).resolves.toBe(0);
		await expect(page.locator('[data-test-id="edge"]').count()).resolves.toBe(5);
		await parkPointer(page);
		const file = await screenshot(page, 'bulk-send-workflow.png');
		expect(fs.statSync(file).size).toBeGreaterThan(10_000);
	});

	it('opens Document › Send and Wait for Signature (node version 2) with Document From › Template first, the mapped template and its options', async () => {
		await page.goto(`${n8n.baseUrl}/workflow/${sendAndWaitWorkflowId}`);
		await page.addStyleTag({ content: STABLE_CSS });
		await canvasNode(page, SEND_AND_WAIT).waitFor();
		await page.setViewportSize(TEMPLATE_VIEWPORT);
		const ndv = await openNode(page, SEND_AND_WAIT);
		expect(await parameterValue(ndv, 'resource')).toBe('Document');
		expect(await parameterValue(ndv, 'operation')).toBe('Send and Wait for Signature');
		expect(await ndv.locator('[data-test-id="node-version"]').innerText()).toContain(
			`node version ${PICTURED_VERSION}`,
		);
		await expect(
			new EditorWalk(page, n8n.baseUrl).fieldsAbove('resource-locator-documentTemplate'),
		).resolves.toEqual(['Document From']);
		const panel = ndv.locator('.node-settings');
		// The template's fields and roles, listed from the service.
		for (const [id] of [...MAPPED_FIELDS, ...MAPPED_ROLES])
			await ndv.locator(`[data-test-id="parameter-input-${id}"]`).waitFor();
		// Limit Wait Time's inputs can appear after the panel opens, while its resource mappers load.
		await ndv.locator('[data-test-id="parameter-input-limitType"]').waitFor();
		const values = await panel
			.locator('input')
			.evaluateAll((inputs) =>
				inputs.map((input) => (input as unknown as { value: string }).value),
			);
		expect(await parameterValue(ndv, 'documentFrom')).toBe('Template');
		expect(values).toContain(SALES_CONTRACT.name);
		expect(values).toContain('Any Final State');
		expect(values).toContain('After Time Interval');
		expect(values.some((value) => /^14(\.0+)?$/.test(value))).toBe(true);
		expect(await panel.innerText()).toContain('Attach Signed File');

		const file = await screenshot(
			page,
			'send-and-wait-parameters.png',
			await parameterPanelClip(ndv),
		);
		expect(fs.statSync(file).size).toBeGreaterThan(5_000);
		await closeNode(page);
		await page.setViewportSize(VIEWPORT);
	});

	it("lists the template's fields and roles once it is chosen in the editor: labels, required fields marked (no remove button), a pre-filled role left out", async () => {
		await page.goto(`${n8n.baseUrl}/workflow/${templateWorkflowId}`);
		await page.addStyleTag({ content: STABLE_CSS });
		await canvasNode(page, CHOOSE_TEMPLATE).waitFor();
		await page.setViewportSize(TEMPLATE_VIEWPORT);
		const ndv = await openNode(page, CHOOSE_TEMPLATE);
		// Nothing listed before the template is chosen.
		await expect(
			ndv.locator('[data-test-id="parameter-input-customer_name"]').count(),
		).resolves.toBe(0);
		const listed = sandbox.stats().routes['GET /v1/templates'] ?? 0;
		// Template › From List: the template, as a user picks it.
		await ndv
			.locator('[data-test-id="resource-locator-documentTemplate"] [data-test-id="rlc-input"]')
			.click();
		await page
			.locator('[data-test-id="rlc-item"]')
			.filter({ hasText: SALES_CONTRACT.name })
			.click();
		for (const [id] of [...MAPPED_FIELDS, ...MAPPED_ROLES])
			await ndv.locator(`[data-test-id="parameter-input-${id}"]`).waitFor();
		// Read from the service once the template was chosen (its list, then each mapper's fields).
		expect(sandbox.stats().routes['GET /v1/templates'] ?? 0).toBeGreaterThan(listed + 1);
		const mappers = ndv.locator('[data-test-id="resource-mapper-container"]');
		const text = await mappers.evaluateAll((containers) =>
			containers.map((container) => (container as unknown as { innerText: string }).innerText),
		);
		expect(text).toHaveLength(2);
		for (const [index, entries] of [MAPPED_FIELDS, MAPPED_ROLES].entries()) {
			expect(text[index]).toContain(index === 0 ? 'Template Fields' : 'Signers by Role');
			for (const [id, label, required] of entries) {
				expect(text[index]).toContain(label);
				// n8n marks a required field by giving it no remove button.
				await expect(
					ndv.locator(`[data-test-id="remove-field-button-${id}"]`).count(),
				).resolves.toBe(required ? 0 : 1);
			}
		}
		// The pre-filled Company role is not asked for.
		expect(text[1]).not.toContain('Company Email');
		await closeNode(page);
		await page.setViewportSize(VIEWPORT);
	});

	it('shows Send and Wait’s Template Fields and Signers by Role mapped from the deal (README picture)', async () => {
		await page.goto(`${n8n.baseUrl}/workflow/${templateWorkflowId}`);
		await page.addStyleTag({ content: STABLE_CSS });
		await canvasNode(page, FROM_TEMPLATE).waitFor();
		await page.setViewportSize(TEMPLATE_VIEWPORT);
		const ndv = await openNode(page, FROM_TEMPLATE);
		for (const [id] of [...MAPPED_FIELDS, ...MAPPED_ROLES])
			await ndv.locator(`[data-test-id="parameter-input-${id}"]`).waitFor();
		const text = await ndv
			.locator('[data-test-id="resource-mapper-container"]')
			.evaluateAll((containers) =>
				containers.map((container) => (container as unknown as { innerText: string }).innerText),
			);
		for (const [index, entries] of [MAPPED_FIELDS, MAPPED_ROLES].entries()) {
			for (const [, label, , value] of entries) {
				expect(text[index]).toContain(label);
				expect(text[index]).toContain(value.slice(1));
			}
		}

		await parkPointer(page);
		const file = await screenshot(page, 'template-fields.png', await mapperClip(ndv));
		expect(fs.statSync(file).size).toBeGreaterThan(5_000);
		await closeNode(page);
		await page.setViewportSize(VIEWPORT);
	});

	describe('the walk of issue 48: deal won → contract from a template → Send and Wait → If, from an empty canvas', () => {
		const walkIt = (when: 'before' | 'after', version: number) =>
			(NODE_VERSIONS.includes(version) ? it : it.skip)(
				`${when}: node version ${version}, built in the editor, saved as built, runs to the If's true branch once signed`,
				async () => {
					await page.setViewportSize(VIEWPORT);
					const context = { page, n8n, sandbox, apiKey, template: salesContract };
					const result = await walkTheWorkflow(context, version).catch(async (error) => {
						await page.screenshot({ path: path.join(OUT_DIR, `walk-${when}-failed.png`) });
						throw error;
					});
					await runTheWalkedWorkflow(context, result);
					walks[when] = result;
				},
			);
		walkIt('before', 1);
		walkIt('after', 2);

		it('the walk after touches no more fields and opens no more panels than before, and finds the Template with fewer fields above it; the counts are in docs/editor-walk.md', () => {
			const { before, after } = walks;
			if (!before) throw new Error('the walk before did not finish');
			// Until node version 2 exists there is no "after": the table shows the walk before only.
			if (NODE_VERSIONS.includes(2)) {
				if (!after) throw new Error('the walk after did not finish');
				// Measured on n8n 2.41.1: as many fields and panels (10 and 10) either way. Version 2
				// moves the template up (Document From, then Template) rather than saving steps: in
				// version 1 "Additional Fields › Add Field" is the one step Document From replaces.
				expect(after.fields.length).toBeLessThanOrEqual(before.fields.length);
				expect(after.panels.length).toBeLessThanOrEqual(before.panels.length);
				expect(after.aboveTemplate.length).toBeLessThan(before.aboveTemplate.length);
			}
			const table = walkTable(before, after);
			if (UPDATE) fs.writeFileSync(WALK_DOC, table);
			else {
				fs.writeFileSync(path.join(OUT_DIR, 'editor-walk.md'), table);
				expect(fs.readFileSync(WALK_DOC, 'utf8')).toBe(table);
			}
		});
	});
});

/** The box of both resource mappers (each holds its own labels): Template Fields, then Signers by Role. */
async function mapperClip(
	ndv: Locator,
): Promise<{ x: number; y: number; width: number; height: number }> {
	const panel = await ndv.locator('.node-settings').boundingBox();
	if (!panel) throw new Error('the parameter panel has no box');
	const [top, bottom] = await ndv
		.locator('.node-settings [data-test-id="resource-mapper-container"]')
		.evaluateAll((items) => [
			Math.min(...items.map((item) => item.getBoundingClientRect().top)),
			Math.max(...items.map((item) => item.getBoundingClientRect().bottom)),
		]);
	if (!(bottom > top)) throw new Error('the resource mappers have no box');
	return { x: panel.x, y: top - 12, width: panel.width, height: bottom - top + 24 };
}

async function expectVisible(locator: Locator): Promise<void> {
	await locator.waitFor({ state: 'visible' });
}
