import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

export class DocumentSigningApi implements ICredentialType {
	name = 'documentSigningApi';

	displayName = 'Document Signing API';

	icon: Icon = {
		light: 'file:../icons/documentSigning.svg',
		dark: 'file:../icons/documentSigning.dark.svg',
	};

	documentationUrl = 'https://github.com/n8n-nodes-document-signing/n8n-nodes-document-signing#credentials';

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
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.apiKey}}',
			},
		},
	};

	// The cheapest authenticated read: one team member. A wrong key answers 401, which n8n shows as
	// "Couldn't connect with these settings".
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/users',
			method: 'GET',
			qs: { limit: 1 },
		},
	};
}
