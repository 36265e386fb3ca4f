/**
 * The README is for n8n users: short, every link and picture present, and every picture one that
 * a real-n8n test takes of a setup it checks (e2e/*Screenshot.e2e.test.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

test('the README is at most 1,500 words', () => {
	expect(readme.split(/\s+/).filter(Boolean).length).toBeLessThanOrEqual(1500);
});

test('every relative link and picture of the README exists', () => {
	const targets = [...readme.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)]
		.map((match) => match[1])
		.filter((target) => !/^[a-z]+:/.test(target));
	expect(targets.length).toBeGreaterThan(5);
	expect(targets.filter((target) => !existsSync(path.join(root, target)))).toEqual([]);
});

test('every picture of the README is taken by a screenshot test in real n8n', () => {
	const pictures = [...readme.matchAll(/!\[[^\]]*\]\(docs\/images\/([^)]+\.png)\)/g)].map(
		(match) => match[1],
	);
	const e2e = path.join(root, 'e2e');
	const screenshotTests = readdirSync(e2e)
		.filter((file) => /Screenshot\.e2e\.test\.ts$/.test(file))
		.map((file) => readFileSync(path.join(e2e, file), 'utf8'))
		.join('\n');
	expect(pictures.length).toBeGreaterThan(2);
	expect(pictures.filter((picture) => !screenshotTests.includes(`'${picture}'`))).toEqual([]);
});
