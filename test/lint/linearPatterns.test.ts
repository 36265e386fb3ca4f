/**
 * Every regular expression in nodes/ and credentials/ runs in time linear in its input (issue 37,
 * finding 1 and 2: an email pattern and a Link-header pattern backtracked, and one long value froze
 * n8n for seconds). Each literal is found with TypeScript's own scanner, then fed 100,000
 * characters of every character it names and of the usual separators, alone and in pairs, each
 * followed by a character that makes it fail. A linear pattern reads such an input in well under a
 * millisecond; a backtracking one needs seconds to hours. The bound sits far from both, so a busy
 * machine cannot trip it.
 */
import { readdirSync, readFileSync } from 'fs';
import path from 'path';
import ts from 'typescript';

const root = path.resolve(__dirname, '../..');
const LENGTH = 100_000;
/** For any one input; a quadratic pattern on 100 KB needs seconds, a linear one well under 1 ms. */
const BOUND_MS = 1_000;

function sources(dir: string): string[] {
	return (
		readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
			.filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
			.map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
			// eslintConfig.test.ts writes short-lived probe files there while this suite may run.
			.filter((file) => !file.split(path.sep).some((part) => part.startsWith('lint-probe-')))
	);
}

interface Found {
	file: string;
	source: string;
	pattern: RegExp;
}

/** Regex literals, and the patterns of `={{ … }}` expressions that n8n evaluates (credentials). */
function patternsIn(file: string): Found[] {
	const text = readFileSync(path.join(root, file), 'utf8');
	const found: Found[] = [];
	const visit = (node: ts.Node) => {
		if (ts.isRegularExpressionLiteral(node)) {
			const literal = node.text;
			const close = literal.lastIndexOf('/');
			found.push({
				file,
				source: literal,
				// Without `g` and `y`: every test starts afresh at the first character.
				pattern: new RegExp(literal.slice(1, close), literal.slice(close + 1).replace(/[gy]/g, '')),
			});
		}
		if (ts.isStringLiteral(node) && node.text.startsWith('={{')) {
			const inner = /\.replace\(\/(.+?)\/([a-z]*),/.exec(node.text);
			if (inner) found.push({ file, source: inner[0], pattern: new RegExp(inner[1], inner[2]) });
		}
		ts.forEachChild(node, visit);
	};
	visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
	return found;
}

const patterns = [...sources('nodes'), ...sources('credentials')].flatMap(patternsIn);

/** Characters worth repeating for a pattern: its own literal characters and the usual separators. */
function worstCharacters(source: string): string[] {
	const own = source.replace(/\\[dDsSwWbB]/g, '').replace(/[\\^$|?*+()[\]{}]/g, '');
	return [...new Set([...own, ...' \t.@/<>,;=:"\'-_a0#%&?'])];
}

function adversarialInputs(source: string): string[] {
	const characters = worstCharacters(source);
	const inputs: string[] = [];
	for (const first of characters) {
		inputs.push(first.repeat(LENGTH), `${first.repeat(LENGTH)}\u0000`);
		for (const second of characters.slice(0, 6))
			if (second !== first) inputs.push(`${(first + second).repeat(LENGTH / 2)}\u0000`);
	}
	inputs.push(`a@${'.'.repeat(LENGTH)}@`, `${'<'.repeat(LENGTH)}>`, `${'/'.repeat(LENGTH)}x`);
	return inputs;
}

test('the scanner finds the patterns (the email, Link and Base URL checks among them)', () => {
	expect(patterns.length).toBeGreaterThan(40);
	expect(patterns.some(({ file }) => file.includes('credentials/'))).toBe(true);
});

test.each(patterns.map((found) => [`${found.file}: ${found.source}`, found] as const))(
	'%s runs in linear time on 100 KB of its worst characters',
	(_name, { source, pattern }) => {
		let slowest = 0;
		for (const input of adversarialInputs(source)) {
			// A busy machine can pause any one run; a backtracking pattern is slow on every try.
			let fastest = Infinity;
			for (let attempt = 0; attempt < 3 && fastest >= BOUND_MS; attempt++) {
				const started = performance.now();
				pattern.test(input);
				fastest = Math.min(fastest, performance.now() - started);
			}
			slowest = Math.max(slowest, fastest);
		}
		expect(slowest).toBeLessThan(BOUND_MS);
	},
);
