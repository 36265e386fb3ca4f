/**
 * Helpers of the sandbox contract tests only: a minimal HTML form reader that drives the signing
 * pages the way a browser would (read the form, post its fields). The general sandbox helpers
 * (useSandbox, api, admin, waitFor, receivers, …) are in test/helpers/sandbox.ts.
 */

// ---------------------------------------------------------------------------------------------
// Signing pages, driven like a browser
// ---------------------------------------------------------------------------------------------

export interface Page {
	status: number;
	html: string;
	url: string;
}

export async function getPage(url: string): Promise<Page> {
	const response = await fetch(url, { redirect: 'follow' });
	return { status: response.status, html: await response.text(), url: response.url };
}

function decodeEntities(value: string): string {
	return value
		.replace(/&quot;/g, '"')
		.replace(/&#39;/g, "'")
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/&amp;/g, '&');
}

/** The form that holds the button with `buttonId`: its action and hidden fields. */
export function findForm(
	html: string,
	buttonId: string,
): { action: string; fields: Record<string, string> } | undefined {
	for (const match of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
		const [, attributes, inner] = match;
		if (!inner.includes(`id="${buttonId}"`)) continue;
		const action = /action="([^"]*)"/.exec(attributes)?.[1];
		if (!action) return undefined;
		const fields: Record<string, string> = {};
		for (const input of inner.matchAll(/<input\b[^>]*type="hidden"[^>]*>/g)) {
			const name = /name="([^"]*)"/.exec(input[0])?.[1];
			const value = /value="([^"]*)"/.exec(input[0])?.[1];
			if (name) fields[name] = decodeEntities(value ?? '');
		}
		return { action: decodeEntities(action), fields };
	}
	return undefined;
}

/**
 * Submits the form holding `buttonId` on `page` with extra `fields`, following the redirect like
 * a browser. Fails if the page has no such button.
 */
export async function submit(
	page: Page,
	buttonId: string,
	fields: Record<string, string> = {},
): Promise<Page> {
	const form = findForm(page.html, buttonId);
	if (!form) throw new Error(`No form with button #${buttonId} on ${page.url}:\n${page.html}`);
	const target = new URL(form.action, page.url).toString();
	const response = await fetch(target, {
		method: 'POST',
		headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
		body: new URLSearchParams({ ...form.fields, ...fields }).toString(),
		redirect: 'follow',
	});
	return { status: response.status, html: await response.text(), url: response.url };
}

export function textOf(html: string, id: string): string | undefined {
	const match = new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(html);
	return match ? decodeEntities(match[1].replace(/<[^>]+>/g, '')).trim() : undefined;
}
