/**
 * What `npm run build` puts in dist/: the nodes and the credential, and nothing that only the
 * tests and the sandbox use. The published package verifies deliveries; it never signs them, so a
 * signer (or any sandbox, contract or test module) in dist/ would be dead weight at best.
 */
import { builtinModules } from 'module';
import { existsSync, readdirSync, readFileSync } from 'fs';
import path from 'path';

const root = path.resolve(__dirname, '../..');
const dist = path.join(root, 'dist');

function filesUnder(folder: string): string[] {
	return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(folder, entry.name);
		return entry.isDirectory() ? filesUnder(full) : [full];
	});
}

let scripts: string[];

beforeAll(() => {
	if (!existsSync(path.join(dist, 'nodes')))
		throw new Error('dist/ is missing: run `npm run build` first');
	scripts = filesUnder(dist).filter((file) => file.endsWith('.js'));
});

test('every script in dist/ is built from nodes/ or credentials/, one per module', () => {
	const modules = ['nodes', 'credentials'].flatMap((folder) =>
		filesUnder(path.join(root, folder)).filter((file) => file.endsWith('.ts')),
	);
	expect(scripts).toHaveLength(modules.length);
	const foreign = scripts
		.map((file) => path.relative(dist, file).split(path.sep).join('/'))
		.filter(
			(file) =>
				!/^(nodes|credentials)\//.test(file) ||
				!existsSync(path.join(root, file.replace(/\.js$/, '.ts'))),
		);
	expect(foreign).toEqual([]);
});

test('dist/ holds no delivery signer and no sandbox, contract or test code', () => {
	const offending: string[] = [];
	for (const file of scripts) {
		const text = readFileSync(file, 'utf8');
		for (const marker of [
			'signWebhookPayload',
			'deliverySignatureHeaders',
			'standardWebhooksSignature',
			'sandbox/',
			'contract/',
			'describe(',
			'jest',
		]) {
			if (text.includes(marker)) offending.push(`${path.relative(dist, file)}: ${marker}`);
		}
	}
	expect(offending).toEqual([]);
});

test('dist/ scripts require only n8n-workflow, Node built-ins and each other', () => {
	const builtins = new Set(builtinModules);
	const outside: string[] = [];
	for (const file of scripts) {
		for (const [, target] of readFileSync(file, 'utf8').matchAll(/require\("([^"]+)"\)/g)) {
			if (target.startsWith('.')) {
				const resolved = path.resolve(path.dirname(file), target);
				if (!resolved.startsWith(dist + path.sep))
					outside.push(`${path.relative(dist, file)} → ${target}`);
			} else if (target !== 'n8n-workflow' && !builtins.has(target.replace(/^node:/, ''))) {
				outside.push(`${path.relative(dist, file)} → ${target}`);
			}
		}
	}
	expect(outside).toEqual([]);
});
