/** The trigger's description as n8n reads it, and its codex file. */
import { validateNodeDescription } from 'n8n-core/dist/nodes-loader/validate-node-description';

import { builderHintsOf, hintTexts, NOT_PLAIN_TEXT } from '../../helpers/builderHints';
import codex from '../../../nodes/DocumentSigningTrigger/DocumentSigningTrigger.node.json';
import { DocumentSigningTrigger } from '../../../nodes/DocumentSigningTrigger/DocumentSigningTrigger.node';
import { ANY_EVENT, eventLabel, WEBHOOK_EVENTS } from '../../../nodes/shared/vocabulary';
import packageJson from '../../../package.json';

const { description } = new DocumentSigningTrigger();

describe('Document Signing Trigger description', () => {
	it('is a webhook trigger with no inputs, one main output and the credential', () => {
		expect(description.displayName).toBe('Document Signing Trigger');
		expect(description.name).toBe('documentSigningTrigger');
		expect(description.group).toEqual(['trigger']);
		expect(description.inputs).toEqual([]);
		expect(description.outputs).toEqual(['main']);
		expect(description.usableAsTool).toBeUndefined();
		expect(description.icon).toEqual({
			light: 'file:../../icons/documentSigning.svg',
			dark: 'file:../../icons/documentSigning.dark.svg',
		});
		expect(description.credentials).toEqual([{ name: 'documentSigningApi', required: true }]);
		expect(description.webhooks).toEqual([
			{
				name: 'default',
				httpMethod: '={{$parameter["receiveEventsBy"] === "polling" ? "" : "POST"}}',
				responseMode: 'onReceived',
				path: 'webhook',
				ndvHideUrl: '={{$parameter["receiveEventsBy"] === "polling"}}',
			},
		]);
	});

	it('receives by Webhook unless Polling is chosen, which shows Poll Every and hides the webhook-only settings', () => {
		const byName = new Map(description.properties.map((property) => [property.name, property]));
		expect(byName.get('receiveEventsBy')).toMatchObject({ default: 'webhook' });
		expect(
			(byName.get('receiveEventsBy')?.options as Array<{ value: string }>).map((o) => o.value),
		).toEqual(['polling', 'webhook']);
		expect(byName.get('pollMinutes')).toMatchObject({
			default: 1,
			typeOptions: { minValue: 1, maxValue: 60 },
			displayOptions: { show: { receiveEventsBy: ['polling'] } },
		});
		expect(byName.get('verifySignature')?.displayOptions).toEqual({
			show: { receiveEventsBy: ['webhook'] },
		});
		const options = (byName.get('options')?.options ?? []) as Array<{
			name: string;
			displayOptions?: unknown;
		}>;
		const webhookOnly = options.filter((option) => option.displayOptions !== undefined);
		expect(webhookOnly.map((option) => option.name).sort()).toEqual([
			'includeHeaders',
			'signatureLayout',
			'signatureToleranceSeconds',
		]);
		for (const option of webhookOnly)
			expect(option.displayOptions).toEqual({ show: { '/receiveEventsBy': ['webhook'] } });
	});

	it('offers every event of the vocabulary, labelled by eventLabel, plus Any Event', () => {
		const events = description.properties.find((property) => property.name === 'events');
		expect(events?.type).toBe('multiOptions');
		const options = (events?.options ?? []) as Array<{ name: string; value: string }>;
		expect(options.map((option) => option.value).sort()).toEqual(
			[ANY_EVENT, ...WEBHOOK_EVENTS].sort(),
		);
		for (const option of options) {
			expect(option.name).toBe(option.value === ANY_EVENT ? 'Any Event' : eventLabel(option.value));
		}
	});

	it('has the Include Headers and Signature Tolerance (Seconds) options', () => {
		const options = description.properties.find((property) => property.name === 'options');
		const byName = Object.fromEntries(
			(
				(options?.options ?? []) as Array<{ name: string; displayName: string; default: unknown }>
			).map((option) => [option.name, option]),
		);
		expect(byName.includeHeaders).toMatchObject({ displayName: 'Include Headers', default: false });
		expect(byName.signatureToleranceSeconds).toMatchObject({
			displayName: 'Signature Tolerance (Seconds)',
			default: 300,
		});
	});

	it('has a codex with categories and the trigger documentation link, and is registered in package.json', () => {
		expect(codex.node).toBe('n8n-nodes-document-signing.documentSigningTrigger');
		expect(codex.categories).toEqual(['Productivity', 'Sales']);
		expect(codex.resources.primaryDocumentation[0].url).toBe(
			'https://github.com/n8n-nodes-document-signing/n8n-nodes-document-signing#trigger',
		);
		expect(packageJson.n8n.nodes).toContain(
			'dist/nodes/DocumentSigningTrigger/DocumentSigningTrigger.node.js',
		);
	});
});

describe("hints for n8n's AI workflow builder (n8n 2.41's builderHint)", () => {
	const hints = builderHintsOf(description);

	it('the trigger says what it is for, and which nodes follow it', () => {
		expect(description.builderHint?.searchHint).toEqual(
			expect.stringContaining('Attach Signed File'),
		);
		const related = Object.fromEntries(
			(description.builderHint?.relatedNodes ?? []).map(({ nodeType, relationHint }) => [
				nodeType,
				relationHint,
			]),
		);
		expect(related['n8n-nodes-base.googleDrive']).toContain('Document Completed');
		expect(Object.keys(related)).toContain('n8n-nodes-document-signing.documentSigning');
		for (const [nodeType, relationHint] of Object.entries(related)) {
			expect(nodeType).toMatch(/^(n8n-nodes-base|n8n-nodes-document-signing)\.[a-z][A-Za-z]+$/);
			expect(relationHint.length).toBeGreaterThan(20);
		}
	});

	it('Events and Receive Events By carry a property hint, and only parameters n8n renders it for', () => {
		expect(hints.map(({ at }) => at)).toEqual(['node', 'receiveEventsBy', 'events']);
		const byName = Object.fromEntries(hints.map(({ name, hint }) => [name, hint]));
		expect(byName.receiveEventsBy).toEqual({ propertyHint: expect.stringContaining('Polling') });
		expect(byName.events).toEqual({ propertyHint: expect.stringContaining('Document Completed') });
		// No hint on a selector n8n-core 2.41 refuses one on (resource, operation, mode).
		expect(() => validateNodeDescription(description)).not.toThrow();
	});

	it('every hint is plain English: no expression, variable or connection type name', () => {
		for (const { at, hint } of hints) {
			const texts = hintTexts(hint);
			expect(texts.length).toBeGreaterThan(0);
			expect({ at, leaks: texts.filter((text) => NOT_PLAIN_TEXT.test(text)) }).toEqual({
				at,
				leaks: [],
			});
		}
	});
});
