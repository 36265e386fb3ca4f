import type { INodeProperties, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes, SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../shared/transport';
import { searchDocuments, searchTeamMembers, searchTemplates } from './listSearch';
import { getTemplateFields, getTemplateRoles } from './resourceMapping';
import { documentFields, documentOperations } from './resources/document';
import { sendAndWaitWebhooks } from './resources/document/sendAndWait/description';
import { executeSendAndWait } from './resources/document/sendAndWait/execute';
import { receiveWaitCall } from './resources/document/sendAndWait/webhook';
import { reportFields, reportOperations } from './resources/report';
import { signingRequestFields, signingRequestOperations } from './resources/signingRequest';
import { teamMemberFields, teamMemberOperations } from './resources/teamMember';
import { templateFields, templateOperations } from './resources/template';
import { webhookFields, webhookOperations } from './resources/webhook';
import { byName } from './shared/fields';

/** Each resource: its name and value, its Operation dropdown and its fields, in the editor's order. */
const RESOURCES: Array<[string, string, INodeProperties, INodeProperties[]]> = [
	['Document', 'document', documentOperations, documentFields],
	['Signing Request', 'signingRequest', signingRequestOperations, signingRequestFields],
	['Template', 'template', templateOperations, templateFields],
	['Team Member', 'teamMember', teamMemberOperations, teamMemberFields],
	['Webhook', 'webhook', webhookOperations, webhookFields],
	['Report', 'report', reportOperations, reportFields],
];

export class DocumentSigning implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Document Signing',
		name: 'documentSigning',
		icon: {
			light: 'file:../../icons/documentSigning.svg',
			dark: 'file:../../icons/documentSigning.dark.svg',
		},
		group: ['transform'],
		// 2: Send and Wait resumes on Any Final State by default (a decline continues, not approved);
		// Create and Send and Wait choose Document From first (the template at the top); List Paging
		// is the credential's.
		version: [1, 2],
		defaultVersion: 2,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description:
			'Send documents for e-signature, follow signing requests and manage templates, team and reports',
		defaults: { name: 'Document Signing' },
		// For n8n's AI workflow builder (n8n 2.x); older n8n ignores it. Plain English, no expressions.
		builderHint: {
			searchHint:
				'Sends documents for e-signature and manages the signing service: create a document from a file of an earlier node or from a template whose fields are filled from the input, send and remind signers, get status, download the signed PDF or audit trail, and manage templates, team members, webhooks and reports. To pause the workflow until a document is signed, use Document > Send and Wait for Signature: it continues with the document and approved true once everyone signed, or approved false when it was declined, expired or cancelled, so branch on approved with an If node. Send and Wait sends one document per input item, up to 100, and continues once when all of them are final. To start other workflows on signing events, use Document Signing Trigger.',
			relatedNodes: [
				{
					nodeType: 'n8n-nodes-base.hubspotTrigger',
					relationHint: 'Typical start: a deal won in HubSpot creates and sends its contract',
				},
				{
					nodeType: 'n8n-nodes-base.pipedriveTrigger',
					relationHint: 'Typical start: a deal won in Pipedrive creates and sends its contract',
				},
				{
					nodeType: 'n8n-nodes-base.if',
					relationHint:
						'After Send and Wait for Signature: branch on approved (true only when every signer signed)',
				},
				{
					nodeType: 'n8n-nodes-base.splitInBatches',
					relationHint:
						'Before Send and Wait for Signature with more than 100 items: Loop Over Items with batch size 100, as it takes up to 100 items per execution',
				},
				{
					nodeType: 'n8n-nodes-base.googleDrive',
					relationHint:
						'After Document > Download or Send and Wait with Attach Signed File: file the signed PDF',
				},
				{
					nodeType: 'n8n-nodes-document-signing.documentSigningTrigger',
					relationHint: 'Starts a separate workflow on signing events such as Document Completed',
				},
			],
		},
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		// Send and Wait's resume calls only (restartWebhook: never registered at activation).
		webhooks: sendAndWaitWebhooks,
		// No baseURL, and parameter names unique across resources: see routedRequest.ts.
		requestDefaults: {
			headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
			json: true,
		},
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: byName(RESOURCES.map(([name, value]) => ({ name, value }))),
				default: 'document',
			},
			...RESOURCES.map(([, , operations]) => operations),
			...RESOURCES.flatMap(([, , , fields]) => fields),
		],
	};

	methods = {
		listSearch: { searchDocuments, searchTemplates, searchTeamMembers },
		resourceMapping: { getTemplateFields, getTemplateRoles },
	};

	/** Operations of more than one request, run instead of the routing engine. */
	customOperations = { document: { [SEND_AND_WAIT_OPERATION]: executeSendAndWait } };

	/** Resume calls of Send and Wait for Signature's waits. */
	webhook = receiveWaitCall;
}
