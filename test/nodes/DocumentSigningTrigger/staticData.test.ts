/** nodes/DocumentSigningTrigger/staticData.ts: the registration the trigger keeps in the workflow's static data. */
import {
	forgetRegistration,
	readRegistration,
	saveRegistration,
	type TriggerStaticData,
} from '../../../nodes/DocumentSigningTrigger/staticData';

const registration = {
	id: 'wh_1',
	url: 'https://n8n.example.com/webhook/abc/webhook',
	events: ['document.completed'],
	secretNonce: 'a'.repeat(32),
};

describe('trigger static data', () => {
	it('saves a registration and reads it back', () => {
		const data: TriggerStaticData = {};
		saveRegistration(data, registration);
		expect(readRegistration(data)).toEqual({ ...registration, sealedSecret: undefined });
		expect(Object.keys(data).sort()).toEqual([
			'secretNonce',
			'webhookEvents',
			'webhookId',
			'webhookUrl',
		]);
	});

	it('keeps a sealed (service-chosen) secret when there is one', () => {
		const data: TriggerStaticData = {};
		saveRegistration(data, { ...registration, sealedSecret: 'sealed' });
		expect(readRegistration(data)?.sealedSecret).toBe('sealed');
	});

	it.each([
		['webhookId', ''],
		['webhookUrl', undefined],
		['webhookEvents', []],
		['secretNonce', 42],
	])('reads nothing when %s is missing or unusable (%p)', (key, value) => {
		const data: TriggerStaticData = {};
		saveRegistration(data, registration);
		data[key] = value;
		expect(readRegistration(data)).toBeUndefined();
	});

	it('forgetting removes the registration and nothing else', () => {
		const data: TriggerStaticData = { other: 'kept' };
		saveRegistration(data, registration);
		forgetRegistration(data);
		expect(data).toEqual({ other: 'kept' });
	});

	it('saving replaces an earlier registration entirely (no sealed secret of the old one left)', () => {
		const data: TriggerStaticData = {};
		saveRegistration(data, { ...registration, sealedSecret: 'old-sealed' });
		saveRegistration(data, { ...registration, id: 'wh_2' });
		expect(readRegistration(data)).toMatchObject({ id: 'wh_2', sealedSecret: undefined });
	});
});
