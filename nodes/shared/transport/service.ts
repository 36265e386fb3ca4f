import { createHash } from 'crypto';
import type { ICredentialDataDecryptedObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ServiceBehaviourError } from './errors';

/**
 * Where the package may send the API key: the credential's origin (scheme, host and port) and
 * nothing else. Every URL the package requests is resolved and checked here first, whatever its
 * source: a path of ours, a next-page link from the service, or a page token from the editor.
 */

export const CREDENTIAL_TYPE = 'documentSigningApi';

export interface ServiceCredentials {
	baseUrl: string;
	apiKey: string;
	/** n8n's credential-level restriction ("Allowed HTTP Request Domains"), when set to a list. */
	allowedDomainsMode?: string;
	allowedDomains?: string;
	/** "Largest Download (MB)": raises the file and export size limits (bounds.ts). */
	largestDownloadMb?: number;
}

export function readCredentials(data: ICredentialDataDecryptedObject): ServiceCredentials {
	return {
		baseUrl: String(data.baseUrl ?? ''),
		apiKey: String(data.apiKey ?? ''),
		allowedDomainsMode:
			typeof data.allowedHttpRequestDomains === 'string'
				? data.allowedHttpRequestDomains
				: undefined,
		allowedDomains: typeof data.allowedDomains === 'string' ? data.allowedDomains : undefined,
		largestDownloadMb:
			typeof data.largestDownloadMb === 'number' && data.largestDownloadMb > 0
				? data.largestDownloadMb
				: undefined,
	};
}

/** Longest Base URL accepted (browsers and proxies keep URLs far shorter). */
const MAX_BASE_URL_LENGTH = 2_048;

export class ServiceOrigin {
	/** `https://api.example.com` (no trailing slash, default port dropped). */
	readonly origin: string;

	/** The Base URL without trailing slashes, e.g. `https://api.example.com/v1`. */
	readonly baseUrl: string;

	/** The Base URL's path, e.g. `/v1` ('' at the root). */
	readonly basePath: string;

	constructor(baseUrl: string, node: INode) {
		let parsed: URL;
		try {
			if (baseUrl.length > MAX_BASE_URL_LENGTH) throw new RangeError('too long');
			parsed = new URL(baseUrl.trim());
		} catch {
			throw new NodeOperationError(node, 'The Base URL in the credentials is not a valid URL', {
				description:
					'Enter the API address from your account settings, e.g. https://api.example.com/v1',
			});
		}
		if (!/^https?:$/.test(parsed.protocol) || parsed.username || parsed.password) {
			throw new NodeOperationError(
				node,
				'The Base URL in the credentials must be an http:// or https:// address without a user name',
				{
					description:
						'Enter the API address from your account settings, e.g. https://api.example.com/v1',
				},
			);
		}
		this.origin = parsed.origin;
		let end = parsed.pathname.length;
		while (end > 0 && parsed.pathname[end - 1] === '/') end--;
		this.basePath = parsed.pathname.slice(0, end);
		this.baseUrl = `${this.origin}${this.basePath}`;
	}

	/** `/documents` → `https://api.example.com/v1/documents`. */
	urlOf(path: string): string {
		return `${this.baseUrl}${path.startsWith('/') ? path : `/${path}`}`;
	}

	isOwn(url: string): boolean {
		try {
			return new URL(url).origin === this.origin;
		} catch {
			return false;
		}
	}

	/**
	 * A link the service gave (absolute, or relative to `from`) as an absolute URL on this origin,
	 * under the Base URL's path; a link to anywhere else (another origin, or another part of this
	 * one, such as `/admin/…` next to `/v1`) is refused before anything is sent there.
	 */
	followable(link: string, from: string, what: string): string {
		const url = parseUrl(link, from);
		if (!url)
			throw new ServiceBehaviourError(
				`The service gave ${what} that is not a valid URL`,
				`The link was "${link.slice(0, 200)}".`,
			);
		if (url.origin !== this.origin) {
			throw new ServiceBehaviourError(
				`The service gave ${what} on another origin (${url.origin}); it was not followed`,
				`The API key is only ever sent to the credential's Base URL origin, ${this.origin}. Nothing was sent to ${url.origin}. If the service really moved, change the Base URL in the credentials.`,
			);
		}
		if (!this.isUnderBase(url)) {
			throw new ServiceBehaviourError(
				`The service gave ${what} outside the Base URL's path (${url.pathname.slice(0, 200)}); it was not followed`,
				`The API key is only ever sent to addresses under the credential's Base URL, ${this.baseUrl}. Nothing was requested.`,
			);
		}
		if (ambiguousPath(link, url.pathname.slice(this.basePath.length))) {
			throw new ServiceBehaviourError(
				`The service gave ${what} whose path has an encoded or parameterised dot segment, an encoded slash or a backslash (${url.pathname.slice(0, 200)}); it was not followed`,
				`Servers differ in how they read "..;", "%2e", "%2f" and "\\" in a path, so such a link could reach beyond the credential's Base URL, ${this.baseUrl}. Nothing was requested.`,
			);
		}
		return url.toString();
	}

	/** A page token's path as an absolute URL under the Base URL, or undefined when it is not one. */
	underBase(pathAndQuery: string): string | undefined {
		if (!pathAndQuery.startsWith('/') || pathAndQuery.startsWith('//')) return undefined;
		const url = parseUrl(pathAndQuery, this.origin);
		if (
			!url ||
			url.origin !== this.origin ||
			!this.isUnderBase(url) ||
			ambiguousPath(pathAndQuery, url.pathname.slice(this.basePath.length))
		)
			return undefined;
		return url.toString();
	}

	/** The URL's path (dot segments already resolved by the URL parser) is the Base URL's or below it. */
	private isUnderBase(url: URL): boolean {
		return `${url.pathname}/`.startsWith(`${this.basePath}/`);
	}
}

/** How many rounds of percent-decoding a server might apply (a proxy, then the application). */
const DECODING_ROUNDS = 3;

/**
 * True when a path below the Base URL could climb out of it on some server, though the URL
 * parser (which resolves `.`, `..`, `%2e` and `%2e%2e` segments) sees none: a backslash in the
 * link as written; a segment that, decoded up to DECODING_ROUNDS times, holds `/` or `\` (`%2F`,
 * `%5C`, `%252F`); or one that, decoded and without its `;` parameters (Tomcat, Spring and Jetty
 * drop them), is only dots (`..;`, `..;x=1`, `%252e%252e`, `.%2e;`). Such links are refused, not
 * normalised: the package cannot know which reading the server behind the Base URL applies.
 */
export function ambiguousPath(link: string, pathBelowBase: string): boolean {
	const written = link.split(/[?#]/, 1)[0];
	if (written.includes('\\')) return true;
	for (const segment of pathBelowBase.split('/')) {
		let reading = segment;
		for (let round = 0; round <= DECODING_ROUNDS; round++) {
			if (reading.includes('/') || reading.includes('\\')) return true;
			const name = reading.split(';', 1)[0].trim();
			if (name !== '' && /^\.+$/.test(name)) return true;
			if (!reading.includes('%')) break;
			const decoded = decodeOnce(reading);
			if (decoded === undefined || decoded === reading) break;
			reading = decoded;
		}
	}
	return false;
}

function decodeOnce(text: string): string | undefined {
	try {
		return decodeURIComponent(text);
	} catch {
		return undefined;
	}
}

function parseUrl(link: string, base?: string): URL | undefined {
	try {
		return new URL(link, base);
	} catch {
		return undefined;
	}
}

/**
 * n8n's credential-level domain restriction, as its routing engine applies it to a node's own Base
 * URL: in "Specific Domains" mode the listed domains plus the Base URL's own host (every request
 * here stays on that host anyway). Passed on with each request so n8n checks every hop.
 */
export function allowedDomainsFor(
	credentials: ServiceCredentials,
	origin: ServiceOrigin,
): string | undefined {
	if (credentials.allowedDomainsMode !== 'domains') return undefined;
	const ownHost = new URL(origin.origin).hostname.toLowerCase();
	const listed = (credentials.allowedDomains ?? '').trim();
	return listed ? `${ownHost}, ${listed}` : ownHost;
}

/**
 * One rate-limit domain: the same key at the same service. Hashed so the key never sits in memory
 * as a map key or shows in a heap dump's strings any more than n8n itself keeps it.
 */
export function credentialKey(credentials: ServiceCredentials, origin: ServiceOrigin): string {
	return createHash('sha256').update(`${origin.origin}\u0000${credentials.apiKey}`).digest('hex');
}
