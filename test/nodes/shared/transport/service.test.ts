import type { INode } from 'n8n-workflow';

import {
	allowedDomainsFor,
	credentialKey,
	ServiceOrigin,
} from '../../../../nodes/shared/transport/service';

const node = {
	id: 'n',
	name: 'Document Signing',
	type: 't',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
} as INode;

test('the Base URL gives the origin the key may go to, and its path', () => {
	const origin = new ServiceOrigin('https://API.example.com:443/v1/', node);
	expect([origin.origin, origin.basePath, origin.baseUrl, origin.urlOf('/documents')]).toEqual([
		'https://api.example.com',
		'/v1',
		'https://api.example.com/v1',
		'https://api.example.com/v1/documents',
	]);
});

test.each(['ftp://api.example.com/v1', 'https://user:pass@api.example.com/v1', 'not a url', ''])(
	'a Base URL such as "%s" is refused',
	(baseUrl) => {
		expect(() => new ServiceOrigin(baseUrl, node)).toThrow(/Base URL/);
	},
);

test('links are followed on the same origin only; page-token paths must stay under the Base URL', () => {
	const origin = new ServiceOrigin('https://api.example.com/v1', node);
	expect(origin.followable('/v1/documents?cursor=2', origin.baseUrl, 'a link')).toBe(
		'https://api.example.com/v1/documents?cursor=2',
	);
	expect(() =>
		origin.followable('https://api.example.com.evil.test/v1', origin.baseUrl, 'a link'),
	).toThrow(/another origin/);
	expect(origin.underBase('/v1/documents?page=2')).toBe(
		'https://api.example.com/v1/documents?page=2',
	);
	expect([
		origin.underBase('/v2/documents'),
		origin.underBase('//evil.test/v1'),
		origin.underBase('/v1evil/x'),
		origin.underBase('https://api.example.com/v1/x'),
	]).toEqual([undefined, undefined, undefined, undefined]);
});

test('one gate per credential: the same key at the same service, hashed', () => {
	const origin = new ServiceOrigin('https://api.example.com/v1', node);
	const key = credentialKey({ baseUrl: origin.baseUrl, apiKey: 'sk_a' }, origin);
	expect(key).toMatch(/^[0-9a-f]{64}$/);
	expect(key).not.toContain('sk_a');
	expect(credentialKey({ baseUrl: origin.baseUrl, apiKey: 'sk_b' }, origin)).not.toBe(key);
	expect(
		allowedDomainsFor({ baseUrl: '', apiKey: '', allowedDomainsMode: 'all' }, origin),
	).toBeUndefined();
});
