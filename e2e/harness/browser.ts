/**
 * A person in a browser, for the end-to-end tests: Debian's Chromium (/usr/bin/chromium, installed
 * by scripts/e2e-prereqs.sh; never a browser build that playwright downloads) driven headless by
 * playwright-core, and the steps a signer takes on the sandbox's signing pages
 * (docs/api-contract.md, "Signing pages").
 *
 *   const browser = await launchBrowser();
 *   const page = await browser.newPage();
 *   await signEverySigner(page, document.signing_url, { screenshotDir });
 *   await browser.close();                        // also removes its fresh profile folder
 *
 * Every wait is bounded by the page's default timeout. Nothing here depends on jest.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.E2E_CHROMIUM_PATH ?? '/usr/bin/chromium';

const CHROMIUM_ARGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

export interface E2eBrowser {
	context: BrowserContext;
	/** The fresh profile folder (--user-data-dir), removed by close(). */
	userDataDir: string;
	newPage(): Promise<Page>;
	close(): Promise<void>;
}

/** Headless Chromium with a fresh profile; each page's actions and waits are bounded by `timeoutMs`. */
export async function launchBrowser(options: { timeoutMs?: number } = {}): Promise<E2eBrowser> {
	if (!fs.existsSync(CHROMIUM_PATH)) {
		throw new Error(
			`${CHROMIUM_PATH} is missing: run \`bash scripts/e2e-prereqs.sh\` (installs Debian's chromium)`,
		);
	}
	const timeoutMs = options.timeoutMs ?? 20_000;
	const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-chromium-'));
	let context: BrowserContext;
	try {
		// launchPersistentContext passes the profile as --user-data-dir (launch() refuses that flag).
		context = await chromium.launchPersistentContext(userDataDir, {
			executablePath: CHROMIUM_PATH,
			headless: true,
			args: CHROMIUM_ARGS,
			timeout: 60_000,
			viewport: { width: 1000, height: 900 },
		});
	} catch (error) {
		fs.rmSync(userDataDir, { recursive: true, force: true });
		throw error;
	}
	context.setDefaultTimeout(timeoutMs);
	context.setDefaultNavigationTimeout(timeoutMs);
	return {
		context,
		userDataDir,
		newPage: async () => await context.newPage(),
		close: async () => {
			try {
				await context.close();
			} finally {
				fs.rmSync(userDataDir, { recursive: true, force: true });
			}
		},
	};
}

// ---------------------------------------------------------------------------------------------
// The signing pages

export interface SigningOptions {
	/** Folder for screenshots of the overview and the signer pages (none when absent). */
	screenshotDir?: string;
	/** Personal code typed into the national e-ID step. Default: a valid-looking 11 digits. */
	personalCode?: string;
}

export interface SignedSigner {
	signerId: string;
	/** The authentication steps clicked through: `national_eid`, `otp` or none. */
	steps: string[];
	/** `#notice` after signing. */
	notice: string;
}

async function shot(page: Page, dir: string | undefined, name: string): Promise<void> {
	if (!dir) return;
	fs.mkdirSync(dir, { recursive: true });
	await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

/**
 * On a signer's page (already open): passes the authentication step if there is one, then
 * presses "Sign document" and waits for the confirmation. Throws with the page's error text when
 * the page refuses.
 */
export async function signOnSignerPage(
	page: Page,
	options: SigningOptions & { name?: string } = {},
): Promise<SignedSigner> {
	const signerId = decodeURIComponent(new URL(page.url()).pathname.split('/')[3] ?? '');
	const name = options.name ?? signerId;
	const steps: string[] = [];
	await page.locator('#signer-status').waitFor();

	if (await page.locator('#eid-continue').count()) {
		steps.push('national_eid');
		await shot(page, options.screenshotDir, `${name}-1-eid`);
		await page
			.getByRole('textbox', { name: 'Personal code (11 digits)' })
			.fill(options.personalCode ?? '38001085718');
		await page.getByRole('button', { name: 'Continue with national e-ID' }).click();
		await page.locator('#eid-control-code').waitFor();
		await shot(page, options.screenshotDir, `${name}-2-eid-confirm`);
		await page.getByRole('button', { name: 'Confirm identity' }).click();
	} else if (await page.locator('#verify-code').count()) {
		steps.push('otp');
		const code = (await page.locator('#otp-value').innerText()).trim();
		await page.getByRole('textbox', { name: 'One-time code' }).fill(code);
		await page.getByRole('button', { name: 'Verify code' }).click();
	}

	const sign = page.getByRole('button', { name: 'Sign document' });
	const blocked = page.locator('#waiting, #error');
	await sign.or(blocked).first().waitFor();
	if (!(await sign.count())) {
		throw new Error(`cannot sign as ${name}: ${(await blocked.first().innerText()).trim()}`);
	}
	await shot(page, options.screenshotDir, `${name}-3-sign`);
	await sign.click();
	const notice = page.locator('#notice');
	await notice.or(page.locator('#error')).first().waitFor();
	if (await page.locator('#error').count()) {
		throw new Error(
			`signing as ${name} failed: ${(await page.locator('#error').innerText()).trim()}`,
		);
	}
	return { signerId, steps, notice: (await notice.innerText()).trim() };
}

/**
 * Opens a document's signing page (`signing_url`) and signs as each listed signer in turn,
 * following the "Open signing page for …" links as a person would. Resolves with what each
 * signer went through, in page order.
 */
export async function signEverySigner(
	page: Page,
	signingUrl: string,
	options: SigningOptions = {},
): Promise<SignedSigner[]> {
	await page.goto(signingUrl);
	await page.locator('#signers').waitFor();
	await shot(page, options.screenshotDir, 'overview-before');
	const signerIds = await page
		.locator('#signers > li[data-signer-id]')
		.evaluateAll((items) => items.map((item) => item.getAttribute('data-signer-id') ?? ''));
	const results: SignedSigner[] = [];
	for (const [index, signerId] of signerIds.entries()) {
		await page.goto(signingUrl);
		const link = page.locator(`a[id="open-${signerId}"]`);
		await link.click();
		await page.waitForURL((url) => url.pathname.endsWith(`/${signerId}`));
		results.push(await signOnSignerPage(page, { ...options, name: `signer-${index + 1}` }));
	}
	await page.goto(signingUrl);
	await shot(page, options.screenshotDir, 'overview-after');
	return results;
}
