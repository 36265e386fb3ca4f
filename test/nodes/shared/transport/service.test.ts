import type { INode } from 'n8n-workflow';

import {
	allowedDomainsFor,
	credentialKey,
	readCredentials,
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

/** Whether a link is refused for a path some server could read as climbing out of the Base URL. */
function ambiguousPath(link: string): boolean {
	const origin = new ServiceOrigin('https://api.example.com/v1', node);
	try {
		origin.followable(link, origin.baseUrl, 'a link');
		return false;
	} catch (error) {
		return /encoded or parameterised dot segment/.test((error as Error).message);
	}
}

describe('ambiguousPath: a path below the Base URL that some server could read as climbing out', () => {
	test.each([
		['/..;/admin', true],
		['/.;/x', true],
		['/documents/..;jsessionid=1/x', true],
		['/%2e%2e;/admin', true],
		['/documents/..%2F..%2Fadmin', true],
		['/documents/a%2Fb', true],
		['/documents/a%5cb', true],
		['/documents/%252e%252e/x', true],
		['/documents/%25252e%25252e/x', true],
		['/documents/..%252F..%252Fadmin', true],
		['/documents/...', true],
		['/documents/..%20/x', true],
		['/documents/doc_1/file', false],
		['/documents/doc_1;v=2/file', false],
		['/files/Lease%20%C3%BC.pdf', false],
		['/files/v1.2..final.pdf', false],
		['/files/100%25', false],
		['/files/%E0%A4%A', false],
		['', false],
	])('%s → %s', (path, expected) => {
		expect(ambiguousPath(`/v1${path}?q=..%2F`)).toBe(expected);
	});

	test('a backslash counts where the link was written, not in its query', () => {
		expect(ambiguousPath('/v1/documents\\x')).toBe(true);
		expect(ambiguousPath('/v1/documents/x?path=a\\b')).toBe(false);
	});

	test('followable and underBase refuse such links, on the same origin and under the Base URL path', () => {
		const origin = new ServiceOrigin('https://api.example.com/v1', node);
		expect(() => origin.followable('/v1/..;/admin', origin.baseUrl, 'a link')).toThrow(
			/encoded or parameterised dot segment/,
		);
		expect(origin.underBase('/v1/documents/..%2F..%2Fadmin')).toBeUndefined();
		expect(origin.underBase('/v1/documents;v=2?page=2')).toBe(
			'https://api.example.com/v1/documents;v=2?page=2',
		);
	});
});

test('one gate per credential: the same key at the same service, hashed', () => {
	const origin = new ServiceOrigin('https://api.example.com/v1', node);
	const key = credentialKey(readCredentials({ baseUrl: origin.baseUrl, apiKey: 'sk_a' }), origin);
	expect(key).toMatch(/^[0-9a-f]{64}$/);
	expect(key).not.toContain('sk_a');
	const other = readCredentials({ baseUrl: origin.baseUrl, apiKey: 'sk_b' });
	expect(credentialKey(other, origin)).not.toBe(key);
	const unrestricted = readCredentials({
		allowedHttpRequestDomains: 'all',
		allowedDomains: 'x.test',
	});
	expect(allowedDomainsFor(unrestricted, origin)).toBeUndefined();
});
