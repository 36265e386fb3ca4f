import type {
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../shared/transport';
import {
	ANY_EVENT,
	eventLabel,
	SIGNATURE_TOLERANCE_SECONDS,
	WEBHOOK_EVENT_DESCRIPTIONS,
	WEBHOOK_EVENTS,
} from '../shared/vocabulary';
import { MAX_SIGNATURE_TOLERANCE_SECONDS, signatureLayoutOption } from '../shared/webhookSignature';
import { passClaimedDeliveries } from './claim';
import { receiveDelivery } from './delivery';
import { startPolling } from './polling';
import { checkExists, create, deleteWebhook } from './registration';

/** Webhook mode only; in Polling mode n8n registers no webhook (an empty method is none). */
const WEBHOOK_MODE_ONLY = { show: { '/receiveEventsBy': ['webhook'] } };

const defaultWebhook: IWebhookDescription = {
	name: 'default',
	// n8n registers one webhook per method the expression gives: none for '' (Polling).
	httpMethod: '={{$parameter["receiveEventsBy"] === "polling" ? "" : "POST"}}',
	responseMode: 'onReceived',
	path: 'webhook',
	ndvHideUrl: '={{$parameter["receiveEventsBy"] === "polling"}}',
};

export class DocumentSigningTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Document Signing Trigger',
		name: 'documentSigningTrigger',
		icon: {
			light: 'file:../../icons/documentSigning.svg',
			dark: 'file:../../icons/documentSigning.dark.svg',
		},
		group: ['trigger'],
		// Versions 1 and 2 behave the same; both load, as saved workflows carry either.
		version: [1, 2],
		defaultVersion: 2,
		subtitle: '={{ ($parameter["events"] || []).join(", ") }}',
		description: 'Starts the workflow when something happens to a document or signing request',
		defaults: { name: 'Document Signing Trigger' },
		// For n8n's AI workflow builder (n8n 2.x); older n8n ignores it. Plain English, no expressions.
		builderHint: {
			searchHint:
				'Starts a workflow when something happens to a document or signing request at the document signing service: sent, viewed, signed by one signer, completed by all, declined, expired, cancelled or deleted, a signing request sent or reminded. Each execution has the event name (for example document.completed), its time and data with the document. For the signed PDF, choose Document Completed and turn on Options > Attach Signed File: it arrives as binary field data. Receives events by webhook, registered when the workflow is published; Polling reads the audit log instead when the service cannot reach n8n. To wait for one document inside the workflow that sent it, use the Document Signing node with Send and Wait for Signature instead.',
			relatedNodes: [
				{
					nodeType: 'n8n-nodes-base.googleDrive',
					relationHint:
						'After Document Completed with Attach Signed File: upload the signed PDF (binary field data) to a folder',
				},
				{
					nodeType: 'n8n-nodes-base.switch',
					relationHint: 'With several events: route each by the event field of the output',
				},
				{
					nodeType: 'n8n-nodes-base.hubspot',
					relationHint: 'Update the deal once its contract is completed or declined',
				},
				{
					nodeType: 'n8n-nodes-base.pipedrive',
					relationHint: 'Update the deal once its contract is completed or declined',
				},
				{
					nodeType: 'n8n-nodes-document-signing.documentSigning',
					relationHint: 'Get or download the document the event names, or send the next document',
				},
			],
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		webhooks: [defaultWebhook],
		properties: [
			{
				displayName: 'Receive Events By',
				name: 'receiveEventsBy',
				type: 'options',
				noDataExpression: true,
				default: 'webhook',
				builderHint: {
					propertyHint:
						"Keep Webhook (events arrive as they happen) unless the user says the signing service cannot reach n8n, for example behind a firewall or without a public URL. Polling reads the service's audit log every Poll Every (Minutes) and registers nothing; its items have eventId instead of deliveryId and webhookId.",
				},
				options: [
					{
						name: 'Polling',
						value: 'polling',
						description:
							"Reads the service's audit log on a schedule; nothing is registered at the service, so n8n need not be reachable",
					},
					{
						name: 'Webhook',
						value: 'webhook',
						description: 'The service calls n8n as each event happens (the service must reach n8n)',
					},
				],
			},
			{
				displayName: 'Poll Every (Minutes)',
				name: 'pollMinutes',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 60, numberPrecision: 0 },
				default: 1,
				description: 'How often n8n asks the service for new events',
				displayOptions: { show: { receiveEventsBy: ['polling'] } },
			},
			{
				displayName: 'Catch Up Missed Events',
				name: 'catchUp',
				type: 'options',
				default: 15,
				description:
					"How often n8n reads the service's audit log for events whose delivery never reached it (n8n down, a webhook removed at the service), and at each start; each event still starts one execution",
				options: [
					{ name: 'Every 15 Minutes', value: 15 },
					{ name: 'Every 5 Minutes', value: 5 },
					{ name: 'Every Hour', value: 60 },
					{ name: 'Every Minute', value: 1 },
					{ name: 'Off', value: 0 },
				],
				displayOptions: { show: { receiveEventsBy: ['webhook'] } },
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				default: [],
				description: 'The events that start the workflow',
				builderHint: {
					propertyHint:
						'Choose only the events the workflow handles, for example Document Completed to file the signed PDF; Any Event also starts it on events added later, such as every view. With more than one event, branch on the event field of the output (for example document.declined). Options > Attach Signed File adds the PDF only for Document Completed.',
				},
				options: [
					{
						name: 'Any Event',
						value: ANY_EVENT,
						description: 'Every event, including ones added later',
					},
					...[...WEBHOOK_EVENTS]
						.sort((a, b) => eventLabel(a).localeCompare(eventLabel(b)))
						.map((event) => ({
							name: eventLabel(event),
							value: event,
							description: WEBHOOK_EVENT_DESCRIPTIONS[event],
						})),
				],
			},
			{
				displayName: 'Verify Signatures',
				name: 'verifySignature',
				type: 'boolean',
				default: true,
				description:
					"Whether to accept only deliveries signed with this webhook's secret (the layouts in Options > Signature Layout)",
				displayOptions: { show: { receiveEventsBy: ['webhook'] } },
			},
			{
				displayName:
					"Deliveries are not verified by signature. A delivery starts the workflow only when the service confirms it, and what passes on is the service's own record of it (its payload), never the request's body. A service that keeps no delivery records starts nothing this way. Turn this off only for a service that does not sign deliveries.",
				name: 'unverifiedNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { verifySignature: [false], receiveEventsBy: ['webhook'] } },
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Attach Signed File',
						name: 'attachSignedFile',
						type: 'boolean',
						default: false,
						description:
							'Whether to download the signed PDF when a document is completed and pass it on as binary field "data" (only for the Document Completed event)',
					},
					{
						displayName: 'Include Headers',
						name: 'includeHeaders',
						type: 'boolean',
						default: false,
						description: 'Whether to add the request headers (without the signature) to the output',
						displayOptions: WEBHOOK_MODE_ONLY,
					},
					{ ...signatureLayoutOption, displayOptions: WEBHOOK_MODE_ONLY },
					{
						displayName: 'Signature Tolerance (Seconds)',
						name: 'signatureToleranceSeconds',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: MAX_SIGNATURE_TOLERANCE_SECONDS },
						default: SIGNATURE_TOLERANCE_SECONDS,
						description:
							"How far a delivery's signed time may be from n8n's clock before it is refused (at most one hour)",
						displayOptions: WEBHOOK_MODE_ONLY,
					},
				],
			},
		],
	};

	// n8n's community lint wants each lifecycle method written out here.
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await checkExists.call(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await create.call(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await deleteWebhook.call(this);
			},
		},
	};
	webhook = receiveDelivery;
	trigger = startPolling;
	execute = passClaimedDeliveries;
}
