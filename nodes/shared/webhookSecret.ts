import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'crypto';

/**
 * A webhook's signing secret (the trigger's registration, and each Send and Wait's), kept out of
 * the workflow's static data and execution data (which n8n's public API
 * shows to anyone who may read the workflow): the secret is derived from the credential's API key
 * (which n8n keeps encrypted) and a random nonce stored in static data, for this workflow and
 * node. When the service insists on a secret of its own, that one is stored encrypted with a key
 * derived the same way. Every n8n process that has the credential recomputes it, so deliveries
 * verify after a restart and in queue mode; a reader of static data alone learns nothing usable.
 */

export interface SecretScope {
	apiKey: string;
	workflowId: string;
	nodeId: string;
	nonce: string;
}

function derive(purpose: string, { apiKey, workflowId, nodeId, nonce }: SecretScope): Buffer {
	return createHmac('sha256', apiKey).update(['n8n-nodes-document-signing', purpose, workflowId, nodeId, nonce].join('\u0000')).digest();
}

export function newNonce(): string {
	return randomBytes(16).toString('hex');
}

/** 64 hex characters: within the 32–256 characters the service accepts. */
export function derivedSecret(scope: SecretScope): string {
	return derive('webhook-secret', scope).toString('hex');
}

/** A short value that changes when the credential's key does, without revealing anything about it. */
export function keyCheck(scope: SecretScope): string {
	return derive('key-check', scope).toString('hex').slice(0, 16);
}

/** AES-256-GCM: iv (12 bytes) + tag (16 bytes) + ciphertext, base64. */
export function sealSecret(secret: string, scope: SecretScope): string {
	const iv = randomBytes(12);
	const cipher = createCipheriv('aes-256-gcm', derive('seal', scope), iv);
	const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
	return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
}

/** The sealed secret, or undefined when it cannot be opened (another key, or tampered with). */
export function openSealedSecret(sealed: string, scope: SecretScope): string | undefined {
	try {
		const bytes = Buffer.from(sealed, 'base64');
		const decipher = createDecipheriv('aes-256-gcm', derive('seal', scope), bytes.subarray(0, 12));
		decipher.setAuthTag(bytes.subarray(12, 28));
		return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
	} catch {
		return undefined;
	}
}
