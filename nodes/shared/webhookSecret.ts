import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'crypto';

/**
 * Webhook secrets stay out of static and execution data (n8n's public API shows them to anyone who
 * may read the workflow): derived from the credential's API key and a random nonce, or sealed with
 * a key derived the same way, so any process with the credential recomputes them.
 */

export interface SecretScope {
	apiKey: string;
	workflowId: string;
	nodeId: string;
	nonce: string;
}

function derive(purpose: string, { apiKey, workflowId, nodeId, nonce }: SecretScope): Buffer {
	return createHmac('sha256', apiKey)
		.update(['n8n-nodes-document-signing', purpose, workflowId, nodeId, nonce].join('\u0000'))
		.digest();
}

export function newNonce(): string {
	return randomBytes(16).toString('hex');
}

/** 64 hex characters: within the 32–256 characters the service accepts. */
export function derivedSecret(scope: SecretScope): string {
	return derive('webhook-secret', scope).toString('hex');
}

/**
 * A short value that changes with the credential's key. It lets its reader test guesses of the key
 * offline, so it is kept only in the webhook's description at the service, never in static data.
 */
export function keyCheck(scope: SecretScope): string {
	return derive('key-check', scope).toString('hex').slice(0, 16);
}

/**
 * Which workflow node registered a webhook: a copied workflow has the same webhook URL but another
 * workflow id, so it can tell the original's webhook from its own. A digest only to keep it short.
 */
export function ownerTag(workflowId: string, nodeId: string): string {
	return createHash('sha256')
		.update(['n8n-nodes-document-signing', 'owner', workflowId, nodeId].join('\u0000'))
		.digest('hex')
		.slice(0, 16);
}

const REGISTRATION_NOTE = /\[n8n ([0-9a-f]{16}) ([0-9a-f]{16})\]$/;

/** The webhook's description at the service: a readable part, then its owner and key check. */
export function registrationDescription(description: string, scope: SecretScope): string {
	const note = ` [n8n ${ownerTag(scope.workflowId, scope.nodeId)} ${keyCheck(scope)}]`;
	return description.slice(0, 200 - note.length).trimEnd() + note;
}

/** The owner and key check a webhook's description carries, when it carries them. */
export function registrationNote(
	description: unknown,
): { owner: string; keyCheck: string } | undefined {
	const match = typeof description === 'string' ? REGISTRATION_NOTE.exec(description) : null;
	return match ? { owner: match[1], keyCheck: match[2] } : undefined;
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
