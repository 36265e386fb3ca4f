/**
 * A person building a workflow in the n8n 2.x editor, in a browser page (playwright-core), who
 * keeps count of what they do: every parameter input they set or open ("fields touched": an
 * option chosen, an "Add Field" of a collection, a record chosen from a list, a value or
 * expression typed) and every panel they open by a click ("panels opened": the node creator, a
 * node's parameter panel, a dropdown or menu, a "From List" list). Each step below adds to the
 * counts as it acts; nothing is counted that the walk did not do.
 *
 * Not counted: giving a node its name (not a parameter), reading, scrolling, and the harness's own
 * steps (a reload, reopening a node after the harness changed its version through n8n's API),
 * which are marked as such in the log.
 *
 *   const walk = new EditorWalk(page, baseUrl);
 *   await walk.newWorkflow();
 *   await walk.addFirstNode('Webhook', 'Webhook');
 *   await walk.renameNode('CRM: Deal Won');
 *   await walk.chooseOption('httpMethod', 'POST', 'HTTP Method');
 *   …
 *   walk.fields, walk.panels                        // what was touched and opened, in order
 *
 * Every wait waits for the state it needs (a locator, a value) and is bounded by the page's
 * default timeout. Nothing here depends on jest.
 */
import type { Locator, Page } from 'playwright-core';

export class EditorWalk {
	/** Each parameter input set or opened, in order (its label). */
	readonly fields: string[] = [];
	/** Each panel opened, in order. */
	readonly panels: string[] = [];
	/** Everything done, counted or not, for a failure message or the docs. */
	readonly log: string[] = [];

	constructor(
		readonly page: Page,
		readonly baseUrl: string,
	) {}

	get ndv(): Locator {
		return this.page.locator('[data-test-id="ndv"]');
	}

	canvasNode(name: string): Locator {
		return this.page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`);
	}

	/** The workflow's id, once n8n has saved the new workflow (its URL then names it). */
	workflowId(): string | undefined {
		const match = /\/workflow\/([^/?#]+)/.exec(new URL(this.page.url()).pathname);
		return match && match[1] !== 'new' ? match[1] : undefined;
	}

	private touched(label: string): void {
		this.fields.push(label);
		this.log.push(`field: ${label}`);
	}

	private opened(label: string): void {
		this.panels.push(label);
		this.log.push(`panel: ${label}`);
	}

	/** A harness step the person does not make (not counted). */
	note(step: string): void {
		this.log.push(`(harness) ${step}`);
	}

	/** An empty canvas: a new workflow. */
	async newWorkflow(css?: string): Promise<void> {
		await this.page.goto(`${this.baseUrl}/workflow/new`);
		if (css) await this.page.addStyleTag({ content: css });
		await this.page.locator('[data-test-id="canvas-plus-button"]').waitFor();
		await expectCount(this.page.locator('[data-test-id="canvas-node"]'), 0);
		this.note('a new workflow: an empty canvas');
	}

	/** "Add first step…": the node creator, a search, the node; its panel opens. */
	async addFirstNode(search: string, item: string): Promise<void> {
		await this.page.locator('[data-test-id="canvas-plus-button"]').click();
		await this.pickInNodeCreator(search, item);
	}

	/**
	 * The + after `from`: the node creator, a search, the node and (for a node with actions) the
	 * action; the new node's panel opens.
	 */
	async addNodeAfter(from: string, search: string, item: string, action?: string): Promise<void> {
		await this.canvasNode(from).locator('[data-test-id="canvas-handle-plus"]').click();
		await this.pickInNodeCreator(search, item, action);
	}

	private async pickInNodeCreator(search: string, item: string, action?: string): Promise<void> {
		const creator = this.page.locator('[data-test-id="node-creator"]');
		await creator.waitFor();
		this.opened('node creator');
		await this.page.locator('[data-test-id="node-creator-search-bar"]').first().fill(search);
		await creator
			.locator('[data-test-id="node-creator-item-name"]')
			.getByText(item, { exact: true })
			.click();
		if (action) await creator.getByText(action, { exact: true }).click();
		await this.ndv.locator('[data-test-id="node-parameters"]').waitFor();
		this.opened(`${action ?? item} panel`);
	}

	/** The open panel's node title, renamed (not a parameter: not counted). */
	async renameNode(name: string): Promise<void> {
		const title = this.ndv.locator('[data-test-id="node-title-container"]');
		await title.click();
		const input = title.locator('[data-test-id="inline-edit-input"]');
		await input.fill(name);
		await input.press('Enter');
		await title
			.locator('[data-test-id="inline-edit-preview"]')
			.filter({ hasText: exact(name) })
			.waitFor();
		this.log.push(`name: ${name}`);
	}

	/** Opens a node's panel by double-clicking it on the canvas. */
	async openNode(name: string, counted = true): Promise<void> {
		await this.canvasNode(name).dblclick();
		await this.ndv.locator('[data-test-id="node-parameters"]').waitFor();
		if (counted) this.opened(`${name} panel`);
		else this.note(`reopen ${name}`);
	}

	async closeNode(): Promise<void> {
		await this.ndv.locator('[data-test-id="ndv-close-button"]').click();
		await this.ndv.waitFor({ state: 'hidden' });
	}

	/** The node's version as its panel shows it ("… node version 2 (Latest)"). */
	async nodeVersionText(): Promise<string> {
		return await this.ndv.locator('[data-test-id="node-version"]').innerText();
	}

	/** An options parameter: its dropdown opened, one option chosen (by its name, above any description). */
	async chooseOption(parameter: string, option: string, label: string): Promise<void> {
		const input = this.ndv.locator(`[data-test-id="parameter-input-${parameter}"]`);
		await input.click();
		this.opened(`${label} dropdown`);
		await this.dropdownItem(option).click();
		await waitForValue(input, option);
		this.touched(label);
	}

	/** An item of the open dropdown, by its whole text or, when it has a description, its name. */
	private dropdownItem(name: string): Locator {
		const items = this.page.locator('.el-select-dropdown__item:visible');
		return items
			.filter({ hasText: exact(name) })
			.or(items.filter({ has: this.page.locator('.option-headline', { hasText: exact(name) }) }));
	}

	/** The credential, chosen only when n8n has not chosen it already (the only one of its type). */
	async chooseCredential(name: string): Promise<'preselected' | 'chosen'> {
		const select = this.ndv.locator('[data-test-id="node-credentials-select"]');
		const input = select.locator('input').first();
		await input.waitFor();
		if ((await input.inputValue()) === name) {
			this.log.push(`credential ${name}: chosen by n8n (the only one)`);
			return 'preselected';
		}
		await select.click();
		this.opened('Credential dropdown');
		await this.dropdownItem(name).click();
		await waitForValue(select, name);
		this.touched('Credential');
		return 'chosen';
	}

	/** A collection's "Add Field" (or "Add Option") opened, one field added. */
	async addCollectionField(collection: string, field: string): Promise<void> {
		const item = this.ndv
			.locator('[data-test-id="parameter-item"]')
			.filter({ has: this.page.locator('[data-test-id="collection-parameter-add"]') })
			.filter({ hasText: collection });
		await item.locator('[data-test-id="collection-parameter-add"]').click();
		this.opened(`${collection} › Add Field dropdown`);
		this.touched(`${collection} › Add Field`);
		await this.dropdownItem(field).click();
	}

	/** A resource locator in "From List" mode: its list opened, one record chosen. */
	async chooseFromList(locator: string, record: string, label: string): Promise<void> {
		const rlc = this.ndv.locator(`[data-test-id="resource-locator-${locator}"]`);
		await rlc.locator('[data-test-id="rlc-input"]').click();
		this.opened(`${label} list`);
		await this.page.locator('[data-test-id="rlc-item"]').filter({ hasText: record }).click();
		await waitForValue(rlc, record);
		this.touched(label);
	}

	/**
	 * The fields the panel shows above a parameter (below Resource and Operation): the labels of
	 * the top-level parameter items that end above it, in order. What a person reads past to reach
	 * it; not counted as touched.
	 */
	async fieldsAbove(testId: string): Promise<string[]> {
		const target = this.ndv.locator(`[data-test-id="${testId}"]`).first();
		await target.waitFor();
		return await target.evaluate((element) => {
			type Box = { top: number; bottom: number };
			type Item = {
				contains(other: unknown): boolean;
				parentElement: Item | null;
				closest(selector: string): Item | null;
				querySelector(selector: string): { innerText: string } | null;
				getBoundingClientRect(): Box;
				innerText: string;
			};
			const own = element as unknown as Item;
			const panel = own.closest('.node-settings');
			if (!panel) return [];
			const items = Array.from(
				(panel as unknown as { querySelectorAll(s: string): ArrayLike<Item> }).querySelectorAll(
					'[data-test-id="parameter-item"]',
				),
			);
			const top = own.getBoundingClientRect().top;
			return items
				.filter((item) => !item.parentElement?.closest('[data-test-id="parameter-item"]'))
				.filter((item) => {
					// Shown (the Settings tab's items have no box) and ending above the target.
					const box = item.getBoundingClientRect();
					return !item.contains(own) && box.bottom > box.top && box.bottom <= top;
				})
				.filter(
					(item) =>
						!item.querySelector('[data-test-id="parameter-input-resource"]') &&
						!item.querySelector('[data-test-id="parameter-input-operation"]'),
				)
				.map((item) => (item.querySelector('[data-test-id="input-label"]') ?? item).innerText)
				.map((text) => text.split('\n')[0].trim());
		});
	}

	/**
	 * An expression typed into a parameter: its Expression toggle (within `scope`, shown on hover)
	 * unless the input is an expression already, then the text into the expression editor.
	 */
	async setExpression(scope: Locator, expression: string, label: string): Promise<void> {
		const editor = scope.locator('.cm-content').first();
		if (!(await editor.count())) {
			await scope.hover();
			await scope.locator('[data-test-id="radio-button-expression"]').first().click();
		}
		await editor.click();
		await this.page.keyboard.press('ControlOrMeta+a');
		await this.page.keyboard.insertText(expression);
		await scope.locator('.cm-content', { hasText: expression }).first().waitFor();
		// Done with it: its result preview, which opens over the fields below, closes.
		await editor.evaluate((element) => (element as unknown as { blur(): void }).blur());
		await this.page.waitForFunction(() =>
			Array.from(
				(
					globalThis as unknown as {
						document: {
							querySelectorAll(s: string): ArrayLike<{ getClientRects(): ArrayLike<unknown> }>;
						};
					}
				).document.querySelectorAll('[data-test-id="inline-expression-editor-output"]'),
			).every((output) => output.getClientRects().length === 0),
		);
		this.touched(label);
	}

	/** A template field or role entry of a resource mapper, by its id, given an expression. */
	async setMapperExpression(id: string, expression: string, label: string): Promise<void> {
		// The entry's row: its Fixed/Expression toggle and its input.
		const row = this.ndv
			.locator('[data-test-id="mapping-fields-container"] > *')
			.filter({ has: this.page.locator(`[data-test-id="parameter-input-${cssString(id)}"]`) });
		await this.setExpression(row.first(), expression, label);
	}

	/** The If node's first condition: left value by expression, an operator from the menu. */
	async setCondition(expression: string, type: string, operator: string): Promise<void> {
		await this.setExpression(
			this.ndv.locator('[data-test-id="filter-condition-left"]').first(),
			expression,
			'Conditions › value',
		);
		await this.ndv.locator('[data-test-id="filter-operator-select"]').first().click();
		this.opened('Conditions › operator menu');
		await this.page.getByRole('menuitem', { name: type, exact: true }).hover();
		await this.page.getByRole('menuitem', { name: operator, exact: true }).click();
		await this.ndv
			.locator('[data-test-id="filter-operator-select"]')
			.first()
			.getByText(operator, { exact: true })
			.waitFor();
		this.touched('Conditions › operator');
	}
}

/** The text of a value inside a CSS attribute selector's quotes. */
const cssString = (value: string) => value.replace(/["\\]/g, '\\$&');

const exact = (text: string) =>
	new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);

/** Waits until `scope` (an input, or any input inside it) holds `value`. */
async function waitForValue(scope: Locator, value: string): Promise<void> {
	await scope.page().waitForFunction(
		([element, expected]) => {
			const node = element as unknown as {
				value?: string;
				querySelectorAll(selector: string): ArrayLike<{ value: string }>;
			};
			return (
				node.value === expected ||
				Array.from(node.querySelectorAll('input')).some((input) => input.value === expected)
			);
		},
		[await scope.elementHandle(), value] as const,
	);
}

async function expectCount(locator: Locator, count: number): Promise<void> {
	const found = await locator.count();
	if (found !== count)
		throw new Error(`expected ${count} of ${locator.toString()}, found ${found}`);
}
