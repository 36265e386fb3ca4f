import type {
	ICredentialDataDecryptedObject,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { credentialListPaging } from '../nodes/shared/listPaging';

export class DocumentSigningApi implements ICredentialType {
	name = 'documentSigningApi';

	displayName = 'Document Signing API';

	icon: Icon = {
		light: 'file:../icons/documentSigning.svg',
		dark: 'file:../icons/documentSigning.dark.svg',
	};

	documentationUrl =
		'https://github.com/n8n-nodes-document-signing/n8n-nodes-document-signing#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com/v1',
			description:
				'The API address from your account settings, including the version segment, e.g. https://api.example.com/v1',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Generated under Account Settings → API keys (needs a developer account)',
		},
		{
			displayName: 'Largest Download (MB)',
			name: 'largestDownloadMb',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 2048 },
			default: 100,
			description:
				"The largest document file or export n8n reads from the service. A bigger answer fails with a message naming this limit, so a faulty server cannot fill n8n's memory.",
		},
		// A property of the service, set once: no operation asks how lists page (node version 2).
		...credentialListPaging(),
	];

	// A function, not the generic '=Bearer {{$credentials.apiKey}}' form, which n8n evaluates through
	// its expression engine on every request (bench/diagnose.ts --return-all compares the two).
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return {
			...requestOptions,
			headers: {
				...requestOptions.headers,
				Authorization: `Bearer ${String(credentials.apiKey ?? '')}`,
			},
		};
	}

	// The cheapest authenticated read: one team member. A wrong key answers 401, which n8n shows as
	// "Couldn't connect with these settings".
	test: ICredentialTestRequest = {
		request: {
			// A bounded repeat: linear in the URL's length, unlike an unbounded one before `$`.
			baseURL: '={{$credentials.baseUrl.replace(/\\/{1,16}$/, "")}}',
			url: '/users',
			method: 'GET',
			qs: { limit: 1 },
			// n8n runs this through its routing engine, which passes these on to its HTTP layer: a
			// redirect is answered as it is (never followed, so the key cannot go to another origin).
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
			timeout: 30_000,
		},
		// Without rules n8n shows only the status text ("Unauthorized"); say what to do instead.
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: 'The service refused the API key (401). Check the key in your account settings.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message: 'The API key may not read the team (403). Use a key of an admin or member.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: 'No API found at this Base URL (404). It should end in /v1.',
				},
			},
			...[301, 302, 303, 307, 308].map((value) => ({
				type: 'responseCode' as const,
				properties: {
					value,
					message: `The Base URL answered with a redirect (${value}), which is never followed so the API key stays at this address. Check the Base URL (https:// instead of http://, the /v1 at its end).`,
				},
			})),
		],
	};
}
