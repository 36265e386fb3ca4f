/**
 * The README's picture of the Document Signing tools attached to an AI Agent, taken from a real n8n
 * (the pinned 2.x) in headless Chromium, with the same mechanism as editorScreenshot.e2e.test.ts:
 * the shipped example examples/ai-agent-contract-assistant.json is opened in the editor after
 * signing in, the canvas is checked (the agent, its model, memory and the three tools with the
 * package's icon, every connection), then pictured.
 *
 * Picture: `ai-agent.png`, to docs/images/ only with E2E_UPDATE_SCREENSHOTS=1, otherwise to
 * E2E_ARTIFACTS_DIR (default <tmp>/n8n-nodes-document-signing-e2e/agent-screenshot).
 *
 *   npm run build && E2E_UPDATE_SCREENSHOTS=1 npx jest -c e2e/jest.config.js e2e/agentScreenshot.e2e.test.ts
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { Locator, Page } from 'playwright-core';

import { startSandbox, type Sandbox } from '../sandbox';
import { OPENAI_CREDENTIAL_TYPE, TOOL_NODE_TYPE } from './harness/agentWorkflows';
import { launchBrowser, type E2eBrowser } from './harness/browser';
import { createN8n, type N8nInstance } from './harness/n8n';
import { loadExample, SANDBOX_CREDENTIAL } from './harness/workflows';

const UPDATE = process.env.E2E_UPDATE_SCREENSHOTS === '1';
const OUT_DIR = UPDATE
	? path.resolve(__dirname, '..', 'docs', 'images')
	: (process.env.E2E_ARTIFACTS_DIR ??
		path.join(os.tmpdir(), 'n8n-nodes-document-signing-e2e', 'agent-screenshot'));
const VIEWPORT = { width: 1440, height: 1000 };
const TOOLS = ['Create Document', 'Find Documents', 'Send Reminder'];

const STABLE_CSS = `
	.el-notification, .el-message, [data-test-id="nps-survey-modal"], [data-test-id="version-updates-panel"],
	[data-test-id="ask-assistant-floating-button"], [data-test-id="ask-assistant-chat"],
	[data-test-id="ask-assistant-sidebar"], [data-test-id="banner-stack"],
	[data-test-id^="execute-workflow-button"], [data-test-id="workflow-chat-button"] { display: none !important; }
	*, *::before, *::after { transition: none !important; animation: none !important; caret-color: transparent !important; }
`;

const canvasNode = (page: Page, name: string): Locator =>
	page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`);

describe('the Document Signing tools on an AI Agent in the n8n editor (README picture)', () => {
	let sandbox: Sandbox;
	let n8n: N8nInstance;
	let browser: E2eBrowser;
	let page: Page;

	beforeAll(async () => {
		fs.mkdirSync(OUT_DIR, { recursive: true });
		sandbox = await startSandbox({ port: 0 });
		const { apiKey } = sandbox.createAccount();
		n8n = await createN8n({ sandboxBaseUrl: sandbox.baseUrl, logLevel: 'info' });
		await n8n.importCredentials([
			n8n.documentSigningCredential({ ...SANDBOX_CREDENTIAL, apiKey }),
			{
				id: 'openAiExample',
				name: 'OpenAI account',
				type: OPENAI_CREDENTIAL_TYPE,
				data: { apiKey: 'sk-example', url: 'http://127.0.0.1:9/v1' },
			},
		]);
		const workflowId = await n8n.importWorkflow(
			loadExample('ai-agent-contract-assistant.json') as unknown as Record<string, unknown>,
		);
		await n8n.start();

		browser = await launchBrowser({ timeoutMs: 30_000 });
		page = await browser.newPage();
		await page.setViewportSize(VIEWPORT);
		await page.goto(`${n8n.baseUrl}/signin`);
		await page.locator('[data-test-id="emailOrLdapLoginId"] input').fill(n8n.owner.email);
		await page.locator('[data-test-id="password"] input').fill(n8n.owner.password);
		await page.locator('[data-test-id="form-submit-button"]').click();
		await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
		await page.goto(`${n8n.baseUrl}/workflow/${workflowId}`);
		await page.addStyleTag({ content: STABLE_CSS });
		await canvasNode(page, TOOLS[TOOLS.length - 1]).waitFor();
	});

	afterAll(async () => {
		await browser?.close();
		await n8n?.dispose();
		await sandbox?.close();
	});

	it('shows the agent with its model, memory and the three Document Signing tools attached', async () => {
		for (const name of TOOLS) {
			const node = canvasNode(page, name);
			expect(await node.getAttribute('data-node-type')).toBe(TOOL_NODE_TYPE);
			const icon = node.locator('img').first();
			expect(await icon.getAttribute('src')).toBe(
				'/icons/n8n-nodes-document-signing/dist/icons/documentSigning.svg',
			);
			await page.waitForFunction(
				(img) => {
					const image = img as unknown as { complete: boolean; naturalWidth: number };
					return image.complete && image.naturalWidth > 0;
				},
				await icon.elementHandle(),
			);
		}
		const text = await page.locator('[data-test-id="canvas"]').innerText();
		for (const shown of ['Contract Assistant', 'OpenAI Chat Model', 'Chat Memory', ...TOOLS])
			expect(text).toContain(shown);
		// Chat trigger → agent, and model, memory and three tools → agent.
		await expect(page.locator('[data-test-id="edge"]').count()).resolves.toBe(6);

		await page.mouse.move(VIEWPORT.width - 5, VIEWPORT.height / 2);
		const file = path.join(OUT_DIR, 'ai-agent.png');
		await page.screenshot({ path: file, animations: 'disabled', caret: 'hide' });
		expect(fs.statSync(file).size).toBeGreaterThan(10_000);
	});
});
