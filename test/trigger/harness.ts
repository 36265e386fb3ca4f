/**
 * A small stand-in for the n8n host around the Document Signing Trigger: the node's
 * webhookMethods and webhook() run inside n8n-core's REAL HookContext and WebhookContext, on a
 * real n8n-workflow Workflow, and make real HTTP requests through n8n-core's request helpers.
 *
 * What it imitates from n8n 2.41 (packages/cli, read from the installed host):
 * - activation = checkExists, then create if it said false (WebhookService.createWebhookIfNotExists);
 *   deactivation = delete. Static data is saved afterwards only if it changed (`__dataChanged`),
 *   as WorkflowStaticDataService.saveStaticData does.
 * - each incoming request builds a fresh Workflow from the SAVED static data (LiveWebhooks loads
 *   the workflow from the database per request) and saves it again if webhook() changed it, but
 *   only when the request started no execution: when one starts, WorkflowRunner.run builds another
 *   Workflow over the same static-data object (establishContextForPersistence), which clears its
 *   `__dataChanged` mark before LiveWebhooks saves, so n8n 2.41 drops the change (seen in the real
 *   n8n 2.41.1). `savesStaticDataWhenExecutionStarts` imitates an n8n that keeps it.
 * - an execution starts exactly when webhook() returns `workflowData` (executeWebhook).
 * - restart() forgets what the node keeps in the process's memory.
 */
import { randomUUID } from 'crypto';
import { HookContext, WebhookContext } from 'n8n-core';
import {
	Workflow,
	type ICredentialDataDecryptedObject,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type IWebhookData,
	type IWebhookResponseData,
	type IWorkflowExecuteAdditionalData,
	type WorkflowActivateMode,
} from 'n8n-workflow';

import { DocumentSigningTrigger } from '../../nodes/DocumentSigningTrigger/DocumentSigningTrigger.node';
import { forgetDeliveriesInProcess } from '../../nodes/DocumentSigningTrigger/staticData';
import { hostAdditionalData, NodeTypes } from '../helpers/n8nHost';

export const TRIGGER_TYPE = 'n8n-nodes-document-signing.documentSigningTrigger';
export const NODE_NAME = 'Document Signing Trigger';

const trigger = new DocumentSigningTrigger();

/** The part of an express Response that webhook nodes use. */
export class FakeResponse {
	statusCode = 200;
	body: unknown;
	headersSent = false;
	ended = false;

	status(code: number) {
		this.statusCode = code;
		return this;
	}

	json(body: unknown) {
		this.body = body;
		this.headersSent = true;
		this.ended = true;
		return this;
	}

	send(body: unknown) {
		return this.json(body);
	}

	end() {
		this.ended = true;
		return this;
	}

	setHeader() {
		return this;
	}
}

export interface IncomingDelivery {
	headers: Record<string, string | string[] | undefined>;
	/** Exactly the bytes received. */
	rawBody: Buffer;
}

export interface DeliveryOutcome {
	/** What n8n would answer the sender. */
	status: number;
	body: unknown;
	/** Whether n8n would start an execution. */
	started: boolean;
	items: INodeExecutionData[];
	result: IWebhookResponseData;
}

export interface TriggerHostOptions {
	baseUrl: string;
	apiKey: string;
	/** n8n's public webhook base, e.g. http://127.0.0.1:5678/webhook */
	webhookBaseUrl: string;
	events: string[];
	options?: IDataObject;
	/** See the file comment; default false, as n8n 2.41 behaves. */
	savesStaticDataWhenExecutionStarts?: boolean;
}

/** One workflow holding one Document Signing Trigger, and the bits of n8n that host it. */
export class TriggerHost {
	readonly workflowId = `wf-${randomUUID().slice(0, 8)}`;
	readonly nodeWebhookId = randomUUID();
	/** What n8n has saved in its database for this workflow. */
	savedStaticData: IDataObject = {};
	parameters: IDataObject;
	credentials: ICredentialDataDecryptedObject;
	webhookBaseUrl: string;
	/** Executions n8n would have started, in order. */
	readonly executions: INodeExecutionData[][] = [];
	savesStaticDataWhenExecutionStarts: boolean;

	constructor(options: TriggerHostOptions) {
		this.savesStaticDataWhenExecutionStarts = options.savesStaticDataWhenExecutionStarts ?? false;
		this.parameters = { events: options.events, options: options.options ?? {} };
		this.credentials = { baseUrl: options.baseUrl, apiKey: options.apiKey };
		this.webhookBaseUrl = options.webhookBaseUrl;
	}

	get nodeStaticData(): IDataObject {
		return (this.savedStaticData[`node:${NODE_NAME}`] ?? {}) as IDataObject;
	}

	/** The production URL n8n gives this node. */
	get webhookUrl(): string {
		return `${this.webhookBaseUrl}/${this.nodeWebhookId}/webhook`;
	}

	private node(): INode {
		return {
			id: 'trigger-node',
			name: NODE_NAME,
			type: TRIGGER_TYPE,
			typeVersion: 1,
			position: [0, 0],
			webhookId: this.nodeWebhookId,
			parameters: structuredClone(this.parameters) as INode['parameters'],
			credentials: { documentSigningApi: { id: 'cred-1', name: 'Sandbox' } },
		};
	}

	/** A fresh Workflow over the saved static data, as n8n builds one per activation or request. */
	private workflow(): Workflow {
		return new Workflow({
			id: this.workflowId,
			name: 'Trigger test',
			nodes: [this.node()],
			connections: {},
			active: true,
			nodeTypes: new NodeTypes({ [TRIGGER_TYPE]: trigger }),
			staticData: structuredClone(this.savedStaticData),
			settings: {},
		});
	}

	private additionalData(): IWorkflowExecuteAdditionalData {
		return hostAdditionalData(() => this.credentials, {}, this.webhookBaseUrl);
	}

	private webhookData(workflow: Workflow, additionalData: IWorkflowExecuteAdditionalData): IWebhookData {
		const description = trigger.description.webhooks![0];
		return {
			httpMethod: 'POST',
			node: NODE_NAME,
			path: `${this.nodeWebhookId}/webhook`,
			webhookDescription: description,
			workflowId: workflow.id,
			workflowExecuteAdditionalData: additionalData,
			webhookId: this.nodeWebhookId,
		};
	}

	private save(workflow: Workflow): void {
		if ((workflow.staticData as IDataObject & { __dataChanged?: boolean }).__dataChanged === true) {
			this.savedStaticData = JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject;
		}
	}

	/** Runs one lifecycle method in a real HookContext; `save: false` imitates n8n dying before it saved. */
	async runHook(
		method: 'checkExists' | 'create' | 'delete',
		{ activation = 'activate' as WorkflowActivateMode, save = true } = {},
	): Promise<boolean> {
		const workflow = this.workflow();
		const result = await this.hook(workflow, method, activation);
		if (save) this.save(workflow);
		return result;
	}

	private async hook(workflow: Workflow, method: 'checkExists' | 'create' | 'delete', activation: WorkflowActivateMode) {
		const additionalData = this.additionalData();
		const node = workflow.getNode(NODE_NAME)!;
		const context = new HookContext(workflow, node, additionalData, 'webhook', activation, this.webhookData(workflow, additionalData));
		return await trigger.webhookMethods.default[method].call(context);
	}

	/** Activation as n8n does it: checkExists, create when needed, then save the static data. */
	async activate({ activation = 'activate' as WorkflowActivateMode, save = true } = {}): Promise<void> {
		const workflow = this.workflow();
		try {
			if (!(await this.hook(workflow, 'checkExists', activation))) await this.hook(workflow, 'create', activation);
		} finally {
			if (save) this.save(workflow);
		}
	}

	async deactivate(): Promise<void> {
		const workflow = this.workflow();
		try {
			await this.hook(workflow, 'delete', 'activate');
		} finally {
			this.save(workflow);
		}
	}

	/** An n8n restart: the process's memory is gone, the database (saved static data) stays. */
	static restart(): void {
		forgetDeliveriesInProcess();
	}

	/** One incoming request through webhook() in a real WebhookContext. */
	async receive(delivery: IncomingDelivery): Promise<DeliveryOutcome> {
		const workflow = this.workflow();
		const additionalData = this.additionalData();
		const res = new FakeResponse();
		const headers = Object.fromEntries(Object.entries(delivery.headers).map(([key, value]) => [key.toLowerCase(), value]));
		let parsed: unknown = {};
		try {
			parsed = JSON.parse(delivery.rawBody.toString('utf8'));
		} catch {
			parsed = {};
		}
		additionalData.httpRequest = {
			method: 'POST',
			headers,
			rawBody: delivery.rawBody,
			body: parsed,
			params: {},
			query: {},
		} as unknown as IWorkflowExecuteAdditionalData['httpRequest'];
		additionalData.httpResponse = res as unknown as IWorkflowExecuteAdditionalData['httpResponse'];
		const node = workflow.getNode(NODE_NAME)!;
		const context = new WebhookContext(workflow, node, additionalData, 'webhook', this.webhookData(workflow, additionalData), [], null);
		const result = await trigger.webhook.call(context);

		// executeWebhook: workflowData starts an execution; otherwise n8n answers and stops.
		const started = result.workflowData !== undefined;
		if (!started || this.savesStaticDataWhenExecutionStarts) this.save(workflow);
		const items = started ? (result.workflowData?.[0] ?? []) : [];
		if (started) this.executions.push(items);
		if (result.noWebhookResponse) return { status: res.statusCode, body: res.body, started, items, result };
		if (result.webhookResponse !== undefined) return { status: 200, body: result.webhookResponse, started, items, result };
		return { status: 200, body: { message: 'Workflow was started' }, started, items, result };
	}
}
