import type { INodeProperties, INodePropertyOptions, IWebhookDescription } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { signatureLayoutOption } from '../../../../shared/signatureLayout';
import { resourceLocator, searchListPaging, showFor } from '../../../shared/fields';

const show = showFor('document', [SEND_AND_WAIT_OPERATION]);
const showForDraft = showFor('document', [SEND_AND_WAIT_OPERATION], { documentSource: ['draft'] });

const RESUME_ON = {
	displayName: 'Resume On',
	name: 'resumeOn',
	type: 'options',
	default: 'anyFinal',
	options: [
		{
			name: 'Any Final State',
			value: 'anyFinal',
			description:
				'Continue when the document is completed, declined, expired or cancelled (approved is true only when completed)',
		},
		{
			name: 'Completed Only',
			value: 'completed',
			description: 'Continue only once every signer has signed',
		},
	],
} satisfies INodeProperties;

export const sendAndWaitOperation: INodePropertyOptions = {
	name: 'Send and Wait for Signature',
	value: SEND_AND_WAIT_OPERATION,
	action: 'Send a document and wait for its signature',
	description:
		'Send a new document or a draft, and continue the workflow once it is signed (or reaches another final state)',
};

/** Resume calls go to `<webhook-waiting base>/<execution>/<node id>`, as for n8n's own nodes. */
export const sendAndWaitWebhooks: IWebhookDescription[] = [
	{
		name: 'default',
		httpMethod: 'POST',
		responseMode: 'onReceived',
		responseData: '',
		path: '={{ $nodeId }}',
		restartWebhook: true,
		isFullPath: true,
	},
];

export const sendAndWaitFields: INodeProperties[] = [
	{
		displayName: 'Document',
		name: 'documentSource',
		type: 'options',
		noDataExpression: true,
		default: 'new',
		displayOptions: show,
		options: [
			{ name: 'Existing Draft', value: 'draft', description: 'Send a document saved as a draft' },
			{
				name: 'New Document',
				value: 'new',
				description: 'Create the document from the fields below and send it',
			},
		],
	},
	resourceLocator({
		name: 'waitDocumentId',
		displayName: 'Draft',
		description: 'The draft to send; its signers are those saved with it',
		searchListMethod: 'searchDocuments',
		idPlaceholder: 'doc_8f3k2j',
		url: { placeholder: 'https://app.example.com/sign/doc_8f3k2j', pathSegment: 'documents|sign' },
		displayOptions: showForDraft,
	}),
	...searchListPaging(showForDraft),
	{
		displayName:
			'The workflow stops here until the document is signed, then continues with the document as the service reports it ("approved": true once signed). If the time limit passes first, n8n passes on this node\'s input unchanged.',
		name: 'sendAndWaitNotice',
		type: 'notice',
		default: '',
		displayOptions: show,
	},
	{
		displayName: 'Options',
		name: 'waitOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: show,
		options: [
			{
				displayName: 'Attach Signed File',
				name: 'attachSignedFile',
				type: 'boolean',
				default: false,
				description:
					'Whether to download the signed PDF when the document is completed and pass it on as binary data',
			},
			{
				displayName: 'Limit Wait Time',
				name: 'limitWaitTime',
				type: 'fixedCollection',
				default: {
					values: { limitType: 'afterTimeInterval', resumeAmount: 7, resumeUnit: 'days' },
				},
				description:
					'How long to wait at most. Without a limit the wait lasts until the document reaches a final state.',
				options: [
					{
						displayName: 'Values',
						name: 'values',
						values: [
							{
								displayName: 'Limit Type',
								name: 'limitType',
								type: 'options',
								default: 'afterTimeInterval',
								options: [
									{
										name: 'After Time Interval',
										value: 'afterTimeInterval',
										description: 'Wait at most this long',
									},
									{
										name: 'At Specified Time',
										value: 'atSpecifiedTime',
										description: 'Wait at most until this date and time',
									},
								],
							},
							{
								displayName: 'Amount',
								name: 'resumeAmount',
								type: 'number',
								typeOptions: { minValue: 0, numberPrecision: 2 },
								default: 7,
								displayOptions: { show: { limitType: ['afterTimeInterval'] } },
							},
							{
								displayName: 'Unit',
								name: 'resumeUnit',
								type: 'options',
								default: 'days',
								displayOptions: { show: { limitType: ['afterTimeInterval'] } },
								options: [
									{ name: 'Days', value: 'days' },
									{ name: 'Hours', value: 'hours' },
									{ name: 'Minutes', value: 'minutes' },
								],
							},
							{
								displayName: 'Max Date and Time',
								name: 'maxDateAndTime',
								type: 'dateTime',
								default: '',
								description: 'Continue at this date and time at the latest',
								displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
							},
						],
					},
				],
			},
			{
				displayName: 'Put Signed File in Field',
				name: 'binaryPropertyName',
				type: 'string',
				default: 'data',
				description: 'The output binary field for the signed PDF (with Attach Signed File)',
			},
			{
				...RESUME_ON,
				default: 'completed',
				description:
					'Without this option: Completed, or Any Final State when the node is an AI agent’s human review step (a decline then rejects the tool call). With Completed, a decline, expiry or cancel ends the wait as this node’s error (see Settings › On Error).',
				displayOptions: { show: { '@version': [1] } },
			},
			{
				...RESUME_ON,
				default: 'anyFinal',
				description:
					'Without this option: Any Final State, so a decline, expiry or cancel continues with approved false (branch on it with an If node). Completed Only continues only when signed: an unsigned end then stops the workflow here unless Settings › On Error routes it.',
				displayOptions: { show: { '@version': [2] } },
			},
			signatureLayoutOption,
			{
				displayName: 'Verify Signatures',
				name: 'verifySignature',
				type: 'boolean',
				default: true,
				description:
					"Whether to act only on deliveries signed with the wait's secret. Turn off only for a service that does not sign deliveries; the document's status is read from the service either way.",
			},
		],
	},
];
