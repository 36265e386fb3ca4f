import { createHash } from 'crypto';
import type { ICredentialDataDecryptedObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ServiceBehaviourError } from './errors';

/** Where the API key may go: the credential's origin, under the Base URL's path, and nowhere else. */
export const CREDENTIAL_TYPE = 'documentSigningApi';

type ServiceCredentials = ReturnType<typeof readCredentials>;

export function readCredentials(data: ICredentialDataDecryptedObject) {
	const { allowedHttpRequestDomains: mode, allowedDomains, largestDownloadMb: mb } = data;
	return {
		baseUrl: String(data.baseUrl ?? ''),
		apiKey: String(data.apiKey ?? ''),
		// n8n's credential-level restriction ("Allowed HTTP Request Domains"), when set to a list.
		allowedDomainsMode: typeof mode === 'string' ? mode : undefined,
		allowedDomains: typeof allowedDomains === 'string' ? allowedDomains : undefined,
		// "Largest Download (MB)": raises the file and export size limits (request.ts).
		largestDownloadMb: typeof mb === 'number' && mb > 0 ? mb : undefined,
	};
}

/** Longest Base URL accepted (browsers and proxies keep URLs far shorter). */
const MAX_BASE_URL_LENGTH = 2_048;

export class ServiceOrigin {
	/** `https://api.example.com`, `https://api.example.com/v1` and `/v1` ('' at the root). */
	readonly origin: string;
	readonly baseUrl: string;
	readonly basePath: string;

	constructor(baseUrl: string, node: INode) {
		const refused = (message: string) =>
			new NodeOperationError(node, message, {
				description:
					'Enter the API address from your account settings, e.g. https://api.example.com/v1',
			});
		if (baseUrl.length > MAX_BASE_URL_LENGTH || !URL.canParse(baseUrl.trim()))
			throw refused('The Base URL in the credentials is not a valid URL');
		const parsed = new URL(baseUrl.trim());
		if (!/^https?:$/.test(parsed.protocol) || parsed.username || parsed.password)
			throw refused(
				'The Base URL in the credentials must be an http:// or https:// address without a user name',
			);
		this.origin = parsed.origin;
		let end = parsed.pathname.length;
		while (end > 0 && parsed.pathname[end - 1] === '/') end--;
		this.basePath = parsed.pathname.slice(0, end);
		this.baseUrl = `${this.origin}${this.basePath}`;
	}

	urlOf(path: string): string {
		return `${this.baseUrl}${path.startsWith('/') ? path : `/${path}`}`;
	}

	isOwn(url: string): boolean {
		return URL.canParse(url) && new URL(url).origin === this.origin;
	}

	/** A link (absolute, or relative to `from`) as an absolute URL under the Base URL; anything else is refused. */
	followable(link: string, from: string, what: string): string {
		if (!URL.canParse(link, from))
			throw new ServiceBehaviourError(
				`The service gave ${what} that is not a valid URL`,
				`The link was "${link.slice(0, 200)}".`,
			);
		const url = new URL(link, from);
		if (url.origin !== this.origin)
			throw new ServiceBehaviourError(
				`The service gave ${what} on another origin (${url.origin}); it was not followed`,
				`The API key is only ever sent to the credential's Base URL origin, ${this.origin}. Nothing was sent to ${url.origin}. If the service really moved, change the Base URL in the credentials.`,
			);
		// The path, its dot segments resolved by the URL parser, is the Base URL's or below it.
		if (!`${url.pathname}/`.startsWith(`${this.basePath}/`))
			throw new ServiceBehaviourError(
				`The service gave ${what} outside the Base URL's path (${url.pathname.slice(0, 200)}); it was not followed`,
				`The API key is only ever sent to addresses under the credential's Base URL, ${this.baseUrl}. Nothing was requested.`,
			);
		if (ambiguousPath(link, url.pathname.slice(this.basePath.length)))
			throw new ServiceBehaviourError(
				`The service gave ${what} whose path has an encoded or parameterised dot segment, an encoded slash or a backslash (${url.pathname.slice(0, 200)}); it was not followed`,
				`Servers differ in how they read "..;", "%2e", "%2f" and "\\" in a path, so such a link could reach beyond the credential's Base URL, ${this.baseUrl}. Nothing was requested.`,
			);
		return url.toString();
	}

	/** A page token's path as an absolute URL under the Base URL, or undefined when it is not one. */
	underBase(pathAndQuery: string): string | undefined {
		if (!pathAndQuery.startsWith('/') || pathAndQuery.startsWith('//')) return undefined;
		try {
			return this.followable(pathAndQuery, this.origin, 'a page token');
		} catch {
			return undefined;
		}
	}
}

/**
 * True when a path below the Base URL could climb out of it on some server though the URL parser
 * sees no `..`: a backslash; a segment that, decoded up to 3 times, holds `/` or `\`, or is only dots
 * before its `;` parameters (Tomcat, Spring, Jetty). Refused: the server's reading is unknown.
 */
function ambiguousPath(link: string, pathBelowBase: string): boolean {
	const written = link.split(/[?#]/, 1)[0];
	if (written.includes('\\')) return true;
	for (const segment of pathBelowBase.split('/')) {
		let reading = segment;
		for (let round = 0; round <= 3; round++) {
			if (reading.includes('/') || reading.includes('\\')) return true;
			const name = reading.split(';', 1)[0].trim();
			if (name !== '' && /^\.+$/.test(name)) return true;
			let decoded: string;
			try {
				decoded = decodeURIComponent(reading);
			} catch {
				break;
			}
			if (decoded === reading) break;
			reading = decoded;
		}
	}
	return false;
}

/** n8n's "Allowed HTTP Request Domains" as its routing engine applies it: the listed ones plus the Base URL's host. */
export function allowedDomainsFor(
	credentials: ServiceCredentials,
	origin: ServiceOrigin,
): string | undefined {
	if (credentials.allowedDomainsMode !== 'domains') return undefined;
	const ownHost = new URL(origin.origin).hostname.toLowerCase();
	const listed = (credentials.allowedDomains ?? '').trim();
	return listed ? `${ownHost}, ${listed}` : ownHost;
}

/** One rate-limit domain (same key, same service), hashed: the key never becomes a map key in memory. */
export function credentialKey(credentials: ServiceCredentials, origin: ServiceOrigin): string {
	return createHash('sha256').update(`${origin.origin}\u0000${credentials.apiKey}`).digest('hex');
}
