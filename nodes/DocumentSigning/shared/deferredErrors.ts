import type { IExecuteSingleFunctions, IHttpRequestOptions, PreSendAction } from 'n8n-workflow';

/**
 * Input errors of preSend steps are held until the transport (routedRequest.ts) reports them as
 * input errors: n8n would end the node with them as API errors of HTTP code "none".
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
