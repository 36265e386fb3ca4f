/**
 * The small host that n8n-core's real contexts need around our nodes in tests: a node-type
 * registry, credentials held in plain objects with a helper that calls the credential's own
 * `authenticate` function, and the URLs of an instance on 127.0.0.1.
 */
import { ExecutionLifecycleHooks, RoutingNode, type ExecuteContext } from 'n8n-core';
import {
	ICredentialsHelper,
	type ICredentialDataDecryptedObject,
	type ICredentials,
	type ICredentialType,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type INode,
	type INodeType,
	type INodeTypes,
	type IVersionedNodeType,
	type IWorkflowExecuteAdditionalData,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { DocumentSigningApi } from '../../credentials/DocumentSigningApi.credentials';

/**
 * Whether n8n gives a node type an execute() that runs its routing (n8n's NodeTypes,
 * `shouldAssignExecuteMethod` in packages/cli utils.ts, read from the installed 2.41.1 host): a
 * declarative node gets one even when it has a webhook or methods.
 * e2e/harnessParity.e2e.test.ts checks this against the installed n8n's own function.
 */
export function n8nAssignsExecute(nodeType: INodeType): boolean {
	const declarative = nodeType.description.requestDefaults !== undefined;
	return (
		!nodeType.execute &&
		!nodeType.supplyData &&
		!nodeType.poll &&
		!nodeType.trigger &&
		(!nodeType.webhook || declarative) &&
		(!nodeType.methods || declarative)
	);
}

/** The node type as n8n's NodeTypes hands it to the engine: with that execute() where n8n adds it. */
export function asN8nLoadsIt(nodeType: INodeType): INodeType {
	if (!n8nAssignsExecute(nodeType)) return nodeType;
	return Object.create(nodeType, {
		execute: {
			value: async function (this: IExecuteFunctions) {
				return (await new RoutingNode(this as ExecuteContext, nodeType).runNode()) ?? [];
			},
		},
	}) as INodeType;
}

/** A node-type registry that hands out types as n8n's does (asN8nLoadsIt). */
export class NodeTypes implements INodeTypes {
	private readonly types: Record<string, INodeType>;

	constructor(types: Record<string, INodeType>) {
		this.types = Object.fromEntries(
			Object.entries(types).map(([name, type]) => [name, asN8nLoadsIt(type)]),
		);
	}

	getByName(type: string): INodeType | IVersionedNodeType {
		return this.getByNameAndVersion(type);
	}

	getByNameAndVersion(type: string): INodeType {
		const nodeType = this.types[type];
		if (!nodeType) throw new Error(`Unknown node type ${type}`);
		return nodeType;
	}

	getKnownTypes() {
		return {};
	}
}

const credentialType: ICredentialType = new DocumentSigningApi();

/** Hands out the Document Signing credentials and authenticates requests as n8n's helper does. */
export class CredentialsHelper extends ICredentialsHelper {
	constructor(private readonly credentials: () => ICredentialDataDecryptedObject) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		_typeName: string,
		requestOptions: IHttpRequestOptions,
	) {
		// As n8n's CredentialsHelper calls an authenticate function.
		const authenticate = credentialType.authenticate;
		if (typeof authenticate !== 'function') throw new Error('expected an authenticate function');
		return await authenticate(credentials, requestOptions);
	}

	async preAuthentication() {
		return undefined;
	}

	async runPreAuthentication() {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('not used');
	}

	async getDecrypted() {
		return { ...this.credentials() };
	}

	async updateCredentials() {}

	async updateCredentialsOauthTokenData() {}

	getCredentialsProperties() {
		return credentialType.properties;
	}
}

/** What n8n-core reads from IWorkflowExecuteAdditionalData, for an instance on 127.0.0.1. */
export function hostAdditionalData(
	credentials: () => ICredentialDataDecryptedObject,
	extra: Partial<IWorkflowExecuteAdditionalData> = {},
	webhookBaseUrl = 'http://127.0.0.1/webhook',
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper: new CredentialsHelper(credentials),
		webhookBaseUrl,
		webhookTestBaseUrl: webhookBaseUrl.replace(/\/webhook$/, '/webhook-test'),
		webhookWaitingBaseUrl: webhookBaseUrl.replace(/\/webhook$/, '/webhook-waiting'),
		formBaseUrl: 'http://127.0.0.1/form',
		formTestBaseUrl: 'http://127.0.0.1/form-test',
		formWaitingBaseUrl: 'http://127.0.0.1/form-waiting',
		mcpBaseUrl: 'http://127.0.0.1/mcp',
		mcpTestBaseUrl: 'http://127.0.0.1/mcp-test',
		restApiUrl: 'http://127.0.0.1/rest',
		instanceBaseUrl: 'http://127.0.0.1/',
		variables: {},
		currentNodeExecutionIndex: 0,
		...extra,
	} as unknown as IWorkflowExecuteAdditionalData;
}

/** Additional data for one workflow execution (hooks, sub-workflow stubs) in `mode`. */
export function executionAdditionalData(
	credentials: () => ICredentialDataDecryptedObject,
	executionId: string,
	nodes: INode[],
	{
		mode = 'manual' as WorkflowExecuteMode,
		workflowId = 'wf-test',
		webhookBaseUrl = 'http://127.0.0.1/webhook',
	} = {},
): IWorkflowExecuteAdditionalData {
	return hostAdditionalData(
		credentials,
		{
			executionId,
			hooks: new ExecutionLifecycleHooks(mode, executionId, {
				id: workflowId,
				name: 'test',
				nodes,
				connections: {},
				active: false,
				settings: {},
				createdAt: new Date(),
				updatedAt: new Date(),
			} as never),
			executeWorkflow: async () => {
				throw new Error('not used');
			},
			getRunExecutionData: async () => undefined,
			getRuntimeCredential: async () => undefined,
		} as Partial<IWorkflowExecuteAdditionalData>,
		webhookBaseUrl,
	);
}

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

/** n8n-core's Logger, as the nodes get it (n8n-core ships its own copies of the DI container and Logger). */
export function n8nLogger(): { warn: (message: string, meta?: unknown) => void } {
	const fromCore = (name: string) =>
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- resolved at run time, from n8n-core's folder
		require(require.resolve(name, { paths: [require.resolve('n8n-core')] })) as Record<
			string,
			never
		>;
	const { Container } = fromCore('@n8n/di') as unknown as {
		Container: { get<T>(type: unknown): T };
	};
	const { Logger } = fromCore('@n8n/backend-common') as unknown as { Logger: unknown };
	return Container.get(Logger);
}

/**
 * One tick of n8n's scheduler, awaited: the promise the trigger's callback returns (n8n ignores
 * it). The trigger catches a failed poll and logs it (n8n's scheduler hears of no error): the
 * warnings of failed polls logged while it ran.
 */
export async function tickCollectingPollFailures(onTick: () => unknown): Promise<string[]> {
	const logger = n8nLogger();
	const own = Object.prototype.hasOwnProperty.call(logger, 'warn');
	const warn = logger.warn;
	const failures: string[] = [];
	logger.warn = (message, meta) => {
		if (message.includes('the poll failed')) failures.push(message);
		warn.call(logger, message, meta);
	};
	try {
		const ticked = onTick();
		if (typeof (ticked as PromiseLike<unknown> | undefined)?.then !== 'function')
			throw new Error('The scheduled callback returned no promise to await');
		await ticked;
	} finally {
		if (own) logger.warn = warn;
		else delete (logger as Partial<typeof logger>).warn;
	}
	return failures;
}
