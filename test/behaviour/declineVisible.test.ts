/**
 * Send and Wait: a decline is visible under the defaults. Servers listen on 127.0.0.1 only. Each
 * test's first comment says what the code before the fix did (the test fails on it).
 */
import type { IDataObject } from 'n8n-workflow';

import { pdf } from '../helpers/badInputCases';
import { useSandbox } from '../helpers/sandbox';
import { sendAndWait, sendAndWaitKit } from '../helpers/sendAndWaitKit';

describe('a decline is visible under the defaults (finding 37.8)', () => {
	const sandbox = useSandbox({
		port: 0,
		host: '127.0.0.1',
		webhookRetry: { baseDelayMs: 5, maxAttempts: 3, timeoutMs: 5000 },
	});
	const kit = sendAndWaitKit(sandbox);

	// Old (and still version 1, for saved workflows): the wait ended with no output and the
	// execution counted as a success. Version 2 sends the input item's file (Document From › File).
	test('version 2 with the default Resume On: a decline continues with approved false and the status', async () => {
		const { apiKey } = sandbox().createAccount();
		const host = await kit.newHost(apiKey);
		const execution = await host.run({ parameters: sendAndWait(), items: [pdf()], typeVersion: 2 });
		kit.decline(apiKey, kit.documentIdOf(execution));
		await kit.resumed(execution);
		expect(execution.items).toHaveLength(1);
		expect(execution.items[0].json).toMatchObject({ status: 'declined', approved: false });
		expect(execution.after).toHaveLength(1);
	});

	test('version 2, Resume On › Completed Only (an explicit choice): a decline stops there, as before', async () => {
		const { apiKey } = sandbox().createAccount();
		const host = await kit.newHost(apiKey);
		const execution = await host.run({
			parameters: sendAndWait({ waitOptions: { resumeOn: 'completed' } }),
			items: [pdf()],
			typeVersion: 2,
		});
		kit.decline(apiKey, kit.documentIdOf(execution));
		await kit.resumed(execution);
		expect(execution.items).toHaveLength(0);
		expect(execution.after).toHaveLength(0);
	});

	test('the editor offers Any Final State as the default from version 2 on and Completed as version 1’s', async () => {
		const { DocumentSigning } = await import('../../nodes/DocumentSigning/DocumentSigning.node');
		const description = new DocumentSigning().description;
		expect(description.version).toEqual([1, 2]);
		expect(description.defaultVersion).toBe(2);
		const options = description.properties.find((property) => property.name === 'waitOptions')!
			.options as unknown as Array<IDataObject & { displayOptions?: IDataObject }>;
		const resumeOn = options.filter((option) => option.name === 'resumeOn');
		expect(
			resumeOn.map((option) => [
				(option.displayOptions?.show as IDataObject)['@version'],
				option.default,
			]),
		).toEqual([
			[[1], 'completed'],
			[[2], 'anyFinal'],
		]);
	});
});
