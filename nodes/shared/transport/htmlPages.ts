import { shownText } from './text';

/**
 * HTML error pages (a proxy's, a gateway's, a login page): recognised, and read for their title
 * and first words within a bound, in one pass (docs/security.md, "Bounds on what a server sends").
 */

const HTML = /^\s*(<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>])/i;

export function isHtml(body: unknown, contentType?: string): boolean {
	return (typeof body === 'string' && HTML.test(body)) || /\btext\/html\b/i.test(contentType ?? '');
}

/**
 * The most of an HTML error page that is read. Its title and first words are near its start, and
 * a bound here keeps the reading cheap whatever a server sends.
 */
export const MAX_PAGE_READ = 8_000;
const MAX_PAGE_WORDS = 300;
const MAX_PAGE_TITLE = 200;

export interface PageSummary {
	/** The page's <title>, else its first <h1>. */
	title?: string;
	/** What a person would read on it: no markup, scripts, styles or comments. */
	words: string;
}

/** Elements whose content is never shown as text. */
const HIDDEN_ELEMENTS = new Set(['script', 'style', 'template', 'noscript']);
const ENTITIES: Record<string, string> = {
	'&nbsp;': ' ',
	'&amp;': '&',
	'&lt;': '<',
	'&gt;': '>',
	'&quot;': '"',
	'&#39;': "'",
};

const isLetter = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
const isNameCharacter = (code: number) => isLetter(code) || (code >= 48 && code <= 57);

/**
 * The title and words of an HTML page, read from its first MAX_PAGE_READ characters in one pass:
 * every search starts where the previous one ended (a search that found nothing is not repeated),
 * so the work grows with the page's length only, whatever its markup.
 */
export function readPage(page: string): PageSummary {
	const html = page.slice(0, MAX_PAGE_READ);
	const lower = html.toLowerCase();
	const found = new Map<string, number>();
	/** The next `needle` at or after `from` (the end when none); repeated searches resume. */
	const next = (needle: string, from: number): number => {
		const known = found.get(needle);
		if (known !== undefined && (known >= from || known === html.length)) return known;
		const at = lower.indexOf(needle, from);
		const result = at === -1 ? html.length : at;
		found.set(needle, result);
		return result;
	};
	const words: string[] = [];
	let title: string | undefined;
	let heading: string | undefined;
	/** The open <title> or <h1> whose text is being read. */
	let capture: { name: string; words: string[] } | undefined;
	// A title's text is not among the page's words; a heading's is.
	const emit = (text: string) => {
		if (capture) capture.words.push(text);
		if (capture?.name !== 'title') words.push(text);
	};
	let position = 0;
	while (position < html.length) {
		const open = next('<', position);
		if (open > position) emit(html.slice(position, open));
		if (open >= html.length) break;
		const after = html.charCodeAt(open + 1);
		if (html.startsWith('<!--', open)) {
			position = next('-->', open + 4) + 3;
			continue;
		}
		const closing = after === 47; /* / */
		const nameStart = open + (closing ? 2 : 1);
		if (!(isLetter(html.charCodeAt(nameStart)) || (!closing && (after === 33 || after === 63)))) {
			// "a < b": not a tag, the "<" is text.
			emit('<');
			position = open + 1;
			continue;
		}
		let nameEnd = nameStart;
		while (
			nameEnd < html.length &&
			nameEnd - nameStart < 10 &&
			isNameCharacter(html.charCodeAt(nameEnd))
		)
			nameEnd++;
		const name = lower.slice(nameStart, nameEnd);
		const end = next('>', nameEnd);
		position = end + 1;
		emit(' ');
		if (closing) {
			if (capture?.name === name) {
				const text = pageText(capture.words.join(''), MAX_PAGE_TITLE);
				if (name === 'title') title ??= text || undefined;
				else heading ??= text || undefined;
				capture = undefined;
			}
		} else if (HIDDEN_ELEMENTS.has(name)) {
			position = next(`</${name}`, position);
		} else if (
			(name === 'title' && title === undefined) ||
			(name === 'h1' && heading === undefined)
		) {
			capture = { name, words: [] };
		}
	}
	return { title: title ?? heading, words: pageText(words.join(''), MAX_PAGE_WORDS) };
}

/** Page text as shown: entities read, white space collapsed, cut, markup characters as look-alikes. */
function pageText(text: string, max: number): string {
	const plain = text
		.replace(/&(?:nbsp|amp|lt|gt|quot|#39);/gi, (entity) => ENTITIES[entity.toLowerCase()])
		.replace(/\s+/g, ' ')
		.trim();
	return shownText(plain, max);
}
