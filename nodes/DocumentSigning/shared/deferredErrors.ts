import type { IExecuteSingleFunctions, IHttpRequestOptions, PreSendAction } from 'n8n-workflow';

/**
 * Input errors found while n8n's routing engine builds an item's request are held until the
 * transport runs (routedRequest.ts): n8n would end the node with them as API errors of HTTP code
 * "none" (docs/node-behaviour.md, "Where the node meets n8n's engine"); the transport reports them
 * as the input errors they are, or as an AI Agent's tool answer. Nothing is sent for the item.
 */

const DEFERRED_ERROR = Symbol('documentSigning.deferredError');

type OptionsWithDeferred = IHttpRequestOptions & { [DEFERRED_ERROR]?: Error };

export function deferErrors(step: PreSendAction): PreSendAction {
	return async function (
		this: IExecuteSingleFunctions,
		options: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		if ((options as OptionsWithDeferred)[DEFERRED_ERROR]) return options;
		try {
			return await step.call(this, options);
		} catch (error) {
			(options as OptionsWithDeferred)[DEFERRED_ERROR] = error as Error;
			return options;
		}
	};
}

/** The input error held for this request, if any. */
export function deferredError(options: object): Error | undefined {
	return (options as OptionsWithDeferred)[DEFERRED_ERROR];
}
