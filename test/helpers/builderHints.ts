/**
 * The hints a node description gives n8n's AI workflow builder (n8n-workflow 2.41: the node's
 * `builderHint`, a parameter's or option's `builderHint.propertyHint`), found wherever they sit.
 */
import type { INodeTypeDescription } from 'n8n-workflow';

export interface FoundHint {
	/** Where it sits: `node`, or the parameter path, e.g. `waitOptions.resumeOn`. */
	at: string;
	/** The parameter's name (`node` for the node's own hint). */
	name: string;
	/** The parameter's type, when it is a parameter (`options`, `resourceMapper`, …). */
	type?: string;
	hint: unknown;
}

/** Every builderHint of the description: the node's, then each parameter's, option's or collection's. */
export function builderHintsOf(description: INodeTypeDescription): FoundHint[] {
	const found: FoundHint[] = [];
	if (description.builderHint !== undefined)
		found.push({ at: 'node', name: 'node', hint: description.builderHint });
	const visit = (items: unknown, parent: string) => {
		if (!Array.isArray(items)) return;
		for (const item of items as Array<Record<string, unknown>>) {
			const name = String(item.name ?? item.value);
			const at = parent ? `${parent}.${name}` : name;
			if (item.builderHint !== undefined)
				found.push({
					at,
					name,
					type: typeof item.type === 'string' ? item.type : undefined,
					hint: item.builderHint,
				});
			visit(item.options, at);
			visit(item.values, at);
		}
	};
	visit(description.properties, '');
	return found;
}

/** Every string a hint holds (texts, node types), however deep. */
export function hintTexts(hint: unknown): string[] {
	if (typeof hint === 'string') return [hint];
	if (Array.isArray(hint)) return hint.flatMap(hintTexts);
	if (hint !== null && typeof hint === 'object') return Object.values(hint).flatMap(hintTexts);
	return [];
}

/**
 * What makes a hint text more than plain English: n8n's expression syntax (`={{ … }}`, `{{ … }}`),
 * a `$json`-like variable or `$fromAI()`, or a connection type name (`ai_tool`), which n8n's lint
 * rule no-builder-hint-leakage bans in builder hints.
 */
export const NOT_PLAIN_TEXT =
	/\{\{|\}\}|^=|\$[A-Za-z_(]|\bai_(agent|chain|document|embedding|languageModel|memory|outputParser|retriever|reranker|textSplitter|tool|vectorStore)\b/;
