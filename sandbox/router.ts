/**
 * A tiny method + path router. Patterns use `:name` segments. Resolution distinguishes "no such
 * path" (404) from "path exists, other method" (405 with `Allow`), as the contract requires.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Route<H> {
	method: HttpMethod;
	/** e.g. `/v1/documents/:id`; also the key used in per-route statistics. */
	pattern: string;
	handler: H;
}

interface CompiledRoute<H> extends Route<H> {
	parts: string[];
}

export type Resolution<H> =
	| { kind: 'found'; route: Route<H>; params: Record<string, string> }
	| { kind: 'method_not_allowed'; allow: HttpMethod[] }
	| { kind: 'not_found' };

export class Router<H> {
	private readonly routes: CompiledRoute<H>[] = [];

	add(method: HttpMethod, pattern: string, handler: H): this {
		this.routes.push({ method, pattern, handler, parts: pattern.split('/').filter(Boolean) });
		return this;
	}

	resolve(method: string, segments: string[]): Resolution<H> {
		const allow = new Set<HttpMethod>();
		let best:
			| { route: CompiledRoute<H>; params: Record<string, string>; literals: number }
			| undefined;
		for (const route of this.routes) {
			const match = matchParts(route.parts, segments);
			if (!match) continue;
			allow.add(route.method);
			// Literal segments win over parameters: `/signatures/request` before `/signatures/:id`.
			if (route.method === method && (!best || match.literals > best.literals)) {
				best = { route, params: match.params, literals: match.literals };
			}
		}
		if (best) return { kind: 'found', route: best.route, params: best.params };
		if (allow.size > 0) return { kind: 'method_not_allowed', allow: [...allow] };
		return { kind: 'not_found' };
	}
}

function matchParts(
	parts: string[],
	segments: string[],
): { params: Record<string, string>; literals: number } | null {
	if (parts.length !== segments.length) return null;
	const params: Record<string, string> = {};
	let literals = 0;
	for (let i = 0; i < parts.length; i++) {
		const part = parts[i];
		if (part.startsWith(':')) params[part.slice(1)] = segments[i];
		else if (part === segments[i]) literals++;
		else return null;
	}
	return { params, literals };
}
