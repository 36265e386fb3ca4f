/** Opaque, prefixed identifiers (docs/api-contract.md: `doc_…`, `sgn_…`, …). */
import { randomBytes, randomInt } from 'crypto';

import { ID_PREFIXES } from '../contract';

export type IdKind = keyof typeof ID_PREFIXES;

/** 20 hex characters: collisions are out of reach for a sandbox and ids stay readable in logs. */
export function newId(kind: IdKind): string {
	return `${ID_PREFIXES[kind]}${randomBytes(10).toString('hex')}`;
}

export function randomToken(bytes = 24): string {
	return randomBytes(bytes).toString('base64url');
}

/** A numeric code such as a simulated one-time password; leading zeros kept. */
export function randomDigits(length: number): string {
	let out = '';
	for (let i = 0; i < length; i++) out += String(randomInt(10));
	return out;
}
