/** nodes/DocumentSigning/shared/deferredErrors.ts: an input error waits for the transport instead of escaping the routing engine. */
import type { IExecuteSingleFunctions, IHttpRequestOptions } from 'n8n-workflow';

import {
	deferErrors,
	deferredError,
} from '../../../../nodes/DocumentSigning/shared/deferredErrors';

const context = {} as IExecuteSingleFunctions;

describe('deferErrors', () => {
	it('passes a step that succeeds through unchanged', async () => {
		const step = deferErrors(async function (options) {
			return { ...options, body: { name: 'nda.pdf' } };
		});
		const options = await step.call(context, { url: '/documents' });
		expect(options).toEqual({ url: '/documents', body: { name: 'nda.pdf' } });
		expect(deferredError(options)).toBeUndefined();
	});

	it('holds the error of a failing step on the request instead of throwing it', async () => {
		const problem = new Error('Signers: add at least one signer');
		const step = deferErrors(async function () {
			throw problem;
		});
		const options: IHttpRequestOptions = { url: '/documents' };
		await expect(step.call(context, options)).resolves.toBe(options);
		expect(deferredError(options)).toBe(problem);
		// Not a field a request would send: JSON and spreading of headers/body never see it.
		expect(JSON.stringify(options)).toBe('{"url":"/documents"}');
	});

	it('after a held error, later steps do not run (the first problem is the one reported)', async () => {
		const first = new Error('first');
		const later = jest.fn(async (options: IHttpRequestOptions) => options);
		const options: IHttpRequestOptions = { url: '/documents' };
		await deferErrors(async function () {
			throw first;
		}).call(context, options);
		await deferErrors(later).call(context, options);
		expect(later).not.toHaveBeenCalled();
		expect(deferredError(options)).toBe(first);
	});
});
