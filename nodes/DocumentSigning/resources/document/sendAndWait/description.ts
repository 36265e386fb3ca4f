import type { INodeProperties, INodePropertyOptions, IWebhookDescription } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { signatureLayoutOption } from '../../../../shared/webhookSignature';
import { resourceLocator, searchListPaging, showFor } from '../../../shared/fields';
import { EARLIER_VERSIONS, FROM_VERSIONS, sendAndWaitDocumentFrom } from '../documentFrom';

const show = showFor('document', [SEND_AND_WAIT_OPERATION]);
const showForDraft = showFor('document', [SEND_AND_WAIT_OPERATION], { documentSource: ['draft'] });
const afterInterval = { show: { limitType: ['afterTimeInterval'] } };

const option = (...[name, value, description]: string[]) => ({ name, value, description });
type Rest = Omit<INodeProperties, 'displayName' | 'name' | 'type'>;
const field = (displayName: string, name: string, type: INodeProperties['type'], rest: Rest) =>
	({ displayName, name, type, ...rest }) as INodeProperties;

const LIMIT_VALUES: INodeProperties[] = [
	field('Limit Type', 'limitType', 'options', {
		default: 'afterTimeInterval',
		options: [
			option('After Time Interval', 'afterTimeInterval', 'Wait at most this long'),
			option('At Specified Time', 'atSpecifiedTime', 'Wait at most until this date and time'),
		],
	}),
	field('Amount', 'resumeAmount', 'number', {
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: 7,
		displayOptions: afterInterval,
	}),
	field('Unit', 'resumeUnit', 'options', {
		default: 'days',
		displayOptions: afterInterval,
		options: [option('Days', 'days'), option('Hours', 'hours'), option('Minutes', 'minutes')],
	}),
	field('Max Date and Time', 'maxDateAndTime', 'dateTime', {
		default: '',
		description: 'Continue at this date and time at the latest',
		displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
	}),
];

const resumeOn = (value: string, versions: number[], description: string) =>
	field('Resume On', 'resumeOn', 'options', {
		default: value,
		options: [
			option(
				'Any Final State',
				'anyFinal',
				'Continue when the document is completed, declined, expired or cancelled (approved is true only when completed)',
			),
			option('Completed Only', 'completed', 'Continue only once every signer has signed'),
		],
		description,
		// For n8n's AI workflow builder (n8n 2.x): plain English, no expressions (npm run lint).
		builderHint: {
			propertyHint:
				"For an approval, set Any Final State and put an If node on approved after this node: approved is true only when every signer signed, false when the document was declined, expired or cancelled (its status says which). Completed Only continues only when signed; an unsigned end is then this node's error and stops the workflow unless Settings > On Error routes it. Without this option node version 2 uses Any Final State, version 1 Completed Only. After Limit Wait Time runs out the node passes on its input unchanged, without approved.",
		},
		displayOptions: { show: { '@version': versions } },
	});

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

const draftLocator = (shownWith: Parameters<typeof showFor>[2]) =>
	resourceLocator({
		name: 'waitDocumentId',
		displayName: 'Draft',
		description: 'The draft to send; its signers are those saved with it',
		searchListMethod: 'searchDocuments',
		idPlaceholder: 'doc_8f3k2j',
		url: { placeholder: 'https://app.example.com/sign/doc_8f3k2j', pathSegment: 'documents|sign' },
		displayOptions: showFor('document', [SEND_AND_WAIT_OPERATION], shownWith),
	});

/** Where the document comes from, shown before Create's fields (documentFrom.ts in version 2). */
export const sendAndWaitSourceFields: INodeProperties[] = [
	field('Document', 'documentSource', 'options', {
		noDataExpression: true,
		default: 'new',
		displayOptions: showFor('document', [SEND_AND_WAIT_OPERATION], EARLIER_VERSIONS),
		options: [
			option('Existing Draft', 'draft', 'Send a document saved as a draft'),
			option('New Document', 'new', 'Create the document from the fields below and send it'),
		],
	}),
	sendAndWaitDocumentFrom,
	draftLocator({ ...EARLIER_VERSIONS, documentSource: ['draft'] }),
	draftLocator({ ...FROM_VERSIONS, documentFrom: ['draft'] }),
	...searchListPaging(showForDraft),
];

/** Shown after Create's fields. */
export const sendAndWaitFields: INodeProperties[] = [
	field(
		'The workflow stops here until the document is signed, then continues with the document as the service reports it ("approved": true once signed). If the time limit passes first, n8n passes on this node\'s input unchanged.',
		'sendAndWaitNotice',
		'notice',
		{ default: '', displayOptions: show },
	),
	field('Options', 'waitOptions', 'collection', {
		placeholder: 'Add Option',
		default: {},
		displayOptions: show,
		options: [
			field('Attach Signed File', 'attachSignedFile', 'boolean', {
				default: false,
				description:
					'Whether to download the signed PDF when the document is completed and pass it on as binary data',
			}),
			field('Limit Wait Time', 'limitWaitTime', 'fixedCollection', {
				default: {
					values: { limitType: 'afterTimeInterval', resumeAmount: 7, resumeUnit: 'days' },
				},
				description:
					'How long to wait at most. Without a limit the wait lasts until the document reaches a final state.',
				options: [{ displayName: 'Values', name: 'values', values: LIMIT_VALUES }],
			}),
			field('Put Signed File in Field', 'binaryPropertyName', 'string', {
				default: 'data',
				description: 'The output binary field for the signed PDF (with Attach Signed File)',
			}),
			resumeOn(
				'completed',
				[1],
				'Without this option: Completed, or Any Final State when the node is an AI agent’s human review step (a decline then rejects the tool call). With Completed, a decline, expiry or cancel ends the wait as this node’s error (see Settings › On Error).',
			),
			resumeOn(
				'anyFinal',
				[2],
				'Without this option: Any Final State, so a decline, expiry or cancel continues with approved false (branch on it with an If node). Completed Only continues only when signed: an unsigned end then stops the workflow here unless Settings › On Error routes it.',
			),
			signatureLayoutOption,
			field('Verify Signatures', 'verifySignature', 'boolean', {
				default: true,
				description:
					"Whether to act only on deliveries signed with the wait's secret. Turn off only for a service that does not sign deliveries; the document's status is read from the service either way.",
			}),
		],
	}),
];
