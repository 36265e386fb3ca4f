import { shownText } from './text';

/** HTML error pages (a proxy's, a gateway's, a login page): recognised, and read within a bound in one pass. */

const HTML = /^\s*(<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>])/i;

export function isHtml(body: unknown, contentType?: string): boolean {
	return (typeof body === 'string' && HTML.test(body)) || /\btext\/html\b/i.test(contentType ?? '');
}

/** The most of a page that is read: its title and first words are near its start. */
export const MAX_PAGE_READ = 8_000;
const HIDDEN_ELEMENTS: readonly string[] = ['script', 'style', 'template', 'noscript'];
const ENTITIES = { nbsp: ' ', amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };
/** `<name`, `</name` or `<!`/`<?`; anything else after `<` is text ("a < b"). */
const TAG = /<(\/?)([a-z][a-z\d]*)|<[!?]/iy;

/**
 * The page's title (its <title>, else its first <h1>) and the words a person would read on it,
 * from its first MAX_PAGE_READ characters. Every search starts where the last one ended: linear.
 */
export function readPage(page: string): { title?: string; words: string } {
	const html = page.slice(0, MAX_PAGE_READ);
	const lower = html.toLowerCase();
	const find = (needle: string, from: number) => {
		const at = lower.indexOf(needle, from);
		return at < 0 ? html.length : at;
	};
	let words = '';
	let title: string | undefined;
	let heading: string | undefined;
	let capture: { name: string; text: string } | undefined;
	// A title's text is not among the page's words; a heading's is.
	const emit = (text: string) => {
		if (capture) capture.text += text;
		if (capture?.name !== 'title') words += text;
	};
	let position = 0;
	while (position < html.length) {
		const open = find('<', position);
		emit(html.slice(position, open));
		if (open === html.length) break;
		if (html.startsWith('<!--', open)) {
			position = find('-->', open + 4) + 3;
			continue;
		}
		TAG.lastIndex = open;
		const tag = TAG.exec(html);
		if (!tag) {
			emit('<');
			position = open + 1;
			continue;
		}
		const name = (tag[2] ?? '').toLowerCase();
		position = find('>', TAG.lastIndex) + 1;
		emit(' ');
		if (tag[1]) {
			if (capture?.name === name) {
				const text = pageText(capture.text, 200) || undefined;
				if (name === 'title') title ??= text;
				else heading ??= text;
				capture = undefined;
			}
		} else if (HIDDEN_ELEMENTS.includes(name)) position = find(`</${name}`, position);
		else if ((name === 'title' && title === undefined) || (name === 'h1' && heading === undefined))
			capture = { name, text: '' };
	}
	return { title: title ?? heading, words: pageText(words, 300) };
}

/** Page text as shown: entities read, white space collapsed, cut, markup characters as look-alikes. */
function pageText(text: string, max: number): string {
	const entity = (_: string, name: string) => ENTITIES[name.toLowerCase() as keyof typeof ENTITIES];
	const plain = text.replace(/&(nbsp|amp|lt|gt|quot|#39);/gi, entity).replace(/\s+/g, ' ');
	return shownText(plain.trim(), max);
}
