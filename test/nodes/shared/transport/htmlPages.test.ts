/**
 * nodes/shared/transport/htmlPages.ts: an HTML error page is recognised, and its title and first
 * words read within MAX_PAGE_READ characters.
 */
import { isHtml, MAX_PAGE_READ, readPage } from '../../../../nodes/shared/transport/htmlPages';

test('a page is told by its start or by a text/html content type', () => {
	expect(isHtml('<!DOCTYPE html><html></html>')).toBe(true);
	expect(isHtml('Gateway Timeout', 'text/html')).toBe(true);
	expect(isHtml('Gateway Timeout', 'text/plain')).toBe(false);
});

describe('readPage', () => {
	test.each<[string, string, ReturnType<typeof readPage>]>([
		[
			'comments, scripts, styles, templates and noscript are not text',
			'<html><head><style>p{}</style></head><body><!-- <h1>hidden</h1> --><script>x()</script><template>t</template><noscript>n</noscript><p>shown</p></body></html>',
			{ title: undefined, words: 'shown' },
		],
		[
			'a heading with markup inside; entities read; a lone "<" is text',
			'<body><h1>Down <b>for</b><br>maintenance</h1><p>1 &lt; 2 &amp;&nbsp;3 < 4 &quot;ok&quot;</p></body>',
			{ title: 'Down for maintenance', words: 'Down for maintenance 1 ‹ 2 & 3 ‹ 4 "ok"' },
		],
		[
			'the first title wins over a heading; upper-case tags',
			'<HTML><HEAD><TITLE>Service\n  Unavailable</TITLE></HEAD><BODY><H1>Sorry</H1></BODY></HTML>',
			{ title: 'Service Unavailable', words: 'Sorry' },
		],
		[
			'an unclosed script hides the rest; a tag without ">" ends the page',
			'<p>before</p><script>var a = "<p>never</p>";',
			{ title: undefined, words: 'before' },
		],
		['a tag that never ends', '<p>kept</p><div class="x', { title: undefined, words: 'kept' }],
	])('%s', (_title, page, expected) => {
		expect(readPage(page)).toEqual(expected);
	});

	test('a long title and long text are cut, with an ellipsis', () => {
		const { title, words } = readPage(
			`<title>${'t'.repeat(500)}</title><p>${'word '.repeat(200)}</p>`,
		);
		expect(title).toHaveLength(200);
		expect(title?.endsWith('…')).toBe(true);
		expect(words.length).toBeLessThanOrEqual(300);
	});

	test('nothing past MAX_PAGE_READ characters is read', () => {
		const filler = '<p>x</p>'.repeat(MAX_PAGE_READ / 8);
		expect(readPage(`${filler}<title>late</title>`).title).toBeUndefined();
		expect(readPage(`<title>early</title>${filler}`).title).toBe('early');
	});
});
